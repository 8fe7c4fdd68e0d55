"""README.md tells the truth: its example comment is real `readworthy demo` output, and the files it links exist."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_demo_section_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen-readme-demo"), "--check"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def test_relative_links_in_readme_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\((?!https?://|#)([^)]+)\)", text)
    assert targets, "README links nothing?"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README links files that do not exist: {missing}"


def test_readme_commands_name_real_subcommands() -> None:
    from readworthy.cli import build_parser

    parser = build_parser()
    subcommands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    used = set(re.findall(r"^readworthy (\w+)", text, re.M))
    assert used, "README shows no readworthy commands?"
    assert used <= subcommands, f"README uses commands the CLI lacks: {used - subcommands}"
