"""analyze(): the model call and every fallback path, against the scripted OpenAI server over real HTTP."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest
from servers.openai_server import OpenAIServer

from readworthy.analyze.client import make_openai_client, schema_bounds_supported
from readworthy.analyze.model import analyze
from readworthy.config import Settings
from readworthy.models import Coverage, FileChange, FileStatus, LinkedIssue, PRContext, Prompt
from readworthy.prompts.messages import PROMPT_VERSION, build_messages

KEY = "sk-test-0123456789abcdef"

CTX = PRContext(
    repo="octo/engine",
    number=77,
    title="Cache rotary tables once per step",
    body="Moves the rotary cache into the runner. Fixes #1200.",
    head_sha="1a2b3c4d",
    files=[
        FileChange(
            path="engine/worker/rope_cache.py",
            status=FileStatus.ADDED,
            additions=3,
            patch="@@ -0,0 +1,3 @@\n+class RotaryCache:\n+    def prepare(self, positions):\n+        return positions",
        ),
        FileChange(
            path="tests/worker/test_rope_cache.py",
            status=FileStatus.ADDED,
            additions=2,
            patch="@@ -0,0 +1,2 @@\n+def test_prepare_chunked():\n+    assert True",
        ),
    ],
    linked_issues=[LinkedIssue(number=1200, title="Redundant rotary gathers", state="open")],
)
PROMPT = Prompt(
    messages=build_messages({"pr": CTX.title + "\n\n" + CTX.body, "diff": CTX.files[0].patch or ""}, "en"),
    tokens=900,
    budget=16_000,
    encoding="o200k_base",
    coverage=Coverage(files_total=2, files_full=2),
    input_hash="h-123",
    material=CTX,
)

GOOD: dict[str, Any] = {
    "verdict": "deep-read",
    "reason": "Introduces a per-step cache owned by the runner.",
    "headline": "Rotary tables computed once per step and shared across layers",
    "audience": ["worker owners"],
    "decisions": [
        {
            "title": "Cache owned by the runner",
            "explanation": "`RotaryCache.prepare` fills one table per step.",
            "references": ["engine/worker/rope_cache.py::RotaryCache.prepare", "engine/worker/made_up.py"],
        }
    ],
    "start_reading": ["engine/worker/rope_cache.py", "tests/worker/test_rope_cache.py::test_prepare_chunked"],
    "discussion": "",
    "linked_issue_findings": ["#1200 measured redundant gathers."],
    "open_items": [],
    "related": [1200],
}


def settings_for(server: OpenAIServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "openai_api_key": KEY,
        "openai_base_url": server.url,
        "model": "gpt-4.1-mini",
        "model_max_retries": 2,
        "model_timeout": 10.0,
    }
    values.update(overrides)
    return Settings(**values)


def run(server: OpenAIServer, **overrides: Any):
    settings = settings_for(server, **overrides)
    return analyze(PROMPT, settings, make_openai_client(settings))


# --------------------------------------------------------------------------- the normal case


def test_one_call_with_strict_json_schema_grounded_and_costed(openai_server: OpenAIServer) -> None:
    openai_server.add_json(GOOD, prompt_tokens=12_000, completion_tokens=700)
    report = run(openai_server)

    assert len(openai_server.chat_requests) == 1
    body = openai_server.chat_requests[0].json
    assert body["model"] == "gpt-4.1-mini"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["max_tokens"] == 2_000 and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert openai_server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"

    assert report.analyzer == "model" and report.fallback_reason == ""
    assert report.digest.verdict.value == "deep-read"
    assert report.model == "gpt-4.1-mini" and report.prompt_version == PROMPT_VERSION
    assert report.usage.prompt_tokens == 12_000 and report.usage.completion_tokens == 700
    assert report.usage.model_calls == 1
    assert report.usage.cost_usd == pytest.approx((12_000 * 0.40 + 700 * 1.60) / 1e6)
    # the invented file was dropped by grounding, the real references kept
    assert report.dropped_references == 1
    assert report.digest.decisions[0].references == ["engine/worker/rope_cache.py::RotaryCache.prepare"]
    assert (report.repo, report.number, report.head_sha, report.input_hash) == ("octo/engine", 77, "1a2b3c4d", "h-123")


def test_no_client_means_heuristic_without_a_fallback_reason(openai_server: OpenAIServer) -> None:
    report = analyze(PROMPT, settings_for(openai_server), None)
    assert report.analyzer == "heuristic" and report.fallback_reason == "" and report.model == ""
    assert report.usage.model_calls == 0
    assert openai_server.requests == []


def test_self_hosted_endpoint_gets_length_bounds_hosted_ones_do_not(openai_server: OpenAIServer) -> None:
    openai_server.add_json(GOOD)
    run(openai_server)
    schema = openai_server.chat_requests[0].json["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["reason"]["maxLength"] == 400
    assert not schema_bounds_supported(Settings(openai_api_key=KEY))
    assert not schema_bounds_supported(Settings(openai_api_key=KEY, openai_base_url="https://models.github.ai/inference"))


# --------------------------------------------------------------------------- format fallbacks


def test_json_schema_rejected_falls_back_to_json_object(openai_server: OpenAIServer) -> None:
    openai_server.reject_response_format("json_schema")
    openai_server.add_json(GOOD)
    report = run(openai_server)
    kinds = [r.json.get("response_format", {}).get("type") for r in openai_server.chat_requests]
    assert kinds == ["json_schema", "json_object"]
    assert report.analyzer == "model" and report.digest.verdict.value == "deep-read"


def test_both_json_modes_rejected_falls_back_to_text_and_extraction(openai_server: OpenAIServer) -> None:
    import json

    openai_server.reject_response_format("json_schema")
    openai_server.reject_response_format("json_object")
    openai_server.add_reply("Here is the digest:\n```json\n" + json.dumps(GOOD) + "\n```\nHope it helps.")
    report = run(openai_server)
    kinds = [r.json.get("response_format", {}).get("type") for r in openai_server.chat_requests]
    assert kinds == ["json_schema", "json_object", None]
    assert report.analyzer == "model"


def test_a_400_that_is_not_about_the_format_is_not_retried(openai_server: OpenAIServer) -> None:
    openai_server.add_error(400, "This model's maximum context length is 8192 tokens.")
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 1
    assert report.analyzer == "heuristic" and "maximum context length" in report.fallback_reason


# --------------------------------------------------------------------------- bad answers: one repair at most


def test_malformed_json_is_repaired_once(openai_server: OpenAIServer) -> None:
    openai_server.add_reply('{"verdict": "skim", "reason": "cut')
    openai_server.add_json(GOOD)
    report = run(openai_server)
    assert report.analyzer == "model"
    second = openai_server.chat_requests[1].json["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "not a JSON object" in second[-1]["content"]
    assert report.usage.model_calls == 2


def test_schema_invalid_answer_twice_falls_back_after_exactly_one_repair(
    openai_server: OpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.add_json({"verdict": "maybe", "reason": "x", "headline": "y"}, times=3)
    with caplog.at_level(logging.WARNING, logger="readworthy.analyze.model"):
        report = run(openai_server)
    assert len(openai_server.chat_requests) == 2
    assert "verdict" in openai_server.chat_requests[1].json["messages"][-1]["content"]
    assert report.analyzer == "heuristic"
    assert "after one repair" in report.fallback_reason and "verdict" in report.fallback_reason
    assert report.usage.model_calls == 2 and report.usage.prompt_tokens > 0  # tokens spent are still reported
    assert any("using the heuristic digest" in r.getMessage() for r in caplog.records)


def test_truncated_answer_is_not_a_success(openai_server: OpenAIServer) -> None:
    import json

    complete = json.dumps(GOOD)
    openai_server.add_reply(complete, finish_reason="length")  # even parseable text is not trusted when cut
    openai_server.add_reply(complete[:80], finish_reason="length")
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 2
    assert "cut off" in openai_server.chat_requests[1].json["messages"][-1]["content"]
    assert report.analyzer == "heuristic" and "cut off" in report.fallback_reason


def test_truncation_then_a_complete_answer_succeeds(openai_server: OpenAIServer) -> None:
    openai_server.add_reply('{"verdict": "deep-read", "reason": "Intro', finish_reason="length")
    openai_server.add_json(GOOD)
    assert run(openai_server).analyzer == "model"


def test_refusal_falls_back_without_a_repair(openai_server: OpenAIServer) -> None:
    openai_server.add_refusal("I can't help with that request.")
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 1
    assert report.analyzer == "heuristic" and report.fallback_reason.startswith("the model refused")


def test_content_filter_falls_back(openai_server: OpenAIServer) -> None:
    openai_server.add_reply(None, finish_reason="content_filter")
    report = run(openai_server)
    assert report.analyzer == "heuristic" and "content filter" in report.fallback_reason


# --------------------------------------------------------------------------- transport faults (SDK retries)


def test_429_then_success_honours_retry_after(openai_server: OpenAIServer) -> None:
    openai_server.add_error(429, "Rate limit reached", headers={"Retry-After": "2"})
    openai_server.add_json(GOOD)
    report = run(openai_server)
    first, second = openai_server.chat_requests
    assert second.time - first.time >= 1.9  # the SDK waited as told, not its 0.5 s default backoff
    assert report.analyzer == "model"


def test_429_until_retries_run_out(openai_server: OpenAIServer) -> None:
    openai_server.add_error(429, "Rate limit reached", headers={"Retry-After-Ms": "50"}, times=3)
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 3  # 1 + model_max_retries
    assert report.analyzer == "heuristic" and report.fallback_reason.startswith("rate limited (429)")


def test_500_is_retried_then_succeeds(openai_server: OpenAIServer) -> None:
    openai_server.add_error(500, "upstream exploded", headers={"Retry-After-Ms": "10"})
    openai_server.add_json(GOOD)
    assert run(openai_server).analyzer == "model"
    assert len(openai_server.chat_requests) == 2


def test_persistent_500_falls_back(openai_server: OpenAIServer) -> None:
    openai_server.add_error(503, "overloaded", headers={"Retry-After-Ms": "10"}, times=3)
    report = run(openai_server)
    assert report.analyzer == "heuristic" and "server error 503" in report.fallback_reason


def test_timeout_bounds_the_whole_step_and_falls_back(openai_server: OpenAIServer) -> None:
    # model_timeout bounds the whole step: the one slow attempt spends it, so there is no second one. The bound
    # leaves a loaded 2-core machine time to send the request; the reply (2 s) never comes within it.
    openai_server.add_reply("{}", delay=2.0, times=2)
    started = time.monotonic()
    report = run(openai_server, model_timeout=0.6, model_max_retries=1)
    elapsed = time.monotonic() - started
    assert report.analyzer == "heuristic" and report.fallback_reason.startswith("timed out")
    assert "bound of 0.6 s" in report.fallback_reason and "`--model-timeout`" in report.fallback_reason
    assert len(openai_server.chat_requests) == 1 and report.usage.model_calls == 1
    assert elapsed < 1.8  # under the reply's delay: nothing waited for it


def test_connection_reset_is_retried(openai_server: OpenAIServer) -> None:
    openai_server.add_reset()
    openai_server.add_json(GOOD)
    assert run(openai_server).analyzer == "model"


def test_persistent_connection_reset_falls_back(openai_server: OpenAIServer) -> None:
    openai_server.add_reset(times=3)
    report = run(openai_server)
    assert report.analyzer == "heuristic" and "could not connect" in report.fallback_reason


def test_bad_key_fails_fast_and_never_leaks_it(openai_server: OpenAIServer) -> None:
    openai_server.add_error(401, f"Incorrect API key provided: {KEY}")
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 1
    assert "401" in report.fallback_reason and KEY not in report.model_dump_json()


# --------------------------------------------------------------------------- reasoning models and endpoints


def test_reasoning_models_get_max_completion_tokens_and_no_temperature(openai_server: OpenAIServer) -> None:
    openai_server.add_json(GOOD)
    run(openai_server, model="o4-mini")
    body = openai_server.chat_requests[0].json
    assert "max_tokens" not in body and "temperature" not in body
    assert body["max_completion_tokens"] > 2_000


def test_parameter_refusal_switches_to_reasoning_parameters(openai_server: OpenAIServer) -> None:
    openai_server.add_error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                                 "Use 'max_completion_tokens' instead.")
    openai_server.add_json(GOOD)
    report = run(openai_server, model="my-azure-style-deployment")
    second = openai_server.chat_requests[1].json
    assert "max_completion_tokens" in second and "max_tokens" not in second
    assert report.analyzer == "model"


def test_a_too_large_max_tokens_is_not_mistaken_for_a_reasoning_model(openai_server: OpenAIServer) -> None:
    openai_server.add_error(400, "max_tokens is too large: 2000. This model allows at most 1024 completion tokens.")
    report = run(openai_server)
    assert len(openai_server.chat_requests) == 1
    assert report.analyzer == "heuristic" and "max_tokens is too large" in report.fallback_reason


def test_azure_openai_through_the_deployment_path(openai_server: OpenAIServer) -> None:
    openai_server.add_json(GOOD)
    settings = Settings(openai_api_key=KEY, azure_endpoint=openai_server.root, azure_deployment="rw-mini",
                        model_max_retries=0)
    report = analyze(PROMPT, settings, make_openai_client(settings))
    request = openai_server.chat_requests[0]
    assert request.path.startswith("/openai/deployments/rw-mini/chat/completions?api-version=")
    assert request.headers["api-key"] == KEY
    assert request.json["model"] == "rw-mini" and report.model == "rw-mini"
    assert "maxLength" not in str(request.json["response_format"])  # Azure strict mode: no length keywords


def test_client_factory() -> None:
    assert make_openai_client(Settings()) is None
    gh = make_openai_client(Settings(openai_base_url="https://models.github.ai/inference", github_token="ghs_x"))
    assert gh is not None and gh.api_key == "ghs_x" and str(gh.base_url).startswith("https://models.github.ai")
    assert Settings(openai_base_url="https://models.github.ai/inference", github_token="ghs_x").has_model
    # no key: GitHub Models with the GitHub token, unless turned off
    default = make_openai_client(Settings(github_token="ghs_x"))
    assert default is not None and default.api_key == "ghs_x"
    assert str(default.base_url).rstrip("/") == "https://models.github.ai/inference"
    assert make_openai_client(Settings(github_token="ghs_x", github_models=False)) is None
    # a GitHub token is never the key for another endpoint
    assert make_openai_client(Settings(github_token="ghs_x", openai_base_url="https://llm.example/v1")) is None
    # the client never retries on its own: attempts.py does, inside the model-timeout bound
    client = make_openai_client(Settings(openai_api_key=KEY, model_timeout=7, model_max_retries=4))
    assert client is not None and client.max_retries == 0 and client.timeout == 7
