"""The outline of a file at the PR's head (gather/outline.py), and the definitions it lets the heuristic name."""

from __future__ import annotations

import time
from pathlib import Path

from git_repo import new_repo

from readworthy.analyze.heuristic.definitions import file_definitions
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.gather.outline import (
    MAX_DEPTH,
    MAX_OUTLINE_BYTES,
    add_outlines,
    decode_source,
    needs_outline,
    python_outline,
)
from readworthy.models import FileChange, FileStatus

SOURCE = '''"""A module docstring that mentions
def not_a_function():
"""
import torch


@register(
    name="moe",
)
class Router(nn.Module):
    """Routes tokens. def fake(): pass"""

    class Config:
        def validate(self):
            return True

    def __init__(
        self,
        experts: int,
    ) -> None:
        note = "def bogus(): ("
        text = """
def also_bogus():
    ("""
        def helper():
            class Local:
                pass
            return 2
# a column-0 comment inside the method
        self.experts = experts

    @torch.no_grad()
    async def forward(self, x): return x  # def nope


def top(a, \\
        b):
    return a
'''


def _entries(text: str) -> dict[str, tuple[str, int, int]]:
    outline = python_outline(text)
    assert outline is not None
    return {e.qualname: (e.kind, e.first, e.last) for e in outline}


def test_outline_names_classes_methods_and_nested_classes_with_their_lines() -> None:
    assert _entries(SOURCE) == {
        "Router": ("class", 10, 33),
        "Router.Config": ("class", 13, 15),
        "Router.Config.validate": ("function", 14, 15),
        "Router.__init__": ("function", 17, 30),  # multi-line signature, strings, a nested def and class
        "Router.forward": ("function", 33, 33),  # below its decorator
        "top": ("function", 36, 38),  # a backslash continuation is not a statement
    }


