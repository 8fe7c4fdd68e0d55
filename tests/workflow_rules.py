"""Rules every readworthy workflow follows (the examples and README's quick start), as functions that
return the problems they find, so that tests can also show each rule failing on a broken workflow.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

PR_EVENTS = ("pull_request_target", "issue_comment")
# pull_request_target activity types that all mean "review the PR as it is now": a newer run of one can
# replace a pending run of another and nothing is lost.
PUSH_TYPES = frozenset({"opened", "reopened", "ready_for_review", "synchronize", "edited"})
# How a group names the PR; two groups equal but for this are the same group on one PR.
_PR_KEY = re.compile(r"\$\{\{\s*github\.event\.(pull_request|issue)\.number\s*\}\}")
SCOPES = {"contents", "pull-requests", "issues", "discussions", "models", "checks"}

Workflow = dict[str, Any]


def parse(text: str) -> Workflow:
    data = yaml.safe_load(text)
    # YAML 1.1 reads the key `on` as True
    data["on"] = data.pop(True, data.get("on"))
    return dict(data)


def load(path: Path) -> Workflow:
    return parse(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- reading a workflow


def jobs(wf: Workflow) -> dict[str, Any]:
    return dict(wf.get("jobs") or {})


def effective_permissions(wf: Workflow, job: dict[str, Any]) -> dict[str, str]:
    """A job's `permissions:` replace the workflow's entirely; otherwise the workflow's apply."""
    perms = job.get("permissions", wf.get("permissions"))
    assert isinstance(perms, dict), "permissions must be listed, not read-all/write-all or left to the default"
    return {str(k): str(v) for k, v in perms.items()}


def action_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job.get("steps") or [] if str(s.get("uses", "")).startswith("readworthy/readworthy@")]


def cli_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job.get("steps") or [] if re.search(r"\breadworthy digest\b", str(s.get("run", "")))]


def analysing_cli_steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    """`readworthy digest` steps that analyse PRs (not the ones that only list or reuse stored analyses)."""
    return [s for s in cli_steps(job) if "--cached-only" not in str(s.get("run", ""))
            and "--list-chunks" not in str(s.get("run", ""))]


def analyses_with_github_models(job: dict[str, Any]) -> bool | None:
    """Whether the job's model is GitHub Models (the workflow token as key); None when it runs no analysis."""
    steps = action_steps(job)
    analysing = analysing_cli_steps(job)
    if not steps and not analysing:
        return None
    keys = [s for s in steps if (s.get("with") or {}).get("openai-api-key")]
    keys += [s for s in analysing if (s.get("env") or {}).get("OPENAI_API_KEY")]
    return not keys


def keeps_model_budget(job: dict[str, Any]) -> bool:
    """Whether the job's readworthy step keeps the repository's model budget (git refs: `contents: write`):
    GitHub Models by default, or any endpoint with `model-budget` set; `model-budget: 0` turns it off."""
    for step in action_steps(job):
        given = step.get("with") or {}
        budget = str(given.get("model-budget", "")).strip()
        if budget == "0":
            continue
        if budget or not given.get("openai-api-key"):
            return True
    return False


def writes_check_runs(job: dict[str, Any]) -> bool:
    """Whether the job writes the readworthy check run: every run that analyses a PR does, through
    `review_one` — a review, a catch-up, a digest (the action's or the CLI's) — unless its step says
    `check-run: false` (the CLI has no such flag)."""
    on = [s for s in action_steps(job) if str((s.get("with") or {}).get("check-run", "true")).lower() != "false"]
    return bool(on or analysing_cli_steps(job))


def reads_the_event(condition: object) -> bool:
    return "github.event." in str(condition or "")


# --------------------------------------------------------------------------- the rules


def concurrency_problems(wf: Workflow) -> list[str]:
    """A workflow-level group is claimed before any job `if` is evaluated: a run whose jobs all skip
    would still displace the pending run of its group. Allowed only when keyed by the event and no job
    filters on what the event says; PR reviews keep one group per PR, on the job."""
    problems = []
    top = wf.get("concurrency")
    if top is not None:
        group = str(top.get("group", top) if isinstance(top, dict) else top)
        if "github.event_name" not in group:
            problems.append(f"workflow-level concurrency group {group!r} is not keyed by github.event_name")
        skipping = [name for name, job in jobs(wf).items() if reads_the_event(job.get("if"))]
        if skipping:
            problems.append(f"workflow-level concurrency group while jobs {skipping} skip on what the event says")
    if any(event in wf["on"] for event in PR_EVENTS):
        for name, job in jobs(wf).items():
            if not action_steps(job):
                continue
            if "issue_comment" in wf["on"] and "concurrency" not in job:
                continue  # each command is its own request: no group, so none can cancel another (trigger_problems)
            group = str((job.get("concurrency") or {}).get("group", ""))
            if "pull_request.number" not in group and "issue.number" not in group:
                problems.append(f"job {name}: no job-level concurrency group keyed by the PR")
    return problems


def groups(wf: Workflow) -> list[str]:
    """Every concurrency group the workflow's runs claim (the workflow's, then each job's)."""
    found = []
    for holder in [wf, *jobs(wf).values()]:
        value = holder.get("concurrency")
        if value is not None:
            found.append(str(value.get("group", "") if isinstance(value, dict) else value))
    return found


def same_group(group: str) -> str:
    """The group with the PR's number, however the event spells it, made one placeholder."""
    return _PR_KEY.sub("<PR>", " ".join(group.split()))


