"""diffparse: every shape of git output we accept, the ones we refuse, and the real vLLM diffs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from git_repo import new_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readworthy.errors import InputError
from readworthy.gather.diffparse import parse_patch, parse_patch_bytes, unquote_path
from readworthy.models import FileStatus

MODIFIED = """\
diff --git a/pkg/core.py b/pkg/core.py
index 1111111..2222222 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,4 +1,5 @@ class Engine:
 import os
-x = 1
+x = 2
+y = 3
 z = 4
 w = 5
@@ -10,2 +11,2 @@ def run():
-    return x
+    return y
     # end
"""


def _one(text: str):
    parsed = parse_patch(text)
    assert len(parsed.files) == 1
    return parsed.files[0]


def test_modified_file_counts_and_patch_starts_at_first_hunk() -> None:
    change = _one(MODIFIED)
    assert (change.path, change.status, change.additions, change.deletions) == ("pkg/core.py", FileStatus.MODIFIED, 3, 2)
    assert change.patch is not None and change.patch.startswith("@@ -1,4 +1,5 @@ class Engine:")
    assert "index 1111111" not in change.patch and "+++ b/pkg/core.py" not in change.patch
    assert change.patch.count("@@ -") == 2


def test_new_and_deleted_files() -> None:
    text = """\
diff --git a/new.py b/new.py
new file mode 100644
index 0000000..1234567
--- /dev/null
+++ b/new.py
@@ -0,0 +1,2 @@
+def hello():
+    pass
diff --git a/old.py b/old.py
deleted file mode 100644
index 1234567..0000000
--- a/old.py
+++ /dev/null
@@ -1,3 +0,0 @@
-a
-b
-c
"""
    new, old = parse_patch(text).files
    assert (new.path, new.status, new.additions, new.deletions) == ("new.py", FileStatus.ADDED, 2, 0)
    assert (old.path, old.status, old.additions, old.deletions) == ("old.py", FileStatus.REMOVED, 0, 3)


def test_pure_rename_copy_and_mode_change() -> None:
    text = """\
diff --git a/src/a.py b/src/b.py
similarity index 100%
rename from src/a.py
rename to src/b.py
diff --git a/lib/x.py b/lib/y.py
similarity index 90%
copy from lib/x.py
copy to lib/y.py
index 1..2 100644
--- a/lib/x.py
+++ b/lib/y.py
@@ -1 +1 @@
-old
+new
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
"""
    rename, copy, mode = parse_patch(text).files
    assert (rename.path, rename.status, rename.previous_path, rename.patch) == ("src/b.py", FileStatus.RENAMED, "src/a.py", None)
    assert (copy.path, copy.status, copy.previous_path, copy.additions) == ("lib/y.py", FileStatus.COPIED, "lib/x.py", 1)
    assert (mode.path, mode.status, mode.additions, mode.deletions) == ("run.sh", FileStatus.CHANGED, 0, 0)


def test_binary_files_in_both_notations_and_the_next_file_still_parses() -> None:
    text = """\
diff --git a/img/logo.png b/img/logo.png
index 90aaf01..8cb98a8 100644
Binary files a/img/logo.png and b/img/logo.png differ
diff --git a/img/new.bin b/img/new.bin
new file mode 100644
index 0000000..e69de29
GIT binary patch
literal 12
TcmZ?wbhEHbRA5kGVgLXD

literal 0
HcmV?d00001

diff --git a/gone.png b/gone.png
deleted file mode 100644
Binary files a/gone.png and /dev/null differ
""" + MODIFIED
    files = parse_patch(text).files
    assert [(f.path, f.status, f.binary, f.patch) for f in files[:3]] == [
        ("img/logo.png", FileStatus.MODIFIED, True, None),
        ("img/new.bin", FileStatus.ADDED, True, None),
        ("gone.png", FileStatus.REMOVED, True, None),
    ]
    assert files[3].path == "pkg/core.py" and files[3].additions == 3


def test_quoted_and_spaced_paths() -> None:
    text = (
        'diff --git "a/t\\303\\251st \\"q\\".py" "b/t\\303\\251st \\"q\\".py"\n'
        "index 1..2 100644\n"
        '--- "a/t\\303\\251st \\"q\\".py"\n'
        '+++ "b/t\\303\\251st \\"q\\".py"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
        "diff --git a/dir with space/f.txt b/dir with space/f.txt\n"
        "index 1..2 100644\n"
        "--- a/dir with space/f.txt\t\n"
        "+++ b/dir with space/f.txt\t\n"
        "@@ -1 +1,2 @@\n a\n+b\n"
    )
    quoted, spaced = parse_patch(text).files
    assert quoted.path == 'tést "q".py'
    assert spaced.path == "dir with space/f.txt" and spaced.additions == 1
    assert unquote_path('"a\\tb\\\\c"') == "a\tb\\c"


def test_lines_that_look_like_headers_inside_a_hunk_are_content() -> None:
    text = """\
