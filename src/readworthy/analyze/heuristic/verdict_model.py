"""The reading-value model: general facts about a change, weighed into deep-read / skim / skip.

An ordinal logistic model: the facts (`features`) are weighed into one latent reading value `z`;
two cut points split it into skip < skim < deep-read, and the logistic curve around each cut gives
each verdict's probability. The weights and cuts are plain constants in verdict_weights.py, fitted
on labelled PRs by bench/fit_verdicts.py (pure Python, no runtime dependency); the fit's
cross-validated agreement is what bench/verdicts.py reports as out of sample.

Every feature is a fact any large repository's PRs have, described by what it detects; none names
a path, a project or a PR. Sizes are on a log scale, so size shapes the value without deciding it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ...models import Verdict
from ...pack.classify import FileKind
from . import verdict_weights
from .signals import CODE_KINDS, MECHANICAL_KINDS, Signals

_SUPPORT = (FileKind.CONFIG, FileKind.DELETED, FileKind.RENAMED, *MECHANICAL_KINDS)


def _log(n: float) -> float:
    return math.log2(1.0 + max(0.0, n))


def features(sig: Signals) -> dict[str, float]:
    """The facts the model weighs, each a number (booleans are 0/1): one feature a fact. A fact the
    rubric gives no direction and that another feature already carries (test functions beside test
    lines, code in new files beside a new package) is left out: with sixty-odd labelled PRs each extra
    feature is one more way to memorise them. Two facts are left out on principle: where the code lives
    (kernel files; the rubric values a pattern "wherever it lives", and a kernel worth reading shows it by
    what it adds) and what the title claims (a "[Perf]" tag is PR text anyone can write: it must not buy a
    closer read)."""
    added = max(1, sig.added_lines)
    code_files = sum(n for k, n in sig.kinds.items() if k in CODE_KINDS)
    return {
        # how much: added code, what is deleted, added build, CI and configuration lines (a one-value retune
        # and a reworked Dockerfile are both "build only"), how many new definitions (log scale)
        "code_lines": _log(sig.added_code_lines),
        "deleted_lines": _log(sig.deleted_lines),
        "other_lines": _log(sig.added_other_lines),
        "new_definitions": _log(sig.new_definitions),
        # what share of the change is deletion
        "deletion_share": sig.deleted_lines / (sig.deleted_lines + added),
        # what kind of change it is
        "tests_only": float(bool(sig.kinds.get(FileKind.TEST)) and sig.only(FileKind.TEST, *_SUPPORT)),
        "docs_only": float(bool(sig.kinds.get(FileKind.DOCS)) and sig.only(FileKind.DOCS, *_SUPPORT)),
        "build_only": float(not code_files and sig.only(FileKind.BUILD, FileKind.TEST, FileKind.DOCS, *_SUPPORT)
                            and bool(sig.kinds.get(FileKind.BUILD) or sig.kinds.get(FileKind.CONFIG))),
        # contracts other code builds on
        "interface": float(bool(sig.abstractions or sig.implemented)),
        "capability": float(bool(sig.capability_flags)),
        "fail_fast": float(bool(sig.fail_fast)),
        "build_stages": float(bool(sig.build_stages)),
        # behaviour a reader relies on, changed
        "removed_guard": float(bool(sig.removed_guards) and sig.deleted_lines <= GUARD_CONTEXT_LINES),
        "changed_default": float(bool(sig.changed_defaults)),
        # a fix explained: a new test exercising changed code, tests beside a fix (titled one and shaped like
        # one, `Signals.fix`: a title alone buys nothing), comments saying why
        "regression_test": float(bool(sig.regression_tests)),
        "fix_with_tests": float(sig.fix) * _log(sig.added_test_lines),
        "why_comments": _log(sig.why_comments),
        # docs that add sections
        "doc_headings": _log(sig.doc_headings),
        # a self-contained drop: the share of the added code that sits in brand-new directories
        "new_package_share": sig.new_package_share,
        # a template filled in: the share of the new definitions that are methods with conventional names
        # (`__init__`, `forward`, `load` ...)
        "template_hooks": sig.template_share,
    }


GUARD_CONTEXT_LINES = 200  # a PR deleting more than this is a removal; its guards go with it

# The rubric's direction for each fact (docs/TASTE.md), in standardised units: where the fit starts and
# what its penalty pulls back to, and a sign the fitted weight may not cross (bench/fit_verdicts.py), so
# that a fact the labelled PRs show rarely never counts against what the rubric says it means.
# +1: a sign of something to copy or extend; -1: a sign of routine; 0 (unlisted): the data decides alone
# (sizes, shares, titles). Set from the rubric's wording, not fitted.
RUBRIC_PRIOR: Mapping[str, float] = {
    "interface": 1.0, "capability": 1.0, "fail_fast": 1.0, "build_stages": 1.0,
    "removed_guard": 1.0, "changed_default": 1.0, "regression_test": 1.0, "fix_with_tests": 1.0,
    "why_comments": 1.0, "new_definitions": 1.0, "doc_headings": 1.0,
    "tests_only": -1.0, "docs_only": -1.0, "deletion_share": -1.0,
    "template_hooks": -1.0,  # the rubric's model drop that follows an existing template: a skim
}


# How much the PR changes, not what: the rubric judges "by what an engineer can learn or must know, not by
# size", so these alone never make a PR worth close reading (analyzer._rubric).
SIZE_FEATURES = frozenset({"code_lines", "deleted_lines", "other_lines", "new_definitions", "deletion_share"})


def reading_facts(sig: Signals) -> list[str]:
    """The facts beyond size that the rubric counts towards a closer read, as the diff shows them."""
    return [k for k, v in features(sig).items() if v and RUBRIC_PRIOR.get(k, 0.0) > 0 and k not in SIZE_FEATURES]


@dataclass(frozen=True)
class Estimate:
    """The model's view of one PR: its latent reading value, and each verdict's probability."""

    z: float
    probabilities: Mapping[Verdict, float]
    contributions: Mapping[str, float]  # feature -> what it adds to z against a PR without it (weight x value / scale)

    @property
    def verdict(self) -> Verdict:
        return max(self.probabilities, key=lambda v: self.probabilities[v])

    @property
    def confidence(self) -> float:
        return self.probabilities[self.verdict]


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


@dataclass(frozen=True)
class Params:
    """A fitted model: each feature's mean and scale (to standardise it), its weight, and the two cuts."""

    weights: Mapping[str, float]
    cuts: tuple[float, float]
    means: Mapping[str, float]
    scales: Mapping[str, float]


