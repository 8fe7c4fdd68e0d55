"""How far the team agreed with readworthy in a digest's window: the team's own measure of fit. Pure.

Read from the Reports the digest already holds (each PR's hidden state keeps the team's verdict, the
analysis it corrected and the kind of change): no request of its own. A verdict counts as corrected
when the team's differs from the analysed one, as confirmed when it is the same.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..memory.words import describe
from ..models import Verdict
from .models import DigestEntry

MAX_KINDS = 3


@dataclass(frozen=True)
class Agreement:
    verdicts: int  # PRs in the digest
    judged: int  # ... on which the team gave a verdict
    corrected: int
    moves: list[tuple[Verdict, Verdict, int]] = field(default_factory=list)  # (analysed, team, count), most first
    kinds: list[tuple[str, int]] = field(default_factory=list)  # most corrected kinds of change

    @property
    def confirmed(self) -> int:
        return self.judged - self.corrected


def agreement(entries: list[DigestEntry], language: str = "en") -> Agreement:
    teams = [e.report.team for e in entries if e.report.team is not None]
    corrected = [t for t in teams if t.verdict is not t.analysed]
    moves = Counter((t.analysed, t.verdict) for t in corrected)
    kinds = Counter(describe(t.profile, language) for t in corrected if t.profile.kinds)
    return Agreement(
        verdicts=len(entries),
        judged=len(teams),
        corrected=len(corrected),
        moves=[(a, b, n) for (a, b), n in sorted(moves.items(), key=lambda kv: (-kv[1], kv[0][0].value,
                                                                                  kv[0][1].value))],
        kinds=sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_KINDS],
    )
