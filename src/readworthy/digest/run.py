"""The digest: a reading list across many PRs, built from (and building) the per-PR analyses.

    select (digest_select) -> reuse or analyse (digest_cache, digest_analyze)
        -> render (digest_render) -> publish (digest_publish) + job summary + output file

Entry points: `readworthy digest ...` (run_digest_command), the action's `mode: digest`
(run_digest_action), and run_digest() for anything else that already holds the clients.
Scale: a day of a busy repository fits one run; for a backfill, `--list-chunks N` splits the
PRs for a workflow matrix whose jobs analyse (and so cache) their chunk, and a final
`--cached-only` run assembles the digest with zero model calls (examples/digest-backfill.yml).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import github
import openai

from .. import publish
from ..config import Settings, terminal_settings
from ..errors import ConfigError, GitHubError, PublishError, ReadworthyError
from ..event import parse_pr_numbers
from ..gather import github_api
from ..gather.repo_config import load_repo_config
from .fill import Context, fill
from .models import (
    DEFAULT_CATEGORY,
    DEFAULT_CONCURRENCY,
    DEFAULT_LABEL,
    PR_STATES,
    PUBLISH_TARGETS,
    DigestRequest,
    DigestResult,
)
from .publish import (
    previous_digest_end,
    publish_discussion,
    publish_issue,
    publish_rolling_issue,
)
from .render import digest_to_json, render_digest
from .select import chunk_numbers, select_prs
from .window import Window, parse_range, parse_since

log = logging.getLogger(__name__)

DEFAULT_SINCE = "24h"
ACTION_DEFAULT_SINCE = "7d"
ACTION_DEFAULT_MAX_PRS = 50


# --------------------------------------------------------------------------- the run


def _with_repo_config(gh: github.Github, repo: str, settings: Settings) -> Settings:
    """The default branch's `.github/readworthy.yml` (skip rules, areas) applied to the whole digest."""
    try:
        branch = gh.get_repo(repo).default_branch
    except (github.GithubException, *publish.TRANSIENT) as exc:
        raise github_api.github_error(exc, f"reading the repository {repo}", settings) from None
    config, problems = load_repo_config(gh, repo, branch)
    for problem in problems:
        log.warning("%s", problem)
    return settings.with_repo_config(config)


def run_digest(
    gh: github.Github,
    settings: Settings,
    request: DigestRequest,
    client: openai.OpenAI | None,
    *,
    own_login: str | None = None,
    progress: Callable[[str], None] | None = None,
    now: datetime | None = None,
) -> DigestResult:
    """Select, reuse or analyse, and render. Publishing the digest itself is publish_digest()."""
    settings = _with_repo_config(gh, request.repo, settings)
    login = own_login if own_login is not None else github_api.own_login(gh, settings)
    selection = select_prs(gh, request, settings)
    log.info("digest of %s: %d PR(s) considered, %d in scope", request.repo, selection.considered,
             len(selection.candidates))
    ctx = Context(gh, None if request.cached_only else client, settings, request, login, progress or log.info)
    filled = fill(ctx, selection.candidates)
    result = DigestResult(
        request=request,
        language=settings.language,
        entries=filled.entries,
        left_out=[*selection.left_out, *filled.left_out],
        considered=selection.considered,
        usage=filled.usage,
        warnings=filled.warnings,
    )
    result.markdown = render_digest(result, now=now)
    return result


def publish_digest(gh: github.Github, settings: Settings, result: DigestResult, own_login: str) -> str:
    """Post the rendered digest to its target; the URL ("" for `none`). Raises PublishError/GitHubError."""
    request = result.request
    zh = result.language == "zh-CN"
    base = f"阅读清单：{request.repo}" if zh else f"Reading list: {request.repo}"
    window = request.window
    dated = f"{base} — {window.end.strftime('%Y-%m-%d')}" if window else base
    if request.publish == "issue":
        return publish_issue(gh, request.repo, dated, result.markdown, request.label)
    if request.publish == "rolling-issue":
        return publish_rolling_issue(gh, request.repo, base, result.markdown, request.label, own_login)
    if request.publish == "discussion":
        return publish_discussion(gh, settings, request.repo, dated, result.markdown,
                                  request.discussion_category or DEFAULT_CATEGORY)
    return ""


def write_output(result: DigestResult, path: str, fmt: str) -> None:
    text = digest_to_json(result) + "\n" if fmt == "json" else result.markdown
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write --output {path}: {exc.strerror}") from None


# --------------------------------------------------------------------------- requests from flags / inputs


def _positive_int(text: str | None, name: str) -> int | None:
    if text in (None, ""):
        return None
    try:
        value = int(str(text))
    except ValueError:
        raise ConfigError(f"{name}: {text!r} is not a whole number") from None
    if value < 1:
        raise ConfigError(f"{name}: must be at least 1")
    return value


