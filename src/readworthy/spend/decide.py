"""Whether this PR's analysis asks the model now, under the repository's budget (issue 21).

    plan(budget, triage, ...) -> Decision        before the call: triage first, then the budget's order
    reserve(budget, decision, sha)               then the call's slot in the ledger (review.py takes its
                                                 analysis lease, lease.py, between the two)
    after_analysis(budget, decision, report)     after it: requests past the reserved one (a repair turn,
                                                 a retry) are counted; a spent day quota is recorded

Triage comes first and is free: a confident skip is not sent to the model unless a maintainer asked.
Then the request's claim (priority.py) must fit above its tier's floor, and a slot is reserved in the
ledger before anything is sent. Whatever is turned away gets the heuristic now and is queued (queue.py)
for the catch-up run, which upgrades the same comment later.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from .. import clock
from ..gather.github_api import GitHub
from ..models import Report
from ..notes import note
from .ledger import ModelBudget
from .priority import Claim, Tier, TriageLike, allowed, catch_up_allowed, claim
from .queue import enqueue

log = logging.getLogger(__name__)

QUEUED_TRIAGE, QUEUED_BUDGET, QUEUED_FAILED = "triage", "budget", "failed"
@dataclass(frozen=True)
class Decision:
    withheld: str  # why the model is not asked ("" = ask it)
    claim: Claim
    queue: str = ""  # queue it for the catch-up run, for this reason ("" = not)


def plan(budget: ModelBudget | None, triage: TriageLike, *, asked: bool, draft: bool, reanalysis: bool,
         catch_up: bool) -> Decision:
    """Whether the model may be asked, without writing anything: review.py takes its analysis lease
    (lease.py) between this and `reserve`, so a run that reuses another's analysis reserves nothing."""
    c = claim(triage, asked=asked, draft=draft, reanalysis=reanalysis)
    if c.tier == Tier.TRIAGED and not catch_up:
        return Decision(note("confident_skip"), c, QUEUED_TRIAGE if budget is not None else "")
    if budget is None:
        return Decision("", c)
    view = budget.view()
    if budget.problem:
        return Decision(budget.problem, c)  # nothing can be written: no queue either
    if not (catch_up_allowed(view) if catch_up else allowed(c, view)):
        if view.spent_until is not None:
            why = note("quota_spent", when=f"{view.spent_until:%Y-%m-%d %H:%M}")
        elif view.left <= 0:
            why = note("budget_spent", limit=budget.limit)
        elif c.tier == Tier.LIKELY_SKIP:
            why = note("deferred_skip")
        else:
            why = note("budget_short", left=view.left, limit=budget.limit)
        return Decision(why, c, QUEUED_BUDGET)
    return Decision("", c)


def reserve(budget: ModelBudget | None, decision: Decision, sha: str) -> Decision:
    """The slot in the repository's ledger for a planned call (nothing when no budget is kept)."""
    if budget is None or decision.withheld:
        return decision
    refusal = budget.reserve(sha)
    if refusal:
        return Decision(refusal, decision.claim, "" if budget.problem else QUEUED_BUDGET)
    return decision


def after_analysis(budget: ModelBudget | None, decision: Decision, report: Report, sha: str) -> Decision:
    """Requests past the reserved one are counted; a day-quota answer marks the budget spent until it resets;
    a fallback is queued for the catch-up run."""
    if budget is not None and not decision.withheld and report.usage.model_calls > 1:
        budget.count_sent(report.usage.model_calls - 1, sha)
    if not report.fallback_reason:
        return decision
    hit = report.rate_limit
    if budget is not None and hit is not None and hit.day_quota:
        wait = hit.retry_after_s if hit.retry_after_s is not None else 3_600.0  # unknown: an hour, then ask again
        budget.mark_spent(clock.now() + timedelta(seconds=wait + 1), sha)
    return Decision(decision.withheld, decision.claim, QUEUED_FAILED if budget is not None else "")


def queue_if_needed(gh: GitHub, repo: str, number: int, decision: Decision, previous: Report | None,
                    sha: str) -> str:
    """Write the queue ref unless the stored state says it is there already; the `queued` value to store."""
    if not decision.queue:
        return ""
    value = f"{decision.queue}:{int(decision.claim.tier)}"
    if previous is None or previous.queued != value:
        enqueue(gh, repo, number, decision.claim, sha)
    return value
