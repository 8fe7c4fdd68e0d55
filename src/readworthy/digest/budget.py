"""The digest's share of GitHub's hourly request budget.

The workflow token has 1,000 REST requests an hour per repository, shared by every job of every
workflow there. A digest or a backfill chunk that spends them all fails half-way and starves the
repository's other workflows; so it reads what is left as it goes (every answer carries
`X-RateLimit-Remaining`, which costs nothing to read), keeps a reserve for the others, and stops
starting new work before the budget runs out. What was analysed is stored in each PR's comment,
so the next run picks up where this one stopped, with no repeated model calls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..gather.github_api import GitHub, RateLeft, rate_left
from ..gather.outline import MAX_OUTLINE_FILES

# REST requests of one fresh analysis: config, files, comments, create, re-check, label (8), and at most
# MAX_OUTLINE_FILES head files read for their outlines (gather/outline.py; 2.6 on an average vLLM PR)
ANALYSIS_REQUESTS = 8 + MAX_OUTLINE_FILES
LOOKUP_REQUESTS = 1  # reading one PR's stored analysis (its comment list)
RESERVE_SHARE = 0.10  # of the hourly budget, left for the repository's other workflows
MIN_RESERVE = 25


@dataclass(frozen=True)
class RequestBudget:
    gh: GitHub

    def reading(self) -> RateLeft:
        return rate_left(self.gh)

    def headroom(self) -> int | None:
        """Requests this digest may still make, after the reserve; None when no answer has said yet."""
        left = self.reading()
        if left.remaining is None:
            return None
        return left.remaining - reserve(left.limit)

    def allows(self, requests: int) -> bool:
        room = self.headroom()
        return room is None or room >= requests

    def affordable(self, each: int) -> int | None:
        """How many pieces of work of `each` requests fit now; None when unknown."""
        room = self.headroom()
        return None if room is None else max(0, room // each)

    def why_stopped(self) -> str:
        left = self.reading()
        when = f" until {left.reset_at:%H:%M} UTC" if left.reset_at else ""
        return (f"GitHub's request budget is nearly spent ({left.remaining} of {left.limit} left{when}, "
                f"{reserve(left.limit)} of them kept for the repository's other workflows); the next run "
                "picks up here, and what was analysed so far is kept in the PRs' comments")


def reserve(limit: int | None) -> int:
    return max(MIN_RESERVE, math.ceil((limit or 0) * RESERVE_SHARE))
