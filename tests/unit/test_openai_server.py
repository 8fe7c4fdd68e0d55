"""The scripted OpenAI-compatible test server itself, through the openai SDK."""

from __future__ import annotations

import json

import openai
import pytest
from servers.openai_server import OpenAIServer


def _client(server: OpenAIServer, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(api_key="k", base_url=server.url, max_retries=retries, timeout=5)


def _ask(client: openai.OpenAI) -> openai.types.chat.ChatCompletion:
    return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])


def test_replies_in_order_and_records_requests(openai_server: OpenAIServer) -> None:
    openai_server.add_json({"a": 1}, prompt_tokens=10, completion_tokens=2)
    openai_server.add_reply("plain", finish_reason="length")
    client = _client(openai_server)
    first, second = _ask(client), _ask(client)
    assert json.loads(first.choices[0].message.content or "") == {"a": 1}
    assert first.usage is not None and (first.usage.prompt_tokens, first.usage.completion_tokens) == (10, 2)
    assert second.choices[0].finish_reason == "length"
    assert [r.json["messages"][0]["content"] for r in openai_server.chat_requests] == ["hi", "hi"]
    assert openai_server.pending == 0


def test_an_unscripted_call_fails_loudly_without_retries(openai_server: OpenAIServer) -> None:
    with pytest.raises(openai.InternalServerError, match="no scripted reply left"):
        _ask(_client(openai_server, retries=3))
    assert len(openai_server.chat_requests) == 1  # x-should-retry: false stopped the SDK


def test_rejected_format_is_a_persistent_rule(openai_server: OpenAIServer) -> None:
    openai_server.reject_response_format("json_schema")
    openai_server.add_reply("ok")
    client = _client(openai_server)
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    for _ in range(2):
        with pytest.raises(openai.BadRequestError, match="json_schema"):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                           response_format=schema)  # type: ignore[arg-type]
    assert openai_server.pending == 1  # rejections consume nothing
    assert _ask(client).choices[0].message.content == "ok"


def test_models_route_and_unknown_routes(openai_server: OpenAIServer) -> None:
    client = _client(openai_server)
    assert [m.id for m in client.models.list()] == ["test-model"]
    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model="m", input="x")


def test_reset_and_clear(openai_server: OpenAIServer) -> None:
    openai_server.add_reset()
    with pytest.raises(openai.APIConnectionError):
        _ask(_client(openai_server))
    openai_server.add_reply("x", times=3)
    openai_server.clear()
    assert openai_server.pending == 0 and openai_server.requests == []
