"""GitHub Models' limits end to end (issue 21): through `readworthy action` against the tests' GitHub server and
the GitHub Models stand-in (tests/servers/github_models_limits.py), which counts every request whole (messages and
JSON schema) and answers GitHub's own 413 and 429s. The stand-in, not readworthy, says whether a request fits."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from action_run import GOOD_DIGEST, action_env, own_comments, pr_payload, run, small_pr
from servers.github_models_limits import GitHubModelsLimiter, Limits, hold_a_slot
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN, PRFile, PullRequest
from servers.openai_server import OpenAIServer

from readworthy.analyze import attempts
from readworthy.render.state import decode_state

O4_MINI = Limits(input_tokens=4_000, output_tokens=4_000, per_minute=2, per_day=12, concurrent=1)


@pytest.fixture
def github_models(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    """GitHub Models on (the product default), served by the stand-in."""
    monkeypatch.delenv("READWORTHY_GITHUB_MODELS", raising=False)
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS_URL", openai_server.url)
    return openai_server


def big_pr(server: GitHubServer, files: int = 24) -> PullRequest:
    """A PR whose diff alone is several times GitHub Models' 8,000-token request limit."""
    changed = []
    for i in range(files):
        lines = "".join(f"+def handler_{i}_{j}(request, retries={j}):\n+    return dispatch(request, 'r_{i}_{j}')\n"
                        for j in range(40))
        changed.append(PRFile(f"vllm/entrypoints/routes/route_{i:02d}.py", status="added", additions=80,
                              patch=f"@@ -0,0 +1,80 @@\n{lines}"))
    return server.add_pr("vllm-project/vllm", "Split the OpenAI server's routes into one module per endpoint",
                         "Moves each route handler into its own module.", user="alice", files=changed)


def review(github_server: GitHubServer, pr: PullRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str], **inputs: str) -> Any:
    # Asked for by hand: triage reads the generated-looking big_pr as a confident skip, which on a push costs no
    # model request at all (the repository's budget, issue 21); a maintainer's ask always gets one.
    env = action_env(github_server, tmp_path, "workflow_dispatch", {"inputs": {"pr-number": str(pr.number)}},
                     inputs=inputs)
    return run(monkeypatch, capsys, env)


def whole(limiter: GitHubModelsLimiter, server: OpenAIServer) -> list[int]:
    """Every chat request's size as GitHub counts it: messages and schema."""
    return [limiter.input_tokens(r.json)[0] for r in server.chat_requests]


def state_of(server: GitHubServer, pr: PullRequest) -> Any:
    [comment] = own_comments(server, pr.number)
    state = decode_state(comment.body)
    assert state is not None
    return state


