"""Docstrings are words about the code: a PR that only writes or rewords them changes no behaviour,
and a docstring change never hides a code change beside it."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.shapes import is_cosmetic
from readworthy.models import Coverage, FileChange, FileStatus, PRContext, Verdict


def _change(patch: str, path: str = "engine/sched/utils.py") -> FileChange:
    lines = patch.split("\n")
    return FileChange(path=path, status=FileStatus.MODIFIED, patch=patch,
                      additions=sum(x.startswith("+") for x in lines), deletions=sum(x.startswith("-") for x in lines))


def _cosmetic(change: FileChange) -> bool:
    lines = (change.patch or "").split("\n")
    return is_cosmetic(change.path, change.patch, [x[1:] for x in lines if x.startswith("+")],
                       [x[1:] for x in lines if x.startswith("-")])


DOCSTRING_ADDED = """\
@@ -10,4 +10,8 @@ from engine.request import Request
 
 def check_stop(request: Request, max_len: int) -> bool:
+    \"\"\"Whether the request must stop after its latest token.
+
+    A request stops at its token budget or at the model's length limit.
+    \"\"\"
     if request.num_tokens >= max_len:
         return True"""

DOCSTRING_REWORDED = """\
@@ -279,11 +279,8 @@ class Base:
     def _decorate_for_torch_compile(self):
-        \"\"\"
-        Decorate the decoder class for torch compile.
-
-        Args:
-            kwargs: the kwargs to create the model.
-        \"\"\"
+        \"\"\"Decorate the model's decoder class to indicate to the engine that it
+        supports torch compile.\"\"\"
         self._decorate(cls=self.decoder)"""

# the hunk starts inside a docstring (its opening is above) and changes its words only
INSIDE_DOCSTRING = """\
@@ -40,6 +40,6 @@ def check_stop(request: Request, max_len: int) -> bool:
     Whether the request must stop.
-    A request stops at its budget.
+    A request stops at its token budget or at the model's length limit.
     \"\"\"
     if request.num_tokens >= max_len:
         return True"""


@pytest.mark.parametrize("patch", [DOCSTRING_ADDED, DOCSTRING_REWORDED, INSIDE_DOCSTRING])
def test_a_docstring_only_change_is_cosmetic_and_skipped(patch: str) -> None:
    change = _change(patch)
    assert _cosmetic(change)
    digest = heuristic_digest(PRContext(title="Document check_stop", files=[change]), Coverage(), "en")
    assert digest.verdict is Verdict.SKIP
    assert digest.reason.startswith("Only comments, docstrings"), digest.reason


@pytest.mark.parametrize("patch", [
    # a docstring added and a comparison changed in the same hunk
    DOCSTRING_ADDED.replace(" def check_stop(request: Request, max_len: int) -> bool:\n",
                            " def check_stop(request: Request, max_len: int) -> bool:\n")
    .replace("     if request.num_tokens >= max_len:", "-    if request.num_tokens >= max_len:\n"
             "+    if request.num_tokens > max_len:"),
    # code after the end of a docstring the hunk starts inside of
    INSIDE_DOCSTRING.replace("     if request.num_tokens >= max_len:", "-    if request.num_tokens >= max_len:\n"
                             "+    if request.num_tokens > max_len:"),
    # a triple-quoted string that is a value, not a docstring: its words are data the code uses
    """\
@@ -5,4 +5,4 @@ import os
 PROMPT = \"\"\"
-You are a helpful assistant.
+You are a terse assistant.
 \"\"\"
 def build(): return PROMPT""",
    # a string still open at the hunk's end: what follows is out of sight
    """\
@@ -5,3 +5,4 @@ def f():
+    \"\"\"Start of a long docstring
     x = 1
     return x""",
])
def test_a_code_change_beside_a_docstring_is_not_cosmetic(patch: str) -> None:
    assert not _cosmetic(_change(patch))


def test_docstrings_count_as_words_only_in_python() -> None:
    # in a C file the same lines are code
    assert not _cosmetic(_change(DOCSTRING_ADDED, path="csrc/sched.cpp"))
