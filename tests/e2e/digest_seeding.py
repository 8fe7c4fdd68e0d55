"""Seeding helpers for digest tests and bench/digest.py: many PRs on the test GitHub server.

Times are real datetimes (the digest windows are relative to the wall clock), written into
the server's state the way GitHub reports them: a merge bumps `updated_at` and `closed_at`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from servers.github_fixtures import PRFile, files_from_patch
from servers.github_server import GitHubServer
from servers.github_state import PullRequest

REPO = "vllm-project/vllm"


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def use_wall_clock(server: GitHubServer) -> None:
    """The server stamps writes (comments bump a PR's `updated_at`) with a fixed 2026-06 clock; digest
    windows are relative to now, so give it the wall clock, as GitHub has. (Only the clock is patched.)"""
    server.state.now = lambda: iso(datetime.now(UTC))  # type: ignore[method-assign]


def add_pr_at(
    server: GitHubServer,
    title: str,
    *,
    repo: str = REPO,
    created: datetime,
    merged: datetime | None = None,
    files: list[PRFile] | None = None,
    number: int | None = None,
    body: str = "",
    **kwargs: Any,
) -> PullRequest:
    """A PR created at `created`, merged at `merged` (if given), with GitHub-consistent timestamps."""
    pr = server.add_pr(
        repo,
        title,
        body,
        number=number,
        files=files if files is not None else [PRFile("vllm/model.py", additions=3, deletions=1,
                               patch="@@ -1,2 +1,4 @@\n def run():\n-    return 1\n+    x = compute()\n+    return x\n")],
        created_at=iso(created),
        merged=merged is not None,
        merged_at=iso(merged) if merged else None,
        **kwargs,
    )
    pr.updated_at = iso(merged or created)
    if merged:
        pr.closed_at = iso(merged)
    return pr


def model_reply(verdict: str = "skim", headline: str = "Splits the runner step into prepare and execute",
                reason: str = "One pattern worth knowing; the rest is mechanical.") -> dict[str, Any]:
    """A valid structured answer for the OpenAI test server (references exist in the default PR file)."""
    return {
        "verdict": verdict,
        "reason": reason,
        "headline": headline,
        "audience": ["engineers of the model runner"],
        "decisions": [
            {"title": "Compute once in `run()`", "explanation": "The value is computed once and returned.",
             "references": ["vllm/model.py"]},
        ],
        "start_reading": ["vllm/model.py"],
        "discussion": "",
        "linked_issue_findings": [],
        "open_items": [],
        "related": [],
    }


@dataclass(frozen=True)
class VllmPR:
    number: int
    title: str
    author: str
    date: datetime
    files: list[PRFile]


def load_vllm_prs(root: Path) -> list[VllmPR]:
    """The 30 real vLLM diffs as PRFiles (GitHub-style patches, starting at the first @@)."""
    out = []
    for item in json.loads((root / "index.json").read_text()):
        folder = root / str(item["number"])
        meta = json.loads((folder / "meta.json").read_text())
        patch = (folder / "diff.patch").read_text(encoding="utf-8", errors="replace")
        author = meta.get("author") or {}
        out.append(VllmPR(
            number=int(meta["number"]),
            title=str(meta["title"]),
            author=str(author.get("name", "octocat") if isinstance(author, dict) else author),
            date=datetime.fromisoformat(str(meta["date"])).astimezone(UTC),
            files=files_from_patch(patch),
        ))
    return out


def seed_vllm(server: GitHubServer, prs: list[VllmPR], now: datetime, repo: str = REPO) -> list[PullRequest]:
    """The real PRs merged over the last 24 hours (keeping their order), under their real numbers."""
    server.add_repo(repo)
    use_wall_clock(server)
    seeded = []
    ordered = sorted(prs, key=lambda p: p.date)
    for i, pr in enumerate(ordered):
        merged = now - timedelta(hours=23) + timedelta(minutes=40 * i)
        seeded.append(add_pr_at(server, pr.title, repo=repo, number=pr.number, user=pr.author,
                                created=merged - timedelta(days=2), merged=merged, files=pr.files))
    return seeded
