"""`readworthy action`: the entry point the Docker image runs inside GitHub Actions.

Inputs read (kebab-case, as in action.yml; a Docker action receives `INPUT_<NAME>` upper-cased
with hyphens kept, e.g. `INPUT_GITHUB-TOKEN`, which os.environ can read but a shell cannot):

    github-token        token for reads and the comment (fallback: GITHUB_TOKEN); also GitHub Models' key
    openai-api-key      model key (fallback: OPENAI_API_KEY); empty -> GitHub Models (endpoint.py)
    openai-base-url     OpenAI-compatible endpoint (fallback: OPENAI_BASE_URL)
    github-models       false: no GitHub Models when there is no key (the heuristic, labelled)
    model, language (en|zh-CN), budget
    mode                review (default) | digest
    pr-number           workflow_dispatch: one number or a comma/space separated list
    all-open            workflow_dispatch: true reviews every open PR (at most MAX_ALL_OPEN)
    trigger-label       label that re-runs a review (default `readworthy`); removed afterwards
    force               true: ignore the stored analysis
    verdict-labels      true: set readworthy:deep-read|skim|skip
    fail-on-error       true: a failed review fails the step (default false)
    show-prompt         true: print the packed prompt in a log group (secrets stay masked)
    own-login           login that authors our comments when the token cannot tell
    azure-endpoint, azure-deployment, azure-api-version
    model-timeout       seconds for the whole model step, retries included (default 120)
    price-table         JSON {"MODEL": [usd_per_1M_in, usd_per_1M_out]}
    digest-*            passed to digest mode untouched

Environment read: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL,
GITHUB_GRAPHQL_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS, READWORTHY_GITHUB_MODELS(_URL).

Outputs: verdict, comment-id, comment-url (one PR reviewed), prompt-tokens, completion-tokens,
cost-usd (summed over the run), skipped-reason.

Exit codes: 0 success, skip, or a write GitHub refused (locked, archived, read-only token: a
warning and the digest in the job summary); 1 invalid inputs (always), or a failed review when
`fail-on-error` is true (otherwise a warning and 0, so an outage does not block merges);
3 a bug (traceback kept).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

import github
from actions_toolkit import core  # type: ignore[import-untyped]

from . import publish
from .analyze.client import make_openai_client
from .config import Settings, build_settings, model_env
from .errors import ConfigError, EventError, GitHubError, PublishError, ReadworthyError
from .event import Event, parse_event
from .gather import github_api
from .review import Request, ReviewOutcome, review_one

log = logging.getLogger(__name__)

MAX_ALL_OPEN = 20
WRITE_PERMISSIONS = ("admin", "maintain", "write")

_BOOL_INPUTS = {"force": "force", "verdict-labels": "verdict_labels", "fail-on-error": "fail_on_error",
                "show-prompt": "show_prompt", "github-models": "github_models"}
_TEXT_INPUTS = {"model": "model", "language": "language", "budget": "budget", "trigger-label": "trigger_label",
                "own-login": "own_login", "azure-endpoint": "azure_endpoint", "azure-deployment": "azure_deployment",
                "azure-api-version": "azure_api_version", "model-timeout": "model_timeout"}


# --------------------------------------------------------------------------- inputs and settings


def read_inputs(environ: Mapping[str, str]) -> dict[str, str]:
    """INPUT_GITHUB-TOKEN -> {"github-token": ...}; underscores are accepted for hyphens."""
    inputs: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("INPUT_") and len(key) > 6:
            inputs[key[6:].lower().replace("_", "-")] = value.strip()
    return inputs


def _bool(inputs: Mapping[str, str], name: str) -> bool | None:
    raw = inputs.get(name, "")
    if raw == "":
        return None
    if raw.lower() in ("true", "yes", "1", "on"):
        return True
    if raw.lower() in ("false", "no", "0", "off"):
        return False
    raise ConfigError(f"input {name}: {raw[:40]!r} is not a boolean; use `true` or `false`")


def _price_table(raw: str) -> dict[str, tuple[float, float]] | None:
    if not raw:
        return None
    try:
        data = json.loads(raw)
        table = {str(k): (float(v[0]), float(v[1])) for k, v in data.items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        raise ConfigError(
            'input price-table: expected a JSON object like {"my-model": [0.4, 1.6]} (USD per 1M tokens in, out)'
        ) from None
    return table


def settings_from_environment(inputs: Mapping[str, str], environ: Mapping[str, str]) -> Settings:
    """One Settings for the whole run, from the inputs and the standard environment."""
    values: dict[str, object] = {
        "github_token": inputs.get("github-token") or environ.get("GITHUB_TOKEN"),
        "openai_api_key": inputs.get("openai-api-key") or environ.get("OPENAI_API_KEY"),
        "openai_base_url": inputs.get("openai-base-url") or environ.get("OPENAI_BASE_URL"),
        "github_api_url": environ.get("GITHUB_API_URL"),
        "github_graphql_url": environ.get("GITHUB_GRAPHQL_URL"),
        "price_table": _price_table(inputs.get("price-table", "")),
        "github_models_url": model_env(environ)["github_models_url"],
        "run_from": "action",
    }
    for name, fld in _TEXT_INPUTS.items():
        values[fld] = inputs.get(name)
    for name, fld in _BOOL_INPUTS.items():
        values[fld] = _bool(inputs, name)
    if values["github_models"] is None:  # READWORTHY_GITHUB_MODELS, as from a terminal
        values["github_models"] = model_env(environ)["github_models"]
    return build_settings(values)


def _mask_secrets(settings: Settings, environ: Mapping[str, str]) -> None:
    # Only a runner turns ::add-mask:: into masking; elsewhere the command would print the secret.
    if environ.get("GITHUB_ACTIONS") != "true":
        return
    for secret in (settings.github_token, settings.openai_api_key):
        if secret is not None and secret.get_secret_value():
            core.set_secret(secret.get_secret_value())


def _read_event(environ: Mapping[str, str]) -> tuple[str, str]:
    name = environ.get("GITHUB_EVENT_NAME", "")
    path = environ.get("GITHUB_EVENT_PATH", "")
    if not name or not path:
        raise EventError(
            "GITHUB_EVENT_NAME / GITHUB_EVENT_PATH are not set: `readworthy action` runs inside GitHub Actions; "
            "from a terminal use `readworthy pr OWNER/REPO#N`"
        )
    try:
        with open(path, encoding="utf-8") as fh:
            return name, fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"cannot read the event payload {path}: {exc}") from None


# --------------------------------------------------------------------------- the run


@dataclass
class RunResult:
    outcomes: list[ReviewOutcome] = field(default_factory=list)
    skipped_reason: str = ""
    skipped_message: str = ""


def run_action(environ: Mapping[str, str]) -> int:
    """Run the action for the current event. Returns the process exit code."""
    inputs = read_inputs(environ)
    summary_path = environ.get("GITHUB_STEP_SUMMARY")
    try:
        settings = settings_from_environment(inputs, environ)
    except ConfigError as exc:
        core.error(f"readworthy: {exc}")
        publish.write_job_summary(f"## readworthy\n\n❌ Invalid inputs: {exc}", summary_path)
        return 1
    _mask_secrets(settings, environ)
    try:
        name, payload = _read_event(environ)
        event = parse_event(name, payload, inputs)
        if event.kind == "digest":
            return _run_digest(settings, inputs, environ)
        if event.kind == "skip":
            result = RunResult(skipped_reason=event.skip_code, skipped_message=event.reason)
        else:
            result = _run_review(event, settings, environ)
    except ConfigError as exc:
        core.error(f"readworthy: {exc}")
        publish.write_job_summary(f"## readworthy\n\n❌ Invalid inputs: {exc}", summary_path)
        return 1
    except ReadworthyError as exc:
        return _fail(str(exc), settings, summary_path)
    _report(result, settings, environ)
    failed = [o for o in result.outcomes if o.status == "failed" or model_failed(o)]
    if failed and settings.fail_on_error:
        return 1
    return 0


def model_failed(outcome: ReviewOutcome) -> bool:
    """This run asked the model and could not use its answer: a labelled heuristic stood in, or the
    previous analysis was kept. With `fail-on-error: true` that fails the step like any failed review."""
    return bool(outcome.model_failure)


def _fail(message: str, settings: Settings, summary_path: str | None) -> int:
    publish.write_job_summary(f"## readworthy\n\n❌ {message}", summary_path)
    if settings.fail_on_error:
        core.error(f"readworthy: {message}")
        return 1
    core.warning(f"readworthy: {message} (not failing the job: fail-on-error is false)")
    return 0


def _run_digest(settings: Settings, inputs: Mapping[str, str], environ: Mapping[str, str]) -> int:
    try:
        from .digest.run import run_digest_action
    except ImportError:
        core.notice("readworthy: digest mode is not available in this version; nothing to do")
        publish.write_job_summary("## readworthy\n\nDigest mode is not available in this version.",
                                  environ.get("GITHUB_STEP_SUMMARY"))
        return 0
    code: int = run_digest_action(settings, inputs, environ)
    return code


def _repo(event: Event, environ: Mapping[str, str]) -> str:
    repo = environ.get("GITHUB_REPOSITORY") or event.repo
    if not repo or "/" not in repo:
        raise EventError("GITHUB_REPOSITORY is not set (expected OWNER/NAME)")
    return repo


def has_write_access(gh: github.Github, repo: str, login: str) -> bool:
    """The collaborator permission API, not the payload's author_association (a hint, not an answer)."""
    if not login:
        return False
    try:
        permission = publish.lazy_repo(gh, repo).get_collaborator_permission(login)
    except github.UnknownObjectException:
        return False  # not a collaborator
    except github.GithubException as exc:
        raise GitHubError(f"cannot check {login}'s permission on {repo}: GitHub answered {exc.status}") from None
    except publish.TRANSIENT as exc:
        raise GitHubError(f"cannot check {login}'s permission on {repo}: {type(exc).__name__}") from None
    except (KeyError, TypeError, AttributeError):  # PyGithub reading a non-JSON page
        raise GitHubError(f"cannot check {login}'s permission on {repo}: GitHub's answer is not JSON "
                          "(a proxy or login page?); check GITHUB_API_URL") from None
    return permission in WRITE_PERMISSIONS


