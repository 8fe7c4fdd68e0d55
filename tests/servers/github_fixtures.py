"""pytest fixtures for the GitHub-compatible test server (tests/servers/github_server.py).

Fixtures
    github_server    a fresh, started GitHubServer per test (empty state; stopped afterwards).
    github_env       environ dict pointing an action run at the server (GITHUB_API_URL, ..._GRAPHQL_URL,
                     GITHUB_REPOSITORY, GITHUB_TOKEN = the workflow token).

Seeding API (methods of GitHubServer; plain dataclasses from github_state you may also edit directly):
    server.add_repo("o/r", archived=False, default_branch="main",
                    files={"main": {".github/CODEOWNERS": "...", ".github/readworthy.yml": "..."}},
                    permissions={"alice": "write"}, discussion_categories=["Reading list"]) -> Repo
    server.set_file("o/r", ref, path, text_or_None)
    server.add_pr("o/r", title, body, number=None, user=, state=, draft=, locked=, merged=, merged_at=,
                  labels=, base_ref=, head_ref=, head_repo="fork/r", files=[PRFile], commits=[PRCommit|str])
        PRFile(filename, status=, additions=, deletions=, patch=, previous_filename=, binary=,
               patch_omitted=True)   # the files API leaves `patch` out (GitHub's very-large-diff rule);
                                     # the diff media type still serves it
    server.add_issue("o/r", title, body, number=None, user=, state=, labels=, comments=[(login, body)])
    server.add_comment("o/r", number, login, body)               # PR or issue conversation comment
    server.add_review("o/r", number, login, "APPROVED"|"CHANGES_REQUESTED"|"COMMENTED", body)
    server.add_thread("o/r", number, path, line, [(login, body), ...], resolved=, outdated=, review=)
    pr.closing_issues.append(ItemRef("o/r", n))                   # GitHub's closingIssuesReferences
    server.add_cross_reference("o/r", pr_number, "o/r", other_number)  # CROSS_REFERENCED_EVENT
    server.add_token(token, login, kind="personal"|"workflow"|"app", read_only=False)
Tokens always present: WORKFLOW_TOKEN (github-actions[bot], 403 on GET /user), PERSONAL_TOKEN (octocat),
READONLY_TOKEN (a fork PR's token: every write 403).

Inspecting and breaking (see github_server.py's docstring for details):
    server.comments("o/r", n)          the stored conversation comments after a run
    server.requests / server.count(method, path_regex) / server.clear_log()
    server.inject(method, path_regex, status=, headers=, body=, times=1, delay=, drop=)
URLs: server.api_url (GITHUB_API_URL), server.graphql_url (GITHUB_GRAPHQL_URL), server.html_url.
GraphQL needs GitHub's schema: `python scripts/fetch-graphql-schema` (else the endpoint answers 501).

Helpers
    seed_discussed_pr(server, ...) -> SeededPR   a realistic PR: two debating inline threads, two reviews,
                                                 a bot comment, a /ci command, an LGTM, our own sticky
                                                 comment, a `Fixes #` issue, a closing-reference-only
                                                 issue, a mentioned issue and a cross-referencing PR.
    files_from_patch(text) -> list[PRFile]       split a unified diff (or `git show`) into PRFiles.
    github_client(server, token) -> github.Github  PyGithub aimed at the server, no sleeps.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import github
import pytest
from github import Auth

from .github_server import GitHubServer
from .github_state import (
    PERSONAL_TOKEN,
    READONLY_TOKEN,
    WORKFLOW_LOGIN,
    WORKFLOW_TOKEN,
    ItemRef,
    PRCommit,
    PRFile,
    PullRequest,
    _sha_for,
)

__all__ = [
    "PERSONAL_TOKEN",
    "READONLY_TOKEN",
    "WORKFLOW_LOGIN",
    "WORKFLOW_TOKEN",
    "GitHubServer",
    "ItemRef",
    "PRCommit",
    "PRFile",
    "SeededPR",
    "files_from_patch",
    "github_client",
    "github_env",
    "github_server",
    "seed_discussed_pr",
]

OWN_MARKER_COMMENT = "<!-- readworthy:state v1 -->\n**readworthy**: skim — an earlier run's comment."


@pytest.fixture
def github_server() -> Iterator[GitHubServer]:
    server = GitHubServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def github_env(github_server: GitHubServer) -> dict[str, str]:
    return {
        "GITHUB_API_URL": github_server.api_url,
        "GITHUB_GRAPHQL_URL": github_server.graphql_url,
        "GITHUB_SERVER_URL": github_server.html_url,
        "GITHUB_REPOSITORY": "vllm-project/vllm",
        "GITHUB_TOKEN": WORKFLOW_TOKEN,
    }


def github_client(server: GitHubServer, token: str = WORKFLOW_TOKEN) -> github.Github:
    return github.Github(
        auth=Auth.Token(token),
        base_url=server.api_url,
        seconds_between_requests=0,
        seconds_between_writes=0,
        retry=None,
    )


_DIFF_HEADER = re.compile(r"^diff --git a/(.*?) b/(.*)$")


def files_from_patch(text: str) -> list[PRFile]:
    """Split a unified diff (`git diff` / `git show`) into GitHub-style PRFiles: patch starts at the first @@."""
    files: list[PRFile] = []
    current: dict[str, object] | None = None
    body: list[str] = []

    def flush() -> None:
        if current is None:
            return
        patch_lines = body[next((i for i, x in enumerate(body) if x.startswith("@@")), len(body)) :]
        adds = sum(1 for x in patch_lines if x.startswith("+") and not x.startswith("+++"))
        dels = sum(1 for x in patch_lines if x.startswith("-") and not x.startswith("---"))
        binary = bool(current["binary"])
        files.append(
            PRFile(
                filename=str(current["path"]),
                status=str(current["status"]),
                additions=adds,
                deletions=dels,
                patch="\n".join(patch_lines) if patch_lines and not binary else None,
                previous_filename=current["old"] if current["status"] == "renamed" else None,  # type: ignore[arg-type]
                binary=binary,
            )
        )

    for line in text.splitlines():
        m = _DIFF_HEADER.match(line)
        if m:
            flush()
            current = {"path": m.group(2), "old": m.group(1), "status": "modified", "binary": False}
            body = []
            continue
        if current is None:
            continue
        if not body or not any(x.startswith("@@") for x in body):
            if line.startswith("new file mode"):
                current["status"] = "added"
            elif line.startswith("deleted file mode"):
                current["status"] = "removed"
            elif line.startswith("rename from"):
                current["status"] = "renamed"
            elif line.startswith(("Binary files", "GIT binary patch")):
                current["binary"] = True
        body.append(line)
    flush()
    return files


@dataclass
class SeededPR:
    repo: str
    pr: PullRequest
    fixes_issue: int  # linked by "Fixes #N" in the body
    closing_only_issue: int  # linked only through closingIssuesReferences (sidebar link)
    mentioned_issue: int  # "see #N" in a commit message
    cross_ref_pr: int  # another PR that mentions this one
    debate_paths: list[str] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.pr.number


def seed_discussed_pr(
    server: GitHubServer,
    repo: str = "vllm-project/vllm",
    *,
    files: list[PRFile] | None = None,
    title: str = "[Core] Cap OMP threads per worker to avoid oversubscription",
    extra_commit_messages: list[str] | None = None,
    codeowners: str | None = "/vllm/v1/worker/ @vllm-project/mrv2\n*.md @vllm-project/docs\n",
) -> SeededPR:
    """A PR whose value is mostly outside the diff: root cause in an issue, a settled debate in threads."""
    files = files or [
        PRFile("vllm/v1/worker/cpu_worker.py", additions=6, deletions=1,
               patch="@@ -40,7 +40,12 @@ class CPUWorker:\n     def init_device(self):\n"
                     "-        torch.set_num_threads(os.cpu_count())\n"
                     "+        local_world_size = self.parallel_config.local_world_size\n"
                     "+        threads = max(1, os.cpu_count() // local_world_size)\n"
                     "+        torch.set_num_threads(threads)\n"),
        PRFile("tests/v1/worker/test_cpu_threads.py", status="added", additions=20,
               patch="@@ -0,0 +1,20 @@\n+def test_threads_split_per_rank():\n+    assert True\n"),
        PRFile("docs/usage/cpu.md", additions=2, patch="@@ -1,2 +1,4 @@\n # CPU\n+Threads are split per rank.\n"),
    ]
    if codeowners is not None:
        server.repo(repo)
        server.set_file(repo, "main", ".github/CODEOWNERS", codeowners)
    fixes = server.add_issue(
        repo,
        "CPU backend: 896 OMP threads on a 224-core host with TP=4",
        "With TP=4 each rank calls torch.set_num_threads(224): 4x224 = 896 threads.",
        labels=["bug", "cpu"],
        comments=[
            ("reporter", "Logs show `local_world_size=1` on every rank, so the split never happens."),
            ("maintainer-a", "Confirmed. Root cause: we read world_size before the launcher sets it. " * 3),
            ("github-actions[bot]", "This issue has been automatically marked as stale."),
        ],
    )
    closing_only = server.add_issue(repo, "Throughput regression on CPU TP>1", "p50 latency doubled on 0.9.",
                                    labels=["performance"])
    mentioned = server.add_issue(repo, "Tracking: CPU backend thread placement", "Umbrella issue.")
    commits = [
        PRCommit(sha=_sha_for(f"{repo}:c1"), message="Cap OMP threads per worker", author="alice"),
        PRCommit(sha=_sha_for(f"{repo}:c2"), message="Address review: read local_world_size (see #"
                 f"{mentioned.number})", author="alice"),
        *[PRCommit(sha=_sha_for(f"{repo}:x{i}"), message=m, author="alice")
          for i, m in enumerate(extra_commit_messages or [])],
    ]
    pr = server.add_pr(
        repo,
        title,
        f"Each TP rank set torch threads to the full core count.\n\nFixes #{fixes.number}\n",
        user="alice",
        labels=["cpu"],
        files=files,
        commits=commits,
    )
    pr.closing_issues.append(ItemRef(repo, fixes.number))
    pr.closing_issues.append(ItemRef(repo, closing_only.number))
    other = server.add_pr(repo, "[CPU] NUMA-aware thread binding", f"Builds on #{pr.number}.", user="carol",
                          files=[PRFile("vllm/platforms/cpu.py", additions=3, patch="@@ -1 +1,3 @@\n+x\n")])
    server.add_cross_reference(repo, pr.number, repo, other.number)

    first, second = files[0].filename, files[min(1, len(files) - 1)].filename
    server.add_comment(repo, pr.number, "ci-bot[bot]", "Build #4411 passed. 523 tests, 0 failures.")
    server.add_comment(repo, pr.number, "bob", "/ci run cpu-tests")
    server.add_comment(repo, pr.number, WORKFLOW_LOGIN, OWN_MARKER_COMMENT)
    server.add_comment(repo, pr.number, "dave", "LGTM")
    server.add_comment(repo, pr.number, "bob", "Should MRV2 port this at all, or should we deprecate the "
                                              "V0 CPU path instead? I'd rather not carry both.")
    server.add_comment(repo, pr.number, "alice", "MRV2 keeps the CPU worker; deprecating is a separate RFC.")
    review1 = server.add_review(repo, pr.number, "bob", "CHANGES_REQUESTED",
                                "The split must use local_world_size, not world_size.")
    server.add_thread(repo, pr.number, first, 42,
                      [("bob", "world_size is global: with 2 nodes this halves threads twice."),
                       ("alice", "Good catch, switched to local_world_size."),
                       ("bob", "Thanks, resolved.")], resolved=True, review=review1)
    server.add_thread(repo, pr.number, second, 1,
                      [("erin", "Can we assert the actual thread count instead of True?"),
                       ("alice", "Needs a 4-rank CPU runner; we have none in CI. Follow-up issue?")])
    server.add_thread(repo, pr.number, first, 40, [("bob", "nit: old line")], outdated=True)
    server.add_review(repo, pr.number, "erin", "APPROVED", "Approving; the test follow-up is tracked.")
    return SeededPR(repo=repo, pr=pr, fixes_issue=fixes.number, closing_only_issue=closing_only.number,
                    mentioned_issue=mentioned.number, cross_ref_pr=other.number, debate_paths=[first, second])
