"""Two runs reviewing the same PR at once, made harmless (issue 23).

The example workflows give each trigger its own concurrency group, because GitHub cancels a group's
pending run whenever a newer one is queued: a push must never cancel a pending `/readworthy verdict`, and
a label must never cancel a pending push. So a push's run, a label's, a command's and a dispatch can
review one PR at the same time. Pure rules for that, applied by review.py with one extra read:

    fresh_since(report, started)        the stored analysis began after this run did: reuse it, even
                                        when forced (it is as fresh as what this run would make)
    settle(ours, theirs, previous, …)   right before writing: another run's analysis that began after
                                        ours is kept, not overwritten; a team verdict written meanwhile
                                        is carried, never dropped
    answered_meanwhile(theirs, previous)
                                        another run's model analysis was written after this run read
                                        the comment: of the same inputs, a run that waited on that run's
                                        analysis lease reuses it, even when forced

What it does not do by itself: keep two model calls from being in flight at once (these rules only see
a comment once it is written). That is spend/lease.py's analysis lease, taken by action runs: right
before asking the model, a run creates a git ref named after the PR and its inputs; a second run with the
same inputs finds it, waits (bounded) for the first one's comment and reuses its analysis
(answered_meanwhile). Runs with other inputs each make their own, and settle keeps the newer. Where no
lease is taken — a token without `contents: write` (a fork's read-only one), `readworthy pr`, the digest —
two calls in flight at the same moment both happen, as before, and only the newer analysis is kept.
"""

from __future__ import annotations

from datetime import UTC, datetime

from .models import Report


def latest_analysis(report: Report | None) -> datetime | None:
    """When the report's newest model analysis began (its stored `model_runs`), None if it has none."""
    moments: list[datetime] = []
    for stamp in report.model_runs if report is not None else []:
        try:
            moment = datetime.fromisoformat(stamp)
        except ValueError:
            continue
        moments.append(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    return max(moments, default=None)


def fresh_since(report: Report | None, started: datetime) -> bool:
    """The report's newest model analysis began after `started` (stamps are whole seconds: one begun in the
    same second is not counted, so a run never reuses what it may have read before it began)."""
    moment = latest_analysis(report)
    return moment is not None and moment > started.replace(microsecond=0)


def answered_meanwhile(theirs: Report | None, previous: Report | None) -> bool:
    """The comment as re-read (`theirs`) carries a model analysis newer than any in the state this run read
    first (`previous`): another run wrote it meanwhile. Whether it answers this run's inputs is
    rules.cache_hit's to say."""
    if theirs is None or theirs.analyzer != "model":
        return False
    newer, before = latest_analysis(theirs), latest_analysis(previous)
    return newer is not None and (before is None or newer > before)


def settle(ours: Report, theirs: Report | None, previous: Report | None, started: datetime,
           giving_verdict: bool) -> tuple[Report, bool]:
    """What to write, given the comment's state as re-read right before writing (`theirs`) and as read
    when this run began (`previous`). Returns (report, superseded): superseded when another run's
    analysis, begun after ours, is kept instead of ours."""
    if theirs is None or theirs == previous:
        return ours, False  # nobody wrote meanwhile
    mine = max(latest_analysis(ours) or started, started.replace(microsecond=0))  # our gather began after `started`
    newer = latest_analysis(theirs)
    superseded = newer is not None and newer > mine
    base = theirs if superseded else ours
    # A verdict given in this run is the newest; otherwise the comment's is (another run may have written one).
    team = ours.team if giving_verdict else theirs.team
    return base.model_copy(update={"team": team}), superseded