diff --git a/notes.md b/notes.md
index 1..2 100644
--- a/notes.md
+++ b/notes.md
@@ -1,3 +1,3 @@
--- a/fake
+++ b/fake
 diff --git a/x b/x
-commit 0123456789abcdef0123456789abcdef01234567
+@@ -1 +1 @@
"""
    change = _one(text)
    assert (change.path, change.additions, change.deletions) == ("notes.md", 2, 2)


def test_no_newline_marker_is_kept_but_not_counted() -> None:
    text = """\
diff --git a/a.txt b/a.txt
index 1..2 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-old
\\ No newline at end of file
+new
\\ No newline at end of file
"""
    change = _one(text)
    assert (change.additions, change.deletions) == (1, 1)
    assert change.patch is not None and change.patch.count("\\ No newline at end of file") == 2


def test_git_show_header_becomes_a_commit() -> None:
    text = (
        "commit 0123456789abcdef0123456789abcdef01234567\n"
        "Author: Ada Lovelace <ada@example.com>\n"
        "Date:   Mon Aug 10 17:02:49 2026 +0200\n\n"
        "    Fix the engine (#12)\n    \n    Longer explanation.\n\n" + MODIFIED
    )
    parsed = parse_patch(text)
    assert len(parsed.files) == 1
    (commit,) = parsed.commits
    assert commit.sha.startswith("0123456") and commit.author == "Ada Lovelace"
    assert commit.message == "Fix the engine (#12)\n\nLonger explanation."


def test_empty_commit_has_a_commit_and_no_files() -> None:
    parsed = parse_patch("commit abcdef0123456\nAuthor: A <a@b>\nDate: x\n\n    empty change\n")
    assert parsed.files == [] and parsed.commits[0].message == "empty change"


def test_format_patch_series() -> None:
    text = """\
From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: =?UTF-8?q?Zo=C3=AB?= <z@example.com>
Date: Tue, 1 Dec 2026 10:00:00 +0000
Subject: [PATCH 1/2] Add the engine with a long subject that
 continues on a folded line

Body of one.
---
 engine.py | 2 ++
 1 file changed, 2 insertions(+)

diff --git a/engine.py b/engine.py
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/engine.py
@@ -0,0 +1,2 @@
+def start():
+    pass
-- 
2.43.0


From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001
From: Bob <b@example.com>
Subject: [PATCH 2/2] Rename it

---
diff --git a/engine.py b/motor.py
similarity index 80%
rename from engine.py
rename to motor.py
index 1111111..2222222 100644
--- a/engine.py
+++ b/motor.py
@@ -1,2 +1,3 @@
 def start():
     pass
+# done
-- 
2.43.0
"""
    parsed = parse_patch(text)
    assert [c.message.split("\n")[0] for c in parsed.commits] == [
        "Add the engine with a long subject that continues on a folded line",
        "Rename it",
    ]
    assert parsed.commits[0].author == "Zoë" and parsed.commits[0].message.endswith("Body of one.")
    # net effect of the series: one added file at its final path
    (change,) = parsed.files
    assert (change.path, change.status, change.additions, change.deletions) == ("motor.py", FileStatus.ADDED, 3, 0)


def test_plain_unified_diff_without_git_headers() -> None:
    text = """\
