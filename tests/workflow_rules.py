"""Rules every readworthy workflow follows (the examples and README's quick start), as functions that
return the problems they find, so that tests can also show each rule failing on a broken workflow.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

PR_EVENTS = ("pull_request_target", "issue_comment")
SCOPES = {"contents", "pull-requests", "issues", "discussions", "models"}

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


def analyses_with_github_models(job: dict[str, Any]) -> bool | None:
    """Whether the job's model is GitHub Models (the workflow token as key); None when it runs no analysis."""
    steps = action_steps(job)
    analysing = [s for s in cli_steps(job) if "--cached-only" not in str(s.get("run", ""))
                 and "--list-chunks" not in str(s.get("run", ""))]
    if not steps and not analysing:
        return None
    keys = [s for s in steps if (s.get("with") or {}).get("openai-api-key")]
    keys += [s for s in analysing if (s.get("env") or {}).get("OPENAI_API_KEY")]
    return not keys


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
            group = str((job.get("concurrency") or {}).get("group", ""))
            if "pull_request.number" not in group and "issue.number" not in group:
                problems.append(f"job {name}: no job-level concurrency group keyed by the PR")
    return problems


def permission_problems(wf: Workflow) -> list[str]:
    problems = []
    for name, job in jobs(wf).items():
        perms = effective_permissions(wf, job)
        if perms.get("contents") != "read":
            problems.append(f"job {name}: contents: read expected, got {perms.get('contents')}")
        if set(perms) - SCOPES:
            problems.append(f"job {name}: permissions beyond what readworthy uses: {sorted(set(perms) - SCOPES)}")
        if perms.get("issues") == "write" and perms.get("pull-requests") == "write":
            problems.append(f"job {name}: both issues: write and pull-requests: write (either one can comment, "
                            "label and react)")
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
    """The /readworthy workflow filters in the job `if`, before any runner starts."""
    problems = []
    for name, job in jobs(wf).items():
        condition = " ".join(str(job.get("if", "")).split())
        if "github.event.issue.pull_request" not in condition:
            problems.append(f"job {name}: does not skip comments on plain issues")
        if "startsWith(github.event.comment.body, '/readworthy')" not in condition:
            problems.append(f"job {name}: does not skip comments that are not a /readworthy command")
        roles = re.search(r"contains\(fromJSON\('(\[.*?\])'\), github\.event\.comment\.author_association\)", condition)
        if roles is None or set(yaml.safe_load(roles.group(1))) != {"OWNER", "MEMBER", "COLLABORATOR"}:
            problems.append(f"job {name}: no author_association filter for OWNER, MEMBER, COLLABORATOR")
    return problems