def test_a_repair_turn_stays_inside_the_8000_token_limit(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limiter = github_models.github_models(Limits())
    pr = big_pr(github_server)
    rejected = "Here is my analysis of the pull request. " + "The routes move into modules. " * 110  # ~700 tokens
    github_models.add_reply(rejected)
    github_models.add_json(GOOD_DIGEST)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    first, repair = whole(limiter, github_models)
    assert limiter.refusals == {} and max(first, repair) <= 8_000, (first, repair)
    assert first > 7_000  # packed for the limit, not a small prompt that could not fail
    sent = github_models.chat_requests[1].json["messages"]
    assert sent[-1]["role"] == "user" and "cannot be used" in sent[-1]["content"]  # the correction always goes
    if sent[-2]["role"] == "assistant":  # and as much of the rejected answer as fits, from its start
        assert sent[-2]["content"].startswith("Here is my analysis")
    assert state_of(github_server, pr).analyzer == "model"


def test_a_4000_input_model_gets_requests_that_fit(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limiter = github_models.github_models(Limits(), per_model={"openai/o4-mini": O4_MINI})
    pr = big_pr(github_server)
    github_models.add_reply("not json at all " * 60)  # and its repair turn fits too
    github_models.add_json(GOOD_DIGEST)
    result = review(github_server, pr, tmp_path, monkeypatch, capsys, model="o4-mini", **{"github-models-plan": "pro"})
    assert result.code == 0
    sizes = whole(limiter, github_models)
    assert len(sizes) == 2 and limiter.refusals == {} and max(sizes) <= 4_000, sizes
    body = github_models.chat_requests[0].json
    assert body["model"] == "openai/o4-mini" and body["max_completion_tokens"] <= 4_000  # the tier's output cap
    state = state_of(github_server, pr)
    assert state.analyzer == "model" and state.coverage.files_total == 24


def test_a_concurrency_429_with_retry_after_zero_is_waited_out(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Another run of the same token holds the only slot for 2.5 s: the review backs off (never at once, never
    spinning) and gets its analysis once the slot is free."""
    limiter = github_models.github_models(Limits(concurrent=1))
    pr = small_pr(github_server)
    github_models.add_json(GOOD_DIGEST, times=2)
    other = hold_a_slot(limiter, github_models.url, WORKFLOW_TOKEN, 2.5)
    try:
        result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    finally:
        other.join()
    assert result.code == 0
    ours = github_models.chat_requests[1:]
    gaps = [b.time - a.time for a, b in zip(ours, ours[1:], strict=False)]
    assert limiter.refusals["UserConcurrentRequests"] >= 1 and len(ours) == limiter.refusals["UserConcurrentRequests"] + 1
    assert gaps and min(gaps) >= attempts.BUSY_FLOOR_S * 0.95, gaps  # retry-after 0 is not taken literally
    assert len(ours) <= 4  # backed off, not spinning
    assert state_of(github_server, pr).analyzer == "model"


def test_a_413_gets_one_smaller_retry(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The endpoint allows fewer tokens than the published table says (6,000, not 8,000)."""
    limiter = github_models.github_models(Limits(input_tokens=6_000))
    pr = big_pr(github_server)
    github_models.add_json(GOOD_DIGEST, times=2)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    first, retry = whole(limiter, github_models)
    assert first > 6_000 and retry <= 6_000 and limiter.refusals == {"tokens_limit_reached": 1}
    state = state_of(github_server, pr)
    assert state.analyzer == "model" and state.coverage.files_total == 24


def test_a_second_413_is_not_retried_again(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pr = big_pr(github_server)
    text = "Request body too large for gpt-4.1-mini model. Max size: 6000 tokens."
    github_models.add_error(413, text, code="tokens_limit_reached", times=3)  # scripted: even the smaller one
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    first, retry = (r.json for r in github_models.chat_requests)  # two requests, not three
    assert len(json.dumps(retry["messages"])) < len(json.dumps(first["messages"]))
    state = state_of(github_server, pr)
    assert state.analyzer == "heuristic" and state.fallback_reason.startswith("the request is larger than GitHub")
    # the advice fits a request that was already made smaller: not "lower `budget` (now 6,910 tokens)"
    assert "even after one smaller retry at 4," in state.fallback_reason
    assert state.fallback_reason.endswith("set `github-models-limits` to the input limit it really has (its "
                                          "`input_tokens`), or choose another `model`")
    assert "lower `budget`" not in state.fallback_reason


def test_no_smaller_retry_when_nothing_smaller_can_be_sent(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limiter = github_models.github_models(Limits(input_tokens=2_000))  # less than the instructions alone
    pr = big_pr(github_server)
    assert review(github_server, pr, tmp_path, monkeypatch, capsys).code == 0
    assert len(github_models.chat_requests) == 1 and limiter.refusals == {"tokens_limit_reached": 1}
    assert state_of(github_server, pr).analyzer == "heuristic"


def test_a_day_quota_429_is_not_retried_and_tells_the_caller_until_when(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limiter = github_models.github_models(Limits(per_day=1))
    first, second = small_pr(github_server), small_pr(github_server)
    github_models.add_json(GOOD_DIGEST, times=3)
    review(github_server, first, tmp_path / "1", monkeypatch, capsys)
    started = time.monotonic()
    review(github_server, second, tmp_path / "2", monkeypatch, capsys)
    assert time.monotonic() - started < 5.0 and len(github_models.chat_requests) == 2  # not retried, not waited
    assert limiter.refusals == {"UserByModelByDay": 1}
    state = state_of(github_server, second)
    assert state.analyzer == "heuristic" and state.rate_limit is not None
    hit = state.rate_limit
    assert hit.day_quota and hit.kind == "UserByModelByDay" and hit.until
    assert hit.retry_after_s is not None and 86_000 < hit.retry_after_s <= 86_400


def test_the_digest_runs_no_more_analyses_at_once_than_the_tier_allows(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """gpt-4.1 is a high-tier model: 2 requests at once. The digest's default is 4 workers."""
    limiter = github_models.github_models(Limits(per_minute=10, per_day=50, concurrent=2), latency=0.4)
    github_models.set_default_json(GOOD_DIGEST)
    prs = [small_pr(github_server) for _ in range(5)]
    env = action_env(github_server, tmp_path, "workflow_dispatch",
                     {"inputs": {"pr-number": " ".join(str(p.number) for p in prs)}}, inputs={"model": "gpt-4.1"})
    assert run(monkeypatch, capsys, env).code == 0
    assert limiter.admitted == 5 and limiter.refusals == {} and limiter.peak_in_flight <= 2
    assert all(state_of(github_server, p).analyzer == "model" for p in prs)


def test_paid_use_fills_cost_usd_and_max_cost_stops_a_call(
    github_server: GitHubServer, github_models: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    limiter = github_models.github_models(Limits())
    github_models.set_default_json(GOOD_DIGEST)
    pr = small_pr(github_server)
    result = review(github_server, pr, tmp_path / "1", monkeypatch, capsys, **{"github-models-paid": "true"})
    [request] = github_models.chat_requests
    usage_in = limiter.input_tokens(request.json)[1]  # the usage block reports the messages
    cost = float(result.outputs["cost-usd"])
    out_tokens = int(result.outputs["completion-tokens"])
    # GitHub's token units: gpt-4.1-mini's multipliers 0.04 in, 0.16 out, at USD 0.00001 a unit
    assert cost > 0 and cost == pytest.approx((usage_in * 0.04 + out_tokens * 0.16) * 0.00001, abs=1e-6)
    assert int(result.outputs["prompt-tokens"]) == usage_in

    # the cap is a promise: each call reserves its worst case (a full budget in, the output reserve out)
    worst = (6_910 * 0.04 + 2_000 * 0.16) * 0.00001  # USD 0.005964
    others = [small_pr(github_server) for _ in range(2)]
    env = action_env(github_server, tmp_path / "2", "workflow_dispatch",
                     {"inputs": {"pr-number": " ".join(str(p.number) for p in others)}},
                     inputs={"github-models-paid": "true", "max-cost": f"{worst + cost / 2:.6f}"})
    result = run(monkeypatch, capsys, env)
    assert result.code == 0
    assert len(github_models.chat_requests) == 2  # the first fits the cap; after it, the worst case does not
    withheld = [state_of(github_server, p).model_withheld for p in others]
    assert withheld[0] == "" and "`max-cost`" in withheld[1]
    assert state_of(github_server, others[1]).analyzer == "heuristic"

    # free use (the default) stays free: no price, so no cost
    result = review(github_server, small_pr(github_server), tmp_path / "3", monkeypatch, capsys,
                    **{"github-models-paid": "false", "max-cost": ""})
    assert result.outputs["cost-usd"] == ""


def test_json_schema_is_what_the_stand_in_counts(github_models: OpenAIServer) -> None:
    """The stand-in counts the schema: a request with it is larger than the same messages without it."""
    limiter = github_models.github_models(Limits())
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with_schema = {**body, "response_format": {"type": "json_schema", "json_schema": {"schema": {"a": "b" * 400}}}}
    assert limiter.input_tokens(with_schema)[0] > limiter.input_tokens(json.loads(json.dumps(body)))[0]
