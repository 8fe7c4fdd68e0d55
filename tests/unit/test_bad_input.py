"""Bad input through `readworthy local` and the renderer: a clear message and a documented exit code
(docs/exit-codes.md), never a traceback (issue 8, "Bad input").

The CLI runs in-process (`readworthy.cli.main`), so an unexpected exception shows up as exit 3
(the "bug" code) with its traceback on stderr, which every test here rules out.
The event parser's malformed payloads and fuzzing live in test_event.py, the diff parser's shapes
and fuzzing in test_diffparse.py; the fuzz tests here extend them to raw bytes, to the whole local
pipeline, and to the renderer with hostile fragments.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hostile_cases import HOSTILE_STRINGS, comment_problems
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from readworthy.cli import main as cli_main
from readworthy.errors import InputError
from readworthy.gather.diffparse import parse_patch_bytes
from readworthy.models import Decision, Digest, Report
from readworthy.render.comment import render_comment

FUZZ = int(os.environ.get("FUZZ_EXAMPLES", "60"))
USAGE, KNOWN_FAILURE, BUG = 2, 1, 3


def local(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(["local", *args])
    out, err = capsys.readouterr()
    return code, out, err


def json_report(capsys: pytest.CaptureFixture[str], patch: Path, *args: str) -> dict:  # type: ignore[type-arg]
    code, out, err = local(capsys, "--patch", str(patch), "--format", "json", *args)
    assert code == 0, err
    assert "Traceback" not in err
    data: dict = json.loads(out)  # type: ignore[type-arg]
    return data


def added_file(path: str, lines: list[str]) -> str:
    body = "".join("+" + line + "\n" for line in lines)
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n{body}")


# --------------------------------------------------------------------------- not a diff


NOT_A_DIFF: dict[str, bytes] = {
    "empty": b"",
    "prose": b"Please review my change, it fixes the CPU worker.\n",
    "json": b'{"diff": "--- a/x\\n+++ b/x"}\n',
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "half-header": b"--- a/x.py\nthis line should have been +++ b/x.py\n",
    "utf16": "diff --git a/x b/x\n".encode("utf-16"),
}


@pytest.mark.parametrize("content", list(NOT_A_DIFF.values()), ids=list(NOT_A_DIFF))
def test_a_patch_that_is_not_a_diff_is_a_clear_error(content: bytes, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "change.patch"
    patch.write_bytes(content)
    code, out, err = local(capsys, "--patch", str(patch))
    assert code == KNOWN_FAILURE
    assert err.startswith("readworthy: error: ") and "Traceback" not in err
    assert "diff" in err  # says what was expected
    assert out == ""


@pytest.mark.parametrize(("target", "says"), [("missing.patch", "not found"), (".", "is a directory")],
                         ids=["missing", "a-directory"])
def test_a_patch_path_that_is_not_a_file(target: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = local(capsys, "--patch", target)
    assert code == KNOWN_FAILURE and says in err and "Traceback" not in err


def test_a_git_range_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = local(capsys, "--base", "main")
    assert code == KNOWN_FAILURE and "git repository" in err and "Traceback" not in err


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--budget", "0"], USAGE, "budget"),  # every bad flag value is a usage error, as argparse's (issue 23)
    (["--budget", "lots"], USAGE, "not a whole number"),
    (["--language", "fr"], USAGE, "invalid choice"),
    (["--format", "xml"], USAGE, "invalid choice"),
])
def test_bad_flags_name_the_flag(args: list[str], code: int, words: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "c.patch"
    patch.write_text(added_file("a.py", ["x = 1"]))
    capsys.readouterr()
    try:
        got = cli_main(["local", "--patch", str(patch), *args])
    except SystemExit as exc:  # argparse's own usage errors
        got = int(exc.code or 0)
    err = capsys.readouterr().err
    assert got == code, err
    assert words in err and "Traceback" not in err


# --------------------------------------------------------------------------- unusual but valid diffs


def test_zero_files_a_commit_without_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "empty-commit.patch"
    patch.write_text("commit " + "a" * 40 + "\nAuthor: A <a@example.invalid>\nDate:   Mon Jun 1 2026\n\n"
                     "    Empty commit to retrigger CI\n")
    data = json_report(capsys, patch)
    assert data["coverage"]["files_total"] == 0
    assert data["verdict"] == "skip"  # nothing changed: nothing to read


def test_binary_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "bin.patch"
    patch.write_text("".join(
        f"diff --git a/assets/{n}.png b/assets/{n}.png\nnew file mode 100644\nindex 0000000..1234567\n"
        f"Binary files /dev/null and b/assets/{n}.png differ\n" for n in ("logo", "banner", "icon")))
    data = json_report(capsys, patch)
    assert data["coverage"]["files_total"] == 3
    assert data["verdict"] in ("skim", "skip")


def test_a_single_5_mb_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "minified.patch"
    patch.write_text(added_file("web/static/app.min.js", ["var a=" + "1+" * 2_500_000 + "1;"]))
    started = time.monotonic()
    data = json_report(capsys, patch, "--budget", "8000")
    assert time.monotonic() - started < 20
    assert data["coverage"]["files_total"] == 1
    code, out, _err = local(capsys, "--patch", str(patch), "--budget", "8000", "--show-prompt")
    assert code == 0 and len(out) < 8000 * 8  # the 5 MB line was cut to the budget, not sent whole


def test_non_utf8_patch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "latin1.patch"
    text = added_file("docs/caf\xe9.md", ["Caf\xe9 cr\xe8me", "na\xefve r\xe9sum\xe9"])
    patch.write_bytes(text.encode("latin-1") + b"+\xff\xfe\x00 stray bytes\n")
    data = json_report(capsys, patch)
    assert data["coverage"]["files_total"] == 1
    code, _out, err = local(capsys, "--patch", str(patch))
    assert code == 0 and "\ufffd" not in err and "Traceback" not in err


def test_more_than_3000_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "big.patch"
    patch.write_text("".join(added_file(f"pkg/mod_{i:04d}.py", [f"VALUE_{i} = {i}"]) for i in range(3_200)))
    started = time.monotonic()
    data = json_report(capsys, patch)
    assert time.monotonic() - started < 30
    cov = data["coverage"]
    assert cov["files_total"] == 3_200
    assert cov["files_full"] + cov["files_partial"] + cov["files_name_only"] <= 3_200
    code, out, _ = local(capsys, "--patch", str(patch))
    assert code == 0 and len(out) <= 65_536


# --------------------------------------------------------------------------- fuzz: bytes, the whole local path, the renderer


@settings(max_examples=FUZZ * 3, deadline=None)
@given(st.binary(max_size=400))
def test_fuzz_patch_bytes_only_raise_input_error(data: bytes) -> None:
    try:
        parsed = parse_patch_bytes(b"diff --git a/x b/x\n" + data if data[:1] == b"@" else data)
    except InputError as exc:
        assert "diff" in str(exc)
        return
    assert all(change.path for change in parsed.files)


_DIFF_PIECES = st.sampled_from([
    "diff --git a/a.py b/a.py", "--- a/a.py", "+++ b/a.py", "@@ -1,2 +1,3 @@", "@@ -0,0 +1 @@", " ctx",
    "+added", "-removed", "\\ No newline at end of file", "new file mode 100644", "deleted file mode 100644",
    "rename from a.py", "rename to b.py", "Binary files a/x.png and b/x.png differ", "GIT binary patch",
    "commit " + "b" * 40, "From " + "c" * 40 + " Mon Sep 17 00:00:00 2001", "Subject: [PATCH] x", "---", "",
    "+" + HOSTILE_STRINGS["our-marker"], "+AKIAZ7Q3M2X9R4T8W6Y5", "diff --git \"a/t\\303\\251st\" \"b/t\\303\\251st\"",
])


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.one_of(_DIFF_PIECES, st.text(max_size=40)), max_size=30))
def test_fuzz_local_command_never_crashes(lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    patch = tmp_path / "fuzz.patch"
    patch.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    code, out, err = local(capsys, "--patch", str(patch))
    assert code in (0, KNOWN_FAILURE), err
    assert "Traceback" not in err
    if code == 0:
        # A reading guide (no hidden state in the terminal), with the planted key redacted.
        assert out.startswith("## ") and "<!-- readworthy:" not in out and "AKIAZ7Q3M2X9R4T8W6Y5" not in out
    else:
        assert err.startswith("readworthy: error: ")


_HOSTILE_TEXT = st.lists(st.one_of(st.sampled_from([v[:300] for v in HOSTILE_STRINGS.values()]),
                                   st.text(max_size=30)), max_size=4).map(" ".join)


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_HOSTILE_TEXT, refs=st.lists(_HOSTILE_TEXT, max_size=3),
       language=st.sampled_from(["en", "zh-CN"]), verdict=st.sampled_from(["deep-read", "skim", "skip"]))
@example(text="` </details></summary>## Verdict: skip <details> `", refs=[], language="en", verdict="skip")
def test_fuzz_rendered_hostile_answers_pass_the_comment_checks(text: str, refs: list[str], language: str,
                                                               verdict: str) -> None:
    digest = Digest.model_validate({
        "verdict": verdict, "reason": text[:400], "headline": text[:200], "audience": [text[:300]],
        "decisions": [Decision(title=text[:160], explanation=text[:900], references=[r[:200] for r in refs])],
        "start_reading": [r[:200] for r in refs], "discussion": text[:900],
        "linked_issue_findings": [text[:300]], "open_items": [text[:300]], "related": [1, 2],
    })
    report = Report(digest=digest, analyzer="model", model="m", language=language,
                    url="https://github.com/vllm-project/vllm/pull/1", title=text[:200])
    assert comment_problems(render_comment(report), "github.com") == []