def test_outline_is_linear_and_capped() -> None:
    size = 400_000
    benign = ("    def f(self, x):\n        return x + 1\n" * (size // 40))[:size]
    started = time.perf_counter()
    python_outline(benign)
    base = time.perf_counter() - started
    for hostile in ("(" * size, '"' * size, "\\" * size, "'''" + "\\'" * (size // 2), "def f(\n" * (size // 7)):
        started = time.perf_counter()
        python_outline(hostile)
        assert time.perf_counter() - started < 20 * base + 0.5
    assert python_outline("x = 1\n" * (MAX_OUTLINE_BYTES // 6 + 1)) is None
    assert decode_source(b"def f():\n    pass\n") == "def f():\n    pass\n"
    assert decode_source("caf\u00e9".encode("latin-1")) is None  # not UTF-8
    assert decode_source(b"\x89PNG\r\n\x1a\n\0\0") is None
    assert decode_source(b"#" * (MAX_OUTLINE_BYTES + 1)) is None


HEAD = '''import torch


class DecoderLayer(nn.Module):
    """One layer."""

    def __init__(self):
        super().__init__()
        self.norm = RMSNorm()

    def forward(self, hidden, residual):
        hidden = self.norm(hidden)
        hidden = self.attn(hidden)
        hidden = self.mlp(hidden)
        hidden = hidden * self.scale
        return hidden, residual
'''
# git names the nearest column-0 line above the hunk: the class, not the method the change is in
PATCH = (
    "@@ -12,6 +12,6 @@ class DecoderLayer(nn.Module):\n"
    "         hidden = self.norm(hidden)\n"
    "         hidden = self.attn(hidden)\n"
    "         hidden = self.mlp(hidden)\n"
    "-        hidden = hidden * 2\n"
    "+        hidden = hidden * self.scale\n"
    "         return hidden, residual\n"
)


def test_with_the_head_outline_a_class_header_hunk_names_the_method_it_changes() -> None:
    change = FileChange(path="vllm/model.py", additions=1, deletions=1, patch=PATCH)
    without = {d.qualname: (d.added, d.removed) for d in file_definitions(change).definitions}
    assert without == {"DecoderLayer": (1, 1)}  # as before: only the class

    outline = python_outline(HEAD)
    found = {d.qualname: d for d in file_definitions(change.model_copy(update={"outline": outline})).definitions}
    method = found["DecoderLayer.forward"]
    assert (method.added, method.removed, method.line, method.new) == (1, 1, 11, False)
    assert method.added_code == ["        hidden = hidden * self.scale"]
    assert method.removed_code == ["        hidden = hidden * 2"]
    assert method.parent == "DecoderLayer" and not method.is_type
    assert (found["DecoderLayer"].added, found["DecoderLayer"].added_code) == (1, [])  # counted, not its own


def test_only_files_whose_hunks_leave_changed_lines_outside_a_named_definition_are_outlined() -> None:
    under_class = FileChange(path="a.py", additions=1, deletions=1, patch=PATCH)
    def_in_hunk = FileChange(path="b.py", additions=1, patch=(
        "@@ -40,3 +40,4 @@ class CPUWorker:\n     def init_device(self):\n+        x = 1\n         y = 2\n"))
    top_function = FileChange(path="c.py", additions=1,
                              patch="@@ -5,2 +5,3 @@ def load(path):\n     a = 1\n+    b = 2\n")
    assert needs_outline(under_class)
    assert not needs_outline(def_in_hunk) and not needs_outline(top_function)
    assert not needs_outline(under_class.model_copy(update={"path": "a.md"}))
    assert not needs_outline(under_class.model_copy(update={"status": FileStatus.REMOVED}))


def test_add_outlines_reads_at_most_the_limit_most_changed_first_and_survives_missing_files() -> None:
    files = [FileChange(path=f"m{i}.py", additions=i, deletions=1, patch=PATCH) for i in range(14)]
    files.append(FileChange(path="README.md", additions=50, patch="@@ -1 +1 @@\n-a\n+b\n"))
    asked: list[str] = []

    def read(path: str) -> bytes | None:
        asked.append(path)
        return None if path == "m12.py" else HEAD.encode()

    out = add_outlines(files, read, limit=10)
    assert asked == [f"m{i}.py" for i in range(13, 3, -1)]
    assert [f.path for f in out] == [f.path for f in files]
    assert {f.path for f in out if f.outline} == {f"m{i}.py" for i in range(4, 14)} - {"m12.py"}
    assert all(f.outline is None for f in out if f.path in ("m12.py", "m0.py", "README.md"))


def test_code_files_are_read_before_test_files_however_large_the_tests() -> None:
    tests = [FileChange(path=f"tests/test_m{i}.py", additions=500, patch=PATCH) for i in range(3)]
    code = [FileChange(path=f"pkg/m{i}.py", additions=5 + i, patch=PATCH) for i in range(2)]
    asked: list[str] = []

    def read(path: str) -> bytes | None:
        asked.append(path)
        return HEAD.encode()

    add_outlines([*tests, *code], read, limit=3)
    assert asked == ["pkg/m1.py", "pkg/m0.py", "tests/test_m0.py"]


def test_a_file_change_without_an_outline_field_still_loads() -> None:
    # what older code stored (gather/sample.py's dumps, caches) has no `outline`
    data = FileChange(path="a.py", patch=PATCH).model_dump()
    del data["outline"]
    assert FileChange.model_validate(data).outline is None


def test_readworthy_local_outlines_a_git_range_at_its_head_and_a_patch_not_at_all(tmp_path: Path) -> None:
    git = new_repo(tmp_path)
    (tmp_path / "model.py").write_text(HEAD.replace("hidden * self.scale", "hidden * 2"), encoding="utf-8")
    git("add", "model.py")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "feature")
    (tmp_path / "model.py").write_text(HEAD, encoding="utf-8")
    git("commit", "-q", "-am", "Scale the hidden states")

    ctx = context_from_source(LocalSource(base="main", head="feature"), cwd=tmp_path)
    [change] = ctx.files
    assert change.outline is not None and "DecoderLayer.forward" in {e.qualname for e in change.outline}
    assert "DecoderLayer.forward" in {d.qualname for d in file_definitions(change).definitions}

    patch = tmp_path / "change.patch"
    patch.write_text(git("diff", "main", "feature"), encoding="utf-8")
    [from_patch] = context_from_source(LocalSource(patch=str(patch)), cwd=tmp_path).files
    assert from_patch.outline is None  # a patch has no head to read


def test_many_hunks_in_a_file_of_many_definitions_take_time_in_proportion() -> None:
    # one question per hunk: a binary search and a short walk up, not a scan of the outline
    n = 6_000
    head = "class Big:\n" + "".join(f"    def m{i}(self):\n        a = {i}\n        b = {i}\n" for i in range(n))
    patch = "".join(f"@@ -{3 * i + 4},1 +{3 * i + 4},1 @@ class Big:\n-        b = 0\n+        b = {i}\n"
                    for i in range(n))
    change = FileChange(path="big.py", additions=n, deletions=n, patch=patch)
    started = time.perf_counter()
    file_definitions(change)
    without = time.perf_counter() - started
    outlined = change.model_copy(update={"outline": python_outline(head)})
    started = time.perf_counter()
    found = file_definitions(outlined)
    assert time.perf_counter() - started < 20 * without + 0.5
    assert sum(1 for d in found.definitions if d.qualname.startswith("Big.m")) == n


def test_classes_nested_past_the_depth_cap_belong_to_the_deepest_outlined_one() -> None:
    deep = "".join("    " * i + f"class C{i}:\n" for i in range(MAX_DEPTH + 3)) + "    " * (MAX_DEPTH + 3) + "x = 1\n"
    names = [e.qualname for e in python_outline(deep) or ()]
    assert len(names) == MAX_DEPTH and names[-1] == ".".join(f"C{i}" for i in range(MAX_DEPTH))
