"""One pull request, end to end: decide whether to run, gather, reuse or analyse, render, publish.

Shared by `readworthy action` (one or many PRs per event), `readworthy pr` (a terminal) and the
digest. The rules a PR is judged by come from the *base* branch's `.github/readworthy.yml`.
Nothing here writes to the runner's log as annotations: problems and the packed prompt come back
in the outcome, and the entry point shows them its own way.

Cost rule: when our existing comment's hidden state has the same input hash, model,
prompt version and language, the stored Report is reused and the model is not called;
`force` (label, `/readworthy refresh`, input) bypasses that. The hash covers the team's past
corrections that inform this PR, so a new correction of a similar PR is taken into account by
the next run, and an unrelated one changes nothing.
Overlap rule (overlap.py): runs of different triggers may review one PR at once; an analysis of the same
inputs another run began after this one started is reused even when forced, and right before writing
the comment is re-read so that a newer analysis is kept and a verdict written meanwhile is carried.
Right before asking the model, an action run takes the analysis lease of the PR and its inputs
(spend/lease.py): a run that finds another holding it waits for that run's comment and reuses its
analysis instead of paying a second call; the lease is released once the comment is written.
Taste rule: the team's verdict (`/readworthy verdict`) is kept in the hidden state across
re-runs and pushes, beside each new analysis; the label follows the team's verdict.
Safety rule: a failure never replaces or empties the existing comment; a refusal to write
(locked, archived, read-only token) is reported with its fix and the digest goes to the
job summary instead. A PR the event or its info already shows locked is skipped before any work.
"""

from __future__ import annotations

import logging
import re
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import openai
from pydantic import ValidationError

from . import check_run, clock, publish
from .analyze.heuristic import triage
from .analyze.model import analyze
from .analyze.spending import CostGate
from .config import Settings
from .errors import CommentBlocked, GitHubError, PublishError, ReadworthyError
from .event import PullRequestInfo
from .gather.github_api import GitHub
from .gather.memory import MemoryReader
from .gather.pull import gather_pr
from .gather.repo_config import load_repo_config
from .gather.rest import GitHubComment, find_existing_body, has_write_access, read_pull_info, refresh_comment_body
from .locate import locate
from .memory.profile import change_profile
from .memory.record import steering
from .memory.similar import nearest, taste_hash
from .models import (
    LOGIN_PATTERN,
    ChangeProfile,
    Correction,
    CorrectionMatch,
    PRContext,
    Prompt,
    Report,
    TeamVerdict,
    Usage,
    Verdict,
)
from .overlap import answered_meanwhile, fresh_since, settle
from .pack.prompt import pack_prompt
from .render.check import check_output
from .render.comment import render_comment, render_markdown
from .render.safe_markdown import clean_line
from .render.state import decode_state
from .rules import analysis_terms, cache_hit, model_withheld, paths_skip_reason, recent_model_runs, skip_reason
from .spend.decide import Decision, after_analysis, plan, queue_if_needed, reserve
from .spend.lease import Held, hold, lease_key, lease_life
from .spend.ledger import ModelBudget
from .spend.material import is_material, moved_lines, sketch

log = logging.getLogger(__name__)

Status = Literal["published", "unchanged", "cached", "skipped", "blocked", "failed", "dry-run"]


@dataclass(frozen=True)
class ReviewSession:
    """What every review of one run shares: the GitHub and model clients, the repository, the
    settings and the login our comments are written by ("" when unknown: nothing is written)."""

    gh: GitHub
    client: openai.OpenAI | None
    repo: str
    settings: Settings
    own_login: str
    cost_gate: CostGate | None = None  # `max-cost`: what this run may still spend on the model
    memory: MemoryReader | None = None  # the team's taste memory, read once per run on first use
    budget: ModelBudget | None = None  # the repository's daily model budget (spend/ledger.py), when kept
    writers: dict[str, bool] = field(default_factory=dict)  # login -> write access (permission API), per run
    # Why GitHub refused this run's check runs (no `checks: write`): the other PRs of the run do not ask again.
    check_refused: list[str] = field(default_factory=list)
    leases: bool = False  # take the analysis lease before a model call (spend/lease.py): action runs
    lease_refused: list[str] = field(default_factory=list)  # why no lease can be written (no `contents: write`)

    def can_write(self, login: str) -> bool:
        """The collaborator permission API, asked once per login per run; a refusal to tell counts as no."""
        if login not in self.writers:
            try:
                self.writers[login] = has_write_access(self.gh, self.repo, login)
            except GitHubError as exc:
                log.warning("could not ask GitHub whether %s has write access: %s", login, exc)
                self.writers[login] = False
        return self.writers[login]