def _cost(text: str | None, name: str) -> float | None:
    if text in (None, ""):
        return None
    try:
        value = float(str(text).lstrip("$"))
    except ValueError:
        raise ConfigError(f"{name}: {text!r} is not an amount of US dollars, e.g. 0.50") from None
    if value < 0:
        raise ConfigError(f"{name}: must not be negative")
    return value


def _window_from_since(text: str, now: datetime) -> Window:
    """A duration (`7d`) or a date/timestamp (`2026-06-01`): the window ends now."""
    if text and text.strip()[:1].isdigit() and "-" in text:
        return parse_range(text, None, now)
    return parse_since(text, now)


def _choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise ConfigError(f"{name}: {value!r} is not one of {', '.join(allowed)}")
    return value


def request_from_args(args: argparse.Namespace, now: datetime) -> DigestRequest:
    if args.repo.count("/") != 1:
        raise ConfigError(f"--repo {args.repo!r}: expected OWNER/REPO")
    prs = parse_pr_numbers(args.prs) if args.prs else ()
    if args.prs and not prs:
        raise ConfigError(f"--prs {args.prs!r}: expected PR numbers such as 1,2,3")
    if args.since and args.date_from:
        raise ConfigError("give either --since or --from/--to, not both")
    # With --prs the PRs are given; a window, if any, only labels the digest (a backfill's final job).
    window = None
    if args.date_from:
        window = parse_range(args.date_from, args.date_to, now)
    elif args.date_to:
        raise ConfigError("--to needs --from")
    elif args.since or not prs:
        window = _window_from_since(args.since or DEFAULT_SINCE, now)
    return DigestRequest(
        repo=args.repo,
        window=window,
        prs=tuple(prs),
        state=args.state,
        max_prs=_positive_int(args.max_prs, "--max-prs"),
        max_cost=_cost(args.max_cost, "--max-cost"),
        publish="none" if args.dry_run else args.publish,
        label=args.label or DEFAULT_LABEL,
        discussion_category=args.discussion_category or DEFAULT_CATEGORY,
        cached_only=args.cached_only,
        write_comments=not args.dry_run,
        concurrency=_positive_int(args.concurrency, "--concurrency") or DEFAULT_CONCURRENCY,
    )


def request_from_inputs(
    inputs: Mapping[str, str], repo: str, now: datetime, previous_end: datetime | None
) -> DigestRequest:
    """The action's `digest-*` inputs (see action.yml). Without `digest-since`: since the last digest, else 7d.
    (Backfills over explicit PR lists use the CLI: examples/digest-backfill.yml.)"""
    since = inputs.get("digest-since", "")
    if since:
        window = _window_from_since(since, now)
    elif previous_end is not None and timedelta(0) < now - previous_end <= timedelta(days=366):
        window = Window(previous_end, now)
    else:
        window = parse_since(ACTION_DEFAULT_SINCE, now)
    target = inputs.get("digest-target") or "rolling-issue"
    return DigestRequest(
        repo=repo,
        window=window,
        state=_choice(inputs.get("digest-state") or "merged", (*PR_STATES, "closed"), "digest-state"),  # type: ignore[arg-type]
        max_prs=_positive_int(inputs.get("digest-max-prs") or str(ACTION_DEFAULT_MAX_PRS), "digest-max-prs"),
        max_cost=_cost(inputs.get("digest-max-cost"), "digest-max-cost"),
        publish=_choice(target, PUBLISH_TARGETS, "digest-target"),  # type: ignore[arg-type]
        label=inputs.get("digest-label") or DEFAULT_LABEL,
        discussion_category=inputs.get("digest-discussion-category") or DEFAULT_CATEGORY,
    )


# --------------------------------------------------------------------------- CLI


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    return "json" if args.output and args.output.lower().endswith(".json") else "markdown"


def list_chunks(gh: github.Github, settings: Settings, request: DigestRequest, chunks: int) -> dict[str, Any]:
    """The PR numbers in scope (rules applied), split for a workflow matrix."""
    if chunks < 1:
        raise ConfigError("--list-chunks: must be at least 1")
    settings = _with_repo_config(gh, request.repo, settings)
    selection = select_prs(gh, request, settings)
    numbers = [c.number for c in selection.candidates]
    return {
        "prs": ",".join(map(str, numbers)),
        "chunks": [",".join(map(str, part)) for part in chunk_numbers(numbers, chunks)],
        "count": len(numbers),
    }