def trigger_problems(wf: Workflow) -> list[str]:
    """GitHub cancels a group's pending run whenever a newer run is queued: runs that share a group must all
    ask for the same work, so that the newer one replacing the pending one loses nothing."""
    problems = []
    events = wf["on"] if isinstance(wf["on"], dict) else {name: None for name in wf["on"]}
    for group in groups(wf):
        if "issue_comment" in events and "github.event.comment.id" not in group:
            problems.append(f"group {group!r}: a newer comment would cancel a pending command (a lost verdict)")
        if "pull_request_target" in events:
            types = set((events["pull_request_target"] or {}).get("types") or ["opened", "reopened", "synchronize"])
            if not (types <= PUSH_TYPES or types == {"labeled"}):
                problems.append(f"group {group!r}: shared by {sorted(types)}: a push would cancel a pending label run")
        reviews = [e for e in events if e in ("pull_request_target", "issue_comment", "workflow_dispatch")]
        if len(reviews) > 1:
            problems.append(f"group {group!r}: shared by the triggers {reviews}")
        inputs = ((events.get("workflow_dispatch") or {}).get("inputs") or {}) if "workflow_dispatch" in events else {}
        missing = [name for name in inputs if not re.search(rf"\binputs\.{re.escape(name)}\b", group)]
        if missing:
            problems.append(f"group {group!r}: a dispatch with other {missing} would cancel a pending one")
    return problems


def shared_group_problems(workflows: dict[str, Workflow]) -> list[str]:
    """No two workflows share a concurrency group: a run of one would cancel the other's pending run."""
    owners: dict[str, set[str]] = {}
    for name, wf in workflows.items():
        for group in groups(wf):
            owners.setdefault(same_group(group), set()).add(name)
    return [f"group {group!r} is shared by {sorted(names)}" for group, names in owners.items() if len(names) > 1]


def association_filter_problems(wf: Workflow) -> list[str]:
    """author_association is the payload's hint: it reads CONTRIBUTOR (or NONE) for organization members whose
    membership is private, so a job `if` on it drops their runs without a word. The permission API decides."""
    return [f"job {name}: its `if` filters on author_association" for name, job in jobs(wf).items()
            if "author_association" in str(job.get("if", ""))]


def supply_chain_problems(wf: Workflow) -> list[str]:
    """Other people's actions run pinned by commit SHA; nothing is pip-installed unlocked or from git."""
    problems = []
    for name, job in jobs(wf).items():
        for step in job.get("steps") or []:
            used = str(step.get("uses", ""))
            if used and not used.startswith(("readworthy/readworthy@", "./")) and \
                    not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", used):
                problems.append(f"job {name}: {used} is not pinned by commit SHA")
            command = str(step.get("run", ""))
            if re.search(r"\bpip install\b", command) and "--require-hashes" not in command:
                problems.append(f"job {name}: pip install without --require-hashes (unlocked dependencies)")
            if "git+https://" in command:
                problems.append(f"job {name}: installs from git")
    return problems


def permission_problems(wf: Workflow) -> list[str]:
    problems = []
    for name, job in jobs(wf).items():
        perms = effective_permissions(wf, job)
        contents = "write" if keeps_model_budget(job) else "read"
        if perms.get("contents") != contents:
            why = " (the model budget's git refs)" if contents == "write" else ""
            problems.append(f"job {name}: contents: {contents} expected{why}, got {perms.get('contents')}")
        if set(perms) - SCOPES:
            problems.append(f"job {name}: permissions beyond what readworthy uses: {sorted(set(perms) - SCOPES)}")
        if perms.get("issues") == "write" and perms.get("pull-requests") == "write":
            problems.append(f"job {name}: both issues: write and pull-requests: write (either one can comment, "
                            "label and react)")
        if writes_check_runs(job) and perms.get("checks") != "write":
            problems.append(f"job {name}: analyses pull requests but lacks checks: write (the readworthy check run; "
                            "or say `check-run: false`)")
        uses_models = analyses_with_github_models(job)
        if uses_models and perms.get("models") != "read":
            problems.append(f"job {name}: analyses with GitHub Models but lacks models: read")
        if not uses_models and "models" in perms:
            problems.append(f"job {name}: models: {perms['models']} without a GitHub Models analysis")
        for step in action_steps(job):
            base_url = (step.get("with") or {}).get("openai-base-url")
            if uses_models and base_url:
                # With no key, readworthy uses GitHub Models by itself; a base URL without a key is refused
                # (the workflow token is never sent anywhere but GitHub Models).
                problems.append(f"job {name}: openai-base-url without openai-api-key")
    return problems


def uncommented_permissions(text: str) -> list[str]:
    """Every permission a workflow grants says why, in a comment on its line."""
    return [line.strip() for line in text.splitlines()
            if re.match(rf"\s+({'|'.join(SCOPES)}):\s*(read|write)\b", line) and "#" not in line]


def command_filter_problems(wf: Workflow) -> list[str]:
    """The /readworthy workflow filters in the job `if`, before any runner starts: PR comments that are
    commands. Who may command is the permission API's answer, never the payload's author_association."""
    problems = association_filter_problems(wf)
    for name, job in jobs(wf).items():
        condition = " ".join(str(job.get("if", "")).split())
        if "github.event.issue.pull_request" not in condition:
            problems.append(f"job {name}: does not skip comments on plain issues")
        if "startsWith(github.event.comment.body, '/readworthy')" not in condition:
            problems.append(f"job {name}: does not skip comments that are not a /readworthy command")
    return problems