@dataclass(frozen=True)
class GivenVerdict:
    """A maintainer's `/readworthy verdict <verdict> [reason]` (write access already checked)."""

    verdict: Verdict
    by: str
    reason: str = ""


@dataclass(frozen=True)
class Request:
    """Why this PR is being reviewed and how."""

    force: bool = False
    explicit: bool = False  # a person asked (label, /readworthy, dispatch): drafts and bots are not skipped
    remove_label: str = ""  # the trigger label to take off afterwards
    pr: PullRequestInfo | None = None  # what the event payload already says, if anything
    dry_run: bool = False
    given: GivenVerdict | None = None  # the team's verdict to record on this PR
    catch_up: bool = False  # the catch-up run: spends under its own share of the budget (spend/priority.py)


@dataclass
class ReviewOutcome:
    number: int
    status: Status
    report: Report | None = None
    comment: publish.CommentRef | None = None
    cached: bool = False
    skipped_reason: str = ""  # short code for the output
    message: str = ""  # what to tell the user (skip reason, warning, error)
    markdown: str = ""  # the digest for the job summary
    usage: Usage = field(default_factory=Usage)  # what *this run* spent
    model_failure: str = ""  # the model was configured but failed (the fallback or the old comment stood in)
    config_problems: list[str] = field(default_factory=list)  # the base branch's readworthy.yml, if broken
    prompt: Prompt | None = None  # the packed prompt (for `show-prompt`), when the PR got that far
    memory_url: str = ""  # where the team's verdict given in this run is kept in the taste memory
    memory_problem: str = ""  # why it could not be kept there
    check: check_run.CheckRef | None = None  # the check run on the PR's head commit
    check_problem: str = ""  # why there is none (a permission to grant, a refusal)

    @property
    def comment_url(self) -> str:
        return self.comment.url if self.comment else ""

    @property
    def ok(self) -> bool:
        return self.status != "failed"


# --------------------------------------------------------------------------- running


def review_one(session: ReviewSession, number: int, request: Request = Request()) -> ReviewOutcome:
    """Review PR `number`. Known failures come back as an outcome, never as an exception."""
    try:
        with ExitStack() as held:  # the analysis lease, when one is taken, is released however the review ends
            return _review(session, number, request, held)
    except ReadworthyError as exc:  # the caller reports it (once): an annotation, a log line, a digest note
        return ReviewOutcome(number, "failed", message=str(exc))
    finally:
        if request.remove_label and not request.dry_run:
            _remove_trigger_label(session, number, request.remove_label)


def _remove_trigger_label(session: ReviewSession, number: int, name: str) -> None:
    try:
        publish.remove_label(session.gh, session.repo, number, name)
    except PublishError as exc:
        log.warning("#%d: could not remove the trigger label `%s`: %s", number, name, exc)


@dataclass(frozen=True)
class ModelPlan:
    """Whether this PR's analysis asks the model, decided before anything is written."""

    recent: list[datetime]  # this PR's model analyses of the last day (the daily cap)
    withheld: str  # why the model is not asked ("" = ask it, when there is one)
    decision: Decision | None  # triage and the repository's budget, when they were asked
    asks: bool  # a model call is planned (no budget slot is reserved yet)


