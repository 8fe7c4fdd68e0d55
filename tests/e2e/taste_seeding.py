"""Pull requests and taste-memory comments for the taste tests (tests/e2e/test_action_taste*.py).

Two Docker PRs of the same kind: each adds two image build stages that the final stage copies from
(the heuristic reads that as a build graph worth a deep read), in `docker/Dockerfile`, a few lines each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from action_run import REPO, action_env, comment_payload, pr_payload
from servers.github_server import GitHubServer
from servers.github_state import PRCommit, PRFile, PullRequest, _sha_for

from readworthy.gather.memory import MEMORY_LABEL, MEMORY_TITLE
from readworthy.memory.record import format_record
from readworthy.models import Correction, Verdict

BOT = "github-actions[bot]"


def dockerfile_patch(stage: str, extra: int = 0) -> str:
    lines = [f"@@ -1,3 +1,{9 + extra} @@", " FROM ubuntu:22.04 AS base",
             f"+FROM base AS {stage}-deps", f"+RUN pip install -r requirements/{stage}.txt",
             f"+FROM base AS {stage}-cache", "+RUN --mount=type=cache,target=/root/.cache pip wheel .",
             " FROM base AS final", f"+COPY --from={stage}-deps /usr/lib /usr/lib",
             f"+COPY --from={stage}-cache /wheels /wheels"]
    lines += [f"+ENV {stage.upper()}_{i}=1" for i in range(extra)]
    return "\n".join([*lines, " RUN echo done"])


def docker_pr(server: GitHubServer, stage: str, extra: int = 0, title: str = "") -> PullRequest:
    return server.add_pr(
        REPO, title or f"[Docker] Cache {stage} in its own build stage",
        f"Moves the {stage} install into a stage of its own so it stays cached.",
        files=[PRFile("docker/Dockerfile", additions=6 + extra, deletions=0, patch=dockerfile_patch(stage, extra))],
        commits=[PRCommit(sha=_sha_for(f"{stage}:1"), message=f"Cache {stage}")],
    )


def push(pr: PullRequest, stage: str, extra: int) -> None:
    """A new commit on the PR: a new head and a slightly different diff."""
    pr.files = [PRFile("docker/Dockerfile", additions=6 + extra, deletions=0, patch=dockerfile_patch(stage, extra))]
    pr.commits.append(PRCommit(sha=_sha_for(f"{stage}:{len(pr.commits) + 1}"), message="more"))
    pr.head_sha = pr.commits[-1].sha


def command(server: GitHubServer, number: int, login: str, body: str) -> dict[str, Any]:
    comment = server.add_comment(REPO, number, login, body)
    return comment_payload(number, login, body, comment.id)


def env_for(server: GitHubServer, tmp_path: Path, event: str, payload: Any, **kwargs: Any) -> dict[str, str]:
    inputs = {"verdict-labels": "true", **kwargs.pop("inputs", {})}
    return action_env(server, tmp_path, event, payload, inputs=inputs, **kwargs)


def opened(pr: PullRequest) -> dict[str, Any]:
    return pr_payload(pr, "opened")


def memory_issue(server: GitHubServer) -> Any:
    items = [i for i in server.repo(REPO).items.values() if MEMORY_LABEL in i.labels]
    assert len(items) <= 1, "one taste-memory issue"
    return items[0] if items else None


def seed_memory(server: GitHubServer, records: list[tuple[str, str]]) -> Any:
    """A memory issue with comments (author, body) as given."""
    issue = server.add_issue(REPO, MEMORY_TITLE, "memory", user=BOT, labels=[MEMORY_LABEL])
    for author, body in records:
        server.add_comment(REPO, issue.number, author, body)
    return issue


def correction(pr: int, team: Verdict = Verdict.SKIM, analysed: Verdict = Verdict.DEEP_READ,
               **extra: Any) -> Correction:
    fields: dict[str, Any] = {"pr": pr, "title": "[Docker] Cache deps in their own build stage",
                              "areas": {"docker": 6}, "kinds": {"build": 6}, "lines": 6, "analysed": analysed,
                              "team": team, "reason": "too narrow", "by": "maya", **extra}
    return Correction(**fields)


def record(pr: int, **extra: Any) -> str:
    return format_record(correction(pr, **extra))
