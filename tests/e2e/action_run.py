"""Running `readworthy action` in-process the way a runner does: env vars, an event file, real servers.

run_action(environ) reads the environ it is given; actions_toolkit (outputs) reads os.environ, so the
whole environment is set with monkeypatch first and os.environ itself is passed, as in production.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN, PRFile, PullRequest

from readworthy.action import run_action

REPO = "vllm-project/vllm"
KEY = "sk-test-0123456789abcdef"

GOOD_DIGEST: dict[str, Any] = {
    "verdict": "deep-read",
    "reason": "Splits OMP threads per rank; the linked issue quantifies the oversubscription.",
    "headline": "Cap torch threads per worker instead of using every core on each rank",
    "audience": ["CPU backend owners"],
    "decisions": [
        {
            "title": "Threads split by local_world_size",
            "explanation": "`init_device` divides `os.cpu_count()` by the ranks on this host.",
            "references": ["vllm/v1/worker/cpu_worker.py"],
        }
    ],
    "start_reading": ["vllm/v1/worker/cpu_worker.py"],
    "discussion": "bob asked for local_world_size; alice switched to it.",
    "linked_issue_findings": [],
    "open_items": [],
    "related": [],
}


@dataclass
class Run:
    code: int
    summary: str
    outputs: dict[str, str]
    stdout: str


def small_pr(server: GitHubServer) -> PullRequest:
    """A two-line fix with a title and a body: the PR most model and endpoint tests review."""
    return server.add_pr(REPO, "Cap torch threads per worker", "Splits OMP threads across the ranks of a host.",
                         user="alice",
                         files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=2, deletions=1,
                                       patch="@@ -40,3 +40,4 @@ class CPUWorker:\n     def init_device(self):\n"
                                             "-        torch.set_num_threads(os.cpu_count())\n"
                                             "+        threads = max(1, os.cpu_count() // self.local_world_size)\n"
                                             "+        torch.set_num_threads(threads)\n")])


def pr_payload(pr: PullRequest, action: str, repo: str = REPO, **extra: Any) -> dict[str, Any]:
    """A pull_request payload shaped like GitHub's (the fields readworthy reads, and a few it does not)."""
    head_repo = pr.head_repo or repo
    payload: dict[str, Any] = {
        "action": action,
        "number": pr.number,
        "pull_request": {
            "number": pr.number,
            "title": pr.title,
            "state": pr.state,
            "draft": pr.draft,
            "locked": pr.locked,
            "user": {"login": pr.user, "type": "Bot" if pr.user.endswith("[bot]") else "User"},
            "labels": [{"name": name} for name in pr.labels],
            "base": {"ref": pr.base_ref, "sha": pr.base_sha, "repo": {"full_name": repo}},
            "head": {"ref": pr.head_ref, "sha": pr.head_sha, "repo": {"full_name": head_repo}},
            "author_association": "CONTRIBUTOR",
        },
        "repository": {"full_name": repo, "archived": False},
        "sender": {"login": pr.user},
    }
    payload.update(extra)
    return payload


def comment_payload(number: int, login: str, body: str, comment_id: int, on_pr: bool = True) -> dict[str, Any]:
    issue: dict[str, Any] = {"number": number, "title": "t", "user": {"login": "alice"}}
    if on_pr:
        issue["pull_request"] = {"url": f"https://api.github.com/repos/{REPO}/pulls/{number}"}
    return {
        "action": "created",
        "issue": issue,
        "comment": {"id": comment_id, "body": body, "user": {"login": login}, "author_association": "OWNER"},
        "repository": {"full_name": REPO},
        "sender": {"login": login},
    }


def action_env(
    server: GitHubServer,
    tmp_path: Path,
    event_name: str,
    payload: Any,
    *,
    token: str = WORKFLOW_TOKEN,
    openai_url: str | None = None,
    inputs: dict[str, str] | None = None,
) -> dict[str, str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    event_path = tmp_path / "event.json"
    event_path.write_text(payload if isinstance(payload, str) else json.dumps(payload), encoding="utf-8")
    (tmp_path / "output").write_text("", encoding="utf-8")
    (tmp_path / "summary.md").write_text("", encoding="utf-8")
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": server.api_url,
        "GITHUB_GRAPHQL_URL": server.graphql_url,
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "INPUT_GITHUB-TOKEN": token,
        "INPUT_TRIGGER-LABEL": "readworthy",
        "INPUT_FAIL-ON-ERROR": "false",
    }
    if openai_url:
        env["INPUT_OPENAI-API-KEY"] = KEY
        env["INPUT_OPENAI-BASE-URL"] = openai_url
        env["INPUT_MODEL"] = "gpt-4.1-mini"
        env["INPUT_MODEL-TIMEOUT"] = "10"
    for name, value in (inputs or {}).items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str]) -> Run:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    code = run_action(os.environ, loopback_models=True)  # GitHub Models may be the test server (loopback)
    out = capsys.readouterr().out
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    outputs = parse_outputs(Path(env["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))
    # Leave the next run a clean summary/output file, as a new step would have.
    Path(env["GITHUB_STEP_SUMMARY"]).write_text("", encoding="utf-8")
    Path(env["GITHUB_OUTPUT"]).write_text("", encoding="utf-8")
    return Run(code, summary, outputs, out)


def parse_outputs(text: str) -> dict[str, str]:
    """Read the `name<<delimiter` blocks actions_toolkit writes to $GITHUB_OUTPUT."""
    outputs: dict[str, str] = {}
    for match in re.finditer(r"^([\w-]+)<<(\S+)\r?\n(.*?)\r?\n\2$", text, re.MULTILINE | re.DOTALL):
        outputs[match.group(1)] = match.group(3)
    return outputs


def own_comments(server: GitHubServer, number: int, login: str = "github-actions[bot]") -> list[Any]:
    item = server.state.item(REPO, number)
    assert item is not None
    return [c for c in item.comments if c.user == login and "<!-- readworthy:" in c.body]
