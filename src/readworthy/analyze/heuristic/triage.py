"""Triage: the heuristic's verdict, how sure it is of it, and how much a model's reading would add.

The quota spender (issue 21) asks this of every PR before it spends a model call: a PR the heuristic
confidently skips needs no model; the others are ranked by `score`, highest first. `confidence` is how
sure the heuristic is of `verdict`, in [0, 1]: the share of PRs given that verdict in the same way that
the team's labels agree with (bench/verdicts.py measures it out of sample).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...models import PRContext, Verdict
from .analyzer import DEEP_READ_POINTS, Judgement, judgement
from .signals import Signals, measure, size_points

# A skip is confident at this confidence or more: only skips this sure are left without a model.
CONFIDENT_SKIP = 0.9
# How sure a shape rule is of its verdict: what a diff of that shape is, in any repository.
# Certain: the change holds nothing to read line by line (no files, lock/generated/binary only,
# versions only, renames or moves with import updates, comments and whitespace).
_SHAPE_CONFIDENCE = {
    "empty": 0.99, "mechanical_only": 0.95, "bulk_data": 0.95, "version_only": 0.92, "version_exclusion": 0.92,
    "renames": 0.92, "moves": 0.92, "cosmetic": 0.92,
    # likely: the shape says routine, but a small change can still carry a lesson
    "repeated": 0.8, "code_moves": 0.8, "revert": 0.8, "removal": 0.75, "docs_small": 0.8, "build_small": 0.75,
    "tests_small": 0.7, "tiny_fix": 0.65, "tests_restructured": 0.65,
}
_SHAPE_SKIM_CONFIDENCE = 0.6  # a skim by shape (docs, tests or build only, a new package)


@dataclass(frozen=True)
class Triage:
    """The heuristic's verdict, how sure it is (0..1), and the reading value to rank PRs by."""

    verdict: Verdict
    confidence: float
    score: float  # higher = more worth a model's analysis

    @property
    def confident_skip(self) -> bool:
        """Safe to leave without a model: a skip the heuristic is sure of."""
        return self.verdict is Verdict.SKIP and self.confidence >= CONFIDENT_SKIP


def triage(ctx: PRContext) -> Triage:
    """The triage of one PR, from its context alone (no model, no I/O)."""
    return triage_of(measure(ctx))


def triage_of(sig: Signals) -> Triage:
    return _from_judgement(judgement(sig, "en"), sig)


def _from_judgement(j: Judgement, sig: Signals) -> Triage:
    size = size_points(sig.added_code_lines + sig.added_test_lines)  # 0..10
    if j.shortcut and j.verdict is Verdict.SKIP:
        return Triage(j.verdict, _SHAPE_CONFIDENCE.get(j.shortcut, 0.6), size / 2)
    if j.shortcut and not j.points:
        return Triage(j.verdict, _SHAPE_SKIM_CONFIDENCE, 10.0 + size)
    margin = abs(j.points - DEEP_READ_POINTS) / DEEP_READ_POINTS
    return Triage(j.verdict, round(0.5 + 0.45 * min(1.0, margin), 3), max(j.points, 10.0 + size))