FITTED = Params(verdict_weights.WEIGHTS, verdict_weights.CUTS, verdict_weights.MEANS, verdict_weights.SCALES)


CLIP = 3.0  # standardised values are held within ±3 deviations: a rare extreme value must not decide alone


def standardised(values: Mapping[str, float], params: Params) -> dict[str, float]:
    return {k: max(-CLIP, min(CLIP, (values[k] - params.means.get(k, 0.0)) / (params.scales.get(k, 1.0) or 1.0)))
            for k in values}


def ordinal_probabilities(z: float, cuts: tuple[float, float]) -> dict[Verdict, float]:
    """P(skip) = σ(c1 − z), P(skim) = σ(c2 − z) − σ(c1 − z), P(deep-read) = 1 − σ(c2 − z)."""
    below_skim, below_deep = sigmoid(cuts[0] - z), sigmoid(cuts[1] - z)
    return {Verdict.SKIP: below_skim, Verdict.SKIM: max(0.0, below_deep - below_skim),
            Verdict.DEEP_READ: 1.0 - below_deep}


def estimate(sig: Signals, params: Params = FITTED) -> Estimate:
    """The model's estimate for a PR (by default with the fitted constants; bench/ passes a fold's)."""
    raw = features(sig)
    x = standardised(raw, params)
    z = sum(params.weights.get(k, 0.0) * v for k, v in x.items())
    baseline = standardised(dict.fromkeys(raw, 0.0), params)  # the same PR without any of these facts
    contributions = {k: params.weights.get(k, 0.0) * (x[k] - baseline[k]) for k in raw}
    return Estimate(z, ordinal_probabilities(z, params.cuts), contributions)
