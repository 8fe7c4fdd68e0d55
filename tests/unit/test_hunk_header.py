"""hunk_header.py: the one reader of `@@ -a,b +c,d @@ context` lines every stage shares."""

from __future__ import annotations

from readworthy.hunk_header import HunkHeader, hunk_headers, parse_hunk_header


def test_numbers_and_context_as_git_wrote_them() -> None:
    assert parse_hunk_header("@@ -12,6 +14,7 @@ class Foo(nn.Module):") == HunkHeader(12, 6, 14, 7,
                                                                                     "class Foo(nn.Module):")
    # the context keeps its indentation: definitions.py reads how deep the named line sits
    assert parse_hunk_header("@@ -3,2 +3,2 @@     def forward(self):").context == "    def forward(self):"


def test_a_left_out_count_is_one_and_no_context_is_empty() -> None:
    assert parse_hunk_header("@@ -5 +5 @@") == HunkHeader(5, 1, 5, 1, "")
    assert parse_hunk_header("@@ -0,0 +1,3 @@") == HunkHeader(0, 0, 1, 3, "")


def test_what_is_not_a_hunk_header() -> None:
    for line in ("@@ -x,1 +1,1 @@", "@@@ -1,2 -1,2 +1,3 @@@", "@@ -1,2 +1,2", "+@@ -1 +1 @@", ""):
        assert parse_hunk_header(line) is None, line


def test_every_readable_header_of_a_patch_in_order() -> None:
    patch = "@@ -1,2 +1,2 @@ def a():\n-x\n+y\n @@ -9 +9 @@ not a header\n@@ bad @@\n@@ -20,1 +20,2 @@\n+z"
    assert [(h.new_start, h.context) for h in hunk_headers(patch)] == [(1, "def a():"), (20, "")]
