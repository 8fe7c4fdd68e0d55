"""One file's pieces: condensed hunks, their brief form (outlines of long added runs), reading order."""

from __future__ import annotations

from readworthy.pack.classify import patterns_for
from readworthy.pack.hunks import (
    BRIEF_RUN,
    OUTLINE_FOLLOW,
    condense_hunk,
    file_hunks,
    outline_run,
    reading_order,
)


def new_module(functions: int, body: int) -> list[str]:
    lines = ["import os", "import sys", "", "CONSTANT = 3", ""]
    for i in range(functions):
        lines += ["@cache", f"def step_{i}(value: int) -> int:", f'    """Step {i}."""']
        lines += [f"    value = value * {j} + {i}  # body line {j}" for j in range(body)]
        lines += ["    return value", ""]
    return lines


def hunk_of(lines: list[str], start: int = 0) -> str:
    return f"@@ -{start},0 +{start + 1},{len(lines)} @@\n" + "\n".join("+" + line for line in lines)


def test_a_long_added_run_briefly_is_every_definition_it_adds() -> None:
    module = new_module(8, 20)
    [hunk] = file_hunks(hunk_of(module), "pkg/engine.py")
    assert hunk.definitions == 8 and hunk.added == sum(1 for line in module if line.strip())
    assert hunk.full == hunk_of(module)  # every added line
    brief = hunk.brief.split("\n")
    for i in range(8):  # each definition with its decorator and the lines right after it
        at = brief.index(f"+def step_{i}(value: int) -> int:")
        assert brief[at - 1] == "+@cache" and brief[at + 1] == f'+    """Step {i}."""'
    assert "+    value = value * 19 + 0  # body line 19" not in brief  # bodies are counted, not shown
    counted = sum(int(line.split("(")[1].split()[0]) for line in brief if line.startswith("+... ("))
    shown = sum(1 for line in brief[1:] if line.startswith("+") and not line.startswith("+... (") and line[1:].strip())
    assert counted + shown == hunk.added  # nothing silently lost
    assert len(hunk.brief) < len(hunk.full) / 4


def test_short_runs_and_runs_without_definitions_keep_what_they_had() -> None:
    short = new_module(1, 3)
    assert len(short) <= BRIEF_RUN
    [hunk] = file_hunks(hunk_of(short), "pkg/small.py")
    assert hunk.brief == hunk.full
    table = [f"ENTRY_{i} = {i}" for i in range(100)]
    outline = outline_run(["+" + line for line in table], patterns_for("pkg/table.py"))
    assert outline[0] == "+ENTRY_0 = 0" and outline[-1] == "+ENTRY_99 = 99"  # head and tail
    assert any(line.startswith("+... (") for line in outline) and len(outline) < 30


def test_outline_follows_the_files_language() -> None:
    script = ["set -euo pipefail", "", "compute_cache_key() {"] + [f"  echo step {i}" for i in range(40)]
    script += ["}", "", "export_ref() {"] + [f"  echo ref {i}" for i in range(40)] + ["}"]
    [hunk] = file_hunks(hunk_of(script), "ci/bake.sh")
    assert hunk.definitions == 2
    assert "+compute_cache_key() {" in hunk.brief and "+export_ref() {" in hunk.brief
    assert "+  echo step 30" not in hunk.brief
    assert OUTLINE_FOLLOW >= 1 and "+  echo step 0" in hunk.brief


def test_reading_order_definitions_first_then_most_code_then_removals() -> None:
    tweak = "@@ -10,3 +10,3 @@\n a\n-b = 1\n+b = 2\n c"
    removal = "@@ -50,4 +50,1 @@\n a\n-b\n-c\n-d"
    block = "@@ -80,1 +80,6 @@\n a\n" + "\n".join(f"+x{i} = compute({i})" for i in range(5))
    new_def = "@@ -120,1 +120,3 @@\n a\n+def helper(x):\n+    return x"
    hunks = file_hunks("\n".join([tweak, removal, block, new_def]), "pkg/mod.py")
    assert reading_order(hunks) == [3, 2, 0, 1]


def test_condensing_shrinks_context_and_removed_runs_but_keeps_every_added_line() -> None:
    context = [f" unchanged line {i}" for i in range(50)]
    body = context[:25] + [f"-old {i}" for i in range(10)] + [f"+new {i}" for i in range(70)] + context[25:]
    text = condense_hunk("@@ -1,85 +1,145 @@ class Core:\n" + "\n".join(body))
    assert "unchanged line 5\n" not in text and " ... (" in text
    assert "-old 0" in text and "-old 9" not in text and "-... (8 more removed lines)" in text
    assert all(f"+new {i}" in text for i in range(70))
