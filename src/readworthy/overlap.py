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

What it does not do: two model calls that are in flight at the same moment both happen (nothing is
locked); only the newer analysis is kept.
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