def _open_prs(gh: github.Github, repo: str) -> tuple[int, ...]:
    try:
        pulls = publish.lazy_repo(gh, repo).get_pulls(state="open", sort="created", direction="desc")
        numbers = []
        for pull in pulls:
            numbers.append(pull.number)
            if len(numbers) >= MAX_ALL_OPEN:
                core.notice(f"readworthy: all-open is capped at the {MAX_ALL_OPEN} newest open pull requests")
                break
    except github.GithubException as exc:
        raise GitHubError(f"cannot list the open pull requests of {repo}: GitHub answered {exc.status}") from None
    return tuple(numbers)


def _run_review(event: Event, settings: Settings, environ: Mapping[str, str]) -> RunResult:
    repo = _repo(event, environ)
    gh = github_api.make_github(settings)
    if event.name == "issue_comment":
        if not has_write_access(gh, repo, event.commenter):
            why = f"{event.commenter or 'the commenter'} has no write access to {repo}; /readworthy needs write access"
            return RunResult(skipped_reason="no-permission", skipped_message=why)
        if event.comment_id is not None:
            try:
                publish.react(gh, repo, event.pr_numbers[0], event.comment_id, "eyes")
            except PublishError as exc:
                log.warning("could not acknowledge the command: %s", exc)
        if event.language:
            settings = settings.model_copy(update={"language": event.language})
    own_login = settings.own_login or github_api.own_login(gh, settings)
    client = make_openai_client(settings)
    numbers = event.pr_numbers or (_open_prs(gh, repo) if event.all_open else ())
    if not numbers:
        return RunResult(skipped_reason="nothing-to-do", skipped_message="no pull request to review")
    labeled = event.action == "labeled" and event.force
    request = Request(
        force=event.force or settings.force,
        explicit=event.name in ("workflow_dispatch", "issue_comment") or labeled,
        remove_label=event.label if labeled else "",
        pr=event.pr,
    )
    result = RunResult()
    for number in numbers:
        core.start_group(f"readworthy: {repo}#{number}")
        try:
            outcome = review_one(gh, client, repo, number, settings, own_login, request)
        finally:
            core.end_group()
        _log_outcome(outcome)
        result.outcomes.append(outcome)
    return result


