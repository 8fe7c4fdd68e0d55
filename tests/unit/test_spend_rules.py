"""The pure spending rules: who gets the model first (priority.py) and what a material push is (material.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from readworthy.models import FileChange, FileStatus, Verdict
from readworthy.spend.ledger import BudgetView
from readworthy.spend.material import is_material, moved_lines, sketch, threshold
from readworthy.spend.priority import FLOOR, Claim, Tier, allowed, catch_up_allowed, claim, order_key


@dataclass(frozen=True)
class T:
    verdict: Verdict
    score: float = 5.0
    confident: bool = False

    @property
    def confident_skip(self) -> bool:
        return self.confident


def view(used: int, limit: int = 100, day_fraction: float = 0.0) -> BudgetView:
    return BudgetView(limit=limit, used=used, spent_until=None, day_fraction=day_fraction)


def test_the_tiers_follow_the_issues_order() -> None:
    deep, skim, skip = T(Verdict.DEEP_READ), T(Verdict.SKIM), T(Verdict.SKIP)
    assert claim(skip, asked=True, draft=True, reanalysis=True).tier == Tier.ASKED
    assert claim(deep, asked=False, draft=False, reanalysis=False).tier == Tier.READY_HIGH
    assert claim(skim, asked=False, draft=False, reanalysis=False).tier == Tier.READY
    assert claim(deep, asked=False, draft=False, reanalysis=True).tier == Tier.READY  # a refresh after a push
    assert claim(skim, asked=False, draft=False, reanalysis=True).tier == Tier.LOW
    assert claim(deep, asked=False, draft=True, reanalysis=False).tier == Tier.LOW  # not ready for review
    assert claim(skip, asked=False, draft=False, reanalysis=False).tier == Tier.LIKELY_SKIP
    assert claim(skip, asked=False, draft=False, reanalysis=True).tier == Tier.LIKELY_SKIP
    assert claim(T(Verdict.SKIP, confident=True), asked=False, draft=False, reanalysis=False).tier == Tier.TRIAGED


@pytest.mark.parametrize("tier", [Tier.ASKED, Tier.READY_HIGH, Tier.READY, Tier.LOW])
def test_each_tier_stops_at_its_floor(tier: Tier) -> None:
    floor = round(FLOOR[tier] * 100)
    assert allowed(Claim(tier, 1.0), view(used=100 - floor - 1))
    assert not allowed(Claim(tier, 1.0), view(used=100 - floor))


def test_a_likely_skip_waits_while_the_day_is_busy_and_not_in_a_quiet_one() -> None:
    likely = Claim(Tier.LIKELY_SKIP, 1.0)
    assert allowed(likely, view(used=0, day_fraction=0.0))  # a quiet start: the slack
    assert not allowed(likely, view(used=5, day_fraction=0.0))
    assert allowed(likely, view(used=20, day_fraction=0.5))  # at half its pace at noon
    assert not allowed(likely, view(used=30, day_fraction=0.5))  # a busy day: the catch-up run's


def test_when_short_the_low_tiers_stop_first_and_asks_last() -> None:
    v = view(used=80)  # 20 left
    assert [allowed(Claim(t, 1.0), v) for t in Tier] == [True, True, False, False, False, False]
    assert not allowed(Claim(Tier.ASKED, 1.0), view(used=100))
    spent = BudgetView(limit=100, used=3, spent_until=object(), day_fraction=0.1)  # type: ignore[arg-type]
    assert not allowed(Claim(Tier.ASKED, 1.0), spent)


def test_what_is_kept_for_later_shrinks_as_the_day_passes() -> None:
    low = Claim(Tier.LOW, 1.0)
    assert not allowed(low, view(used=45, day_fraction=0.0))  # 55 left, 60 kept at dawn
    assert allowed(low, view(used=45, day_fraction=0.5))  # 30 kept at noon
    assert allowed(low, view(used=98, day_fraction=0.999))  # the last hour may use what is left
    assert not allowed(Claim(Tier.TRIAGED, 1.0), view(used=0, day_fraction=0.999))


def test_the_catch_up_run_keeps_half_of_the_day_for_the_day() -> None:
    assert catch_up_allowed(view(used=49)) and not catch_up_allowed(view(used=50))


def test_the_catch_up_order_is_tier_then_score_then_oldest() -> None:
    items = [(5, Claim(Tier.READY, 3.0)), (3, Claim(Tier.READY, 9.0)), (9, Claim(Tier.ASKED, 0.0)),
             (1, Claim(Tier.TRIAGED, 50.0)), (2, Claim(Tier.READY, 9.0))]
    assert [n for n, c in sorted(items, key=lambda i: order_key(i[1], i[0]))] == [9, 2, 3, 5, 1]


def f(path: str, lines: int, status: FileStatus = FileStatus.MODIFIED) -> FileChange:
    return FileChange(path=path, status=status, additions=lines, deletions=0, patch="@@ -1 +1 @@\n+x\n")


def test_a_rewrite_in_place_is_not_material_and_new_files_are() -> None:
    then = sketch([f("a.py", 120), f("b.py", 40)])
    assert moved_lines(then, sketch([f("a.py", 120), f("b.py", 40)])) == 0  # a review fix or a typo fix
    assert not is_material(then, sketch([f("a.py", 125), f("b.py", 40)]))  # 5 lines
    assert is_material(then, sketch([f("a.py", 120), f("b.py", 40), f("tests/test_a.py", 30, FileStatus.ADDED)]))
    assert is_material(then, sketch([f("a.py", 120)]))  # a file left the change: 40 lines


def test_the_threshold_is_twenty_lines_a_tenth_or_two_hundred() -> None:
    assert threshold(sketch([f("a.py", 50)])) == 20
    assert threshold(sketch([f("a.py", 900)])) == 90
    assert threshold(sketch([f("a.py", 9_000)])) == 200


def test_pushes_add_up_against_the_analysed_content() -> None:
    then = sketch([f("a.py", 100)])
    second = sketch([f("a.py", 110)])  # 10 lines: not material
    third = sketch([f("a.py", 122)])  # 22 lines since the analysis: material
    assert not is_material(then, second) and is_material(then, third)


def test_a_huge_pr_keeps_a_bounded_sketch() -> None:
    s = sketch([f(f"gen/f{i}.py", 1 + i % 7) for i in range(3_000)])
    assert len(s.files) == 300 and s.other > 0
    assert len(s.model_dump_json()) < 8_000
