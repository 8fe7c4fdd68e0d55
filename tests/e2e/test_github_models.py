"""GitHub Models as the zero-secret default, and the model endpoint's configuration errors (issues 13, 16).

Through `readworthy action` against the tests' GitHub server and the tests' OpenAI-compatible server
standing in for GitHub Models (READWORTHY_GITHUB_MODELS_URL points at it), both over real HTTP. The
autouse fixture turns GitHub Models off for every other test; `github_models_on` turns it back on.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from action_run import GOOD_DIGEST, KEY, REPO, action_env, own_comments, pr_payload, run, small_pr
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN, PRFile, PullRequest
from servers.openai_server import OpenAIServer, RecordedRequest

from readworthy.action import run_action
from readworthy.analyze import attempts
from readworthy.analyze.limits import limits_for
from readworthy.endpoint import GITHUB_MODELS_DEFAULT_MODEL
from readworthy.models import Message
from readworthy.pack.prompt import messages_tokens
from readworthy.pack.tokens import get_token_counter
from readworthy.render.state import decode_state

FALLBACK_LABEL = "Heuristic fallback — the model could not be used"
QUICK_S = 5.0  # "at once": a refusal or a spent quota costs seconds, never a wait
GITHUB_MODELS_INPUT_LIMIT = limits_for(GITHUB_MODELS_DEFAULT_MODEL).input_tokens
GITHUB_MODELS_OUTPUT_LIMIT = limits_for(GITHUB_MODELS_DEFAULT_MODEL).output_tokens


@pytest.fixture
def github_models_on(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    """GitHub Models is on (the product default) and lives at the test server."""
    monkeypatch.delenv("READWORTHY_GITHUB_MODELS", raising=False)
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS_URL", openai_server.url)
    return openai_server


def big_pr(server: GitHubServer) -> PullRequest:
    """A PR whose diff alone is several times GitHub Models' 8,000-token request limit."""
    files = []
    for i in range(24):
        lines = [f"+def handler_{i}_{j}(request, retries={j}):\n+    return dispatch(request, 'route_{i}_{j}', retries)\n"
                 for j in range(40)]
        files.append(PRFile(f"vllm/entrypoints/routes/route_{i:02d}.py", status="added", additions=80,
                            patch=f"@@ -0,0 +1,80 @@\n{''.join(lines)}"))
    return server.add_pr(REPO, "Split the OpenAI server's routes into one module per endpoint",
                         "Moves each route handler into its own module.", user="alice", files=files)


def review(github_server: GitHubServer, pr: PullRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str], openai_url: str | None = None, **inputs: str) -> Any:
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"),
                     openai_url=openai_url, inputs=inputs)
    return run(monkeypatch, capsys, env)


def packer_count(request: RecordedRequest) -> int:
    """The request's messages counted exactly as the packer counts its budget."""
    body = request.json
    counter = get_token_counter(body["model"], None)
    return messages_tokens([Message(role=m["role"], content=m["content"]) for m in body["messages"]], counter)


def tokens_anywhere(server: OpenAIServer, secret: str) -> list[str]:
    return [f"{r.method} {r.path}" for r in server.requests
            if secret in json.dumps(r.headers) or secret.encode() in r.body]


# --------------------------------------------------------------------------- the default: no key, GitHub Models


