"""The digest's pure parts: windows, scope, chunks, the reuse rule, the cost gate."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from readworthy.analyze.spending import CostGate, max_cost_per_analysis
from readworthy.config import build_settings
from readworthy.digest.cache import reuse_verdict
from readworthy.digest.select import apply_rules, chunk_numbers, in_scope
from readworthy.digest.window import Window, parse_github_time, parse_range, parse_since
from readworthy.errors import ConfigError
from readworthy.models import Digest, PullSummary, Report, Verdict
from readworthy.prompts.messages import PROMPT_VERSION

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)


def cand(number: int = 1, **kw: object) -> PullSummary:
    base: dict[str, object] = dict(number=number, title="t", url="", author="alice", author_is_bot=False,
                                   draft=False, state="closed", merged=True, merged_at=NOW - timedelta(hours=1),
                                   created_at=NOW - timedelta(days=2), head_sha="a" * 40, base_ref="main")
    base.update(kw)
    return PullSummary(**base)  # type: ignore[arg-type]


def report(**kw: object) -> Report:
    base: dict[str, object] = dict(digest=Digest(verdict=Verdict.SKIM, reason="r", headline="h"),
                                   analyzer="model", model="gpt-4.1-mini", prompt_version=PROMPT_VERSION,
                                   language="en", head_sha="a" * 40)
    base.update(kw)
    return Report(**base)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- windows


@pytest.mark.parametrize(("text", "span"), [("24h", timedelta(hours=24)), ("7d", timedelta(days=7)),
                                            ("90m", timedelta(minutes=90)), ("2w", timedelta(weeks=2)),
                                            (" 3D ", timedelta(days=3))])
def test_since_durations_end_now(text: str, span: timedelta) -> None:
    window = parse_since(text, NOW)
    assert window.end == NOW and window.end - window.start == span


@pytest.mark.parametrize("text", ["", "24", "h", "-1d", "0h", "1y", "400d", "24 hours"])
def test_bad_durations_are_config_errors_that_show_an_example(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_since(text, NOW)
    assert "24h" in str(err.value) or "366" in str(err.value) or "zero" in str(err.value)


def test_a_bare_to_date_includes_that_whole_day_and_times_are_utc() -> None:
    window = parse_range("2026-06-01", "2026-06-03", NOW)
    assert window.start == datetime(2026, 6, 1, tzinfo=UTC)
    assert window.end == datetime(2026, 6, 4, tzinfo=UTC)
    window = parse_range("2026-06-01T10:00:00+02:00", None, NOW)
    assert window.start == datetime(2026, 6, 1, 8, tzinfo=UTC) and window.end == NOW
    with pytest.raises(ConfigError, match="not before"):
        parse_range("2026-06-05", "2026-06-01", NOW)
    with pytest.raises(ConfigError, match="YYYY-MM-DD"):
        parse_range("June 1st", None, NOW)


def test_window_is_half_open() -> None:
    window = Window(NOW - timedelta(hours=1), NOW)
    assert window.contains(NOW - timedelta(hours=1))
    assert not window.contains(NOW)
    assert not window.contains(None)
    assert window.contains(parse_github_time("2026-06-10T11:30:00Z"))
    assert parse_github_time("not a time") is None


# --------------------------------------------------------------------------- scope and rules


def test_scope_by_state() -> None:
    window = Window(NOW - timedelta(days=1), NOW)
    merged_today = cand()
    merged_last_week = cand(merged_at=NOW - timedelta(days=7))
    opened_today = cand(state="open", merged=False, merged_at=None, created_at=NOW - timedelta(hours=2))
    closed_unmerged = cand(merged=False, merged_at=None)
    assert in_scope(merged_today, "merged", window)
    assert not in_scope(merged_last_week, "merged", window)
    assert not in_scope(opened_today, "merged", window)
    assert in_scope(opened_today, "open", window) and in_scope(opened_today, "all", window)
    assert in_scope(merged_today, "all", window) and not in_scope(closed_unmerged, "all", window)
    assert in_scope(closed_unmerged, "closed", window, closed_at=NOW - timedelta(hours=3))


def test_rules_skip_drafts_bots_labels_unless_named_explicitly() -> None:
    settings = build_settings({"repo_config": {"skip_labels": ["no-digest"], "skip_authors": ["eve"]}})
    pool = [cand(1), cand(2, draft=True), cand(3, author="renovate[bot]", author_is_bot=True),
            cand(4, labels=("No-Digest",)), cand(5, author="EVE")]
    kept, skipped = apply_rules(pool, settings, explicit=False)
    assert [c.number for c in kept] == [1]
    assert {s.number for s in skipped} == {2, 3, 4, 5} and all(s.reason == "skipped-rule" for s in skipped)
    kept, _ = apply_rules(pool, settings, explicit=True)
    assert [c.number for c in kept] == [1, 2, 3]  # a named draft or bot PR is wanted; labels still rule


@given(st.lists(st.integers(1, 10**6), unique=True, max_size=300), st.integers(1, 64))
def test_chunks_partition_the_list_in_order_and_evenly(numbers: list[int], chunks: int) -> None:
    parts = chunk_numbers(numbers, chunks)
    assert [n for part in parts for n in part] == numbers
    assert len(parts) == min(chunks, len(numbers))
    assert all(parts) and (not parts or max(map(len, parts)) - min(map(len, parts)) <= 1)


# --------------------------------------------------------------------------- reuse


def test_reuse_needs_same_head_language_prompt_and_model() -> None:
    model = build_settings({"openai_api_key": "sk-x", "model": "gpt-4.1-mini"})
    assert reuse_verdict(report(), cand(), model, cached_only=False) == (True, "")
    for stored, why in (
        (None, "no stored analysis"),
        (report(head_sha="b" * 40), "head"),
        (report(language="zh-CN"), "zh-CN"),
        (report(prompt_version="old"), "prompt version"),
        (report(model="gpt-4o"), "gpt-4o"),
        (report(analyzer="heuristic", model=""), "heuristic"),
    ):
        ok, reason = reuse_verdict(stored, cand(), model, cached_only=False)
        assert not ok and why in reason


def test_without_a_model_any_stored_analysis_of_this_head_is_reused() -> None:
    no_model = build_settings({})
    assert reuse_verdict(report(model="gpt-4o"), cand(), no_model, cached_only=False)[0]
    assert reuse_verdict(report(analyzer="heuristic", model=""), cand(), no_model, cached_only=False)[0]
    assert not reuse_verdict(report(head_sha="b" * 40), cand(), no_model, cached_only=False)[0]


def test_cached_only_takes_an_older_prompt_version_but_never_another_head_or_language() -> None:
    model = build_settings({"openai_api_key": "sk-x"})
    assert reuse_verdict(report(prompt_version="old", model="gpt-4o"), cand(), model, cached_only=True)[0]
    assert not reuse_verdict(report(head_sha="c" * 40), cand(), model, cached_only=True)[0]
    assert not reuse_verdict(report(language="zh-CN"), cand(), model, cached_only=True)[0]


# --------------------------------------------------------------------------- the cost gate


def test_cost_gate_reserves_the_worst_case_and_settles_the_real_cost() -> None:
    gate = CostGate(cap=0.025, per_analysis=0.01)
    assert gate.try_reserve() and gate.try_reserve()
    assert not gate.try_reserve()  # 0.02 reserved + 0.01 > 0.025
    gate.settle(0.001)
    assert gate.try_reserve()  # 0.001 spent + 0.01 reserved + 0.01 <= 0.025
    gate.settle(0.009)
    gate.settle(0.009)
    assert gate.spent == pytest.approx(0.019) and gate.reserved == pytest.approx(0.0)
    assert not gate.try_reserve()


def test_cost_gate_holds_under_contention() -> None:
    gate = CostGate(cap=1.0, per_analysis=0.1)
    won: list[bool] = []
    threads = [threading.Thread(target=lambda: won.append(gate.try_reserve())) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert won.count(True) == 10


def test_no_cap_never_refuses_and_the_worst_case_uses_the_price_table() -> None:
    assert all(CostGate(None, 5.0).try_reserve() for _ in range(100))
    settings = build_settings({"openai_api_key": "sk-x", "model": "gpt-4.1-mini", "budget": 16_000})
    assert max_cost_per_analysis(settings, has_client=True) == pytest.approx((16_000 * 0.4 + 2_000 * 1.6) / 1e6)
    assert max_cost_per_analysis(settings, has_client=False) == 0.0
    custom = build_settings({"openai_api_key": "sk-x", "model": "mine", "price_table": {"mine": (1.0, 2.0)}})
    assert max_cost_per_analysis(custom, has_client=True) == pytest.approx((16_000 + 4_000) / 1e6)
    with pytest.raises(ConfigError, match="price"):
        max_cost_per_analysis(build_settings({"openai_api_key": "sk-x", "model": "mine"}), has_client=True)
