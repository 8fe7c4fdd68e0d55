"""The shared table of language families (languages.py) and the comment syntax read from it."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic.comment_text import comment_syntax
from readworthy.analyze.heuristic.shapes import comment_pattern
from readworthy.languages import C_LIKE, JS_LIKE, PYTHON, extension, written_in


@pytest.mark.parametrize(("path", "ext"), [
    ("src/Engine.PY", "py"), ("a.b/Dockerfile", ""), ("csrc/attn.cuh", "cuh"), (".github/x.yml", "yml"),
])
def test_the_extension_is_the_file_names_own_in_lower_case(path: str, ext: str) -> None:
    assert extension(path) == ext


def test_a_path_is_written_in_one_of_the_families_given() -> None:
    assert written_in("vllm/x.pyi", PYTHON)
    assert written_in("web/app.mjs", C_LIKE, JS_LIKE) and not written_in("web/app.mjs", C_LIKE)
    assert not written_in("docs/python.md", PYTHON)  # a directory or a word in the name is no extension


@pytest.mark.parametrize(("path", "hash_comment", "slash_comment"), [
    ("engine/run.py", True, False),
    ("csrc/attn.cu", False, True),  # `#include` is the preprocessor
    ("web/index.php", True, True),  # PHP takes both
    ("Dockerfile.rocm", True, False),
])
def test_which_marks_start_a_comment(path: str, hash_comment: bool, slash_comment: bool) -> None:
    assert comment_syntax(path) == (hash_comment, slash_comment)
    assert bool(comment_pattern(path).match("# note")) is (hash_comment or not slash_comment)
