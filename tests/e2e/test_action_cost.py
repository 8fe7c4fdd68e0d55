"""Cost and abuse control on a public repository (issue 15), end to end through `readworthy action`:
who gets a model analysis, a per-run cost cap, and a cap on model analyses per PR per day. Every
decision shows in the comment and the job summary."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, comment_payload, own_comments, pr_payload, run
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest
from servers.openai_server import OpenAIServer

from readworthy.render.state import decode_state


def stranger_pr(server: GitHubServer, user: str = "drive-by", association: str = "FIRST_TIME_CONTRIBUTOR",
                title: str = "Cache rotary tables once per step") -> PullRequest:
    server.repo(REPO).associations[user] = association
    return server.add_pr(REPO, title, "Moves the cache into the runner.", user=user,
                         files=[PRFile("vllm/rotary.py", additions=2,
                                       patch="@@ -1 +1,2 @@\n-x = 1\n+x = 2\n+cache = build()\n")])


def test_a_first_time_contributor_gets_the_heuristic_when_models_are_for_members(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = stranger_pr(github_server)
    openai_server.add_json(GOOD_DIGEST)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                 inputs={"model-for": "members"}))
    assert result.code == 0 and openai_server.chat_requests == []
    [comment] = own_comments(github_server, pr.number)
    assert "the model was not asked" in comment.body and "model-for: members" in comment.body
    assert "first-time contributor" in comment.body
    assert "Model not asked" in result.summary
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic" and state.model_withheld and not state.fallback_reason
    # A maintainer asks: the model answers, whoever wrote the PR.
    github_server.repo(REPO).permissions["maint"] = "write"
    asked = run(monkeypatch, capsys, action_env(github_server, tmp_path / "cmd", "issue_comment",
                                                comment_payload(pr.number, "maint", "/readworthy refresh", 901),
                                                openai_url=openai_server.url, inputs={"model-for": "members"}))
    assert asked.code == 0 and len(openai_server.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    assert "the model was not asked" not in comment.body


def test_a_past_contributor_is_asked_about_when_models_are_for_contributors(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = stranger_pr(github_server, "regular", "CONTRIBUTOR")
    openai_server.add_json(GOOD_DIGEST)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                 inputs={"model-for": "contributors"}))
    assert result.code == 0 and len(openai_server.chat_requests) == 1


@pytest.mark.parametrize("model_for", ["members", "contributors"])
def test_a_private_member_is_not_downgraded_by_model_for(
    model_for: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23: a member whose organization membership is private shows as CONTRIBUTOR (or NONE, before a
    first contribution) in the payload; the collaborator permission API says write, and that decides."""
    association = "CONTRIBUTOR" if model_for == "members" else "NONE"
    github_server.repo(REPO).permissions["pat"] = "write"
    pr = stranger_pr(github_server, "pat", association)
    openai_server.add_json(GOOD_DIGEST)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                 inputs={"model-for": model_for}))
    assert result.code == 0 and len(openai_server.chat_requests) == 1
    assert github_server.count("GET", r"/collaborators/pat/permission$") == 1
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "model" and not state.model_withheld
    # someone with the same association and no write access still gets the heuristic
    other = stranger_pr(github_server, "sam", association, "Another change")
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path / "sam", "pull_request_target",
                                                 pr_payload(other, "opened"), openai_url=openai_server.url,
                                                 inputs={"model-for": model_for}))
    assert result.code == 0 and len(openai_server.chat_requests) == 1
    assert f"model-for: {model_for}" in own_comments(github_server, other.number)[0].body


def test_write_access_is_asked_once_per_login_per_run(github_server: GitHubServer) -> None:
    from readworthy.config import build_settings
    from readworthy.gather.github_api import make_github
    from readworthy.review import ReviewSession

    github_server.repo(REPO).permissions["pat"] = "write"
    settings = build_settings({"github_token": "ghs_workflow_token", "github_api_url": github_server.api_url})
    session = ReviewSession(make_github(settings), None, REPO, settings, "github-actions[bot]")
    assert [session.can_write(login) for login in ("pat", "sam", "pat", "sam")] == [True, False, True, False]
    assert github_server.count("GET", r"/collaborators/\w+/permission$") == 2


def test_model_analyses_per_pr_per_day_are_capped(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Every push that changes the content materially costs an analysis; the third one in a day, with a cap
    of two, gets the heuristic and says when the model will be asked again."""
    pr = stranger_pr(github_server, "busy-author", "CONTRIBUTOR")
    for push in range(3):
        added = "".join(f"+cache_{i} = build({i})\n" for i in range(25 * (push + 1)))  # 25 more lines a push
        pr.files[0].patch = f"@@ -1 +1,{1 + 25 * (push + 1)} @@\n-x = 1\n+x = {push + 2}\n{added}"
        pr.files[0].additions, pr.files[0].deletions = 1 + 25 * (push + 1), 1
        openai_server.add_json(GOOD_DIGEST)
        result = run(monkeypatch, capsys, action_env(github_server, tmp_path / str(push), "pull_request_target",
                                                     pr_payload(pr, "synchronize"), openai_url=openai_server.url,
                                                     inputs={"max-analyses-per-day": "2"}))
        assert result.code == 0
    assert len(openai_server.chat_requests) == 2
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and "max-analyses-per-day: 2" in state.model_withheld
    assert len(state.model_runs) == 2 and "the next push after" in comment.body
    assert "Model not asked" in result.summary


def test_the_runs_cost_cap_stops_model_calls_and_says_so(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Three PRs and a cap just above one worst-case analysis (16k in + 2k out on gpt-4.1-mini = $0.0096):
    an analysis starts only if what was spent plus its worst case stays under the cap, so after the
    first call's real cost there is no room for another. Then the labelled heuristic."""
    numbers = [stranger_pr(github_server, f"author{i}", "CONTRIBUTOR", f"Change {i}").number for i in range(3)]
    for _ in numbers:
        openai_server.add_json(GOOD_DIGEST)
    payload = {"inputs": {"pr-number": ",".join(map(str, numbers))}, "repository": {"full_name": REPO}}
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "workflow_dispatch", payload,
                                                 openai_url=openai_server.url,
                                                 inputs={"max-cost": "0.0097", "budget": "16000"}))
    assert result.code == 0 and len(openai_server.chat_requests) == 1
    withheld = [n for n in numbers if "max-cost" in own_comments(github_server, n)[0].body]
    assert len(withheld) == 2
    assert result.summary.count("Model not asked") == 2 and "max-cost" in result.summary


def test_a_cost_cap_without_a_price_is_an_input_error(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = stranger_pr(github_server)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                 inputs={"max-cost": "1", "model": "my-private-model"}))
    assert result.code == 1 and "price" in result.summary and openai_server.chat_requests == []