--- a/one.c\t2026-01-01 10:00:00
+++ b/one.c\t2026-01-02 10:00:00
@@ -1 +1 @@
-int a;
+int b;
--- a/two.c
+++ b/two.c
@@ -3,0 +4 @@
+int c;
"""
    one, two = parse_patch(text).files
    assert (one.path, one.additions, one.deletions, two.path, two.additions) == ("one.c", 1, 1, "two.c", 1)


def test_crlf_lines_are_content() -> None:
    change = _one(MODIFIED.replace("\n", "\r\n"))
    assert (change.path, change.additions, change.deletions) == ("pkg/core.py", 3, 2)


@pytest.mark.parametrize("text", ["", "   \n", "just some prose\nwith lines\n", "From: x\nSubject: y\n\nbody\n"])
def test_not_a_diff_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError, match="no diff found"):
        parse_patch(text)


def test_non_utf8_bytes_become_replacement_characters() -> None:
    data = MODIFIED.replace("x = 2", "x = 'caf\udce9'").encode("utf-8", "surrogateescape")
    change = parse_patch_bytes(data).files[0]
    assert "\ufffd" in (change.patch or "") and change.additions == 3


_DIFFISH_LINES = st.sampled_from(
    [
        "diff --git a/x b/x", "diff --git a/x", "diff --git", "--- a/x", "+++ b/x", "--- /dev/null", "+++ /dev/null",
        "@@ -1,2 +1,3 @@", "@@ -0,0 +1 @@ ctx", "@@ -a +b @@", "@@ ", "+added", "-removed", " context", "",
        "\\ No newline at end of file", "new file mode 100644", "deleted file mode 100644", "rename from a",
        "rename to b", "copy from c", "copy to d", "similarity index 90%", "old mode 100644", "new mode 100755",
        "Binary files a/x and b/x differ", "Binary files /dev/null and /dev/null differ", "GIT binary patch",
        "literal 3", "commit 0123456789abcdef", "Author: A <a@b>", "    message", "From 0123456789abcdef Mon",
        "From: Z <z@z>", "Subject: [PATCH] s", "---", "-- ", 'diff --git "a/\\303" "b/\\3"', "diff --cc x",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_DIFFISH_LINES, st.text(max_size=30)), max_size=40))
def test_fuzz_never_raises_anything_but_input_error(lines: list[str]) -> None:
    try:
        parsed = parse_patch("\n".join(lines))
    except InputError:
        return
    for change in parsed.files:
        assert change.path
        assert change.additions >= 0 and change.deletions >= 0


@pytest.mark.vllm_fixtures
def test_real_vllm_diffs_match_their_metadata(vllm_fixtures: Path) -> None:
    for entry in json.loads((vllm_fixtures / "index.json").read_text()):
        number = entry["number"]
        meta = json.loads((vllm_fixtures / str(number) / "meta.json").read_text())
        parsed = parse_patch_bytes((vllm_fixtures / str(number) / "diff.patch").read_bytes())
        assert sorted(f.path for f in parsed.files) == sorted(f["path"] for f in meta["files"]), number
        assert sum(f.additions for f in parsed.files) == meta["insertions"], number
        assert sum(f.deletions for f in parsed.files) == meta["deletions"], number
        statuses = {f["path"]: f["status"][0] for f in meta["files"]}
        letters = {FileStatus.ADDED: "A", FileStatus.REMOVED: "D", FileStatus.RENAMED: "R"}
        for change in parsed.files:
            assert letters.get(change.status, "M") == statuses[change.path], (number, change.path)
        assert len(parsed.commits) == 1 and parsed.commits[0].sha == meta["commit_sha"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_real_git_output_round_trip(tmp_path: Path) -> None:
    git = new_repo(tmp_path)
    (tmp_path / "keep.py").write_text("".join(f"line {i}\n" for i in range(30)))
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    (tmp_path / "ünï code.txt").write_text("a\n")
    git("add", ".")
    git("commit", "-qm", "first")
    git("mv", "keep.py", "moved.py")
    (tmp_path / "blob.bin").write_bytes(bytes(reversed(range(256))))
    (tmp_path / "ünï code.txt").write_text("a\nb\n")
    git("add", "-A")
    git("commit", "-qm", "second", "-m", "with a body")
    show = parse_patch(git("show", "--binary", "HEAD"))
    by_path = {f.path: f for f in show.files}
    assert by_path["moved.py"].status == FileStatus.RENAMED and by_path["moved.py"].previous_path == "keep.py"
    assert by_path["blob.bin"].binary and by_path["blob.bin"].patch is None
    assert by_path["ünï code.txt"].additions == 1
    assert show.commits[0].message == "second\n\nwith a body" and show.commits[0].author == "Test Person"
    series = parse_patch(git("format-patch", "--binary", "--stdout", "--root", "HEAD"))
    assert [c.message.split("\n")[0] for c in series.commits] == ["first", "second"]
    assert {f.path for f in series.files} == {"moved.py", "blob.bin", "ünï code.txt"}
