"""bench/release_heads.py: a head file rebuilt from a later release puts the PR's own lines at the hunk
headers' line numbers, takes the lines between hunks from the release, and refuses what it cannot place."""

from __future__ import annotations

from pathlib import Path

from bench_modules import load_bench

from readworthy.enclosing import Enclosing
from readworthy.gather.outline import python_outline

rh = load_bench("release_heads")

# The file at the PR's head: `evict` changed four lines below its `def`.
HEAD = """import os


class Pool:
    def __init__(self):
        self.blocks = []
        self.limit = 8

    def evict(self):
        first = self.blocks[0]
        second = self.blocks[1]
        third = self.blocks[2]
        return third

    def size(self):
        return len(self.blocks)
"""
PATCH = "\n".join([
    "@@ -10,7 +10,7 @@ class Pool:",
    "         first = self.blocks[0]",
    "         second = self.blocks[1]",
    "         third = self.blocks[2]",
    "-        return first",
    "+        return third",
    " ",
    "     def size(self):",
    "         return len(self.blocks)",
    "",
])

def _release(extra_above: str) -> str:
    """The file some commits later: `extra_above` inserted in `__init__`, above the PR's hunk."""
    return HEAD.replace("        self.limit = 8\n", "        self.limit = 8\n" + extra_above)


def test_rebuilt_head_has_the_hunk_at_its_line_and_the_method_around_it() -> None:
    got = rh.rebuild(_release("        self.hits = 0\n        self.misses = 0\n"), PATCH)
    assert got is not None
    text, whole, gaps, kept = got
    lines = text.split("\n")
    assert lines[9 - 1 + 1:9 - 1 + 5] == HEAD.split("\n")[9:13]  # the hunk's lines from line 10 on
    assert (whole, gaps, kept) == (1, 1, 0)  # the release's gap is two lines longer: cut to fit
    outline = python_outline(text)
    assert outline is not None
    assert [e.qualname for e in Enclosing(outline).above(10)] == ["Pool", "Pool.evict"]


def test_same_length_release_gives_the_head_back() -> None:
    got = rh.rebuild(HEAD.replace("return third", "return first"), PATCH)
    assert got is not None and got[0] == HEAD and got[1:] == (0, 1, 1)  # placed by its context, not whole


def test_a_hunk_the_release_does_not_hold_is_not_placed() -> None:
    assert rh.rebuild("def other():\n    return 1\n", PATCH) is None


def test_release_heads_choose_the_release_holding_the_hunks_whole(tmp_path: Path) -> None:
    for version, text in (("0.1.0", HEAD.replace("return third", "return first")), ("0.2.0", _release(""))):
        target = tmp_path / version / "vllm" / "pool.py"
        target.parent.mkdir(parents=True)
        target.write_text(text, encoding="utf-8")
    heads = rh.ReleaseHeads(tmp_path)
    assert heads.read("vllm/pool.py", PATCH) == HEAD.encode("utf-8")
    assert heads.read("vllm/missing.py", PATCH) is None
    assert heads.stats.versions == {"0.2.0": 1} and (heads.stats.files, heads.stats.rebuilt) == (2, 1)


def test_a_gap_the_release_made_much_longer_keeps_the_class_the_hunk_is_in() -> None:
    # ten lines added to `__init__` later: the cut reaches past `class Pool:`, which must stay
    got = rh.rebuild(_release("".join(f"        self.extra_{i} = {i}\n" for i in range(10))), PATCH)
    assert got is not None
    text = got[0]
    assert text.split("\n")[9:13] == HEAD.split("\n")[9:13]  # the hunk still at its head line numbers
    outline = python_outline(text)
    assert outline is not None
    assert [e.qualname for e in Enclosing(outline).above(10)][0] == "Pool"
