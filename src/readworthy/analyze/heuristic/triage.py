"""Triage: the heuristic's verdict, how sure it is of it, and how much a model's reading would add.

The quota spender (issue 21) asks this of every PR before it spends a model call: a PR the heuristic
confidently skips needs no model; the others are ranked by `score`, highest first. `confidence` is
the probability the heuristic gives its own verdict (verdict_model.py's fitted estimate, or how sure
a settling shape is, analyzer.SHAPE_CONFIDENCE); bench/verdicts.py measures how often confident skips
are right, in and out of sample.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...models import PRContext, Verdict
from .analyzer import judgement
from .signals import Signals, measure

# A skip is confident at this confidence or more: only skips this sure are left without a model.
CONFIDENT_SKIP = 0.9


@dataclass(frozen=True)
class Triage:
    """The heuristic's verdict, how sure it is (0..1), and the reading value to rank PRs by."""

    verdict: Verdict
    confidence: float
    score: float  # 0..100, higher = more worth a model's analysis

    @property
    def confident_skip(self) -> bool:
        """Safe to leave without a model: a skip the heuristic is sure of."""
        return self.verdict is Verdict.SKIP and self.confidence >= CONFIDENT_SKIP


def triage(ctx: PRContext) -> Triage:
    """The triage of one PR, from its context alone (no model, no I/O)."""
    return triage_of(measure(ctx))


def triage_of(sig: Signals) -> Triage:
    j = judgement(sig, "en")
    return Triage(j.verdict, j.confidence, j.score)