def _plan_model(session: ReviewSession, ctx: PRContext, settings: Settings, request: Request,
                previous: Report | None) -> ModelPlan:
    """The cost and abuse rules (rules.model_withheld), then triage and the repository's budget
    (spend/decide.py's plan: no slot is reserved yet)."""
    recent = recent_model_runs(previous, clock.now())
    client = session.client
    withheld = model_withheld(ctx, settings, request.explicit, recent, session.can_write) if client is not None else ""
    decision = None
    if client is not None and not withheld:
        decision = plan(session.budget, triage(ctx), asked=request.explicit, draft=ctx.draft,
                        reanalysis=previous is not None and previous.analyzer == "model", catch_up=request.catch_up)
        withheld = decision.withheld
    return ModelPlan(recent, withheld, decision, client is not None and not withheld)


def _analyze_within_policy(session: ReviewSession, prompt: Prompt, ctx: PRContext, settings: Settings,
                           request: Request, previous: Report | None, taste: list[CorrectionMatch],
                           planned: ModelPlan) -> Report:
    """The analysis, with the model asked only where the plan (`_plan_model`), the budget's reservation and
    the run's cost gate allow; what they turn away is queued for the catch-up run. The Report records its
    model runs of the last day for the daily cap."""
    now = clock.now()
    recent = planned.recent
    client = session.client
    decision, withheld = planned.decision, planned.withheld
    if decision is not None and planned.asks:
        decision = reserve(session.budget, decision, ctx.base_sha or ctx.head_sha)
        withheld = decision.withheld
    gate = session.cost_gate if client is not None and not withheld else None
    if gate is not None and not gate.try_reserve():
        withheld = (f"this run's model cost cap (${gate.cap:.2f}, `max-cost`) is reached; the next run analyses "
                    "it with the model")
        gate = None
    if withheld:
        log.info("#%d: model not asked: %s", ctx.number, withheld)
        report = analyze(prompt, settings, None, taste).model_copy(update={"model_withheld": withheld})
    else:
        cost = 0.0
        try:
            report = analyze(prompt, settings, client, taste)
            cost = report.usage.cost_usd
        finally:
            if gate is not None:
                gate.settle(cost)  # the real cost replaces the reservation
        if decision is not None:
            decision = after_analysis(session.budget, decision, report, ctx.base_sha or ctx.head_sha)
    queued = "" if decision is None or request.dry_run else \
        queue_if_needed(session.gh, session.repo, ctx.number, decision, previous, ctx.base_sha or ctx.head_sha)
    runs = [*recent, now] if report.usage.model_calls else recent
    return report.model_copy(update={"model_runs": [moment.isoformat(timespec="seconds") for moment in runs],
                                     "content": sketch(ctx.files), "queued": queued})


def _take_lease(session: ReviewSession, ctx: PRContext, settings: Settings, current_hash: str,
                previous: Report | None, held: ExitStack) -> Held[tuple[GitHubComment, Report]]:
    """The analysis lease of this PR and its inputs (spend/lease.py), or another run's analysis of the same
    inputs written while this run waited on its lease (reused even when forced: it is as fresh as the one
    asked for). Without `contents: write` nothing is written and the run goes on as before."""
    gh, repo, number = session.gh, session.repo, ctx.number
    if session.lease_refused:
        return Held(refused=session.lease_refused[0])

    def answered() -> tuple[GitHubComment, Report] | None:
        comment, body = find_existing_body(gh, repo, number, session.own_login)
        theirs = decode_state(body)
        if comment is None or theirs is None or not cache_hit(theirs, settings, current_hash):
            return None
        return (comment, theirs) if answered_meanwhile(theirs, previous) else None

    result = hold(gh, repo, number, lease_key(analysis_terms(settings, current_hash)),
                  ctx.base_sha or ctx.head_sha, lease_life(settings.model_timeout), answered)
    if result.refused:
        log.info("#%d: no analysis lease (%s): going on without one", number, result.refused)
        session.lease_refused.append(result.refused)
    if result.lease is not None:
        held.callback(result.lease.release)
    return result


