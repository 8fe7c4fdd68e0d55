"""`readworthy action`: the entry point the Docker image runs inside GitHub Actions.

Inputs read (kebab-case, as in action.yml; a Docker action receives `INPUT_<NAME>` upper-cased
with hyphens kept, e.g. `INPUT_GITHUB-TOKEN`, which os.environ can read but a shell cannot):

    github-token        token for reads and the comment (fallback: GITHUB_TOKEN); also GitHub Models' key
    openai-api-key      model key (fallback: OPENAI_API_KEY); empty -> GitHub Models (endpoint.py)
    openai-base-url     OpenAI-compatible endpoint (fallback: OPENAI_BASE_URL)
    github-models       false: no GitHub Models when there is no key (the heuristic, labelled)
    github-models-plan  free (default) | pro | business | enterprise: whose published limits apply
    github-models-limits  JSON overrides of those limits {"input_tokens": N, "concurrent": N, ...}
    github-models-paid  true: paid GitHub Models use, priced per token unit (cost-usd, max-cost)
    model, language (en|zh-CN), budget
    mode                review (default) | digest | catch-up (upgrade queued PRs to model analyses)
    model-budget        model requests a day for the whole repository (default: GitHub Models' free
                        day limit less a fifth; 0 = none kept); needs `contents: write` (git refs)
    pr-number           workflow_dispatch: one number or a comma/space separated list
    all-open            workflow_dispatch: true reviews every open PR (at most MAX_ALL_OPEN)
    trigger-label       label that re-runs a review (default `readworthy`); removed afterwards
    force               true: ignore the stored analysis
    verdict-labels      true: set readworthy:deep-read|skim|skip
    check-run           false: no `readworthy` check run on the PR's head commit (default true)
    check-annotations   start-here marks in the diff (the check run's annotations; default 5, 0 = none)
    fail-on-error       true: a failed review fails the step (default false)
    show-prompt         true: print the packed prompt in a log group (secrets stay masked)
    own-login           login that authors our comments when the token cannot tell
    azure-endpoint, azure-deployment, azure-api-version
    model-timeout       seconds for the whole model step, retries included (default 120)
    price-table         JSON {"MODEL": [usd_per_1M_in, usd_per_1M_out]}
    model-for           everyone (default) | contributors | members: who gets a model analysis
    max-cost            USD the run may spend on the model; then the heuristic (review mode)
    max-analyses-per-day  model analyses per PR in 24 h (default 12, 0 = no cap)
    digest-*            passed to digest mode untouched

Environment read: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL,
GITHUB_GRAPHQL_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS, READWORTHY_GITHUB_MODELS(_URL).

Outputs: verdict (the team's when a maintainer gave one), comment-id, comment-url (one PR reviewed),
prompt-tokens, completion-tokens, cost-usd (summed over the run), skipped-reason.

Commands (`issue_comment`): the commenter's write access is asked from the permission API first. A
`/readworthy verdict` is acknowledged 👍 once applied; one that does not count (no write access, a
reason that reads as instructions to a model, nothing applied) gets 😕. The run's taste-memory notices
(records skipped, and why) become notice annotations and a job-summary section.

Everything the runner shows comes from here, and only from here: annotations (`::warning::` …),
log groups, secret masks, outputs, and untrusted text (a PR's prompt) fenced by
`::stop-commands::` so that none of it can act as a workflow command. The stages below report
what happened in their outcomes and never print to the runner themselves.

Exit codes: 0 success, skip, or a write GitHub refused (locked, archived, read-only token: a
warning and the digest in the job summary); 1 invalid inputs (always), or a failed review when
`fail-on-error` is true (otherwise a warning and 0, so an outage does not block merges);
3 a bug (traceback kept).
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from actions_toolkit import core  # type: ignore[import-untyped]

from . import publish
from .analyze.client import make_openai_client
from .analyze.spending import cost_gate
from .config import Settings, action_settings, read_inputs
from .errors import ConfigError, EventError, PublishError, ReadworthyError
from .event import Event, parse_event
from .gather.github_api import GitHub, make_github, own_login
from .gather.memory import MemoryReader
from .gather.rest import has_write_access, open_pull_numbers
from .memory.record import steering
from .models import Prompt, Verdict
from .render.safe_markdown import clean_line

if TYPE_CHECKING:
    from .digest.models import DigestResult
from .review import GivenVerdict, Request, ReviewOutcome, ReviewSession, review_one
from .spend.catch_up import run_catch_up
from .spend.defaults import make_budget, per_minute

log = logging.getLogger(__name__)

MAX_ALL_OPEN = 20
REFUSED = "confused"  # the reaction to a /readworthy verdict that did not count
OUTPUT_NAMES = (
    "verdict",
    "comment-id",
    "comment-url",
    "prompt-tokens",
    "completion-tokens",
    "cost-usd",
    "skipped-reason",
)


# --------------------------------------------------------------------------- the run


@dataclass
class RunResult:
    outcomes: list[ReviewOutcome] = field(default_factory=list)
    skipped_reason: str = ""
    skipped_message: str = ""
    memory_notices: list[str] = field(default_factory=list)  # taste-memory comments skipped, and why
    notes: list[str] = field(default_factory=list)  # what the run as a whole did (the catch-up run's tally)


def run_action(environ: Mapping[str, str], *, loopback_models: bool = False) -> int:
    """Run the action for the current event. Returns the process exit code. `loopback_models` is for the
    test suite's in-process runs only (config.action_settings); the image's entry point never passes it."""
    inputs = read_inputs(environ)
    summary_path = environ.get("GITHUB_STEP_SUMMARY")
    try:
        settings = action_settings(inputs, environ, loopback_models=loopback_models)
    except ConfigError as exc:
        return _invalid_inputs(exc, summary_path)
    _mask_secrets(settings, environ)
    try:
        name, payload = _read_event(environ)
        event = parse_event(name, payload, inputs)
        if event.kind == "digest":
            return _run_digest(settings, inputs, environ)
        if event.kind == "catch-up":
            result = _run_catch_up(event, settings, environ)
        elif event.kind == "skip":
            result = RunResult(skipped_reason=event.skip_code, skipped_message=event.reason)
        else:
            result = _run_review(event, settings, environ)
    except ConfigError as exc:
        return _invalid_inputs(exc, summary_path)
    except ReadworthyError as exc:
        return _failed(str(exc), settings, summary_path)
    _report(result, environ)
    failed = [o for o in result.outcomes if o.status == "failed" or model_failed(o)]
    return 1 if failed and settings.fail_on_error else 0


def model_failed(outcome: ReviewOutcome) -> bool:
    """This run asked the model and could not use its answer: a labelled heuristic stood in, or the
    previous analysis was kept. With `fail-on-error: true` that fails the step like any failed review."""
    return bool(outcome.model_failure)


def _invalid_inputs(exc: ConfigError, summary_path: str | None, heading: str = "readworthy") -> int:
    """Invalid inputs always fail the step: nothing can run until the workflow is fixed."""
    core.error(f"readworthy: {exc}")
    publish.write_job_summary(f"## {heading}\n\n❌ Invalid inputs: {exc}", summary_path)
    return 1


def _failed(message: str, settings: Settings, summary_path: str | None, heading: str = "readworthy") -> int:
    """The one fail-on-error policy: a failed run fails the step only when asked to (an outage of
    GitHub or the model must not block merges by default); it is always in the job summary."""
    publish.write_job_summary(f"## {heading}\n\n❌ {message}", summary_path)
    if settings.fail_on_error:
        core.error(f"readworthy: {message}")
        return 1
    core.warning(f"readworthy: {message} (not failing the job: fail-on-error is false)")
    return 0


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


def _repo(event: Event, environ: Mapping[str, str]) -> str:
    repo = environ.get("GITHUB_REPOSITORY") or event.repo
    if not repo or "/" not in repo:
        raise EventError("GITHUB_REPOSITORY is not set (expected OWNER/NAME)")
    return repo


def _open_prs(gh: GitHub, repo: str) -> tuple[int, ...]:
    numbers, capped = open_pull_numbers(gh, repo, MAX_ALL_OPEN)
    if capped:
        core.notice(f"readworthy: all-open is capped at the {MAX_ALL_OPEN} newest open pull requests")
    return tuple(numbers)


def _react(gh: GitHub, repo: str, event: Event, content: str) -> None:
    if event.comment_id is None:
        return
    try:
        publish.react(gh, repo, event.pr_numbers[0], event.comment_id, content)
    except PublishError as exc:
        log.warning("could not react to the command: %s", exc)


def _command_refused(gh: GitHub, repo: str, event: Event) -> RunResult | None:
    """The permission check of a /readworthy command (and of a verdict's reason); None when it may run.
    A refused verdict gets a 😕 reaction, so the person knows it did not count; the other commands
    stay silent for readers (a reader's comment causes no write)."""
    if not has_write_access(gh, repo, event.commenter):
        if event.command == "verdict":
            _react(gh, repo, event, REFUSED)
        why = f"{event.commenter or 'the commenter'} has no write access to {repo}; /readworthy needs write access"
        return RunResult(skipped_reason="no-permission", skipped_message=why)
    if event.command == "verdict" and steering(event.verdict_reason):
        _react(gh, repo, event, REFUSED)
        why = ("the verdict's reason reads as instructions to a model, so it would be skipped from the taste "
               "memory; give the verdict again with a plain one-line reason")
        return RunResult(skipped_reason="unusable-reason", skipped_message=why)
    if event.command != "verdict":
        _react(gh, repo, event, "eyes")
    return None


def _given(event: Event) -> GivenVerdict | None:
    if event.command != "verdict":
        return None
    return GivenVerdict(Verdict(event.team_verdict), event.commenter, clean_line(event.verdict_reason, 200))


def _run_review(event: Event, settings: Settings, environ: Mapping[str, str]) -> RunResult:
    repo = _repo(event, environ)
    gh = make_github(settings)
    if event.name == "issue_comment":
        refused = _command_refused(gh, repo, event)
        if refused is not None:
            return refused
        if event.language:
            settings = settings.model_copy(update={"language": event.language})
    session = _session(gh, settings, repo)
    numbers = event.pr_numbers or (_open_prs(gh, repo) if event.all_open else ())
    if not numbers:
        return RunResult(skipped_reason="nothing-to-do", skipped_message="no pull request to review")
    labeled = event.action == "labeled" and event.force
    request = Request(
        force=event.force or settings.force,
        explicit=event.name in ("workflow_dispatch", "issue_comment") or labeled,
        remove_label=event.label if labeled else "",
        pr=event.pr,
        given=_given(event),
    )
    result = RunResult()
    for number in numbers:
        core.start_group(f"readworthy: {repo}#{number}")
        try:
            outcome = review_one(session, number, request)
            for problem in outcome.config_problems:
                core.warning(f"readworthy: {problem}")  # an annotation: the maintainer must see a broken config
        finally:
            core.end_group()
        if settings.show_prompt and outcome.prompt is not None:
            _show_prompt(outcome.prompt)
        _log_outcome(outcome)
        result.outcomes.append(outcome)
    if request.given is not None:
        applied = any(o.report is not None and o.report.team is not None
                      and o.status in ("published", "unchanged", "cached") for o in result.outcomes)
        _react(gh, repo, event, "+1" if applied else REFUSED)
    memory = session.memory.read if session.memory is not None else None
    result.memory_notices = list(memory.notices) if memory is not None else []
    for notice in result.memory_notices:
        core.notice(f"readworthy: {notice}")
    return result


def _session(gh: GitHub, settings: Settings, repo: str) -> ReviewSession:
    login = settings.own_login or own_login(gh, settings)
    client = make_openai_client(settings)
    # Action runs take the analysis lease (spend/lease.py): two triggers' runs of one PR pay one model call.
    return ReviewSession(gh, client, repo, settings, login, cost_gate(settings, client is not None),
                         MemoryReader(gh, settings, repo, login), make_budget(gh, settings, repo, client is not None),
                         leases=True)


def _run_catch_up(event: Event, settings: Settings, environ: Mapping[str, str]) -> RunResult:
    """`mode: catch-up` (a schedule): upgrade the queued PRs' comments to model analyses (spend/catch_up.py)."""
    session = _session(make_github(settings), settings, _repo(event, environ))
    caught = run_catch_up(session, per_minute(settings))
    if session.budget is None:
        return RunResult(skipped_reason="no-budget", skipped_message=caught.stopped)
    for outcome in caught.outcomes:
        _log_outcome(outcome)
    notes = [f"Catch-up: {caught.queued} pull request(s) queued; {len(caught.upgraded)} now carry a model "
             f"analysis ({caught.model_calls} model call(s)); {len(caught.left)} still queued."]
    if caught.stopped:
        notes.append(f"Stopped: {caught.stopped}.")
        core.notice(f"readworthy: catch-up stopped: {caught.stopped}")
    return RunResult(outcomes=caught.outcomes, notes=notes)


def _show_prompt(prompt: Prompt) -> None:
    """The exact messages, in a collapsed log group (secrets were redacted before packing). PR text
    inside cannot run workflow commands: the runner ignores them between ::stop-commands::TOKEN
    and ::TOKEN::, and the token is new each time, so the text cannot end that block itself."""
    token = secrets.token_hex(16)
    core.start_group(f"readworthy: prompt ({prompt.tokens} tokens of {prompt.budget})")
    print(f"::stop-commands::{token}")
    try:
        for message in prompt.messages:
            print(f"--- {message.role}")
            print(message.content)
    finally:
        print(f"::{token}::")
        sys.stdout.flush()
        core.end_group()


def _log_outcome(outcome: ReviewOutcome) -> None:
    n = outcome.number
    if outcome.check_problem:
        core.notice(f"readworthy: #{n}: no check run on the pull request: {outcome.check_problem}")
    if outcome.memory_problem:
        core.warning(f"readworthy: #{n}: the team's verdict was not kept in the taste memory: "
                     f"{outcome.memory_problem}")
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
        verdict = outcome.report.verdict.value if outcome.report else "?"
        how = "reused (inputs unchanged, no model call)" if outcome.cached else outcome.status
        core.info(f"readworthy: #{n}: {verdict}, comment {how}: {outcome.comment_url}")


# --------------------------------------------------------------------------- summary and outputs


def _summary(result: RunResult) -> str:
    lines = ["## readworthy", ""]
    if result.skipped_reason:
        lines.append(f"Skipped: {result.skipped_message} (`{result.skipped_reason}`).")
    lines += [*result.notes, ""] if result.notes else []
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
            if o.report is not None and o.report.model_withheld and not o.cached:
                lines.append(f"ℹ️ Model not asked: {o.report.model_withheld}")
            if o.check is not None:
                lines.append(f"Check run ({o.check.action}) on the head commit: {o.check.url}")
            elif o.check_problem:
                lines.append(f"ℹ️ No check run on the pull request: {o.check_problem}")
            if o.memory_url:
                lines.append(f"🧭 The team's verdict is kept in the taste memory: {o.memory_url}")
            if o.memory_problem:
                lines.append(f"⚠️ The team's verdict is on the PR but not in the taste memory: {o.memory_problem}")
            lines += ["", o.markdown]
        lines.append("")
    if result.memory_notices:
        lines += ["### Taste memory", ""] + [f"- {notice}" for notice in result.memory_notices] + [""]
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
        "verdict": single.report.verdict.value if single and single.report else "",
        "comment-id": single.comment.id if single and single.comment else "",
        "comment-url": single.comment_url if single else "",
        "prompt-tokens": prompt_tokens,
        "completion-tokens": completion_tokens,
        "cost-usd": f"{cost:.6f}" if cost else ("0" if not prompt_tokens else ""),
        "skipped-reason": skipped,
    }


def _report(result: RunResult, environ: Mapping[str, str]) -> None:
    if result.skipped_reason:
        core.notice(f"readworthy: skipped: {result.skipped_message}")
    publish.write_job_summary(_summary(result), environ.get("GITHUB_STEP_SUMMARY"))
    set_outputs(_outputs(result), environ.get("GITHUB_OUTPUT"))


def set_outputs(outputs: Mapping[str, str | int | float | None], output_path: str | None,
                names: tuple[str, ...] = OUTPUT_NAMES) -> None:
    """Write the step outputs through actions_toolkit (it writes $GITHUB_OUTPUT with a safe delimiter)."""
    if not output_path or os.environ.get("GITHUB_OUTPUT") != output_path:
        # actions_toolkit reads os.environ itself; outside a runner there is nowhere to write.
        log.debug("GITHUB_OUTPUT not set: outputs not written")
        return
    for name in names:
        value = outputs.get(name)
        core.set_output(name, "" if value is None else str(value))


# --------------------------------------------------------------------------- digest mode


def _run_digest(settings: Settings, inputs: Mapping[str, str], environ: Mapping[str, str]) -> int:
    """`mode: digest` (schedule, workflow_dispatch). Exit 1 only for invalid inputs or with fail-on-error."""
    from .digest.models import DEFAULT_LABEL
    from .digest.publish import previous_digest_end
    from .digest.run import deliver, request_from_inputs, run_digest

    summary_path = environ.get("GITHUB_STEP_SUMMARY")
    repo = environ.get("GITHUB_REPOSITORY", "")
    now = datetime.now(UTC)
    heading = "readworthy digest"
    try:
        if repo.count("/") != 1:
            raise ConfigError("GITHUB_REPOSITORY is not set (expected OWNER/NAME)")
        gh = make_github(settings)
        login = settings.own_login or own_login(gh, settings)
        label = inputs.get("digest-label") or DEFAULT_LABEL
        previous = None if inputs.get("digest-since") else previous_digest_end(gh, repo, label, login)
        request = request_from_inputs(inputs, repo, now, previous)
        client = None if request.cached_only else make_openai_client(settings)
        core.start_group(f"readworthy: digest of {repo}")
        try:
            result = run_digest(gh, settings, request, client, own_login=login, now=now,
                                budget=make_budget(gh, settings, repo, client is not None))
        finally:
            core.end_group()
    except ConfigError as exc:
        return _invalid_inputs(exc, summary_path, heading)
    except ReadworthyError as exc:
        return _failed(str(exc), settings, summary_path, heading)
    failure = deliver(gh, settings, result, login, summary_path=summary_path)
    outputs = _digest_outputs(result)
    set_outputs(outputs, environ.get("GITHUB_OUTPUT"), tuple(outputs))
    for warning in result.warnings:
        if warning != failure:
            core.warning(f"readworthy: {warning}")
    # The digest's errors, as in review mode: a warning, or with fail-on-error a failed step (issue 23).
    problems = [failure] if failure else []
    problems += result.errors()
    return _failed("; ".join(problems), settings, summary_path, heading) if problems else 0


def _digest_outputs(result: DigestResult) -> dict[str, str | int | float | None]:
    return {
        "digest-url": result.published_url,
        "prompt-tokens": result.usage.prompt_tokens,
        "completion-tokens": result.usage.completion_tokens,
        "cost-usd": f"{result.usage.cost_usd:.6f}",
    }
