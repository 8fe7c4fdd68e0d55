"""rules.py: who gets a model analysis, and the daily cap's memory (pure decisions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from readworthy.config import build_settings
from readworthy.models import Digest, PRContext, Report, Verdict
from readworthy.rules import model_withheld, recent_model_runs

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def settings(**values: object):  # type: ignore[no-untyped-def]
    return build_settings({"openai_api_key": "sk-test-0123456789abcdef", **values})


def pr(association: str) -> PRContext:
    return PRContext(repo="o/r", number=7, author="newcomer", author_association=association)


def report(*runs: datetime) -> Report:
    digest = Digest(verdict=Verdict.SKIM, reason="r", headline="h")
    return Report(digest=digest, analyzer="model", model_runs=[r.isoformat() for r in runs])


@pytest.mark.parametrize(("model_for", "association", "asked"), [
    ("everyone", "FIRST_TIME_CONTRIBUTOR", True),
    ("contributors", "CONTRIBUTOR", True),
    ("contributors", "FIRST_TIME_CONTRIBUTOR", False),
    ("contributors", "NONE", False),
    ("members", "CONTRIBUTOR", False),
    ("members", "COLLABORATOR", True),
    ("members", "OWNER", True),
    ("members", "", True),  # unknown (a local diff): the rule cannot apply
])
def test_who_gets_a_model_analysis(model_for: str, association: str, asked: bool) -> None:
    why = model_withheld(pr(association), settings(model_for=model_for), explicit=False, recent=[])
    assert (why == "") is asked
    if not asked:
        assert f"model-for: {model_for}" in why and "newcomer" in why and "/readworthy refresh" in why


def test_a_maintainers_explicit_request_is_always_honoured() -> None:
    recent = [NOW - timedelta(hours=h) for h in range(20)]
    assert model_withheld(pr("NONE"), settings(model_for="members", max_analyses_per_day=3), True, recent) == ""


def test_no_model_configured_means_nothing_to_withhold() -> None:
    assert model_withheld(pr("NONE"), build_settings({"github_models": False, "model_for": "members"}),
                          False, []) == ""


def test_the_daily_cap_counts_the_last_24_hours_only() -> None:
    old = report(NOW - timedelta(hours=30), NOW - timedelta(hours=5), NOW - timedelta(hours=1))
    recent = recent_model_runs(old, NOW)
    assert recent == [NOW - timedelta(hours=5), NOW - timedelta(hours=1)]
    assert model_withheld(pr("OWNER"), settings(max_analyses_per_day=3), False, recent) == ""
    why = model_withheld(pr("OWNER"), settings(max_analyses_per_day=2), False, recent)
    assert "max-analyses-per-day: 2" in why and "2026-12-04 07:00 UTC" in why  # the oldest run (07:00) plus a day
    assert model_withheld(pr("OWNER"), settings(max_analyses_per_day=0), False, recent * 50) == ""


def test_a_broken_stored_time_is_ignored_not_fatal() -> None:
    stored = report(NOW - timedelta(hours=1)).model_copy(update={"model_runs": ["yesterday", "2026-12-03T11:00:00"]})
    assert recent_model_runs(stored, NOW) == [datetime(2026, 12, 3, 11, tzinfo=UTC)]
    assert recent_model_runs(None, NOW) == []