def _reused(previous: Report, ctx: PRContext) -> Report:
    """A stored analysis of these very inputs, brought to this head. Only the cheap, non-textual parts are
    refreshed: the stored title etc. were redacted before they were stored, and the raw context's text must
    not slip back in. The same patch can sit at other lines of the new head (a rebase): the links are placed
    afresh. A model analysis of these inputs needs no other: a re-analysis queued meanwhile is done."""
    return previous.model_copy(update={"head_sha": ctx.head_sha, "url": ctx.url or previous.url,
                                       "locations": locate(previous.digest, ctx), "later_head": "", "later_lines": 0,
                                       "queued": "" if previous.analyzer == "model" else previous.queued})


def _keeps_analysis(previous: Report | None, ctx: PRContext, settings: Settings, request: Request) -> bool:
    """A model analysis stays when the push since it is not material (spend/material.py) and nobody asked."""
    if request.force or request.explicit or previous is None or previous.analyzer != "model" \
            or previous.content is None or not cache_hit(previous, settings, previous.input_hash):
        return False
    return not is_material(previous.content, sketch(ctx.files))


LOCKED = ("the conversation is locked, so GitHub refuses readworthy's comment: nothing was read or analysed "
          "(no model call). A maintainer can unlock it and re-run the job")


def _review(session: ReviewSession, number: int, request: Request, held: ExitStack) -> ReviewOutcome:
    gh, repo, own_login = session.gh, session.repo, session.own_login
    started = datetime.now(UTC)  # another run's analysis begun after this moment is as fresh as ours (overlap.py)
    info = request.pr or read_pull_info(gh, repo, number)
    if info.locked and not request.dry_run:
        # Before any work: a gather and a model call would only end in GitHub's 403 (issue 23).
        return ReviewOutcome(number, "skipped", skipped_reason="locked", message=LOCKED)
    repo_config, problems = load_repo_config(gh, repo, info.base_ref)
    settings = session.settings.with_repo_config(repo_config)
    code, why = skip_reason(info, settings, request.explicit)
    if code:
        return ReviewOutcome(number, "skipped", skipped_reason=code, message=why, config_problems=problems)

    ctx = gather_pr(gh, repo, number, settings)
    code, why = paths_skip_reason(ctx, settings)
    if code:
        return ReviewOutcome(number, "skipped", skipped_reason=code, message=why, config_problems=problems)

    existing, existing_body = find_existing_body(gh, repo, number, own_login) \
        if not request.dry_run or own_login else (None, "")
    previous = decode_state(existing_body)
    profile = change_profile(ctx.files, settings.repo_config.file_kinds)
    memory = session.memory.get() if session.memory is not None else None
    taste = nearest(memory.corrections, profile, exclude_pr=number) if memory is not None else []
    # Packed once: the cache check, the prompt shown and the analysis all use this one (its hash is
    # over the cleaned context the Report will carry, and the corrections that inform it).
    prompt = pack_prompt(ctx, settings.for_packing(), corrections=taste)
    prompt = prompt.model_copy(update={"input_hash": taste_hash(prompt.input_hash, taste)})
    current_hash = prompt.input_hash
    seen = {"config_problems": problems, "prompt": prompt}

    spent = Usage()
    # Forced, an analysis of these inputs that another run began after this one started still answers.
    cached = cache_hit(previous, settings, current_hash) and (not request.force or fresh_since(previous, started))
    reused = "unchanged"
    if cached and previous is not None:
        log.info("#%d: inputs unchanged since the last analysis (hash %s): no model call", number, current_hash[:12])
        report = _reused(previous, ctx)
    elif previous is not None and _keeps_analysis(previous, ctx, settings, request):
        assert previous.content is not None
        moved = moved_lines(previous.content, sketch(ctx.files))
        log.info("#%d: the change since the analysed head %s is not material (%d lines): no model call", number,
                 previous.head_sha[:7], moved)
        # Its links and marks are placed afresh at this head: the pushes since may have moved its lines. It
        # still describes the PR, so a re-analysis queued meanwhile is no longer wanted.
        report = previous.model_copy(update={"later_head": ctx.head_sha if ctx.head_sha != previous.head_sha else "",
                                             "later_lines": moved, "url": ctx.url or previous.url,
                                             "locations": locate(previous.digest, ctx), "queued": ""})
        cached, reused = True, "not-material"
    else:
        planned = _plan_model(session, ctx, settings, request, previous)
        answer = _take_lease(session, ctx, settings, current_hash, previous, held).answer \
            if session.leases and planned.asks and not request.dry_run else None
        if answer is not None:  # another run analysed these inputs while this one waited on its lease
            existing, previous = answer
            log.info("#%d: another run analysed these inputs meanwhile: reusing it, no model call", number)
            report, cached = _reused(previous, ctx), True
        else:
            report = _analyze_within_policy(session, prompt, ctx, settings, request, previous, taste, planned)
            spent = report.usage
            if report.fallback_reason and previous is not None and previous.analyzer == "model" \
                    and previous.input_hash == report.input_hash:
                # The model failed on inputs we already have a model analysis for: keep that one.
                log.warning("#%d: model failed (%s); keeping the existing analysis", number, report.fallback_reason)
                if request.given is None:
                    return ReviewOutcome(number, "unchanged", report=previous, cached=True, usage=spent,
                                         model_failure=report.fallback_reason,
                                         message=f"analysis failed ({report.fallback_reason}); the previous comment "
                                                 "was kept", markdown=render_markdown(previous),
                                         **seen)  # type: ignore[arg-type]
                report = previous  # the team's verdict is still recorded, beside the analysis it corrects
            elif report.queued and report.analyzer == "heuristic" and previous is not None \
                    and previous.analyzer == "model" and previous.language == report.language:
                # Turned away by the budget or triage: the model's analysis of an earlier head reads better than
                # the heuristic's of this one. It stays, says which head it describes, and the new one is queued.
                moved = moved_lines(previous.content, sketch(ctx.files)) if previous.content is not None else 0
                report = previous.model_copy(update={"later_head": ctx.head_sha if ctx.head_sha != previous.head_sha
                                                     else "", "later_lines": moved, "queued": report.queued,
                                                     "url": ctx.url or previous.url,
                                                     "locations": locate(previous.digest, ctx)})
    report = report.model_copy(update={"team": _team_verdict(request, previous, report, ctx, profile)})
    if existing is not None and not cached and not request.dry_run:
        # Another trigger's run may have written meanwhile: keep its newer analysis and its team verdict.
        theirs = decode_state(refresh_comment_body(existing) or "")
        report, superseded = settle(report, theirs, previous, started, request.given is not None)
        if superseded:
            log.info("#%d: another run wrote a newer analysis meanwhile; keeping it", number)

    markdown = render_markdown(report)
    outcome_base = {"report": report, "cached": cached, "usage": spent, "markdown": markdown,
                    "skipped_reason": reused if cached else "",
                    "model_failure": report.fallback_reason if not cached else "",
                    **seen}
    if request.dry_run:
        return ReviewOutcome(number, "dry-run", **outcome_base)  # type: ignore[arg-type]
    try:
        ref = publish.upsert_comment(gh, repo, number, render_comment(report), own_login, existing)
    except CommentBlocked as exc:
        return ReviewOutcome(number, "blocked", message=str(exc), **outcome_base)  # type: ignore[arg-type]
    held.close()  # the comment is written: a run waiting on this analysis's lease can read it now
    if settings.verdict_labels:
        try:
            publish.set_verdict_label(gh, repo, number, report.verdict, ctx.labels)
        except PublishError as exc:
            log.warning("#%d: verdict label not set: %s", number, exc)
    status: Status = "cached" if cached else ("unchanged" if ref.action == "unchanged" else "published")
    outcome = ReviewOutcome(number, status, comment=ref, **outcome_base)  # type: ignore[arg-type]
    if settings.check_run:
        _publish_check(session, report, ctx.head_sha, outcome)
    if request.given is not None and report.team is not None:
        _keep_in_memory(session, report, report.team, outcome)
    return outcome


