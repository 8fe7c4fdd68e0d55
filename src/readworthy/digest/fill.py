"""Fill the reading list: stored analyses first (free), then fresh ones under the PR and cost caps.

A fresh analysis is the per-PR review itself (review.review_one): the same skip rules, the
same input-hash cache, and it writes the PR's own comment - which is the cache the next
digest (or the final job of a matrix backfill) reads. It runs a few at a time (threads:
the work is waiting on GitHub and the model).

The cost cap is a promise, not a hope: before an analysis starts it reserves the most one
analysis can cost (a full prompt budget in, the output reserve out, at the model's price);
it starts only if what was spent plus what is reserved stays under the cap. When it
finishes, its real cost replaces its reservation.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from ..analyze.client import concurrency_limit
from ..analyze.spending import CostGate, max_cost_per_analysis
from ..errors import ReadworthyError
from ..event import PullRequestInfo
from ..models import PullSummary, Usage
from ..review import Request, ReviewOutcome, ReviewSession, review_one
from .budget import ANALYSIS_REQUESTS, LOOKUP_REQUESTS, RequestBudget
from .cache import Lookup, lookup
from .models import DigestEntry, DigestRequest, LeftOut

log = logging.getLogger(__name__)


@dataclass
class Filled:
    entries: list[DigestEntry] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)
    model_failures: list[tuple[int, str]] = field(default_factory=list)  # (PR, why) the model failed this run
    model_answers: int = 0  # fresh analyses the model wrote this run


def _add(a: Usage, b: Usage) -> Usage:
    return Usage(
        prompt_tokens=a.prompt_tokens + b.prompt_tokens,
        completion_tokens=a.completion_tokens + b.completion_tokens,
        cost_usd=a.cost_usd + b.cost_usd,
        model_calls=a.model_calls + b.model_calls,
    )


@dataclass(frozen=True)
class Context:
    session: ReviewSession  # the clients, repository, settings and login every review shares
    request: DigestRequest
    progress: Callable[[str], None]


def _lookups(ctx: Context, candidates: list[PullSummary]) -> list[Lookup]:
    def one(cand: PullSummary) -> Lookup:
        s = ctx.session
        if not s.own_login:
            return Lookup(None, False, "no login to recognise our comments")
        return lookup(s.gh, s.repo, cand, s.settings, s.own_login, ctx.request.cached_only)

    with ThreadPoolExecutor(max_workers=max(1, ctx.request.concurrency)) as pool:
        return list(pool.map(one, candidates))


def _review(ctx: Context, cand: PullSummary, found: Lookup) -> ReviewOutcome:
    info = PullRequestInfo(number=cand.number, draft=cand.draft, author=cand.author,
                           author_is_bot=cand.author_is_bot, base_ref=cand.base_ref, head_sha=cand.head_sha,
                           labels=cand.labels)
    # A comment in another language is someone's reading guide: analyse for the digest, leave it be.
    other_language = found.report is not None and found.report.language != ctx.session.settings.language
    # A locked PR refuses our comment: analyse it for the digest only.
    dry_run = not ctx.request.write_comments or other_language or not ctx.session.own_login or cand.locked
    request = Request(explicit=bool(ctx.request.prs), pr=info, dry_run=dry_run)
    return review_one(ctx.session, cand.number, request)


def _entry_or_left_out(cand: PullSummary, outcome: ReviewOutcome, filled: Filled) -> None:
    if outcome.check_problem and not any(outcome.check_problem in w for w in filled.warnings):
        # Once: without `checks: write` every PR of the run answers the same, and the fix is one permission.
        filled.warnings.append(f"#{cand.number}: no check run on its head commit: {outcome.check_problem}")
    if outcome.model_failure:
        filled.model_failures.append((cand.number, outcome.model_failure))
    elif outcome.report is not None and outcome.report.analyzer == "model" and not outcome.cached:
        filled.model_answers += 1
    if outcome.report is not None and outcome.status != "skipped":
        source = "cached" if outcome.cached else "analysed"
        filled.entries.append(DigestEntry(cand, outcome.report, source, outcome.comment_url))  # type: ignore[arg-type]
        if outcome.status == "blocked":
            filled.warnings.append(f"#{cand.number}: its comment was not written: {outcome.message}")
        return
    reason = "skipped-rule" if outcome.status == "skipped" else "failed"
    filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, reason, outcome.message))  # type: ignore[arg-type]


def fill(ctx: Context, candidates: list[PullSummary]) -> Filled:
    """Entries for `candidates` (newest first): stored ones reused, the rest analysed within the caps
    (PRs, cost, and GitHub's request budget)."""
    filled = Filled()
    budget = RequestBudget(ctx.session.gh)
    affordable = budget.affordable(LOOKUP_REQUESTS)
    if affordable is not None and affordable < len(candidates):
        why = budget.why_stopped()
        for cand in candidates[affordable:]:
            filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, "rate-limit", why))
        filled.warnings.append(f"{len(candidates) - affordable} PR(s) not looked at: {why}")
        candidates = candidates[:affordable]
    total = len(candidates)
    found = _lookups(ctx, candidates)
    misses: list[tuple[PullSummary, Lookup]] = []
    for i, (cand, hit) in enumerate(zip(candidates, found, strict=True), 1):
        if hit.reusable and hit.report is not None:
            filled.entries.append(DigestEntry(cand, hit.report, "cached", hit.comment_url))
            ctx.progress(f"[{i}/{total}] #{cand.number} cached ({hit.report.verdict.value})")
        elif ctx.request.cached_only:
            filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, "not-cached", hit.why_not))
            ctx.progress(f"[{i}/{total}] #{cand.number} not in the digest: {hit.why_not}")
        else:
            if hit.report is not None:
                log.info("#%d: stored analysis not reused: %s", cand.number, hit.why_not)
            misses.append((cand, hit))
    if not misses:
        return filled

    limit = ctx.request.max_prs
    if limit is not None and len(misses) > limit:
        for cand, _ in misses[limit:]:
            filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, "max-prs",
                                           f"only {limit} PRs are analysed per run (--max-prs)"))
        misses = misses[:limit]
    gate = CostGate(ctx.request.max_cost, max_cost_per_analysis(ctx.session.settings, ctx.session.client is not None)
                    if ctx.request.max_cost is not None else 0.0)
    can = budget.affordable(ANALYSIS_REQUESTS)
    if can is not None:
        log.info("GitHub's request budget allows about %d fresh analyses now; %d PR(s) need one", can, len(misses))
    _analyse_all(ctx, misses, gate, budget, filled, done_before=total - len(misses))
    return filled


