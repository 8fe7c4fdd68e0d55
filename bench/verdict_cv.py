"""`bench/verdicts.py` out of sample: the heuristic's agreement on PRs that played no part in fitting it.

Two measurements beside the in-sample one (the shipped constants on every labelled PR):

  cross-validated   the labelled PRs are dealt into --folds folds by a seeded shuffle (--seed); each
                    fold is scored by the heuristic with the reading-value model refitted on the other
                    folds only (bench/fit_verdicts.py `fit_selected`: feature means and scales, weights,
                    cuts, and the penalty, chosen by inner cross-validation on those folds). What is
                    tuned is data (weights, cuts), so this is the figure for the weights.
  held-out split    the code rules (features, settling shapes, decision costs) were changed after this
                    split was fixed (HELD_OUT_SEED, 20 of the 62, drawn before looking at any failure of
                    the new rules): the model is fitted on the other 42 and scored on these 20.

Every figure reports agreement, the confusion matrix, the share of each verdict, skip precision (the
share of `skip` answers labelled skip), how many PRs labelled deep-read were called skip, and the
precision of the confident skips triage() would leave without a model.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import fit_verdicts as fv
from verdicts import VERDICTS, Agreement, Verdict, agreement, patch_path

from readworthy.analyze.heuristic.analyzer import judgement
from readworthy.analyze.heuristic.signals import Signals, measure
from readworthy.analyze.heuristic.triage import CONFIDENT_SKIP
from readworthy.analyze.heuristic.verdict_model import FITTED, Params, features
from readworthy.gather.local import LocalSource, context_from_source

FOLDS = 10
SEED = 24
HELD_OUT_SEED = 24  # fixed 2026-12-03 14:25 UTC, before the new rules' failures were looked at
HELD_OUT_SIZE = 20
REPEAT_SEEDS = (25, 26, 27, 28, 29)


@dataclass(frozen=True)
class Case:
    number: int
    label: str
    signals: Signals
    features: dict[str, float] | None  # None: a settling shape decides it, the model never sees it


def load_cases(roots: Path | Sequence[Path], labels: Mapping[int, Verdict]) -> list[Case]:
    cases = []
    for number in sorted(labels):
        patch = patch_path(roots, number)
        if patch is None:
            continue
        sig = measure(context_from_source(LocalSource(patch=str(patch))))
        settled = bool(judgement(sig, "en").shortcut)
        cases.append(Case(number, labels[number].verdict, sig, None if settled else features(sig)))
    return cases


def cross_validated(cases: Sequence[Case], k: int, seed: int) -> dict[int, tuple[Verdict, float]]:
    """Each case judged with the model refitted on the other folds only."""
    by_number = {c.number: c for c in cases}
    out: dict[int, tuple[Verdict, float]] = {}
    for fold in folds(list(by_number), k, seed):
        params = _fit([c for c in cases if c.number not in fold])
        out.update(answers_with([by_number[n] for n in fold], params))
    return out


def held_out(numbers: Sequence[int], seed: int = HELD_OUT_SEED, size: int = HELD_OUT_SIZE) -> list[int]:
    order = sorted(numbers)
    random.Random(seed).shuffle(order)
    return sorted(order[:size])


def folds(numbers: Sequence[int], k: int, seed: int) -> list[list[int]]:
    order = sorted(numbers)
    random.Random(seed).shuffle(order)
    return [sorted(order[i::k]) for i in range(k)]


def _fit(cases: Sequence[Case]) -> Params:
    """The model refitted on these cases alone, its penalty chosen by cross-validation inside them."""
    modelled = [c for c in cases if c.features is not None]
    return fv.fit_selected([c.features for c in modelled if c.features is not None], [c.label for c in modelled])[0]


def answers_with(cases: Sequence[Case], params: Params) -> dict[int, tuple[Verdict, float]]:
    """Each case's verdict (and confidence) by the heuristic with these model constants."""
    out = {}
    for c in cases:
        j = judgement(c.signals, "en", params)
        out[c.number] = (Verdict(j.verdict.value, j.reason), j.confidence)
    return out


