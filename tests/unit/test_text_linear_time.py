"""No text stalls a run (issue 23): every step that reads a stranger's text takes time in proportion to it.

Each adversarial input (bench/adversarial_text.py builds them) runs in a forked child, cut off at a
bound measured on this machine, now: 20x a like run of benign text of the same size (the slower of the
step itself and the whole material step, whose time is large enough to measure). Before the fix each
of these took minutes or never finished at this size; a linear step takes a few times benign at most.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import pytest
from bench_modules import load_bench

from readworthy.pack.redact import redact_secrets
from readworthy.pack.sanitize import lower_keeping_offsets

bench = load_bench("adversarial_text")
SIZE = 64 * 1024
BOUND_FACTOR = 20.0

# (step, input) pairs that were quadratic or worse before issue 23
SLOW_BEFORE = [
    ("redact_secrets (prose)", "İzmir + `1.2-` run (issue 23)"),
    ("redact_secrets (patch)", "İzmir + `1.2-` run (issue 23)"),
    ("redact_secrets (prose)", "İzmir + key + `1.2-` run"),
    ("redact_secrets (prose)", "key + `a.` run"),
    ("redact_secrets (prose)", "`sk-` run"),
    ("redact_secrets (patch)", "`eyJ-` run"),
    ("redact_secrets (prose)", "`-----BEGIN PRIVATE KEY-----` run"),
    ("redact_secrets (patch)", "`-----BEGIN A PRIVATE KEY-----` labels"),
    ("clean_prose", "spaces after a link"),
    ("clean_prose", "spaces after a reference definition"),
    ("clean_prose", "`<svg ` run"),
    ("clean_prose", "`<img ` run"),
    ("clean_prose", "`<details ` run"),
    ("clean_prose", "`![` run"),
    ("clean_prose", "`![a](` run"),
    ("find_issue_refs", "spaces after `fix`"),
    ("find_issue_refs", "dots"),
    ("find_issue_refs", "`a-` run"),
    ("find_issue_refs", "`<!--` run"),
    ("noise_kind", "dots"),
    ("noise_kind", "spaces after a link"),
    ("safe_markdown.inline", "backticks"),
    ("defined_names (.cpp)", "`(` run, then `;`"),
    ("file_hunks (.cpp)", "`(` run, then `;`"),
    ("parse_patch", "`Binary files` with ` and ` run"),
    ("heuristic line detectors", "spaces before `;` after `if`"),
    ("heuristic line detectors", "tabs after `default=`, then `x`"),
    ("heuristic line detectors", "`uses: ` and an `a@` run"),
    ("heuristic line detectors", "`version=` run in a toml table"),
]


def _best_of(fn: Callable[[str], object], text: str, runs: int = 2) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


_YARDSTICKS: dict[str, float] = {}


def _yardstick(step: str) -> float:
    """Seconds of a like run on benign text of the same size (prose; a patch for the patch steps)."""
    if step not in _YARDSTICKS:
        benign = bench.benign_code_lines(SIZE) if "patch" in step or "hunks" in step or "names" in step \
            else bench.benign_prose(SIZE)
        bench.STEPS[step](bench.benign_prose(1_000))  # warm up: the tokenizer loads once
        _YARDSTICKS[step] = max(_best_of(bench.STEPS[step], benign),
                                _best_of(bench.STEPS["material (clean + unlink + redact)"], benign))
    return _YARDSTICKS[step]


@pytest.mark.skipif(sys.platform == "win32", reason="forks a child to cut off a step that never ends")
@pytest.mark.parametrize(("step", "case"), SLOW_BEFORE, ids=[f"{s} / {c}" for s, c in SLOW_BEFORE])
def test_adversarial_text_takes_time_in_proportion(step: str, case: str) -> None:
    bound = BOUND_FACTOR * _yardstick(step)
    seconds = bench.time_case(step, case, SIZE, timeout=bound)
    assert seconds is not None, f"{step} on {case} ({SIZE:,} characters) ran over {bound:.2f} s"
    assert seconds <= bound


def test_the_issue_case_redacts_as_fast_as_a_plain_i_and_still_redacts() -> None:
    """20 KB: 'İzmir' and `1.2-` x 5,000 took 20.8 s, against 1.2 s with a plain 'I'."""
    secret = "SECRET_KEY=9f8a7B6c5D4e3F2a1B0cZ"
    hostile = f"Deployed to İzmir.\n{secret}\n" + "1.2-" * 5_000
    plain = hostile.replace("İ", "I")
    redact_secrets(plain)
    bound = BOUND_FACTOR * max(_best_of(redact_secrets, plain), 0.002)
    start = time.perf_counter()
    out, count = redact_secrets(hostile)
    assert time.perf_counter() - start <= bound
    assert count == 1 and "9f8a7B6c5D4e3F2a1B0cZ" not in out and "İzmir" in out


def test_a_secret_after_the_dotted_i_is_redacted_at_its_own_offset() -> None:
    """The lowered copy keeps every offset: the replacement lands on the value, not next to it."""
    out, count = redact_secrets("İİİ api_key = 'Zq8W3rT6yU9iO2pA5sD8fG1h' and more")
    assert count == 1
    assert out == "İİİ api_key = '[REDACTED:assignment]' and more"


def test_only_the_dotted_capital_i_lowers_to_more_characters() -> None:
    """lower_keeping_offsets swaps the characters whose lower case is longer; today there is one."""
    longer = [chr(c) for c in range(sys.maxunicode + 1) if len(chr(c).lower()) != 1]
    assert longer == ["\u0130"]
    text = "aİb" * 3
    assert len(lower_keeping_offsets(text)) == len(text)