def _log_outcome(outcome: ReviewOutcome) -> None:
    n = outcome.number
    if outcome.status == "skipped":
        core.notice(f"readworthy: #{n} skipped: {outcome.message}")
    elif outcome.status == "blocked":
        core.warning(f"readworthy: #{n}: {outcome.message} The digest is in this run's job summary.")
    elif outcome.status == "failed":
        core.warning(f"readworthy: #{n} failed: {outcome.message}")
    elif outcome.message:
        core.warning(f"readworthy: #{n}: {outcome.message}")
    elif model_failed(outcome):
        core.warning(f"readworthy: #{n}: the model could not be used ({outcome.model_failure}); "
                     f"a labelled heuristic digest was posted: {outcome.comment_url}")
    else:
        verdict = outcome.report.digest.verdict.value if outcome.report else "?"
        how = "reused (inputs unchanged, no model call)" if outcome.cached else outcome.status
        core.info(f"readworthy: #{n}: {verdict}, comment {how}: {outcome.comment_url}")


# --------------------------------------------------------------------------- summary and outputs


def _summary(result: RunResult) -> str:
    lines = ["## readworthy", ""]
    if result.skipped_reason:
        lines.append(f"Skipped: {result.skipped_message} (`{result.skipped_reason}`).")
    for o in result.outcomes:
        lines.append(f"### #{o.number}")
        if o.status == "skipped":
            lines.append(f"Skipped: {o.message} (`{o.skipped_reason}`).")
        elif o.status == "failed":
            lines.append(f"❌ Failed: {o.message}. Any existing comment was left as it was.")
        else:
            if o.status == "blocked":
                lines.append(f"⚠️ Not posted: {o.message}")
            elif o.message:
                lines.append(f"⚠️ {o.message}")
            elif o.comment_url:
                how = "reused, no model call" if o.cached else o.status
                lines.append(f"Comment ({how}): {o.comment_url}")
            lines += ["", o.markdown]
        lines.append("")
    return "\n".join(lines)


