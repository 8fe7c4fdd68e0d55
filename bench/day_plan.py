"""The traffic of one vLLM day, planned from the 62 labelled development PRs (bench/day.py replays it).

Pure and deterministic (a seeded random generator): the same volume and seed give the same day.

Each PR of the day is one of the labelled fixtures (at twice vLLM's average volume every fixture is used
once and the rest again under new numbers). It is opened (a tenth as drafts, marked ready later), pushed
to one to six times, sometimes asked about by a maintainer (`/readworthy refresh`, `/readworthy`, the
trigger label), then merged. Merge times follow the hour-of-day shape of the fixtures' own commit times
(vLLM's contributors are spread over Asia, Europe and America), so the day has its real peaks.

Pushes are of four kinds:
    material    the PR grows: more of its files (or hunks) appear — the work a reader has not seen yet
    rebase      a new head with the same patch (GitHub's force-push after a rebase)
    review-fix  a few lines rewritten in place after a review comment
    typo        one character-level fix on one line
The last three are the non-material pushes the issue names; the PR's final state is always the fixture
itself, so the labelled verdict is the verdict of what gets merged.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

AVERAGE_MERGES_PER_DAY = 37  # vLLM, July-August 2026 (the count from the repository's history)
PushKind = Literal["material", "rebase", "review-fix", "typo"]
EventKind = Literal["opened", "ready", "push", "refresh", "command", "label", "merged"]
NON_MATERIAL: frozenset[str] = frozenset({"rebase", "review-fix", "typo"})


@dataclass(frozen=True)
class Fixture:
    number: int
    title: str
    author: str
    verdict: str  # the team's label: deep-read | skim | skip
    patch: str  # the fixture's unified diff (git show)
    hour: int  # the UTC hour of its commit: the day's shape


@dataclass(frozen=True)
class Event:
    at: datetime
    number: int  # the PR's number in the replay
    kind: EventKind
    push: PushKind | None = None
    version: int = 0  # which content version the PR has after this event (material pushes raise it)
    seq: int = 0  # the PR's push counter after this event (every push has its own head SHA)


@dataclass
class PlannedPR:
    number: int
    fixture: Fixture
    association: str  # GitHub's author_association
    draft: bool
    versions: int  # how many content versions (material pushes + 1)
    events: list[Event] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return self.fixture.verdict


def load_fixtures(roots: list[Path]) -> list[Fixture]:
    """Every labelled fixture under `roots` (vllm/ and vllm2/), in number order."""
    out: list[Fixture] = []
    for root in roots:
        labels = {}
        for line in (root / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                labels[int(record["pr"])] = str(record["verdict"])
        for folder in sorted(p for p in root.iterdir() if (p / "meta.json").is_file()):
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            number = int(meta["number"])
            if number not in labels:
                continue
            author = meta.get("author") or {}
            when = datetime.fromisoformat(str(meta.get("commit_date") or meta["date"])).astimezone(UTC)
            out.append(Fixture(number, str(meta["title"]),
                               str(author.get("name", "octocat") if isinstance(author, dict) else author),
                               labels[number], (folder / "diff.patch").read_text(encoding="utf-8", errors="replace"),
                               when.hour))
    return sorted(out, key=lambda f: f.number)


def plan_day(fixtures: list[Fixture], day: datetime, volume: float, seed: int = 21) -> list[PlannedPR]:
    """`volume` x vLLM's average day of merges, as PRs with their events (times within `day`)."""
    rng = random.Random(seed)
    count = round(AVERAGE_MERGES_PER_DAY * volume)
    chosen = _choose(fixtures, count, rng)
    hours = [f.hour for f in fixtures]
    prs = []
    for i, fixture in enumerate(chosen):
        number = fixture.number if i < len(fixtures) else 900_000 + i  # a repeat gets a number of its own
        prs.append(_plan_pr(number, fixture, day, hours, rng))
    return prs


def _choose(fixtures: list[Fixture], count: int, rng: random.Random) -> list[Fixture]:
    """`count` fixtures, every verdict in its share: all of them first, then repeats."""
    pool = list(fixtures)
    rng.shuffle(pool)
    if count <= len(pool):
        by_verdict: dict[str, list[Fixture]] = {}
        for f in pool:
            by_verdict.setdefault(f.verdict, []).append(f)
        picked: list[Fixture] = []
        while len(picked) < count:  # round robin over the verdicts keeps their shares
            for group in by_verdict.values():
                if group and len(picked) < count:
                    picked.append(group.pop())
        return picked
    return pool + [rng.choice(fixtures) for _ in range(count - len(pool))]


def _plan_pr(number: int, fixture: Fixture, day: datetime, hours: list[int], rng: random.Random) -> PlannedPR:
    merged = day + timedelta(hours=rng.choice(hours), minutes=rng.uniform(0, 59))
    opened = max(day + timedelta(minutes=5), merged - timedelta(hours=rng.uniform(1.5, 12)))
    draft = rng.random() < 0.1
    pushes = rng.randint(1, 6)
    kinds: list[PushKind] = [rng.choices(["material", "rebase", "review-fix", "typo"], [30, 30, 25, 15])[0]
                             for _ in range(pushes)]
    versions = kinds.count("material") + 1
    association = rng.choices(["MEMBER", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR"], [35, 50, 15])[0]
    pr = PlannedPR(number, fixture, association, draft, versions)
    span = (merged - opened).total_seconds()
    times = sorted(opened + timedelta(seconds=span * rng.uniform(0.05, 0.95)) for _ in range(pushes))
    pr.events.append(Event(opened, number, "opened", version=0))
    if draft:
        pr.events.append(Event(opened + timedelta(seconds=span * 0.03), number, "ready", version=0))
    version = 0
    for seq, (at, kind) in enumerate(zip(times, kinds, strict=True), start=1):
        version += kind == "material"
        pr.events.append(Event(at, number, "push", push=kind, version=version, seq=seq))
    roll = rng.random()
    if roll < 0.22:  # a maintainer asks: refresh (forced), a plain command, or the trigger label
        ask: EventKind = "refresh" if roll < 0.12 else ("command" if roll < 0.16 else "label")
        pr.events.append(Event(opened + timedelta(seconds=span * rng.uniform(0.3, 0.98)), number, ask,
                               version=-1))
    pr.events.append(Event(merged, number, "merged", version=versions - 1))
    pr.events.sort(key=lambda e: e.at)
    return pr


def timeline(prs: list[PlannedPR]) -> list[Event]:
    return sorted((e for pr in prs for e in pr.events), key=lambda e: (e.at, e.number))
