"""The deterministic analyzer: a verdict and a reading guide with no model (no key, a spent quota,
a failed call, `readworthy local` offline). Labelled as such in every comment.

    analyzer.py     heuristic_digest / heuristic_analysis: the verdict, the reason, the guide
    verdict_model.py  the reading-value model: general facts weighed into the verdict's probabilities
    verdict_weights.py  its fitted constants (bench/fit_verdicts.py --write)
    signals.py      what it measures about a PR (kinds of change, sizes, guards, moves, security words)
    definitions.py  the definitions a diff adds or changes, with their comments
    centre.py       which of them the rest of the diff depends on (where to start reading)
    authors.py      what the authors wrote, quoted briefly and tied to a definition
    guide.py        design points in the authors' words
    start.py        where to start reading
    code_points.py  design points the diff states (a replaced condition, a gate, an interface, shared code)
    kind_points.py  design points of a docs-only, tests-only or build-only PR (the page's rule, the test
                    technique; workflow_points.py and build_points.py for CI files and CMake options)
    readers.py      who should read it, who talked, what is still open
    shapes.py       line-level detectors (imports, defaults, guards)
    triage.py       triage: verdict, confidence and reading value, for spending a model quota
    wording.py      its sentences in en and zh-CN (phrases_en.py, phrases_zh.py), counts and separators
"""

from .analyzer import heuristic_analysis, heuristic_digest
from .triage import Triage, triage

__all__ = ["Triage", "heuristic_analysis", "heuristic_digest", "triage"]