def _outputs(result: RunResult) -> dict[str, str | int | float | None]:
    reviewed = [o for o in result.outcomes if o.report is not None]
    single = reviewed[0] if len(result.outcomes) == 1 and reviewed else None
    prompt_tokens = sum(o.usage.prompt_tokens for o in result.outcomes)
    completion_tokens = sum(o.usage.completion_tokens for o in result.outcomes)
    cost = sum(o.usage.cost_usd for o in result.outcomes)
    skipped = result.skipped_reason
    if not skipped and len(result.outcomes) == 1:
        skipped = result.outcomes[0].skipped_reason
    return {
        "verdict": single.report.digest.verdict.value if single and single.report else "",
        "comment-id": single.comment.id if single and single.comment else "",
        "comment-url": single.comment_url if single else "",
        "prompt-tokens": prompt_tokens,
        "completion-tokens": completion_tokens,
        "cost-usd": f"{cost:.6f}" if cost else ("0" if not prompt_tokens else ""),
        "skipped-reason": skipped,
    }


def _report(result: RunResult, settings: Settings, environ: Mapping[str, str]) -> None:
    if result.skipped_reason:
        core.notice(f"readworthy: skipped: {result.skipped_message}")
    publish.write_job_summary(_summary(result), environ.get("GITHUB_STEP_SUMMARY"))
    publish.set_outputs(_outputs(result), environ.get("GITHUB_OUTPUT"))
