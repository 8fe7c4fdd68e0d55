"""What one line of code states as a condition (analyze/heuristic/line_conditions.py)."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic.line_conditions import condition_of


@pytest.mark.parametrize(("line", "path", "expected"), [
    # a comment after the code is not part of the condition
    ("    if source.patch is not None:  # a patch may come from anywhere", "local.py",
     ("if", "source.patch is not None")),
    ("  if (x > 0) { // positive only", "kernel.cu", ("if", "x > 0")),
    # `//` is floor division in Python and `#` is no comment in C: both stay
    ("    if chunk_index >= page_size // BLOCK_SIZE:", "utils.py", ("if", "chunk_index >= page_size // BLOCK_SIZE")),
    ('  if (n == count("#")) {', "a.cc", ("if", 'n == count("#")')),
    ("    x = y.count('#') > 2  # more than two", "a.py", ("x", "y.count('#') > 2")),
    # a boolean assigned to a name is a condition
    ("    update = kk > 0 && packedMax == topK[0].compVal;", "topk.cuh",
     ("update", "kk > 0 && packedMax == topK[0].compVal")),
    ("    ok = (a and b)", "a.py", ("ok", "(a and b)")),
    ("    flag = not self.enabled", "a.py", ("flag", "not self.enabled")),
])
def test_conditions_are_read_without_what_follows_them(line: str, path: str, expected: tuple[str, str]) -> None:
    assert condition_of(line, path) == expected


@pytest.mark.parametrize("line", [
    # operators inside a call's arguments or a string: the value is not a condition
    '    text = _sub_tags(_KEPT_TAG_RE, lambda m: f"<{m.group(1)}>", text)',
    '    s = "a == b"',
    "    limit = min(a, b < c)",
    # a conditional expression chooses a value; it is no condition
    '    seen = " diff:full" if c.path in full else ""',
    '  const mode = x > 0 ? "fast" : "slow";',
    "    # if this is a comment",
])
def test_an_assignment_whose_operators_are_not_its_own_is_no_condition(line: str) -> None:
    assert condition_of(line, "a.py") is None
