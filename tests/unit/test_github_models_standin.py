"""The GitHub Models stand-in (tests/servers/github_models_limits.py), through the openai SDK over HTTP:
the whole request is counted, and GitHub's 413 and 429 answers come with its bodies and headers."""

from __future__ import annotations

import json
import threading

import openai
import pytest
from servers.github_models_limits import Limits, ManualClock
from servers.openai_server import OpenAIServer

from readworthy.pack.tokens import get_token_counter

MODEL = "openai/gpt-4.1-mini"


def _client(server: OpenAIServer, key: str = "ghs_a") -> openai.OpenAI:
    return openai.OpenAI(api_key=key, base_url=server.url, max_retries=0, timeout=10)


def _ask(client: openai.OpenAI, text: str = "hi", model: str = MODEL, **extra: object) -> object:
    return client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}], **extra)


def _error(exc: pytest.ExceptionInfo[openai.APIStatusError]) -> tuple[int, dict[str, object], dict[str, str]]:
    err = exc.value
    body = err.body if isinstance(err.body, dict) else {}
    return err.status_code, body, {k.lower(): v for k, v in err.response.headers.items()}


def test_the_whole_request_counts_schema_included(openai_server: OpenAIServer) -> None:
    limiter = openai_server.github_models(Limits(input_tokens=400))
    openai_server.set_default_json({"ok": True})
    count = get_token_counter("gpt-4o", None).count
    text = "word " * 300  # ~300 tokens: fits alone
    _ask(_client(openai_server), text)
    schema = {"type": "json_schema", "json_schema": {"name": "x", "strict": True, "schema": {
        "type": "object", "properties": {f"field_{i}": {"type": "string", "description": "d " * 10}
                                         for i in range(10)}}}}
    assert count(text) + count(json.dumps(schema)) > 400
    with pytest.raises(openai.APIStatusError) as caught:
        _ask(_client(openai_server), text, response_format=schema)  # the schema tips it over
    status, body, _ = _error(caught)
    assert status == 413 and body["code"] == "tokens_limit_reached"
    assert body["message"] == "Request body too large for gpt-4.1-mini model. Max size: 400 tokens."
    assert limiter.refusals == {"tokens_limit_reached": 1} and limiter.admitted == 1
    assert limiter.largest_request > 400


def test_usage_reports_the_counted_prompt(openai_server: OpenAIServer) -> None:
    openai_server.github_models()
    openai_server.set_default_json({"ok": True})
    reply = _ask(_client(openai_server), "one two three")
    counted = get_token_counter("gpt-4o", None).count("one two three") + 4 + 3
    assert reply.usage is not None and reply.usage.prompt_tokens == counted  # type: ignore[attr-defined]


def test_per_minute_then_per_day_with_retry_after_from_the_clock(openai_server: OpenAIServer) -> None:
    clock = ManualClock()
    limiter = openai_server.github_models(Limits(per_minute=2, per_day=3), clock=clock)
    openai_server.set_default_json({"ok": True})
    client = _client(openai_server)
    _ask(client)
    clock.advance(20)
    _ask(client)
    with pytest.raises(openai.RateLimitError) as caught:
        _ask(client)
    status, body, headers = _error(caught)
    assert status == 429 and headers["x-ratelimit-type"] == "UserByMinute"
    assert headers["retry-after"] == headers["x-ratelimit-timeremaining"] == "40"  # the first leaves at 60 s
    assert body == {"code": "RateLimitReached",
                    "message": "Rate limit of 2 per 60s exceeded for UserByMinute. Please wait 40 seconds before "
                               "retrying.",
                    "details": "Rate limit of 2 per 60s exceeded for UserByMinute. Please wait 40 seconds before "
                               "retrying."}
    clock.advance(40)
    _ask(client)  # the minute moved on: the third of the day
    clock.advance(3_600)
    with pytest.raises(openai.RateLimitError) as caught:
        _ask(client)
    _, _, headers = _error(caught)
    assert headers["x-ratelimit-type"] == "UserByModelByDay"
    assert headers["retry-after"] == str(86_400 - 3_660)  # the day's first request leaves the rolling window
    _ask(_client(openai_server, "ghs_other"))  # another user has its own quota
    _ask(client, model="openai/gpt-4.1")  # and so has another model
    clock.advance(86_400)
    _ask(client)
    assert limiter.refusals == {"UserByMinute": 1, "UserByModelByDay": 1} and limiter.admitted == 6


def test_concurrent_requests_over_the_limit_get_retry_after_zero(openai_server: OpenAIServer) -> None:
    limiter = openai_server.github_models(Limits(concurrent=2), latency=3.0)  # all four arrive while two are held
    openai_server.set_default_json({"ok": True})
    errors: list[openai.APIStatusError] = []
    ready = threading.Barrier(4)

    def one() -> None:
        client = _client(openai_server)
        ready.wait()
        try:
            _ask(client)
        except openai.APIStatusError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 2 and limiter.admitted == 2
    headers = errors[0].response.headers
    assert errors[0].status_code == 429 and headers["x-ratelimit-type"] == "UserConcurrentRequests"
    assert headers["retry-after"] == "0" and headers["x-ratelimit-timeremaining"] == "0"
    limiter.latency = 0.0
    _ask(_client(openai_server))  # once they finished, a new one is admitted
    assert limiter.refusals == {"UserConcurrentRequests": 2}


def test_an_output_cap_over_the_limit_is_refused(openai_server: OpenAIServer) -> None:
    openai_server.github_models(Limits(output_tokens=4_000))
    openai_server.set_default_json({"ok": True})
    with pytest.raises(openai.BadRequestError, match="max_tokens is too large"):
        _ask(_client(openai_server), max_tokens=6_000)
    _ask(_client(openai_server), max_tokens=4_000)


def test_models_get_their_own_limits(openai_server: OpenAIServer) -> None:
    openai_server.github_models(Limits(), per_model={"openai/o4-mini": Limits(input_tokens=50)})
    openai_server.set_default_json({"ok": True})
    _ask(_client(openai_server), "word " * 100)
    with pytest.raises(openai.APIStatusError, match="Max size: 50 tokens"):
        _ask(_client(openai_server), "word " * 100, model="openai/o4-mini")