def _workers(ctx: Context) -> int:
    """Analyses at a time: the request's, but never more than the model allows at once (GitHub Models' tier)."""
    allowed = concurrency_limit(ctx.session.settings) if ctx.session.client is not None else None
    return max(1, min(ctx.request.concurrency, allowed or ctx.request.concurrency))


def _analyse_all(ctx: Context, misses: list[tuple[PullSummary, Lookup]], gate: CostGate, budget: RequestBudget,
                 filled: Filled, done_before: int) -> None:
    total = done_before + len(misses)
    queue = list(misses)
    running: dict[Future[ReviewOutcome], PullSummary] = {}
    done = done_before
    out_of_requests = False
    workers = _workers(ctx)
    if workers < ctx.request.concurrency:
        log.info("%d analyses at a time, not %d: the model allows %d requests at once", workers,
                 ctx.request.concurrency, workers)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        while queue or running:
            while queue and len(running) < workers:
                # Requests first: a cost reservation that is never used would have to be given back.
                if not budget.allows(ANALYSIS_REQUESTS * (len(running) + 1)):
                    out_of_requests = True
                    break
                if not gate.try_reserve():
                    break
                cand, hit = queue.pop(0)
                running[pool.submit(_review, ctx, cand, hit)] = cand
            if not running:
                break  # nothing in flight and the next one fits neither the cost cap nor the request budget
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                cand = running.pop(future)
                try:
                    outcome = future.result()
                except ReadworthyError as exc:  # review_one turns known failures into outcomes; belt and braces
                    outcome = ReviewOutcome(cand.number, "failed", message=str(exc))
                gate.settle(outcome.usage.cost_usd)
                filled.usage = _add(filled.usage, outcome.usage)
                _entry_or_left_out(cand, outcome, filled)
                done += 1
                verdict = outcome.report.verdict.value if outcome.report else outcome.status
                how = "reused (inputs unchanged)" if outcome.cached else outcome.status
                ctx.progress(f"[{done}/{total}] #{cand.number} {how} ({verdict}) · "
                             f"{outcome.usage.model_calls} model call(s) · running cost ${gate.spent:.4f}")
    if out_of_requests and queue:
        why = budget.why_stopped()
        filled.warnings.append(f"stopped with {len(queue)} PR(s) still to analyse: {why}")
        for cand, _ in queue:
            filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, "rate-limit", why))
        return
    for cand, _ in queue:
        filled.left_out.append(LeftOut(cand.number, cand.title, cand.url, "max-cost",
                                       f"the cost cap ${ctx.request.max_cost:.2f} was reached (--max-cost)"))