def run_digest_command(args: argparse.Namespace, now: datetime | None = None) -> int:
    """`readworthy digest ...`. Returns the exit code; known failures raise ReadworthyError (cli maps them)."""
    from ..analyze.client import make_openai_client

    moment = now or datetime.now(UTC)
    settings = terminal_settings({"language": args.language, "budget": args.budget, "model": args.model})
    if settings.github_token is None:
        raise ConfigError("GITHUB_TOKEN is not set: export a token that can read the repository")
    request = request_from_args(args, moment)
    gh = github_api.make_github(settings)
    if args.list_chunks is not None:
        print(json.dumps(list_chunks(gh, settings, request, args.list_chunks), separators=(",", ":")))
        return 0
    client = None if request.cached_only else make_openai_client(settings)
    login = settings.own_login or github_api.own_login(gh, settings)
    result = run_digest(gh, settings, request, client, own_login=login, now=moment)
    return _deliver(gh, settings, result, login, output=args.output, fmt=_format(args),
                    summary_path=os.environ.get("GITHUB_STEP_SUMMARY"), stdout=args.output is None)


def _deliver(gh: github.Github, settings: Settings, result: DigestResult, login: str, *, output: str | None,
             fmt: str, summary_path: str | None, stdout: bool) -> int:
    """Publish, then always the job summary and the output file, even when publishing was refused."""
    failure = ""
    try:
        result.published_url = publish_digest(gh, settings, result, login)
    except (PublishError, GitHubError) as exc:
        failure = str(exc)
        result.warnings.append(f"the digest was not published: {failure}")
    publish.write_job_summary(result.markdown, summary_path)
    if output:
        write_output(result, output, fmt)
    if stdout:
        sys.stdout.write(digest_to_json(result) + "\n" if fmt == "json" else result.markdown)
    _log_summary(result)
    if failure:
        log.error("%s", failure)
        return 1
    return 0


def _log_summary(result: DigestResult) -> None:
    counts = ", ".join(f"{v.value} {n}" for v, n in result.counts().items())
    left = len([x for x in result.left_out if x.reason != "skipped-rule"])
    log.info("digest: %d listed (%s), %d reused, %d analysed, %d left out; %d model call(s), ~$%.4f%s",
             len(result.entries), counts, result.cached_count, result.analysed_count, left,
             result.usage.model_calls, result.usage.cost_usd,
             f"; published at {result.published_url}" if result.published_url else "")
    for warning in result.warnings:
        log.warning("%s", warning)


# --------------------------------------------------------------------------- the action


def run_digest_action(settings: Settings, inputs: Mapping[str, str], environ: Mapping[str, str]) -> int:
    """`mode: digest` (schedule, workflow_dispatch). Exit 1 only for invalid inputs or with fail-on-error."""
    from actions_toolkit import core

    from ..analyze.client import make_openai_client

    summary_path = environ.get("GITHUB_STEP_SUMMARY")
    repo = environ.get("GITHUB_REPOSITORY", "")
    now = datetime.now(UTC)
    try:
        if repo.count("/") != 1:
            raise ConfigError("GITHUB_REPOSITORY is not set (expected OWNER/NAME)")
        gh = github_api.make_github(settings)
        login = settings.own_login or github_api.own_login(gh, settings)
        label = inputs.get("digest-label") or DEFAULT_LABEL
        previous = None if inputs.get("digest-since") else previous_digest_end(gh, repo, label, login)
        request = request_from_inputs(inputs, repo, now, previous)
        client = None if request.cached_only else make_openai_client(settings)
        core.start_group(f"readworthy: digest of {repo}")
        try:
            result = run_digest(gh, settings, request, client, own_login=login, now=now)
        finally:
            core.end_group()
    except ConfigError as exc:
        core.error(f"readworthy: {exc}")
        publish.write_job_summary(f"## readworthy digest\n\n❌ Invalid inputs: {exc}", summary_path)
        return 1
    except ReadworthyError as exc:
        publish.write_job_summary(f"## readworthy digest\n\n❌ {exc}", summary_path)
        if settings.fail_on_error:
            core.error(f"readworthy: {exc}")
            return 1
        core.warning(f"readworthy: {exc} (not failing the job: fail-on-error is false)")
        return 0
    code = _deliver(gh, settings, result, login, output=None, fmt="markdown", summary_path=summary_path,
                    stdout=False)
    output_path = environ.get("GITHUB_OUTPUT")
    if output_path and os.environ.get("GITHUB_OUTPUT") == output_path:
        core.set_output("digest-url", result.published_url)
        core.set_output("prompt-tokens", str(result.usage.prompt_tokens))
        core.set_output("completion-tokens", str(result.usage.completion_tokens))
        core.set_output("cost-usd", f"{result.usage.cost_usd:.6f}")
    for warning in result.warnings:
        core.warning(f"readworthy: {warning}")
    if code and not settings.fail_on_error:
        return 0
    return code

