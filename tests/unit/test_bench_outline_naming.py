"""bench/outline_naming.py on a throwaway history: it counts a change inside a method under a `class`
header, names it only with the outline, and leaves out what the diff names itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench_modules import load_bench
from git_repo import new_repo

BEFORE = '''class Pool:
    def __init__(self):
        self.blocks = []

    def evict(self):
        first = self.blocks[0]
        second = self.blocks[1]
        third = self.blocks[2]
        return first
'''


def test_the_bench_counts_methods_named_only_with_the_outline(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    git = new_repo(tmp_path)
    (tmp_path / "pool.py").write_text(BEFORE, encoding="utf-8")
    git("add", ".")
    git("commit", "-qm", "pool")
    # the change is in `evict`, four lines below its `def`: git's default header says `class Pool:`
    (tmp_path / "pool.py").write_text(BEFORE.replace("return first", "return third"), encoding="utf-8")
    git("commit", "-qam", "evict the third")
    # a change whose hunk shows its own `def`: the diff names it, so it is not counted
    (tmp_path / "pool.py").write_text(BEFORE.replace("return first", "return third")
                                      .replace("self.blocks = []", "self.blocks = [0]"), encoding="utf-8")
    git("commit", "-qam", "start with a block")
    bench = load_bench("outline_naming")
    monkeypatch.setattr(sys, "argv", ["outline_naming.py", "--repo", str(tmp_path)])
    assert bench.main() == 0
    out = capsys.readouterr().out
    assert ": 1 such hunks" in out
    assert "diff alone      : 0/1" in out
    assert "with the outline: 1/1" in out