def test_no_key_means_one_github_models_call_with_the_workflow_token_within_its_limits(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = big_pr(github_server)
    github_models_on.add_json(GOOD_DIGEST)
    # Asked for by hand: triage reads this generated-looking PR as a confident skip, which on a push would
    # cost no model request (tests/e2e/test_action_budget.py); a maintainer's ask always gets one.
    env = action_env(github_server, tmp_path, "workflow_dispatch", {"inputs": {"pr-number": str(pr.number)}})
    result = run(monkeypatch, capsys, env)
    assert result.code == 0, result.stdout

    [request] = github_models_on.chat_requests  # exactly one model call
    assert request.headers["authorization"] == f"Bearer {WORKFLOW_TOKEN}"
    body = request.json
    assert body["model"] == GITHUB_MODELS_DEFAULT_MODEL
    counted = packer_count(request)
    assert counted <= GITHUB_MODELS_INPUT_LIMIT
    # the prompt was packed for the limit, not the 16k default (this PR alone is far bigger)
    assert counted > GITHUB_MODELS_INPUT_LIMIT * 0.75, counted
    # even if the endpoint counts the response_format schema too, the request fits
    schema = get_token_counter(body["model"], None).count(json.dumps(body["response_format"]))
    assert counted + schema <= GITHUB_MODELS_INPUT_LIMIT
    assert body.get("max_tokens", body.get("max_completion_tokens", 0)) <= GITHUB_MODELS_OUTPUT_LIMIT

    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model" and state.model == GITHUB_MODELS_DEFAULT_MODEL
    assert GOOD_DIGEST["headline"] in comment.body and "Heuristic" not in comment.body
    # free tier: no built-in price, so the cost is reported unknown (a price-table entry prices paid use)
    assert result.outputs["cost-usd"] == "" and result.outputs["prompt-tokens"] != "0"
    assert WORKFLOW_TOKEN not in comment.body + result.summary


def test_the_model_input_picks_the_github_models_model(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_json(GOOD_DIGEST)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys, model="gpt-4.1").code == 0
    assert github_models_on.chat_requests[0].json["model"] == "openai/gpt-4.1"  # GitHub Models' publisher prefix


def test_a_chinese_comment_gives_the_reason_in_chinese(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(403, "The `models` permission is required to access this endpoint", times=4)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys, language="zh-CN").code == 0
    [comment] = own_comments(github_server, pr.number)
    assert ("启发式兜底 — 无法使用模型：** GitHub Models 拒绝了工作流令牌（403；它的说明是“The 'models' permission is "
            "required to access this endpoint”）：请在工作流（或 job）中加上 `permissions: models: read`，或设置 "
            "`openai-api-key` 改用其他端点") in comment.body
    state = decode_state(comment.body)  # the state keeps the English text: logs and tests read it
    assert state is not None and state.fallback_reason.startswith("GitHub Models refused the workflow token (403;")


def test_403_without_models_permission_falls_back_at_once_and_names_the_permission(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(403, "The `models` permission is required to access this endpoint", times=4)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert time.monotonic() - started < QUICK_S
    assert result.code == 0 and len(github_models_on.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic"
    assert state.fallback_reason == (
        "GitHub Models refused the workflow token (403; it said “The 'models' permission is required to access "
        "this endpoint”): grant it with `permissions: models: read` in the workflow (or the job), or set "
        "`openai-api-key` to use another endpoint")
    for text in (comment.body, result.summary):
        assert FALLBACK_LABEL in text and "permissions: models: read" in text
    # the footer says a call was made and failed, not that none was
    assert f"heuristic fallback — 1 call to {GITHUB_MODELS_DEFAULT_MODEL} failed" in comment.body
    assert "no model was called" not in comment.body
    assert any(line.startswith("::warning::") and "models: read" in line for line in result.stdout.splitlines())


def test_the_shipped_action_never_sends_the_workflow_token_to_a_loopback_or_http_url(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23: READWORTHY_GITHUB_MODELS_URL used to send the workflow token to any URL in the action.
    run_action as the image calls it (no loopback_models): invalid inputs, exit 1, nothing sent."""
    pr = small_pr(github_server)
    github_models_on.add_json(GOOD_DIGEST)
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    assert run_action(os.environ) == 1
    assert github_models_on.requests == [] and own_comments(github_server, pr.number) == []
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")
    assert "Invalid inputs: READWORTHY_GITHUB_MODELS_URL" in summary and WORKFLOW_TOKEN not in summary
    assert WORKFLOW_TOKEN not in capsys.readouterr().out


# What GitHub Models' 403 can say. The first two bodies are GitHub's own words as users report them
# (actions/ai-inference#95: "No access to model: openai/gpt-4o"; an organisation with GitHub Models off:
# "403 status code (no body)"); the "disabled" wording is ours, since GitHub documents the case but not its text.
REFUSALS_403 = {
    "no-models-permission": (
        lambda ai: ai.add_error(403, "The `models` permission is required to access this endpoint",
                                code="unauthorized", times=4),
        "GitHub Models refused the workflow token (403; it said “The 'models' permission is required to access "
        "this endpoint”): grant it with `permissions: models: read` in the workflow (or the job), or set "
        "`openai-api-key` to use another endpoint"),
    "model-not-allowed": (
        lambda ai: ai.add_error(403, f"No access to model: {GITHUB_MODELS_DEFAULT_MODEL}", times=4),
        f"GitHub Models does not allow the model {GITHUB_MODELS_DEFAULT_MODEL} here (403; it said “No access to "
        f"model: {GITHUB_MODELS_DEFAULT_MODEL}”): set `model` to a model the organization allows, ask an owner to "
        "allow this one, or set `openai-api-key` to use another endpoint"),
    "models-disabled": (
        lambda ai: ai.add_error(403, "GitHub Models is disabled for this organization by an enterprise policy.",
                                times=4),
        "GitHub Models is not enabled for this repository's organization or enterprise (403; it said “GitHub "
        "Models is disabled for this organization by an enterprise policy.”): an organization or enterprise owner "
        "can enable it in its Models policy, or set `openai-api-key` to use another endpoint"),
    "no-body": (
        lambda ai: ai.add_raw(403, "", content_type="application/json", times=4),
        "GitHub Models refused the request (403; with no message): either the workflow (or the job) lacks "
        "`permissions: models: read`, GitHub Models is not enabled for the organization, or the model "
        f"{GITHUB_MODELS_DEFAULT_MODEL} is not allowed there. Check these, set `model` to an allowed model, or set "
        "`openai-api-key` to use another endpoint"),
}


@pytest.mark.parametrize("case", REFUSALS_403)
def test_a_403_says_what_github_models_said_and_which_case_it_is(
    case: str, github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 23: an organisation with GitHub Models off, or a model it does not allow, answers 403 to a
    workflow that has `models: read`; telling it to add `models: read` sends it the wrong way."""
    script, reason = REFUSALS_403[case]
    pr = small_pr(github_server)
    script(github_models_on)
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert result.code == 0 and len(github_models_on.chat_requests) == 1  # a 403 is not retried
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic" and state.fallback_reason == reason
    assert reason.split(" (403")[0] in result.summary


def test_a_403_message_is_cleaned_and_bounded(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    secret = "ghp_" + "a1B2c3D4" * 5
    github_models_on.add_error(403, f"No access to model: x\n\n<img src=x> token {secret} " + "padding " * 200,
                               times=4)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and secret not in state.fallback_reason and secret not in comment.body
    assert "[key]" in state.fallback_reason and "\n" not in state.fallback_reason
    assert len(state.fallback_reason) < 500 and "<img" not in comment.body


def test_a_spent_day_quota_falls_back_at_once_and_says_when_it_resets(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(429, "Rate limit of 150 per 86400s exceeded for UserByModelByDay.",
                               headers={"Retry-After": "30240", "x-ratelimit-type": "UserByModelByDay"}, times=4)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert time.monotonic() - started < QUICK_S
    assert result.code == 0 and len(github_models_on.chat_requests) == 1  # never asked again, never waited
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic"
    assert state.fallback_reason == (
        "rate limited (429, UserByModelByDay): the daily request quota for openai/gpt-4.1-mini at GitHub Models "
        "is used up and resets in 8.4 h. Wait for the quota to reset, choose another `model`, or set "
        "`openai-api-key` to use another endpoint")
    assert "daily request quota" in result.summary and FALLBACK_LABEL in result.summary


def test_a_short_per_minute_429_is_waited_and_retried(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(429, "Rate limit of 15 per 60s exceeded for UserByModelByMinute.",
                               headers={"Retry-After": "1", "x-ratelimit-type": "UserByModelByMinute"})
    github_models_on.add_json(GOOD_DIGEST)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    first, second = github_models_on.chat_requests
    assert second.time - first.time >= 0.95
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "model"


def test_unreachable_github_models_falls_back_in_seconds(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("READWORTHY_GITHUB_MODELS", raising=False)  # the URL stays the closed loopback port
    pr = small_pr(github_server)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert time.monotonic() - started < 10.0  # 4 refused connections and the backoff between them
    assert result.code == 0
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "heuristic"
    assert state.fallback_reason.startswith("could not connect to GitHub Models at http://127.0.0.1:9/inference")


def test_github_models_false_is_the_plain_heuristic_with_no_call(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, **{"github-models": "false"})
    assert result.code == 0 and github_models_on.requests == []
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic" and not state.fallback_reason
    assert ("For a model-written reading guide with no secret to set, grant the workflow "
            "`permissions: models: read` (GitHub Models); or set `openai-api-key`.") in comment.body
    assert "heuristic — no model was called" in comment.body


# --------------------------------------------------------------------------- the GitHub token stays with GitHub


def test_a_custom_base_url_never_receives_the_github_token(
    github_server: GitHubServer, github_models_on: OpenAIServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """openai-base-url without openai-api-key (a fork's run, where secrets are empty): no request at all to
    that server, and a labelled heuristic that says what to set."""
    custom = OpenAIServer().start()
    try:
        pr = small_pr(github_server)
        custom.add_json(GOOD_DIGEST, times=3)
        result = review(github_server, pr, tmp_path, monkeypatch, capsys, **{"openai-base-url": custom.url})
        assert result.code == 0
        assert custom.requests == [] and tokens_anywhere(custom, WORKFLOW_TOKEN) == []
        assert github_models_on.requests == []  # an explicit base URL is not silently swapped for GitHub Models
        state = decode_state(own_comments(github_server, pr.number)[0].body)
        assert state is not None and state.analyzer == "heuristic"
        assert state.fallback_reason.startswith("`openai-base-url` is set but `openai-api-key` is empty")
        assert "the GitHub token is only ever sent to GitHub Models" in state.fallback_reason
        assert "heuristic — no model was called" in own_comments(github_server, pr.number)[0].body

        # with its key, the custom server gets that key and still never the GitHub token
        result = review(github_server, pr, tmp_path / "2", monkeypatch, capsys, openai_url=custom.url,
                        force="true")
        assert result.code == 0 and len(custom.chat_requests) == 1
        assert custom.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
        assert tokens_anywhere(custom, WORKFLOW_TOKEN) == [] and github_models_on.requests == []
    finally:
        custom.stop()


# --------------------------------------------------------------------------- the bound and configuration errors


def test_a_stuck_endpoint_ends_in_the_fallback_within_the_bound(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    # A like PR against an endpoint that answers at once: what a run itself costs here (the first run in a
    # worker also imports the openai SDK), so the bound is checked apart from the machine's load.
    openai_server.add_json(GOOD_DIGEST)
    started = time.monotonic()
    assert review(github_server, small_pr(github_server), tmp_path / "answered", monkeypatch, capsys,
                  openai_url=openai_server.url).code == 0
    own_work = time.monotonic() - started
    pr = small_pr(github_server)
    openai_server.add_stall(times=10)  # accepts the connection, never answers
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, openai_url=openai_server.url,
                    **{"model-timeout": "2"})
    elapsed = time.monotonic() - started
    assert elapsed < own_work + 2 + 1.0, f"{elapsed:.1f}s, {own_work:.1f}s without the stall"  # the bound, no more
    assert result.code == 0 and len(openai_server.chat_requests) == 2  # the answered PR's, then this one
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "heuristic"
    assert state.fallback_reason.startswith(f"timed out: no usable answer from the model endpoint {openai_server.url} "
                                            "within the model-timeout bound of 2 s (1 attempt)")
    assert "Raise `model-timeout`" in state.fallback_reason and FALLBACK_LABEL in result.summary


def test_a_stuck_endpoint_costs_two_bounds_per_run_not_one_per_pr(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    prs = [small_pr(github_server) for _ in range(4)]
    openai_server.add_stall(times=10)
    env = action_env(github_server, tmp_path, "workflow_dispatch",
                     {"inputs": {"pr-number": " ".join(str(pr.number) for pr in prs)}},
                     openai_url=openai_server.url, inputs={"model-timeout": "1"})
    started = time.monotonic()
    result = run(monkeypatch, capsys, env)
    elapsed = time.monotonic() - started
    assert result.code == 0 and len(openai_server.chat_requests) == 2  # the first two PRs wait; no more
    assert elapsed < 2 * 1 + 8.0, f"{elapsed:.1f}s"
    states = [decode_state(own_comments(github_server, pr.number)[0].body) for pr in prs]
    assert all(s is not None and s.analyzer == "heuristic" for s in states)
    assert [s.fallback_reason.split(":")[0] for s in states if s] == ["timed out", "timed out", "not asked", "not asked"]
    assert states[2] is not None and "gave no answer to 2 requests in a row" in states[2].fallback_reason


def test_a_silent_endpoint_is_probed_again_after_the_pause(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(attempts, "SILENT_PAUSE_S", 0.5)
    prs = [small_pr(github_server) for _ in range(3)]
    openai_server.add_stall(times=2)
    openai_server.add_json(GOOD_DIGEST)  # then it answers again
    for pr in prs[:2]:
        review(github_server, pr, tmp_path, monkeypatch, capsys, openai_url=openai_server.url,
               **{"model-timeout": "1"})
    time.sleep(0.6)
    result = review(github_server, prs[2], tmp_path, monkeypatch, capsys, openai_url=openai_server.url,
                    **{"model-timeout": "1"})
    assert result.code == 0 and len(openai_server.chat_requests) == 3
    state = decode_state(own_comments(github_server, prs[2].number)[0].body)
    assert state is not None and state.analyzer == "model"


def test_an_endpoint_that_trickles_bytes_is_cut_off_at_the_bound(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """No read ever times out (a byte every 0.5 s), so only a wall-clock bound can end it."""
    pr = small_pr(github_server)
    openai_server.add_trickle(interval=0.5, times=3)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, openai_url=openai_server.url,
                    **{"model-timeout": "2"})
    elapsed = time.monotonic() - started
    assert elapsed < 2 + 3.0 + 3.0, f"{elapsed:.1f}s"  # the bound, the hard stop's grace, the run
    assert result.code == 0
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "heuristic" and state.fallback_reason.startswith("timed out")


def test_a_base_url_that_is_not_a_url_is_an_input_error_with_no_request(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, openai_url=openai_server.url,
                    **{"openai-base-url": "not a url"})
    assert time.monotonic() - started < QUICK_S
    assert result.code == 1  # invalid inputs: docs/exit-codes.md
    assert openai_server.requests == [] and own_comments(github_server, pr.number) == []
    message = ("openai-base-url / OPENAI_BASE_URL: 'not a url' is not a URL: expected http(s)://HOST[:PORT]/PATH, "
               "e.g. https://api.example.com/v1")
    assert message in result.summary
    assert any(line.startswith("::error::") and message in line.replace("%0A", "\n")
               for line in result.stdout.splitlines())


@pytest.mark.parametrize(("status", "body", "reason"), [
    (401, "Incorrect API key provided: sk-test-0123456789abcdef",
     "the endpoint refused the API key (401): check `openai-api-key`"),
    (404, "The model `gpt-4.1-mini` does not exist or you do not have access to it.",
     "model 'gpt-4.1-mini' or the endpoint was not found (404 from {url}): check `model` and `openai-base-url`"),
], ids=["401", "404-model"])
def test_configuration_errors_are_not_retried_and_name_the_fix(
    status: int, body: str, reason: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    openai_server.add_error(status, body, times=4)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, openai_url=openai_server.url)
    assert time.monotonic() - started < QUICK_S
    assert result.code == 0 and len(openai_server.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.fallback_reason == reason.format(url=openai_server.url)
    assert KEY not in comment.body + result.summary + result.stdout.replace(f"::add-mask::{KEY}", "")


def test_github_models_401_and_413_name_the_token_and_the_budget(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(401, "Bad credentials")
    review(github_server, pr, tmp_path / "1", monkeypatch, capsys)
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None
    assert state.fallback_reason == "GitHub Models did not accept the GitHub token (401): check `github-token`"
    github_models_on.add_error(413, "Request body too large for gpt-5-mini model. Max size: 4000 tokens.",
                               code="tokens_limit_reached", times=3)
    review(github_server, pr, tmp_path / "2", monkeypatch, capsys, force="true")
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.fallback_reason == (
        "the request is larger than GitHub Models accepts for openai/gpt-4.1-mini (413: Request body too large "
        "for gpt-5-mini model. Max size: 4000 tokens.): lower `budget` (now 6,910 tokens) or choose another `model`")
    # the 401 is not retried; nor is the 413: this PR packed for the 4,000 tokens it names is no smaller
    assert len(github_models_on.chat_requests) == 2 and github_models_on.pending == 2


def test_a_spent_day_quota_is_not_asked_again_for_the_next_pr_of_the_run(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = small_pr(github_server), big_pr(github_server)
    github_models_on.add_error(429, "Rate limit of 150 per 86400s exceeded for UserByModelByDay.",
                               headers={"Retry-After": "7200", "x-ratelimit-type": "UserByModelByDay"}, times=4)
    env = action_env(github_server, tmp_path, "workflow_dispatch",
                     {"inputs": {"pr-number": f"{first.number} {second.number}"}})
    result = run(monkeypatch, capsys, env)
    assert result.code == 0 and len(github_models_on.chat_requests) == 1
    bodies = [own_comments(github_server, pr.number)[0].body for pr in (first, second)]
    assert "daily request quota" in bodies[0] and FALLBACK_LABEL in bodies[0]
    assert "1 call to openai/gpt-4.1-mini failed" in bodies[0]
    # the answer is recorded in the repository's model budget: the next PR is not sent, and says until when
    assert "the model was not asked:** GitHub Models' daily quota is spent until" in bodies[1]
    assert all("A model analysis is queued" in body for body in bodies)