@dataclass
class Measured:
    name: str
    result: Agreement
    confident: tuple[int, int]  # (confident skips labelled skip, confident skips)

    def lines(self) -> list[str]:
        r = self.result
        skips = sum(r.matrix[(wanted, "skip")] for wanted in VERDICTS)
        right = r.matrix[("skip", "skip")]
        deep_skipped = r.matrix[("deep-read", "skip")]
        right_conf, all_conf = self.confident
        out = [f"== {self.name}",
               f"  agreement: {len(r.agree)}/{len(r.scored)} = {r.rate:.2f}",
               "  confusion (rows: label, columns: given)",
               f"  {'':>11}" + "".join(f"{v:>11}" for v in VERDICTS) + f"{'total':>8}"]
        for wanted in VERDICTS:
            row = [r.matrix[(wanted, given)] for given in VERDICTS]
            out.append(f"  {wanted:>11}" + "".join(f"{x:>11}" for x in row) + f"{sum(row):>8}")
        out.append("  share of each verdict (given vs labels): " + ", ".join(
            f"{v} {r.shares[v]:.2f} vs {r.label_shares[v]:.2f}" for v in VERDICTS))
        out.append(f"  skip precision: {right}/{skips}" + (f" = {right / skips:.2f}" if skips else ""))
        out.append(f"  labelled deep-read, called skip: {deep_skipped}")
        out.append(f"  confident skips (confidence >= {CONFIDENT_SKIP}): {right_conf}/{all_conf} labelled skip")
        return out


def measure_answers(name: str, labels: Mapping[int, Verdict], answered: Mapping[int, tuple[Verdict, float]]
                    ) -> Measured:
    answers = {n: a for n, (a, _) in answered.items()}
    confident = [n for n, (a, conf) in answered.items() if a.verdict == "skip" and conf >= CONFIDENT_SKIP]
    return Measured(name, agreement(name, labels, answers),
                    (sum(1 for n in confident if labels[n].verdict == "skip"), len(confident)))


def out_of_sample(roots: Path | Sequence[Path], labels: Mapping[int, Verdict], k: int = FOLDS,
                  seed: int = SEED) -> list[Measured]:
    """In-sample, cross-validated and held-out-split figures for the heuristic."""
    cases = load_cases(roots, labels)
    by_number = {c.number: c for c in cases}
    shipped = answers_with(cases, FITTED)
    refit = answers_with(cases, _fit(cases))
    results = [measure_answers("in-sample: the shipped constants on every labelled PR", labels, shipped)]
    stale = sum(1 for n in shipped if shipped[n][0].verdict != refit[n][0].verdict)
    cv = cross_validated(cases, k, seed)
    results.append(measure_answers(f"out of sample, {k}-fold cross-validated (seed {seed}): each PR judged with "
                                   "the model fitted without its fold", labels, cv))
    # One dealing of the folds moves the figure by a PR or two; other seeds show how far.
    rates = [measure_answers("", labels, cross_validated(cases, k, s)).result.rate for s in REPEAT_SEEDS]
    results[-1].name += (f"\n   (the same over seeds {REPEAT_SEEDS[0]}-{REPEAT_SEEDS[-1]}: mean {sum(rates) / len(rates):.2f}, "
                         f"min {min(rates):.2f}, max {max(rates):.2f})")
    held = [n for n in held_out(list(by_number)) if n in by_number]
    params = _fit([c for c in cases if c.number not in held])
    split = answers_with([by_number[n] for n in held], params)
    results.append(measure_answers(f"out of sample, held-out split (seed {HELD_OUT_SEED}, {len(held)} PRs fixed "
                                   f"before the rules were changed; fitted on the other {len(cases) - len(held)})",
                                   labels, split))
    if stale:
        results[0].name += f" (STALE: {stale} verdicts differ from a refit; run bench/fit_verdicts.py --write)"
    return results
