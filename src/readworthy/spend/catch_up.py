"""`mode: catch-up`: upgrade the PRs that got the heuristic because of the budget, the quota or triage to
a model analysis, highest priority first, in their own sticky comment (issue 21).

A scheduled run (examples/readworthy-catch-up.yml) reads the queue (queue.py: one request), orders it by
claim (priority.py: maintainers' asks, then ready PRs by triage rank, confident skips last) and reviews
each PR through `review_one` like any other run: the same comment is edited, never a second one; a PR
whose stored analysis is already a model analysis of its current content costs no call (the cache) and
leaves the queue. It spends under its own share of the day's budget (priority.CATCH_UP_SHARE), one request
at a time and no faster than the model's per-minute limit allows, and stops before GitHub's hourly request
budget runs out (digest/budget.py). What it could not reach stays queued for the next run. It also deletes
the ledger's refs of past days (ledger.prune) and the analysis leases of killed runs (lease.prune).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from .. import clock
from ..digest.budget import ANALYSIS_REQUESTS, RequestBudget
from ..errors import GitHubError, ReadworthyError
from ..review import Request, ReviewOutcome, ReviewSession, review_one
from .lease import prune as prune_leases
from .priority import Claim, catch_up_allowed, order_key
from .queue import dequeue, read_queue

log = logging.getLogger(__name__)

MAX_PRS = 100  # one run's reviews at most
PRUNE_MAX = 200  # ledger refs deleted in one run at most (each is a write)
_DONE_STATUSES = ("published", "cached", "unchanged")


@dataclass
class CatchUpResult:
    queued: int = 0  # PRs in the queue when the run started
    outcomes: list[ReviewOutcome] = field(default_factory=list)
    upgraded: list[int] = field(default_factory=list)  # now carry a model analysis
    left: list[int] = field(default_factory=list)  # still queued
    stopped: str = ""  # why the run stopped before the end of the queue
    pruned: int = 0

    @property
    def model_calls(self) -> int:
        return sum(o.usage.model_calls for o in self.outcomes)


def _done(outcome: ReviewOutcome) -> bool:
    """The PR needs nothing more: it carries a model analysis of its content, or the rules skip it for good."""
    report = outcome.report
    if outcome.status == "skipped":
        return True
    return outcome.status in _DONE_STATUSES and report is not None and report.analyzer == "model" \
        and not report.queued


def run_catch_up(session: ReviewSession, per_minute: int, max_prs: int = MAX_PRS) -> CatchUpResult:
    result = CatchUpResult()
    budget = session.budget
    if budget is None:
        result.stopped = "no repository model budget is kept (`model-budget: 0`, or no model endpoint)"
        return result
    try:
        queue = read_queue(session.gh, session.repo)
    except GitHubError as exc:
        result.stopped = f"the queue could not be read: {exc}"
        return result
    order: list[tuple[int, Claim, list[str]]] = sorted(
        ((n, c, names) for n, (c, names) in queue.items()), key=lambda item: order_key(item[1], item[0]))
    result.queued = len(order)
    requests = RequestBudget(session.gh)
    spacing = 60.0 / per_minute if per_minute > 0 else 0.0
    last_call: float | None = None
    for i, (number, _claim, names) in enumerate(order):
        if i >= max_prs:
            result.stopped = f"this run reviews at most {max_prs} pull requests"
        elif not requests.allows(ANALYSIS_REQUESTS):
            result.stopped = requests.why_stopped()
        elif not catch_up_allowed(budget.view()):
            result.stopped = budget.problem or (f"the catch-up run's share of today's model budget is used "
                                                f"({budget.view().used} of {budget.limit})")
        if result.stopped:
            result.left += [n for n, _, _ in order[i:]]
            break
        if last_call is not None:  # never faster than the model's per-minute limit
            clock.sleep(spacing - (clock.now().timestamp() - last_call))
        outcome = review_one(session, number, Request(catch_up=True))
        if outcome.usage.model_calls:
            last_call = clock.now().timestamp()
        result.outcomes.append(outcome)
        if _done(outcome):
            dequeue(session.gh, session.repo, names)
            if outcome.report is not None and outcome.report.analyzer == "model":
                result.upgraded.append(number)
        else:
            result.left.append(number)
    try:
        result.pruned = budget.prune(PRUNE_MAX)
        result.pruned += prune_leases(session.gh, session.repo, PRUNE_MAX - result.pruned)
    except ReadworthyError as exc:  # housekeeping: never a reason to fail the run
        log.warning("could not delete the ledger's old refs: %s", exc)
    return result
