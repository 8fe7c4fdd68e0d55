"""diffparse integrity: a cut-off or damaged patch is flagged and described; complete ones are not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from git_repo import new_repo
from servers.openai_server import OpenAIServer

from readworthy.analyze.model import analyze
from readworthy.config import Settings
from readworthy.gather.diffparse import STRAY_TEXT_TOLERATED, parse_patch, parse_patch_bytes
from readworthy.models import PRContext, Verdict
from readworthy.pack.prompt import pack_prompt
from readworthy.render.comment import render_markdown

HEADER = "diff --git a/pkg/core.py b/pkg/core.py\nindex 1111111..2222222 100644\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
HUNK = "@@ -1,4 +1,5 @@ class Engine:\n import os\n-x = 1\n+x = 2\n+y = 3\n z = 4\n w = 5\n"
OTHER = "diff --git a/pkg/other.py b/pkg/other.py\nindex 3333333..4444444 100644\n--- a/pkg/other.py\n" \
        "+++ b/pkg/other.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
SHOW = (
    "commit 0123456789abcdef0123456789abcdef01234567\n"
    "Author: Ada Lovelace <ada@example.com>\n"
    "Date:   Mon Aug 10 17:02:49 2026 +0200\n\n"
    "    Fix the engine (#12)\n    \n    Longer explanation.\n\n"
)


def _flags(text: str) -> dict[str, bool]:
    return {f.path: f.patch_incomplete for f in parse_patch(text).files}


def test_a_complete_patch_has_no_flags_and_no_notes() -> None:
    parsed = parse_patch(SHOW + HEADER + HUNK + OTHER)
    assert [f.patch_incomplete for f in parsed.files] == [False, False]
    assert parsed.notes == []


def test_input_that_ends_inside_a_hunk_is_incomplete_and_says_so() -> None:
    cut = HEADER + "".join(HUNK.splitlines(keepends=True)[:4])  # header + 3 of 6 hunk lines
    parsed = parse_patch(cut)
    (change,) = parsed.files
    assert change.patch_incomplete and change.additions == 1
    (note,) = parsed.notes
    assert "pkg/core.py" in note and "ends inside a hunk" in note and "3 lines short" in note


def test_a_hunk_shorter_than_its_header_before_the_next_file() -> None:
    short = HEADER + "@@ -1,6 +1,6 @@\n import os\n-x = 1\n+x = 2\n"  # promises 6 lines, has 3
    parsed = parse_patch(short + OTHER)
    assert _flags(short + OTHER) == {"pkg/core.py": True, "pkg/other.py": False}
    assert any("shorter than its header" in n for n in parsed.notes)


def test_garbage_after_a_diff_git_header_is_not_a_small_change() -> None:
    garbage = "".join(f"{i} qz#@!{'x' * (i % 50)} ;; not a diff\n" for i in range(3000))
    parsed = parse_patch("diff --git a/drivers/net/eth.c b/drivers/net/eth.c\n" + garbage)
    (change,) = parsed.files
    assert change.patch_incomplete and change.patch is None
    assert "no hunks" in parsed.notes[0] and "3000 lines" in parsed.notes[0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (HEADER, "stops after the file header"),  # ---/+++ and then nothing
        ("diff --git a/pkg/core.py b/pkg/core.py\n", "nothing follows"),
        (HEADER + "@@ -1 +1 @@\n-a\n+b\n+c\n+d\n", "outside any hunk"),  # more lines than counted
        (HEADER + "@@ -one +two @@\n+a\n", "cannot be read"),
        (HEADER + HUNK + "".join(f"junk line {i}\n" for i in range(STRAY_TEXT_TOLERATED + 1)), "not part of a diff"),
    ],
)
def test_each_kind_of_damage_is_named(text: str, words: str) -> None:
    parsed = parse_patch(text)
    assert parsed.files[0].patch_incomplete
    assert words in " ".join(parsed.notes)


@pytest.mark.parametrize(
    "text",
    [
        "diff --git a/e.py b/e.py\nnew file mode 100644\nindex 0000000..e69de29\n",  # an empty new file
        "diff --git a/x.png b/x.png\nindex 1..2 100644\nBinary files a/x.png and b/x.png differ\n",
        "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n",
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
        # `git diff -w`: a whitespace-only change keeps its header and shows no hunk
        "diff --git a/ws.py b/ws.py\nindex 1111111..2222222 100644\n" + OTHER,
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex e69de29..0000000\n",  # an empty file deleted
        # format-patch: the signature and git version after the last file
        "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\n"
        "Subject: [PATCH] x\n\n---\n" + HEADER + HUNK + "-- \n2.43.0\n\n",
        # svn / diff -ru: a line or two of tool output between files
        "Index: pkg/core.py\n" + "=" * 67 + "\n" + HEADER + HUNK + "Index: pkg/other.py\n" + "=" * 67 + "\n" + OTHER,
        "diff -ru a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n" + HUNK + "Only in b: new.txt\n",
        # a mailing-list footer after the last hunk
        HEADER + HUNK + "_______________________________________________\nlinux-arm mailing list\nlist@example.org\n",
        # a merge's combined diff: not parsed, not flagged
        "diff --cc m.py\nindex 1,2..3\n--- a/m.py\n+++ b/m.py\n@@@ -1,1 -1,1 +1,1 @@@\n- a\n -b\n++c\n",
    ],
)
def test_complete_shapes_that_have_no_hunks_or_extra_lines_are_not_flagged(text: str) -> None:
    parsed = parse_patch(text)
    assert parsed.files and not any(f.patch_incomplete for f in parsed.files), parsed.notes
    assert parsed.notes == []


@pytest.mark.parametrize("mode", ["", "new file mode 100644\n", "deleted file mode 100644\n"])
def test_input_that_ends_after_an_index_line_with_content_is_incomplete(mode: str) -> None:
    """The one place a `git diff -w` header cannot be told from a cut: at the very end. A cut is likelier."""
    index = {"": "1111111..2222222", "new": "0000000..2222222", "deleted": "1111111..0000000"}[mode.split(" ")[0]]
    parsed = parse_patch(f"diff --git a/x.py b/x.py\n{mode}index {index} 100644\n")
    assert parsed.files[0].patch_incomplete
    assert "ends after the file header" in parsed.notes[0]


def test_input_that_stops_mid_line_inside_a_hunk_is_incomplete() -> None:
    """A byte-level cut can land in the last line of a hunk whose line count is then met."""
    cut = (HEADER + HUNK)[:-3]  # "w = 5" loses its end and the newline
    (change,) = parse_patch(cut).files
    assert change.patch_incomplete
    assert "middle of a line" in parse_patch(cut).notes[0]


def test_crlf_transport_is_normalised_so_the_commit_keeps_its_sha_and_message() -> None:
    parsed = parse_patch((SHOW + HEADER + HUNK).replace("\n", "\r\n"))
    (commit,) = parsed.commits
    assert commit.sha == "0123456789abcdef0123456789abcdef01234567"
    assert commit.message == "Fix the engine (#12)\n\nLonger explanation."
    (change,) = parsed.files
    assert not change.patch_incomplete and (change.additions, change.deletions) == (2, 1)
    assert "\r" not in (change.patch or "")


def test_crlf_content_in_an_lf_diff_is_kept() -> None:
    """A file with CRLF line endings, diffed by git: only its content lines carry the CR."""
    text = HEADER + "@@ -1,2 +1,2 @@\n-a = 1\r\n+a = 2\r\n \r\n"
    (change,) = parse_patch(text).files
    assert not change.patch_incomplete
    assert change.patch is not None and "+a = 2\r" in change.patch


def test_a_flag_survives_merging_the_same_path_across_commits() -> None:
    first = "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\nSubject: one\n\n---\n"
    second = "From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\nSubject: two\n\n---\n"
    cut = HEADER + "".join(HUNK.splitlines(keepends=True)[:3])
    parsed = parse_patch(first + HEADER + HUNK + second + cut)
    (change,) = parsed.files
    assert change.patch_incomplete


def test_notes_are_bounded() -> None:
    files = "".join(f"diff --git a/f{i}.py b/f{i}.py\n--- a/f{i}.py\n+++ b/f{i}.py\n" for i in range(40))
    parsed = parse_patch(files)
    assert len(parsed.files) == 40 and all(f.patch_incomplete for f in parsed.files)
    assert len(parsed.notes) == 11 and parsed.notes[-1] == "30 more files with a damaged patch"


def _real_git_show(tmp_path: Path) -> str:
    """`git show` of a commit changing three files, each in several hunks."""
    git = new_repo(tmp_path)
    names = ("a.py", "b.py", "c.py")
    for name in names:
        (tmp_path / name).write_text("".join(f"value_{i} = {i}\n" for i in range(120)))
    git("add", ".")
    git("commit", "-qm", "base")
    for n, name in enumerate(names):
        lines = [f"value_{i} = {i * 3}\n" if i % 40 in (n + 5, n + 7) else f"value_{i} = {i}\n" for i in range(120)]
        (tmp_path / name).write_text("".join(lines))
    git("commit", "-qam", "change")
    return git("show", "--no-color", "HEAD")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_no_cut_of_real_git_output_passes_a_fragment_off_as_complete(tmp_path: Path) -> None:
    """Cut a real `git show` at every byte: a file the parser calls complete carries exactly the patch
    the whole output has for it, or, for a cut at a line end between two hunks (which no parser can
    see), the hunks before the cut."""
    text = _real_git_show(tmp_path)
    full = {f.path: f.patch or "" for f in parse_patch(text).files}
    assert all(p.count("\n@@ ") == 2 for p in full.values())  # three hunks per file
    start = text.index("diff --git ")
    flagged = unflagged_partial = 0
    for cut in range(start + 1, len(text)):
        for change in parse_patch(text[:cut]).files:
            whole = full.get(change.path)
            if change.patch_incomplete:
                flagged += 1
            elif change.patch != whole:
                assert whole is not None, (cut, change.path)  # a half-written header names no real file
                # only a cut just after a line end, at a hunk boundary, may leave a shorter patch unflagged
                assert text[cut - 1] == "\n", (cut, change.path)
                assert change.patch is not None and whole.startswith(change.patch + "\n@@ "), (cut, change.path)
                unflagged_partial += 1
    assert flagged > (len(text) - start) * 0.9
    assert unflagged_partial <= 6  # two hunk boundaries in each of three files


def test_the_fact_reaches_the_prompt_the_coverage_and_the_comment() -> None:
    cut = HEADER + "".join(HUNK.splitlines(keepends=True)[:4])
    parsed = parse_patch(cut + OTHER.replace("@@ -1 +1 @@", "@@ -1,9 +1,9 @@"))
    ctx = PRContext(title="Fix the engine", files=parsed.files, changed_files=2, gather_notes=parsed.notes)
    prompt = pack_prompt(ctx, Settings())
    user = prompt.messages[-1].content
    assert "Patch incomplete: the diff of pkg/core.py, pkg/other.py is cut off or damaged" in user
    report = analyze(pack_prompt(ctx, Settings()), Settings(), client=None)
    assert report.coverage.incomplete_patches == ["pkg/core.py", "pkg/other.py"]
    body = render_markdown(report)
    assert "**Incomplete patch:** the diff of `pkg/core.py`, `pkg/other.py` is cut off or damaged" in body
    assert "(2 with an incomplete patch)" in body


def test_a_complete_context_has_no_incomplete_patch_line() -> None:
    ctx = PRContext(title="Fix the engine", files=parse_patch(HEADER + HUNK).files, changed_files=1)
    assert "Patch incomplete" not in pack_prompt(ctx, Settings()).messages[-1].content
    report = analyze(pack_prompt(ctx, Settings()), Settings(), client=None)
    assert report.coverage.incomplete_patches == [] and "Incomplete patch" not in render_markdown(report)


@pytest.mark.vllm_fixtures
def test_no_real_vllm_diff_is_flagged(vllm_fixtures: Path) -> None:
    for patch in sorted(vllm_fixtures.glob("*/diff.patch")):
        parsed = parse_patch_bytes(patch.read_bytes())
        assert parsed.notes == [], patch.parent.name
        assert not any(f.patch_incomplete for f in parsed.files), patch.parent.name


GARBAGE = "diff --git a/csrc/kernel.cu b/csrc/kernel.cu\n" + "\x07\x1b garbage that is not a diff \x00\n" * 3000


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_fragment_is_never_called_safe_to_skip(language: str) -> None:
    """`diff --git` and then 100 KB of garbage used to come out "Safe to skip": a verdict on a fragment."""
    parsed = parse_patch(GARBAGE)
    ctx = PRContext(title="Tune the kernel", files=parsed.files, changed_files=1, gather_notes=parsed.notes)
    settings = Settings(language=language)  # type: ignore[arg-type]
    report = analyze(pack_prompt(ctx, settings), settings, client=None)
    assert report.digest.verdict is not Verdict.SKIP
    assert ("incomplete" in report.digest.reason) if language == "en" else ("不完整" in report.digest.reason)
    assert "kernel.cu" in report.digest.reason


def test_a_models_skip_on_a_fragment_is_not_kept(openai_server: OpenAIServer) -> None:
    """The model is told the patch is incomplete; if it still answers `skip`, the verdict is raised."""
    from readworthy.analyze.client import make_openai_client

    cut = HEADER + "".join(HUNK.splitlines(keepends=True)[:4])
    parsed = parse_patch(cut)
    ctx = PRContext(title="Fix the engine", files=parsed.files, changed_files=1, gather_notes=parsed.notes)
    openai_server.add_json({"verdict": "skip", "reason": "Nothing to read.", "headline": "Small fix",
                            "audience": [], "decisions": [], "start_reading": [], "discussion": "",
                            "linked_issue_findings": [], "open_items": [], "related": []})
    settings = Settings(openai_api_key="sk-test-0123456789abcdef", openai_base_url=openai_server.url)  # type: ignore[arg-type]
    report = analyze(pack_prompt(ctx, settings), settings, make_openai_client(settings))
    assert report.analyzer == "model" and report.digest.verdict is Verdict.SKIM
    assert "incomplete" in report.digest.reason and "Nothing to read." in report.digest.reason
