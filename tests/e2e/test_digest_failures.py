"""A digest whose model calls fail says so (issue 23): `fail-on-error` applies in digest mode, a warning
annotation either way, and the banner tells the truth — the model was asked and failed, and why — in
English and Chinese, instead of "no model was called" beside a footer that counts the failed calls. And a
locked PR is analysed for the list without a write GitHub would refuse."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from action_run import action_env, run
from digest_seeding import REPO, add_pr_at, model_reply
from servers.github_server import GitHubServer
from servers.openai_server import OpenAIServer

NOW = datetime.now(UTC)


def _seed(server: GitHubServer, n: int = 3) -> list[int]:
    return [add_pr_at(server, f"Split the runner step {i}", created=NOW - timedelta(hours=5),
                      merged=NOW - timedelta(hours=3 - i * 0.1)).number for i in range(n)]


def _digest_issue_body(server: GitHubServer) -> str:
    [issue] = [i for i in server.repo(REPO).items.values() if "readworthy-digest" in i.labels]
    return issue.body


def _digest(server: GitHubServer, ai: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str], **inputs: str):  # type: ignore[no-untyped-def]
    env = action_env(server, tmp_path, "schedule", {"schedule": "0 7 * * *"}, openai_url=ai.url,
                     inputs={"mode": "digest", "digest-since": "1d", "digest-target": "issue", **inputs})
    return run(monkeypatch, capsys, env)


@pytest.mark.parametrize(("fail_on_error", "code", "level"), [("true", 1, "::error::"), ("false", 0, "::warning::")])
def test_every_model_call_failing_is_an_error_of_the_digest(
    fail_on_error: str, code: int, level: str, digest_env: GitHubServer, openai_server: OpenAIServer,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _seed(digest_env)
    openai_server.add_error(401, "Incorrect API key provided", times=10)
    result = _digest(digest_env, openai_server, tmp_path, monkeypatch, capsys, **{"fail-on-error": fail_on_error})
    assert result.code == code
    [line] = [x for x in result.stdout.splitlines() if x.startswith(level) and "model could not be used" in x]
    assert "any of the 3 pull request(s)" in line and "401" in line
    body = _digest_issue_body(digest_env)  # the digest is still published
    [banner] = [x for x in body.splitlines() if x.startswith("> ")]
    assert "3 of these analyses are **heuristic** because the model was asked and failed:" in banner
    assert "401" in banner and "`openai-api-key`" in banner
    assert "no model was called" not in body
    assert "3 model calls (3 analyses failed)" in body


def test_the_chinese_banner_gives_the_reason_in_chinese(
    digest_env: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _seed(digest_env, 2)
    openai_server.add_error(401, "Incorrect API key provided", times=10)
    _digest(digest_env, openai_server, tmp_path, monkeypatch, capsys, language="zh-CN")
    body = _digest_issue_body(digest_env)
    assert "> ⚠️ 其中 2 个分析为**启发式**，因为调用了模型但失败了：端点拒绝了该 API 密钥（401）" in body
    assert "模型调用 2 次（其中 2 个分析失败）" in body and "未调用模型" not in body


def test_some_model_calls_failing_is_a_warning_not_an_error(
    digest_env: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _seed(digest_env)
    openai_server.add_json(model_reply())
    openai_server.add_error(401, "Incorrect API key provided", times=10)
    result = _digest(digest_env, openai_server, tmp_path, monkeypatch, capsys,
                     **{"fail-on-error": "true", "digest-max-prs": "3"})
    assert result.code == 0
    assert any(x.startswith("::warning::") and "could not be used for 2 of 3" in x for x in result.stdout.splitlines())
    assert "2 of these analyses are **heuristic** because the model was asked and failed" in _digest_issue_body(
        digest_env)


def test_a_digest_no_pr_of_which_could_be_analysed_fails_with_fail_on_error(
    digest_env: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    _seed(digest_env, 2)
    digest_env.inject("GET", r"/pulls/\d+/files$", status=404, body={"message": "Not Found"}, times=None)
    result = _digest(digest_env, openai_server, tmp_path, monkeypatch, capsys, **{"fail-on-error": "true"})
    assert result.code == 1
    assert any(x.startswith("::error::") and "none of the 2 pull request(s)" in x for x in result.stdout.splitlines())


def test_a_locked_pr_is_listed_without_a_comment_github_would_refuse(
    digest_env: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    open_pr, locked_pr = _seed(digest_env, 2)
    digest_env.state.repo(REPO).items[locked_pr].locked = True
    openai_server.add_json(model_reply(), times=2)
    result = _digest(digest_env, openai_server, tmp_path, monkeypatch, capsys, **{"fail-on-error": "true"})
    assert result.code == 0 and "locked" not in result.stdout  # no refused write, so no warning about one
    body = _digest_issue_body(digest_env)
    assert f"#{open_pr}" in body and f"#{locked_pr}" in body
    assert digest_env.count("POST", rf"/issues/{locked_pr}/comments$") == 0
    assert digest_env.count("POST", rf"/issues/{open_pr}/comments$") == 1  # its analysis is kept in its comment
