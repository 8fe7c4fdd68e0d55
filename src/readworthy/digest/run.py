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
import math
import os
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import openai

from .. import publish
from ..cli_flags import settings_from_flags
from ..config import Settings
from ..errors import ConfigError, GitHubError, PublishError, UsageError
from ..event import parse_pr_numbers
from ..gather import github_api
from ..gather.github_api import GitHub, rate_left
from ..gather.memory import MemoryReader
from ..gather.repo_config import load_repo_config
from ..gather.rest import default_branch
from ..review import ReviewSession
from ..spend.ledger import ModelBudget
from .budget import ANALYSIS_REQUESTS, LOOKUP_REQUESTS, RequestBudget
from .fill import Context, fill
from .models import (
    DEFAULT_CATEGORY,
    DEFAULT_CONCURRENCY,
    DEFAULT_LABEL,
    PR_STATES,
    PUBLISH_TARGETS,
    DigestRequest,
    DigestResult,
    common_reason,
)
from .publish import publish_digest
from .render import digest_to_json, render_digest
from .select import chunk_numbers, select_prs
from .window import Window, parse_range, parse_since

log = logging.getLogger(__name__)

DEFAULT_SINCE = "24h"
ACTION_DEFAULT_SINCE = "7d"
ACTION_DEFAULT_MAX_PRS = 50


# --------------------------------------------------------------------------- the run


def _with_repo_config(gh: GitHub, repo: str, settings: Settings) -> Settings:
    """The default branch's `.github/readworthy.yml` (skip rules, areas) applied to the whole digest."""
    config, problems = load_repo_config(gh, repo, default_branch(gh, repo))
    for problem in problems:
        log.warning("%s", problem)
    return settings.with_repo_config(config)


def run_digest(
    gh: GitHub,
    settings: Settings,
    request: DigestRequest,
    client: openai.OpenAI | None,
    *,
    own_login: str | None = None,
    progress: Callable[[str], None] | None = None,
    now: datetime | None = None,
    budget: ModelBudget | None = None,
) -> DigestResult:
    """Select, reuse or analyse, and render. Publishing the digest itself is publish_digest(). `budget`: the
    repository's daily model budget (the action's digest counts against it like every other run)."""
    settings = _with_repo_config(gh, request.repo, settings)
    login = own_login if own_login is not None else github_api.own_login(gh, settings)
    selection = select_prs(gh, request, settings)
    log.info("digest of %s: %d PR(s) considered, %d in scope", request.repo, selection.considered,
             len(selection.candidates))
    # The taste memory informs fresh analyses (read once, on the first one); assembling from stored
    # analyses only (`cached_only`) needs none.
    memory = None if request.cached_only else MemoryReader(gh, settings, request.repo, login)
    session = ReviewSession(gh, None if request.cached_only else client, request.repo, settings, login,
                            memory=memory, budget=budget)
    ctx = Context(session, request, progress or log.info)
    filled = fill(ctx, selection.candidates)
    read = memory.read if memory is not None else None
    filled.warnings += read.notices if read is not None else []
    result = DigestResult(
        request=request,
        language=settings.language,
        entries=filled.entries,
        left_out=[*selection.left_out, *filled.left_out],
        considered=selection.considered,
        usage=filled.usage,
        warnings=filled.warnings,
        model_failures=filled.model_failures,
        model_answers=filled.model_answers,
    )
    if filled.model_failures and filled.model_answers:  # all failing is an error (DigestResult.errors)
        result.warnings.append(f"the model could not be used for {len(filled.model_failures)} of "
                               f"{len(filled.model_failures) + filled.model_answers} pull request(s) analysed now "
                               f"({common_reason(filled.model_failures)}); the labelled heuristic, or the "
                               "stored analysis, stands in")
    result.markdown = render_digest(result, now=now)
    return result


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
    # no limit: a backfill's assembly gets every PR its list planned (up to 8 chunks of about 25)
    prs = parse_pr_numbers(args.prs, "--prs", limit=None) if args.prs else ()
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


AUTO_CHUNK_SIZE = 25
MAX_AUTO_CHUNKS = 8


def _list_chunks_flag(chunks: str) -> bool:
    """True for `auto`; a number of at least 1 is False; anything else raises ConfigError."""
    if chunks.strip().lower() == "auto":
        return True
    if not chunks.strip().isdigit() or int(chunks) < 1:
        raise ConfigError(f"--list-chunks: {chunks!r} is neither a number of at least 1 nor `auto`")
    return False