def _publish_check(session: ReviewSession, report: Report, head_sha: str, outcome: ReviewOutcome) -> None:
    """The check run on the PR's head (the gathered `head.sha`, never the run's GITHUB_SHA): its title the
    verdict that counts, its summary the guide, its annotations the start-here marks. A refusal (no
    `checks: write`) is reported and the review stands."""
    if not head_sha or not session.own_login:
        return
    if session.check_refused:
        outcome.check_problem = session.check_refused[0]
        return
    output = check_output(report, session.settings.check_annotations)
    try:
        outcome.check = check_run.publish_check(session.gh, session.repo, head_sha, output, session.own_login,
                                                outcome.comment_url)
    except PublishError as exc:
        log.warning("#%d: no check run on %s: %s", outcome.number, head_sha[:7], exc)
        outcome.check_problem = str(exc)
        if isinstance(exc, CommentBlocked) and exc.reason == "read-only":
            session.check_refused.append(str(exc))


def _keep_in_memory(session: ReviewSession, report: Report, team: TeamVerdict, outcome: ReviewOutcome) -> None:
    """Record the team's verdict in the taste memory (one record per PR). A title or reason that would make
    the record unusable is left out rather than losing the correction."""
    if session.memory is None:
        return
    title = clean_line(report.title, 200)
    try:
        correction = _correction(report, team, title, outcome.number)
    except ValidationError as exc:  # a bug, not a reason to lose the review: say so and go on
        outcome.memory_problem = f"the record could not be built ({exc.errors()[0].get('msg', 'invalid')})"
        return
    try:
        outcome.memory_url = publish.keep_correction(session.gh, session.repo, session.memory.get(), correction,
                                                     session.own_login, session.settings.language)
    except PublishError as exc:
        log.warning("#%d: the team's verdict was not kept in the taste memory: %s", outcome.number, exc)
        outcome.memory_problem = str(exc)


