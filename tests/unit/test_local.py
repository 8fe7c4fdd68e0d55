"""local.py: PRContext from a patch file, stdin, or a git range of a real temporary repository."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest
from git_repo import git, new_repo

from readworthy.errors import InputError
from readworthy.gather.local import LocalSource, context_from_source, read_patch_text

PATCH = """\
diff --git a/pkg/core.py b/pkg/core.py
index 1111111..2222222 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,2 +1,4 @@
 def a():
     return 1
+def b():
+    return 2
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    new_repo(tmp_path)
    (tmp_path / "core.py").write_text("def a():\n    return 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "core.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    git(tmp_path, "commit", "-qam", "Add b()")
    (tmp_path / "extra.py").write_text("X = 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "Add extra module")
    return tmp_path


def test_patch_file_becomes_context(tmp_path: Path) -> None:
    patch = tmp_path / "c.diff"
    patch.write_text(PATCH)
    ctx = context_from_source(LocalSource(patch=str(patch), title="Add b"))
    assert ctx.title == "Add b"
    assert [f.path for f in ctx.files] == ["pkg/core.py"]
    assert (ctx.additions, ctx.deletions, ctx.changed_files) == (2, 0, 1)


def test_git_range_uses_merge_base_and_keeps_commits_oldest_first(repo: Path) -> None:
    ctx = context_from_source(LocalSource(base="main", head="feature"), cwd=repo)
    assert sorted(f.path for f in ctx.files) == ["core.py", "extra.py"]
    assert [c.message for c in ctx.commits] == ["Add b()", "Add extra module"]
    assert ctx.title == "Add b()"  # the first commit's subject when no title is given
    assert ctx.head_sha == ctx.commits[-1].sha


def test_unknown_ref_is_a_clear_input_error(repo: Path) -> None:
    with pytest.raises(InputError, match="do both refs exist"):
        context_from_source(LocalSource(base="no-such-branch"), cwd=repo)


def test_empty_range_is_an_input_error(repo: Path) -> None:
    with pytest.raises(InputError, match="no changes"):
        context_from_source(LocalSource(base="feature", head="feature"), cwd=repo)


def test_missing_patch_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        read_patch_text(str(tmp_path / "absent.diff"))


def test_non_utf8_bytes_are_replaced_not_fatal(tmp_path: Path) -> None:
    patch = tmp_path / "latin1.diff"
    patch.write_bytes(PATCH.replace("return 2", "return 'caf\xe9'").encode("latin-1"))
    ctx = context_from_source(LocalSource(patch=str(patch)))
    assert "\ufffd" in (ctx.files[0].patch or "")


def test_nothing_to_analyze() -> None:
    with pytest.raises(InputError, match="--patch"):
        context_from_source(LocalSource())


def test_git_range_reads_owners_and_areas_at_the_merge_base(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    (repo / ".github").mkdir()
    (repo / ".github" / "CODEOWNERS").write_text("*.py @org/core\ntests/ @org/qa\n")
    (repo / ".github" / "readworthy.yml").write_text('areas:\n  "*.py": "Core engine"\n')
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "owners")
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    # the branch rewrites CODEOWNERS for itself: ignored, the merge base decides
    (repo / ".github" / "CODEOWNERS").write_text("* @org/feature-author\n")
    git(repo, "commit", "-qam", "Claim everything")
    ctx = context_from_source(LocalSource(base="main", head="feature"), cwd=repo)
    assert ctx.owners == {"@org/core": ["core.py", "extra.py"]}
    assert ctx.areas == {"Core engine": ["core.py", "extra.py"]}


def test_patch_file_has_no_owners(tmp_path: Path) -> None:
    patch = tmp_path / "c.diff"
    patch.write_text(PATCH)
    ctx = context_from_source(LocalSource(patch=str(patch)))
    assert ctx.owners == {} and ctx.areas == {}


def test_a_directory_given_as_patch_says_it_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory") as err:
        read_patch_text(str(tmp_path))
    assert "not found" not in str(err.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_is_read_like_a_file(tmp_path: Path) -> None:
    """`readworthy local --patch <(git diff main)` hands over /dev/fd/N, a pipe, not a regular file."""
    fifo = tmp_path / "diff.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(PATCH))
    writer.start()
    try:
        assert read_patch_text(str(fifo)) == PATCH
    finally:
        writer.join(timeout=10)


def test_a_cut_off_patch_carries_its_flag_and_a_gather_note(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    patch = tmp_path / "cut.diff"
    patch.write_text(PATCH.rsplit("\n", 3)[0] + "\n")  # the hunk loses its last two lines
    with caplog.at_level(logging.WARNING):
        ctx = context_from_source(LocalSource(patch=str(patch)))
    (change,) = ctx.files
    assert change.patch_incomplete
    (note,) = ctx.gather_notes
    assert "pkg/core.py" in note and "ends inside a hunk" in note
    assert note in caplog.text  # the terminal user hears it too


def test_a_complete_patch_has_no_gather_notes(tmp_path: Path) -> None:
    patch = tmp_path / "c.diff"
    patch.write_text(PATCH)
    ctx = context_from_source(LocalSource(patch=str(patch)))
    assert ctx.gather_notes == [] and not ctx.files[0].patch_incomplete


def test_git_show_with_crlf_line_endings_keeps_title_and_head_sha(repo: Path, tmp_path: Path) -> None:
    show = git(repo, "show", "--no-color", "feature")
    sha = git(repo, "rev-parse", "feature").strip()
    patch = tmp_path / "crlf.patch"
    patch.write_bytes(show.replace("\n", "\r\n").encode())
    ctx = context_from_source(LocalSource(patch=str(patch)))
    assert ctx.title == "Add extra module" and ctx.head_sha == sha
    assert [f.path for f in ctx.files] == ["extra.py"] and ctx.additions == 1
    assert ctx.gather_notes == []
