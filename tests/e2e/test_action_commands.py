"""`/readworthy` comment commands end to end: write access checked with the permission API."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_run import REPO, action_env, comment_payload, own_comments, run
from servers.github_fixtures import seed_discussed_pr
from servers.github_server import GitHubServer


def command(server: GitHubServer, number: int, login: str, body: str) -> dict[str, object]:
    comment = server.add_comment(REPO, number, login, body)
    return comment_payload(number, login, body, comment.id)


def test_writer_command_is_acknowledged_and_posts(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    github_server.repo(REPO).permissions["maya"] = "maintain"
    payload = command(github_server, seeded.number, "maya", "/readworthy")
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "issue_comment", payload))
    assert result.code == 0
    assert len(own_comments(github_server, seeded.number)) == 1
    item = github_server.state.item(REPO, seeded.number)
    assert item is not None
    cmd = next(c for c in item.comments if c.body == "/readworthy")
    assert [(r.user, r.content) for r in cmd.reactions] == [("github-actions[bot]", "eyes")]
    assert github_server.count("GET", r"/collaborators/maya/permission$") == 1


def test_lang_command_switches_language(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    github_server.repo(REPO).permissions["maya"] = "write"
    payload = command(github_server, seeded.number, "maya", "/readworthy lang zh-CN")
    assert run(monkeypatch, capsys, action_env(github_server, tmp_path, "issue_comment", payload)).code == 0
    body = own_comments(github_server, seeded.number)[0].body
    assert "启发式分析 — 未调用模型" in body and "覆盖范围与成本" in body


@pytest.mark.parametrize("permission", ["read", "triage", None])
def test_reader_command_is_ignored(
    permission: str | None, github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    if permission:
        github_server.repo(REPO).permissions["rita"] = permission
    payload = command(github_server, seeded.number, "rita", "/readworthy refresh")
    payload["comment"]["author_association"] = "OWNER"  # type: ignore[index]  # a lie the payload may tell
    github_server.clear_log()
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "issue_comment", payload))
    assert result.code == 0 and result.outputs["skipped-reason"] == "no-permission"
    assert all("readworthy:state v1" in c.body for c in own_comments(github_server, seeded.number))  # seeded only
    assert [r for r in github_server.requests if r.is_write] == []
    assert "no write access" in result.summary


def test_command_on_a_plain_issue_is_ignored_without_api_calls(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    issue = github_server.add_issue(REPO, "Question", "How do I ...?")
    payload = comment_payload(issue.number, "maya", "/readworthy", 1, on_pr=False)
    github_server.clear_log()
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "issue_comment", payload))
    assert result.code == 0 and result.outputs["skipped-reason"] == "not-a-pull-request"
    assert github_server.count() == 0