def _correction(report: Report, team: TeamVerdict, title: str, number: int) -> Correction:
    return Correction(
        pr=report.number or number,
        title="" if steering(title) else title,
        areas=team.profile.areas, kinds=team.profile.kinds, lines=team.profile.lines,
        analysed=team.analysed, team=team.verdict,
        reason="" if steering(team.reason) else clean_line(team.reason, 200),
        by=team.by if re.fullmatch(LOGIN_PATTERN, team.by) else "",
        head=team.head_sha[:12].lower() if re.fullmatch(r"[0-9a-fA-F]*", team.head_sha) else "", at=team.at,
    )


def _team_verdict(request: Request, previous: Report | None, report: Report, ctx: PRContext,
                  profile: ChangeProfile) -> TeamVerdict | None:
    """The team's verdict for this run: the one given now (beside the analysis it corrects), else the one
    kept in the state, whatever the head (it is shown as given on the head it was given on)."""
    given = request.given
    if given is None:
        return previous.team if previous is not None else None
    return TeamVerdict(verdict=given.verdict, by=given.by[:60], reason=given.reason[:200], head_sha=ctx.head_sha[:40],
                       at=datetime.now(UTC).isoformat(timespec="seconds"), analysed=report.digest.verdict,
                       profile=profile)


def review_pull_request(repo: str, number: int, settings: Settings, *, dry_run: bool = False) -> ReviewOutcome:
    """`readworthy pr OWNER/REPO#N`: the action's review of one PR from a terminal."""
    from .analyze.client import make_openai_client
    from .gather.github_api import make_github, own_login

    gh = make_github(settings)
    login = settings.own_login or ("" if dry_run else own_login(gh, settings))
    # Without our login (a dry run) our own memory records could not be told from anyone's: no memory then.
    session = ReviewSession(gh, make_openai_client(settings), repo, settings, login,
                            memory=MemoryReader(gh, settings, repo, login) if login else None)
    return review_one(session, number, Request(force=settings.force, explicit=True, dry_run=dry_run))
