"""`readworthy action` on a busy pull request (issue 23): hundreds of review threads, and a page GitHub never
answers, still end in one comment, the unread part named in its coverage footer."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_run import REPO, action_env, own_comments, pr_payload, run
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest

from readworthy.render.state import decode_state


def busy_pr(server: GitHubServer, threads: int, comments: int = 0) -> PullRequest:
    pr = server.add_pr(REPO, "Overlap the KV transfer with the next prefill", "Moves the transfer to a stream.",
                       user="alice", files=[PRFile("vllm/distributed/kv_transfer.py", additions=3, deletions=1,
                                                   patch="@@ -10,2 +10,4 @@\n-    send(x)\n+    with stream:\n"
                                                         "+        send(x)\n+    stream.wait()\n")])
    for i in range(threads):
        server.add_thread(REPO, pr.number, "vllm/distributed/kv_transfer.py", 11,
                          [("reviewer", f"question {i}"), ("alice", f"answer {i}"), ("reviewer", f"ok {i}")])
    for i in range(comments):
        server.add_comment(REPO, pr.number, f"dev{i % 5}", f"benchmark {i}")
    return pr


def test_three_hundred_review_threads_get_one_comment(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = busy_pr(github_server, threads=300)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened")))
    assert result.code == 0 and "failed" not in result.stdout
    [comment] = own_comments(github_server, pr.number)
    assert "300 review threads" in comment.body
    assert 502 not in [r.status for r in github_server.requests]


def test_a_page_github_never_answers_is_a_coverage_note_not_a_failure(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pr = busy_pr(github_server, threads=2, comments=40)
    github_server.graphql_limits.max_objects = 4  # GitHub answers the conversation with partial data only
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened")))
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None
    assert any(n.startswith("0 of 40 conversation comments read; GitHub could not answer the rest")
               for n in state.coverage.notes)
    assert "0 of 40 conversation comments read" in comment.body  # the footer names it
