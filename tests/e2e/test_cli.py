"""The `readworthy` console script, run as a subprocess the way a user runs it (no key, no network)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from git_repo import new_repo

SAMPLE_PATCH = Path(__file__).resolve().parents[2] / "src" / "readworthy" / "gather" / "sample" / "diff.patch"
VERDICTS = {"deep-read", "skim", "skip"}


def run_cli(*args: str, stdin: str | None = None, cwd: Path | None = None, env: dict | None = None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GITHUB_"))}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "readworthy.cli", *args],
        input=stdin, capture_output=True, text=True, cwd=cwd, env=full_env, timeout=300,
    )


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("readworthy ")


def test_demo_prints_a_labelled_heuristic_comment() -> None:
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.startswith("## ")  # the reading guide, without the comment's hidden state
    assert "<!-- readworthy:" not in out
    assert "heuristic" in out.lower()
    # the sample's real code names appear in the reading guide
    assert "eviction.py" in out


def test_demo_in_chinese_uses_localised_verdict_words() -> None:
    proc = run_cli("demo", "--language", "zh-CN")
    assert proc.returncode == 0, proc.stderr
    assert any(word in proc.stdout for word in ("值得精读", "值得快速浏览", "可以跳过"))


def test_demo_json_has_top_level_verdict_usage_and_coverage() -> None:
    proc = run_cli("demo", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] in VERDICTS
    assert data["analyzer"] == "heuristic"
    assert data["coverage"]["files_total"] == 5
    assert "prompt_tokens" in data["usage"]


@pytest.mark.parametrize("budget", [3000, 4000, 16000])
def test_show_prompt_fits_the_budget(budget: int) -> None:
    import tiktoken

    from readworthy.pack.tokens import get_token_counter

    get_token_counter("gpt-4.1-mini")  # makes the offline encodings available to tiktoken
    proc = run_cli("local", "--patch", str(SAMPLE_PATCH), "--budget", str(budget), "--show-prompt")
    assert proc.returncode == 0, proc.stderr
    assert "--- system ---" in proc.stdout and "--- user ---" in proc.stdout
    assert len(tiktoken.get_encoding("o200k_base").encode(proc.stdout)) <= budget


def test_a_budget_smaller_than_the_instructions_is_refused_with_the_minimum() -> None:
    proc = run_cli("local", "--patch", str(SAMPLE_PATCH), "--budget", "1000", "--show-prompt")
    assert proc.returncode == 2  # a usage error (issue 23): the flag's value, as argparse's own
    assert "at least 2,600 tokens: raise --budget" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_local_reads_stdin_and_prints_json() -> None:
    proc = run_cli("local", "--patch", "-", "--format", "json", stdin=SAMPLE_PATCH.read_text())
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] in VERDICTS
    assert data["coverage"]["files_total"] == 5


def test_local_git_range(tmp_path: Path) -> None:
    git = new_repo(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    (tmp_path / "a.py").write_text("x = 1\n\n\ndef parse_header(line):\n    return line.split(':', 1)\n")
    git("commit", "-qam", "Add parse_header")
    proc = run_cli("local", "--base", "HEAD~1", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["title"] == "Add parse_header"
    assert data["coverage"]["files_total"] == 1


def test_a_file_that_is_not_a_diff_is_a_clear_error(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("just some prose, no diff here\n")
    proc = run_cli("local", "--patch", str(notes))
    assert proc.returncode == 1
    assert "readworthy: error:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_directory_given_to_patch_says_it_is_a_directory(tmp_path: Path) -> None:
    proc = run_cli("local", "--patch", str(tmp_path))
    assert proc.returncode == 1
    assert "is a directory" in proc.stderr and "not found" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(("flags", "words"), [
    (["--head", "main"], "--head goes with --base"),
    (["--show-prompt", "--format", "json"], "--show-prompt prints the model messages as text"),
])
def test_flags_that_would_be_ignored_are_refused(flags: list[str], words: str) -> None:
    proc = run_cli("local", "--patch", str(SAMPLE_PATCH), *flags)
    assert proc.returncode == 2 and proc.stdout == ""  # usage errors exit 2, as argparse's own (issue 23)
    assert words in proc.stderr and "Traceback" not in proc.stderr


def test_head_still_works_with_base(tmp_path: Path) -> None:
    git = new_repo(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "topic")
    (tmp_path / "a.py").write_text("x = 2\n")
    git("commit", "-qam", "Change x")
    git("checkout", "-q", "main")
    proc = run_cli("local", "--base", "main", "--head", "topic", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["title"] == "Change x"


def test_a_cut_off_patch_is_reported_as_incomplete(tmp_path: Path) -> None:
    text = SAMPLE_PATCH.read_text()
    cut = text[: text.index("\n", len(text) // 2) + 1]  # half the sample, cut inside a hunk
    patch = tmp_path / "cut.patch"
    patch.write_text(cut)
    proc = run_cli("local", "--patch", str(patch))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("\n")
    assert lines[0].startswith("## ") and "**Incomplete patch:**" in "\n".join(lines[1:4])
    assert "with an incomplete patch" in proc.stdout
    assert "WARNING" in proc.stderr and "is incomplete" in proc.stderr
    whole = run_cli("local", "--patch", str(SAMPLE_PATCH))
    assert whole.returncode == 0 and "ncomplete" not in whole.stdout + whole.stderr


def test_missing_source_is_a_clear_error() -> None:
    proc = run_cli("local")
    assert proc.returncode == 2
    assert "--patch" in proc.stderr and "Traceback" not in proc.stderr


def test_no_command_prints_help_and_exits_2() -> None:
    proc = run_cli()
    assert proc.returncode == 2
    assert "usage:" in proc.stderr
