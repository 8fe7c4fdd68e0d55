"""Who gets the model first when the day's budget is short (issue 21), as pure rules.

Every model request is a `Claim` of one of these tiers, in this order:

    ASKED       a maintainer asked: `/readworthy refresh` or `/readworthy`, the trigger label, a dispatch
    READY_HIGH  the first analysis of a PR ready for review that triage ranks worth a close read
    READY       the first analysis of the other PRs ready for review; a re-analysis (material push) of a
                PR triage ranks worth a close read
    LOW         drafts (with `include_drafts`), the other re-analyses
    LIKELY_SKIP what triage calls skip without being sure
    TRIAGED     a confident skip (triage.confident_skip): no live request, the catch-up run's last

A live tier may spend the day's budget down to a floor kept for the tiers above it (`FLOOR`, a share of
the budget that shrinks as the UTC day passes: what is kept is for PRs still to come). When the budget
runs short, the low tiers stop first and the maintainers' asks stop last. A skip-looking PR also waits
while the day's spending runs at more than half its sustainable pace (`SKIP_PACE` of the budget per share
of the day passed, plus `SKIP_SLACK`): in a quiet repository every PR gets its model analysis at once; in
a busy one the day's requests go to what is worth reading, and the skips get theirs from the catch-up run.
Within a tier, the catch-up run takes the highest triage score first.

The catch-up run spends only while at most `CATCH_UP_SHARE` of the day's budget is used, so that the day's
own pull requests find the rest.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum
from typing import Protocol

from ..models import Verdict
from .ledger import BudgetView


class Tier(IntEnum):
    ASKED = 0
    READY_HIGH = 1
    READY = 2
    LOW = 3
    LIKELY_SKIP = 4  # triage says skip, unsure: only while the day's spending is well below its pace
    TRIAGED = 5  # a confident skip: no live request; the catch-up run's last


# The share of the day's budget each live tier leaves for the tiers above it, at the start of the UTC day.
FLOOR = {Tier.ASKED: 0.0, Tier.READY_HIGH: 0.05, Tier.READY: 0.30, Tier.LOW: 0.60, Tier.LIKELY_SKIP: 0.60}
SKIP_PACE = 0.5
SKIP_SLACK = 0.05
CATCH_UP_SHARE = 0.5


class TriageLike(Protocol):
    @property
    def verdict(self) -> Verdict: ...
    @property
    def score(self) -> float: ...
    @property
    def confident_skip(self) -> bool: ...


@dataclass(frozen=True)
class Claim:
    tier: Tier
    score: float  # triage's reading value: the order within a tier


def claim(triage: TriageLike, *, asked: bool, draft: bool, reanalysis: bool) -> Claim:
    """The tier of one model request, from why it is made and what triage says of the PR."""
    if asked:
        return Claim(Tier.ASKED, triage.score)
    if triage.confident_skip:
        return Claim(Tier.TRIAGED, triage.score)
    if triage.verdict == Verdict.SKIP:
        return Claim(Tier.LIKELY_SKIP, triage.score)
    if draft:
        return Claim(Tier.LOW, triage.score)
    high = triage.verdict == Verdict.DEEP_READ
    if reanalysis:
        return Claim(Tier.READY if high else Tier.LOW, triage.score)
    return Claim(Tier.READY_HIGH if high else Tier.READY, triage.score)


def allowed(c: Claim, view: BudgetView) -> bool:
    """Whether this claim may reserve now: the budget left stays above its tier's floor for the rest of the day."""
    if c.tier not in FLOOR or view.left <= 0:
        return False
    if c.tier == Tier.LIKELY_SKIP and view.used + 1 > view.limit * (SKIP_PACE * view.day_fraction + SKIP_SLACK):
        return False
    floor = math.floor(FLOOR[c.tier] * view.limit * (1 - view.day_fraction))  # whole requests kept
    return view.left - 1 >= floor


def catch_up_allowed(view: BudgetView) -> bool:
    return view.left > 0 and view.used + 1 <= CATCH_UP_SHARE * view.limit


def order_key(c: Claim, number: int) -> tuple[int, float, int]:
    """The catch-up run's order: tier, then the highest score, then the oldest PR."""
    return (int(c.tier), -c.score, number)
