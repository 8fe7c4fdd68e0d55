"""overlap.py: two runs of one PR at once reuse, keep and carry instead of paying twice or losing a verdict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from readworthy.models import Digest, Report, TeamVerdict, Verdict
from readworthy.overlap import fresh_since, latest_analysis, settle

STARTED = datetime(2026, 5, 1, 12, 0, 0, 400_000, tzinfo=UTC)


def report(*runs: datetime, head: str = "a" * 40, team: Verdict | None = None) -> Report:
    digest = Digest(verdict=Verdict.SKIM, reason="r", headline="h")
    given = TeamVerdict(verdict=team, by="maya", head_sha=head, at=STARTED.isoformat(), analysed=Verdict.SKIM) \
        if team else None
    return Report(digest=digest, analyzer="model", head_sha=head, team=given,
                  model_runs=[moment.isoformat(timespec="seconds") for moment in runs])


def test_fresh_since_counts_only_analyses_begun_after_the_run_started() -> None:
    assert fresh_since(report(STARTED + timedelta(seconds=5)), STARTED)
    assert not fresh_since(report(STARTED - timedelta(minutes=5)), STARTED)
    assert not fresh_since(report(STARTED), STARTED)  # the same second: it may be what this run read
    assert not fresh_since(report(), STARTED) and not fresh_since(None, STARTED)
    assert latest_analysis(report(STARTED, STARTED + timedelta(hours=1))) == STARTED.replace(microsecond=0) + \
        timedelta(hours=1)


def test_nobody_wrote_meanwhile_ours_is_written() -> None:
    previous = report(STARTED - timedelta(hours=1))
    ours = report(STARTED - timedelta(hours=1), STARTED + timedelta(seconds=3))
    assert settle(ours, previous, previous, STARTED, False) == (ours, False)
    assert settle(ours, None, previous, STARTED, False) == (ours, False)


def test_a_verdict_written_meanwhile_is_carried() -> None:
    previous = report(STARTED - timedelta(hours=1))
    theirs = report(STARTED - timedelta(hours=1), team=Verdict.SKIP)  # a /readworthy verdict's run wrote this
    ours = report(STARTED - timedelta(hours=1), STARTED + timedelta(seconds=3), head="b" * 40)
    written, superseded = settle(ours, theirs, previous, STARTED, giving_verdict=False)
    assert not superseded and written.head_sha == "b" * 40
    assert written.team is not None and written.team.verdict is Verdict.SKIP


def test_a_newer_analysis_is_kept_and_our_verdict_goes_on_it() -> None:
    previous = report(STARTED - timedelta(hours=1))
    theirs = report(STARTED - timedelta(hours=1), STARTED + timedelta(seconds=20), head="c" * 40)
    ours = report(STARTED - timedelta(hours=1), STARTED + timedelta(seconds=2), team=Verdict.DEEP_READ)
    written, superseded = settle(ours, theirs, previous, STARTED, giving_verdict=True)
    assert superseded and written.head_sha == "c" * 40
    assert written.team is not None and written.team.verdict is Verdict.DEEP_READ
    # an analysis begun before this run (it finished while we gathered) does not replace ours
    older = report(STARTED - timedelta(seconds=30), head="d" * 40)
    written, superseded = settle(report(team=Verdict.SKIM), older, previous, STARTED, giving_verdict=True)
    assert not superseded and written.head_sha == "a" * 40
