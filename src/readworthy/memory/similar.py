"""How alike two changes are, the team's nearest past corrections, and what the heuristic makes of them.

Similarity (0..1) of two ChangeProfiles, from what the memory keeps of each PR:
  areas  the overlap of where the changed lines are, directory by directory: at depth 1, 2 and 3 the
         share of lines under each prefix, overlap = sum of the smaller shares. Deeper agreement weighs
         more (AREA_DEPTH_WEIGHTS): in a monorepo nearly everything shares its first directory.
  kinds  the overlap of the shares of changed lines per file kind (build, test, source, docs ...).
  size   how close the changed line counts are on a log scale (10 vs 100 lines: 0.5; vs 1,000: 0).
and the weighted mean of the three (WEIGHTS). The weights and thresholds are set from what the
measures mean, not fitted to any labelled PRs (bench/verdicts.py --memory measures them on held-out PRs).

Evidence rule (the heuristic): a correction says "when readworthy called a change like this X, the
team called it Y". So only CLOSE matches whose analysed verdict is the verdict the heuristic reached
now count: they vote for their team verdict with their similarity (a confirmation votes for the
heuristic's own verdict). The verdict changes to the team's when that verdict's vote is at least
MIN_EVIDENCE (one close correction of the same call) and beats every other verdict's vote.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..models import ChangeProfile, Correction, CorrectionMatch, Verdict

AREA_DEPTH_WEIGHTS = (0.2, 0.3, 0.5)
WEIGHTS = {"areas": 0.45, "kinds": 0.35, "size": 0.2}
SIZE_DECADES = 2.0  # line counts this many powers of ten apart share nothing in size
# A match the heuristic may count as evidence: the same kinds of file and a good part of the same
# areas (two Docker build changes in different directories of one repository score about 0.65; a
# kernel change and a docs change, under 0.3). Set from that meaning; bench/verdicts.py --memory then
# showed 0.75 too strict to ever apply on a 15-PR memory, and 0.6-0.65 helping teams whose taste
# differs from the default while a shuffled memory hurts (the control).
CLOSE = 0.65
RELATED = 0.5  # a match worth showing to the model as an example
MAX_EXAMPLES = 4
MIN_EVIDENCE = CLOSE  # one close correction of the same call is enough; two weaker ones are not


def _shares(weights: Mapping[str, int]) -> dict[str, float]:
    total = sum(weights.values())
    return {k: v / total for k, v in weights.items() if v > 0} if total > 0 else {}


def _overlap(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    return sum(min(share, b.get(key, 0.0)) for key, share in a.items())


def _at_depth(areas: Mapping[str, int], depth: int) -> dict[str, float]:
    grouped: defaultdict[str, int] = defaultdict(int)
    for area, lines in areas.items():
        grouped["/".join(area.split("/")[:depth])] += lines
    return _shares(grouped)


def area_similarity(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    if not a or not b:
        return 0.0
    return sum(w * _overlap(_at_depth(a, d), _at_depth(b, d)) for d, w in enumerate(AREA_DEPTH_WEIGHTS, 1))


def kind_similarity(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    return _overlap(_shares(a), _shares(b))


def size_similarity(a: int, b: int) -> float:
    return max(0.0, 1.0 - abs(math.log10(a + 1) - math.log10(b + 1)) / SIZE_DECADES)


def similarity(a: ChangeProfile, b: ChangeProfile) -> float:
    value = (WEIGHTS["areas"] * area_similarity(a.areas, b.areas)
             + WEIGHTS["kinds"] * kind_similarity(a.kinds, b.kinds)
             + WEIGHTS["size"] * size_similarity(a.lines, b.lines))
    return round(min(1.0, max(0.0, value)), 4)


def nearest(memory: Iterable[Correction], profile: ChangeProfile, *, exclude_pr: int = 0,
            limit: int = MAX_EXAMPLES, at_least: float = RELATED) -> list[CorrectionMatch]:
    """The past corrections most like `profile`, most similar first (newest first among equals);
    never the PR's own (its team verdict is already applied to it)."""
    items = [c for c in memory if c.pr != exclude_pr]
    scored = [CorrectionMatch(correction=c, similarity=similarity(profile, c.profile)) for c in items]
    order = {id(c): i for i, c in enumerate(items)}
    scored = [m for m in scored if m.similarity >= at_least]
    scored.sort(key=lambda m: (-m.similarity, -order[id(m.correction)]))
    return scored[:limit]


@dataclass(frozen=True)
class Evidence:
    """What the team's close corrections say about the heuristic's verdict."""

    verdict: Verdict  # the verdict to give
    supporting: tuple[CorrectionMatch, ...]  # the corrections that moved it (empty when it stands)

    @property
    def changed(self) -> bool:
        return bool(self.supporting)


def weigh(own: Verdict, matches: Iterable[CorrectionMatch], close: float = CLOSE) -> Evidence:
    """The evidence rule (module docstring): the team's verdict on changes like this one, or `own`."""
    relevant = [m for m in matches if m.similarity >= close and m.correction.analysed is own]
    votes: defaultdict[Verdict, float] = defaultdict(float)
    for m in relevant:
        votes[m.correction.team] += m.similarity
    rivals = [v for v in votes if v is not own]
    if not rivals:
        return Evidence(own, ())
    best = max(rivals, key=lambda v: (votes[v], v.value))
    others = max((votes[v] for v in votes if v is not best), default=0.0)
    if votes[best] < MIN_EVIDENCE or votes[best] <= others:
        return Evidence(own, ())
    return Evidence(best, tuple(m for m in relevant if m.correction.team is best))


def taste_hash(input_hash: str, matches: Iterable[CorrectionMatch]) -> str:
    """`input_hash` extended by the corrections that inform the analysis: the stored analysis is reused
    only while the same corrections (verdicts, reasons) would inform it. No corrections: unchanged."""
    keys = sorted(json.dumps(m.correction.model_dump(mode="json", include={"pr", "title", "analysed", "team",
                                                                             "reason"}), sort_keys=True)
                  for m in matches)
    if not keys:
        return input_hash
    digest = hashlib.sha256(input_hash.encode())
    for key in keys:
        digest.update(b"\x00" + key.encode())
    return digest.hexdigest()[: max(len(input_hash), 16)]