def list_chunks(gh: GitHub, settings: Settings, request: DigestRequest, chunks: str) -> dict[str, Any]:
    """The PR numbers in scope (rules applied), split for a workflow matrix.

    `chunks` is a number, or `auto`: then only as many PRs as GitHub's remaining request budget can
    analyse now are planned (every chunk spends the same repository-wide budget, so more parallel jobs
    do not make more room), in chunks of about AUTO_CHUNK_SIZE; the rest is listed as `deferred`."""
    auto = _list_chunks_flag(chunks)
    settings = _with_repo_config(gh, request.repo, settings)
    selection = select_prs(gh, request, settings)
    numbers = [c.number for c in selection.candidates]
    fits = RequestBudget(gh).affordable(ANALYSIS_REQUESTS + LOOKUP_REQUESTS)
    planned, deferred = numbers, []
    if auto:
        if fits is not None:
            planned, deferred = numbers[:fits], numbers[fits:]
        count = min(MAX_AUTO_CHUNKS, max(1, math.ceil(len(planned) / AUTO_CHUNK_SIZE)))
    else:
        count = int(chunks)
    left = rate_left(gh)
    return {
        "prs": ",".join(map(str, planned)),
        "chunks": [",".join(map(str, part)) for part in chunk_numbers(planned, count)],
        "count": len(planned),
        "deferred": ",".join(map(str, deferred)),
        "rate_remaining": left.remaining,
        "rate_reset": left.reset_at.isoformat() if left.reset_at else None,
        "analyses_affordable_now": fits,
    }


def run_digest_command(args: argparse.Namespace, now: datetime | None = None) -> int:
    """`readworthy digest ...`. Returns the exit code; known failures raise ReadworthyError (cli maps them)."""
    from ..analyze.client import make_openai_client

    moment = now or datetime.now(UTC)
    settings = settings_from_flags(args)
    try:
        request = request_from_args(args, moment)
        if args.list_chunks is not None:
            _list_chunks_flag(args.list_chunks)
    except ConfigError as exc:  # a flag's value or a combination of flags: a usage error, as argparse's
        raise UsageError(str(exc)) from None
    if settings.github_token is None:
        raise ConfigError("GITHUB_TOKEN is not set: export a token that can read the repository")
    gh = github_api.make_github(settings)
    if args.list_chunks is not None:  # a number, or `auto`
        print(json.dumps(list_chunks(gh, settings, request, args.list_chunks), separators=(",", ":")))
        return 0
    client = None if request.cached_only else make_openai_client(settings)
    # A dry run asks GitHub nothing it does not need: without READWORTHY_OWN_LOGIN no stored analysis is
    # trusted (our comments cannot be told from a copy), and every PR in scope is analysed afresh.
    login = settings.own_login or ("" if args.dry_run else github_api.own_login(gh, settings))
    result = run_digest(gh, settings, request, client, own_login=login, now=moment)
    failure = deliver(gh, settings, result, login, output=args.output, fmt=_format(args),
                      summary_path=os.environ.get("GITHUB_STEP_SUMMARY"), stdout=args.output is None)
    for problem in result.errors():
        log.warning("%s", problem)
    if failure:
        log.error("%s", failure)
        return 1
    return 0


def deliver(gh: GitHub, settings: Settings, result: DigestResult, login: str, *, summary_path: str | None,
            output: str | None = None, fmt: str = "markdown", stdout: bool = False) -> str:
    """Publish, then always the job summary and the output file, even when publishing was refused.
    Returns why publishing failed ("" when it did not): the caller decides what that does to the exit code."""
    failure = ""
    try:
        result.published_url = publish_digest(gh, settings, result, login)
    except (PublishError, GitHubError) as exc:
        failure = f"the digest was not published: {exc}"
        result.warnings.append(failure)
    publish.write_job_summary(result.markdown, summary_path)
    if output:
        write_output(result, output, fmt)
    if stdout:
        sys.stdout.write(digest_to_json(result) + "\n" if fmt == "json" else result.markdown)
    _log_summary(result)
    return failure


def _log_summary(result: DigestResult) -> None:
    counts = ", ".join(f"{v.value} {n}" for v, n in result.counts().items())
    left = len([x for x in result.left_out if x.reason != "skipped-rule"])
    log.info("digest: %d listed (%s), %d reused, %d analysed, %d left out; %d model call(s), ~$%.4f%s",
             len(result.entries), counts, result.cached_count, result.analysed_count, left,
             result.usage.model_calls, result.usage.cost_usd,
             f"; published at {result.published_url}" if result.published_url else "")
    for warning in result.warnings:
        log.warning("%s", warning)
