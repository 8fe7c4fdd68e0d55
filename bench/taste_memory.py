"""`bench/verdicts.py --memory`: the team's taste memory, measured on labelled PRs it has not seen.

Corrections come from one half of the labels, agreement is measured on the other half; the heuristic
uses the memory exactly as in a run (memory/similar.py: `nearest`, then the evidence rule inside
`heuristic_digest`). See verdicts.py's docstring for the three figures and the control.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from verdicts import DEFAULT_FIXTURES, Agreement, Verdict, agreement, load_all_labels, patch_path, report

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.memory.profile import change_profile
from readworthy.memory.similar import CLOSE, nearest, weigh
from readworthy.models import ChangeProfile, Correction, Coverage, PRContext
from readworthy.models import Verdict as V

Memory = list[Correction]


@dataclass(frozen=True)
class Case:
    """One labelled PR as the heuristic sees it."""

    ctx: PRContext
    profile: ChangeProfile
    own: str  # the heuristic's verdict without memory
    reason: str


def load_cases(fixtures: Path | Sequence[Path], numbers: Sequence[int], language: str) -> dict[int, Case]:
    cases = {}
    for n in numbers:
        patch = patch_path(fixtures, n)
        if patch is not None:
            ctx = context_from_source(LocalSource(patch=str(patch)))
            digest = heuristic_digest(ctx, Coverage(), language)
            cases[n] = Case(ctx, change_profile(ctx.files), digest.verdict.value, digest.reason)
    return cases


def split(numbers: Sequence[int], seed: int) -> tuple[list[int], list[int]]:
    """(training half, held-out half) of `numbers`, by a seeded shuffle; the held-out half gets the odd one."""
    order = sorted(numbers)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return sorted(order[:half]), sorted(order[half:])


def memory_from(train: Sequence[int], labels: Mapping[int, Verdict], cases: Mapping[int, Case]) -> Memory:
    """What the team would have recorded by giving its verdict on each training PR."""
    return [Correction(pr=n, areas=cases[n].profile.areas, kinds=cases[n].profile.kinds, lines=cases[n].profile.lines,
                       analysed=V(cases[n].own), team=V(labels[n].verdict), reason=labels[n].reason[:200])
            for n in train if n in cases]


def shuffled(memory: Memory, seed: int) -> Memory:
    """The control: the same team verdicts, permuted among the training PRs."""
    verdicts = [c.team for c in memory]
    random.Random(seed).shuffle(verdicts)
    return [c.model_copy(update={"team": v}) for c, v in zip(memory, verdicts, strict=True)]


def ignoring_the_call(memory: Memory, own: str) -> Memory:
    """The ablation: every correction treated as if it corrected the call the heuristic makes now."""
    return [c.model_copy(update={"analysed": V(own)}) for c in memory]


def answers(test: Sequence[int], cases: Mapping[int, Case], memory: Memory, language: str,
            adapt: Callable[[Memory, str], Memory] | None = None) -> dict[int, Verdict]:
    """The heuristic's verdicts on `test` with `memory`. The heuristic is run again only where the evidence
    rule moves its verdict (its verdict is `weigh(...)`'s by construction; the reason needs the real run)."""
    out = {}
    for n in test:
        if n not in cases:
            continue
        case = cases[n]
        used = adapt(memory, case.own) if adapt is not None else memory
        matches = nearest(used, case.profile, exclude_pr=n)
        if not weigh(V(case.own), matches).changed:
            out[n] = Verdict(case.own, case.reason)
            continue
        digest = heuristic_digest(case.ctx, Coverage(), language, matches)
        out[n] = Verdict(digest.verdict.value, digest.reason)
    return out


def reach(test: Sequence[int], cases: Mapping[int, Case], memory: Memory) -> tuple[int, int]:
    """(held-out PRs with a close past verdict, ... with a close one of the call the heuristic makes now)."""
    close = same = 0
    for n in test:
        if n in cases:
            found = [m for m in nearest(memory, cases[n].profile, exclude_pr=n) if m.similarity >= CLOSE]
            close += bool(found)
            same += any(m.correction.analysed.value == cases[n].own for m in found)
    return close, same


def one_split(labels: Mapping[int, Verdict], cases: Mapping[int, Case], seed: int,
              language: str) -> tuple[list[int], list[int], Memory, dict[str, Agreement]]:
    train, test = split(sorted(labels), seed)
    memory = memory_from(train, labels, cases)
    held_out = {n: labels[n] for n in test}
    results = {
        "without memory": agreement("without memory", held_out, answers(test, cases, [], language)),
        "with memory": agreement("with memory", held_out, answers(test, cases, memory, language)),
        "shuffled control": agreement("shuffled control", held_out,
                                      answers(test, cases, shuffled(memory, seed + 1), language)),
        "ablation: ignoring the analysed verdict": agreement(
            "ablation", held_out, answers(test, cases, memory, language, ignoring_the_call)),
    }
    return train, test, memory, results


MIN_KIND_PRS = 4  # a team taste shift is tried for a kind of change at least this many labelled PRs share


def dominant_kind(case: Case) -> str:
    """The file kind with the most changed lines: what kind of change a PR is, coarsely."""
    return max(case.profile.kinds.items(), key=lambda kv: (kv[1], kv[0]))[0] if case.profile.kinds else ""


def shifted_teams(labels: Mapping[int, Verdict], cases: Mapping[int, Case]) -> list[tuple[str, dict[int, Verdict]]]:
    """Teams whose taste differs from the labels' in one systematic way, the way issue 17 describes teams
    ("one team reads every Docker caching change as a template, another skips them"): for every kind of
    change that at least MIN_KIND_PRS labelled PRs share, and every verdict, a team that gives that verdict
    to all PRs of that kind and agrees with the labels elsewhere. A team whose shift changes no label, or
    only one, is left out (nothing to learn)."""
    by_kind: dict[str, list[int]] = {}
    for n in labels:
        if n in cases:
            by_kind.setdefault(dominant_kind(cases[n]), []).append(n)
    teams = []
    for kind, members in sorted(by_kind.items()):
        if not kind or len(members) < MIN_KIND_PRS:
            continue
        for verdict in ("deep-read", "skim", "skip"):
            changed = [n for n in members if labels[n].verdict != verdict]
            if len(changed) < 2:
                continue
            shifted = dict(labels)
            for n in members:
                shifted[n] = Verdict(verdict, f"this team reads every {kind} change as {verdict}")
            teams.append((f"{kind} -> {verdict} ({len(changed)} of {len(members)} labels differ)", shifted))
    return teams


def _shifted_lines(labels: Mapping[int, Verdict], cases: Mapping[int, Case], seed: int, splits: int,
                   language: str) -> list[str]:
    teams = shifted_teams(labels, cases)
    names = ("without memory", "with memory", "shuffled control")
    lines = [f"teams whose taste differs from the labels' (one kind of change read one way), {len(teams)} teams, "
             f"each over {splits} seeded splits: mean held-out agreement with that team's verdicts"]
    grand = {name: 0.0 for name in names}
    for title, team in teams:
        totals = {name: 0.0 for name in names}
        for k in range(splits):
            _, _, _, results = one_split(team, cases, seed + 1000 * (k + 1), language)
            for name in names:
                totals[name] += results[name].rate / max(splits, 1)
        for name in names:
            grand[name] += totals[name] / max(len(teams), 1)
        lines.append(f"  {title:<46} " + "  ".join(f"{name} {totals[name]:.3f}" for name in names))
    lines.append("  mean over the teams:                            " +
                 "  ".join(f"{name} {grand[name]:.3f}" for name in names))
    return lines


def memory_bench(fixtures: Path | Sequence[Path], labels: Mapping[int, Verdict], seed: int, splits: int, language: str,
                 shifted_splits: int = 40) -> str:
    cases = load_cases(fixtures, sorted(labels), language)
    train, test, memory, results = one_split(labels, cases, seed, language)
    corrected = sum(1 for c in memory if c.corrected)
    lines = [
        f"taste memory on held-out PRs: split seed {seed} (random.Random({seed}).shuffle of the sorted PR numbers; "
        f"first {len(train)} train, last {len(test)} held out)",
        f"  training half ({len(train)}): " + ", ".join(map(str, train)),
        f"  held-out half ({len(test)}): " + ", ".join(map(str, test)),
        f"  memory: {len(memory)} team verdicts ({corrected} corrections of the heuristic, "
        f"{len(memory) - corrected} confirmations); shuffled control: seed {seed + 1}",
    ]
    close, same = reach(test, cases, memory)
    lines.append(f"  held-out PRs with a close past verdict (similarity >= {CLOSE}): {close} of {len(test)}; "
                 f"of the call the heuristic makes now: {same}")
    for name, result in results.items():
        lines.append(f"  {name:<40} {len(result.agree):>2}/{len(result.scored)} = {result.rate:.2f}")
    moved = [n for n in test if results["with memory"].answers.get(n) != results["without memory"].answers.get(n)]
    lines.append("  verdicts the memory changed: " + (", ".join(
        f"#{n} {results['without memory'].answers[n].verdict} -> {results['with memory'].answers[n].verdict} "
        f"(label {labels[n].verdict})" for n in moved) or "none"))
    lines.append("")
    lines += _over_splits(labels, cases, seed, splits, language)
    lines.append("")
    # The labels are the default taste the heuristic was calibrated on: there is little left for a memory
    # to teach. What the memory is for is a team whose taste differs; these teams measure that.
    lines += _shifted_lines(labels, cases, seed, shifted_splits, language)
    lines.append("")
    lines.append(report(results["with memory"]))
    return "\n".join(lines)


def _over_splits(labels: Mapping[int, Verdict], cases: Mapping[int, Case], seed: int, splits: int,
                 language: str) -> list[str]:
    names = ("without memory", "with memory", "shuffled control", "ablation: ignoring the analysed verdict")
    totals = {name: 0.0 for name in names}
    versus = {name: [0, 0, 0] for name in names[1:]}  # helped, same, hurt (vs without memory)
    for k in range(splits):
        _, _, _, results = one_split(labels, cases, seed + 1000 * (k + 1), language)
        base = len(results["without memory"].agree)
        for name in names:
            totals[name] += results[name].rate
            if name in versus:
                delta = len(results[name].agree) - base
                versus[name][0 if delta > 0 else 1 if delta == 0 else 2] += 1
    lines = [f"over {splits} more seeded splits (seeds {seed + 1000}, {seed + 2000}, ...): mean held-out agreement"]
    for name in names:
        tally = versus.get(name)
        extra = f"   vs without: better on {tally[0]}, same on {tally[1]}, worse on {tally[2]}" if tally else ""
        lines.append(f"  {name:<40} {totals[name] / max(splits, 1):.3f}{extra}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """`bench/verdicts.py --memory` runs this (it cannot import it: this module builds on verdicts.py)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixtures", type=Path, action="append", default=[], metavar="DIR",
                        help="a folder of labelled fixtures (repeatable; default: both development sets)")
    parser.add_argument("--seed", type=int, default=17, help="the seed of the reported split")
    parser.add_argument("--splits", type=int, default=200, help="how many seeded splits to average")
    parser.add_argument("--language", default="en", choices=("en", "zh-CN"))
    args = parser.parse_args(argv)
    roots = args.fixtures or DEFAULT_FIXTURES
    labels = load_all_labels(roots)
    if not labels:
        print("labels not found in " + ", ".join(str(r / "labels.jsonl") for r in roots), file=sys.stderr)
        return 2
    print(memory_bench(roots, labels, args.seed, args.splits, args.language))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
