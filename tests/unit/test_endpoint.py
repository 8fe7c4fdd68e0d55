"""Which endpoint a run uses (endpoint.py), the settings that feed it, and the retry rules' parsers."""

from __future__ import annotations

import json
from email.utils import formatdate
from time import time

import pytest

from readworthy.analyze.attempts import is_day_quota, retry_after
from readworthy.analyze.client import make_openai_client
from readworthy.config import RepoConfig, Settings, build_settings, terminal_settings
from readworthy.analyze.limits import REPAIR_RESERVE_TOKENS, limits_for
from readworthy.endpoint import GITHUB_MODELS_DEFAULT_MODEL, GITHUB_MODELS_URL
from readworthy.errors import ConfigError
from readworthy.models import FileChange, FileStatus, PRContext
from readworthy.pack.prompt import pack_prompt
from readworthy.pack.tokens import get_token_counter
from readworthy.prompts.schema import response_format

KEY = "sk-test-0123456789abcdef"
TOKEN = "ghs_workflow_token_0123456789"
DEFAULT_LIMITS = limits_for(GITHUB_MODELS_DEFAULT_MODEL)
GITHUB_MODELS_BUDGET = DEFAULT_LIMITS.budget
GITHUB_MODELS_INPUT_LIMIT = DEFAULT_LIMITS.input_tokens


@pytest.mark.parametrize(("values", "kind", "base_url", "key_source"), [
    ({"openai_api_key": KEY}, "openai", None, "openai-api-key"),
    ({"openai_api_key": KEY, "github_token": TOKEN}, "openai", None, "openai-api-key"),
    ({"openai_api_key": KEY, "openai_base_url": "http://vllm:8000/v1"}, "custom", "http://vllm:8000/v1",
     "openai-api-key"),
    ({"openai_api_key": KEY, "azure_endpoint": "https://rw.openai.azure.com"}, "azure",
     "https://rw.openai.azure.com", "openai-api-key"),
    ({"openai_api_key": KEY, "openai_base_url": GITHUB_MODELS_URL}, "github-models", GITHUB_MODELS_URL,
     "openai-api-key"),
    ({"github_token": TOKEN}, "github-models", GITHUB_MODELS_URL, "github-token"),
    ({"github_token": TOKEN, "openai_base_url": GITHUB_MODELS_URL, "github_models": False}, "github-models",
     GITHUB_MODELS_URL, "github-token"),  # naming GitHub Models' URL is asking for it
    ({"github_token": TOKEN, "github_models": False}, "none", None, ""),
    ({"github_token": TOKEN, "openai_base_url": "http://vllm:8000/v1"}, "none", "http://vllm:8000/v1", ""),
    ({"github_token": TOKEN, "azure_endpoint": "https://rw.openai.azure.com"}, "none", None, ""),
    ({}, "none", None, ""),
], ids=["openai", "key-beats-token", "custom", "azure", "github-models-with-a-pat", "github-models-default",
        "github-models-url-named", "github-models-off", "custom-without-key", "azure-without-key", "nothing"])
def test_the_endpoint_table(values: dict[str, object], kind: str, base_url: str | None, key_source: str) -> None:
    endpoint = Settings(**values).endpoint  # type: ignore[arg-type]
    assert (endpoint.kind, endpoint.base_url, endpoint.key_source) == (kind, base_url, key_source)


def test_the_github_token_is_never_the_key_of_another_endpoint() -> None:
    for values in ({"openai_base_url": "https://llm.example/v1"}, {"azure_endpoint": "https://rw.openai.azure.com"},
                   {"github_models": False}):
        settings = Settings(github_token=TOKEN, **values)  # type: ignore[arg-type]
        assert make_openai_client(settings) is None and not settings.has_model
    client = make_openai_client(Settings(github_token=TOKEN, github_models_url="http://127.0.0.1:9/x"))
    assert client is not None and client.api_key == TOKEN and str(client.base_url).startswith("http://127.0.0.1:9/x")


def test_a_base_url_without_a_key_says_what_to_set_where_the_reader_sets_it() -> None:
    action = Settings(github_token=TOKEN, openai_base_url="http://vllm:8000/v1", run_from="action").endpoint
    assert action.problem.startswith("`openai-base-url` is set but `openai-api-key` is empty (secrets are not "
                                     "passed to workflows run from forks)")
    terminal = Settings(github_token=TOKEN, openai_base_url="http://vllm:8000/v1").endpoint
    assert terminal.problem.startswith("`OPENAI_BASE_URL` is set but `OPENAI_API_KEY` is empty, and")
    assert Settings(github_token=TOKEN, github_models=False).endpoint.problem == ""  # asked for nothing


@pytest.mark.parametrize(("model", "sent"), [
    (None, GITHUB_MODELS_DEFAULT_MODEL), ("gpt-4.1", "openai/gpt-4.1"), ("o4-mini", "openai/o4-mini"),
    ("openai/gpt-4o", "openai/gpt-4o"), ("meta/Llama-3.3-70B-Instruct", "meta/Llama-3.3-70B-Instruct"),
    ("DeepSeek-R1", "DeepSeek-R1"),
])
def test_github_models_model_ids(model: str | None, sent: str) -> None:
    settings = build_settings({"github_token": TOKEN, "model": model})
    assert settings.endpoint.model == sent
    assert Settings(openai_api_key=KEY).endpoint.model == "gpt-4.1-mini"  # OpenAI keeps the bare default


def test_github_models_budget_follows_the_model_and_never_exceeds_its_limit() -> None:
    assert Settings(github_token=TOKEN).budget == GITHUB_MODELS_BUDGET
    assert Settings(github_token=TOKEN, budget=5_000).budget == 5_000  # a smaller explicit budget is kept
    # a larger one would be refused with a 413 on every request: it is lowered to what the limit leaves
    assert Settings(github_token=TOKEN, budget=16_000).budget == GITHUB_MODELS_BUDGET
    assert Settings(github_token=TOKEN, github_models=False).budget == 16_000
    assert Settings(openai_api_key=KEY).budget == 16_000
    assert Settings(openai_api_key=KEY, budget=24_000).budget == 24_000  # no known limit elsewhere
    from_file = Settings(github_token=TOKEN).with_repo_config(RepoConfig(budget=5_500))
    assert from_file.budget == 5_500  # the repository file is explicit too
    assert Settings(github_token=TOKEN).with_repo_config(RepoConfig(budget=24_000)).budget == GITHUB_MODELS_BUDGET
    # a model named in the repository file brings its own limit (o4-mini: 4,000 input tokens)
    small = Settings(github_token=TOKEN).with_repo_config(RepoConfig(model="o4-mini"))
    assert small.budget == limits_for("openai/o4-mini").budget < 3_000
    raised = Settings(github_token=TOKEN, github_models_limits={"input_tokens": 16_000}, budget=12_000)
    assert raised.budget == 12_000  # `github-models-limits` raises the ceiling (paid use, a bigger plan)


def test_github_models_budget_leaves_room_for_the_schema() -> None:
    """The packer's budget is exact over the messages; GitHub Models also counts the response_format
    schema sent beside them, and a repair turn adds to the messages. Budget + schema (as sent: strict,
    unbounded) + the smallest repair turn must fit the input limit."""
    counter = get_token_counter(GITHUB_MODELS_DEFAULT_MODEL, None)
    schema = counter.count(json.dumps(response_format("json_schema", bounded=False)))
    assert GITHUB_MODELS_BUDGET + schema + REPAIR_RESERVE_TOKENS <= GITHUB_MODELS_INPUT_LIMIT
    assert GITHUB_MODELS_INPUT_LIMIT - GITHUB_MODELS_BUDGET - schema - REPAIR_RESERVE_TOKENS < 200  # wastes little


def test_a_big_pr_packs_within_the_github_models_budget() -> None:
    files = [FileChange(path=f"pkg/mod_{i}.py", status=FileStatus.ADDED, additions=200,
                        patch="@@ -0,0 +1,200 @@\n" + "".join(f"+value_{i}_{j} = compute({j})\n" for j in range(200)))
             for i in range(20)]
    prompt = pack_prompt(PRContext(repo="o/r", number=1, title="Big", files=files), Settings(github_token=TOKEN))
    assert prompt.budget == GITHUB_MODELS_BUDGET and GITHUB_MODELS_BUDGET * 0.9 < prompt.tokens <= prompt.budget


@pytest.mark.parametrize("url", ["not a url", "api.example.com/v1", "ftp://example.com/v1", "http://", "https:///v1"])
def test_a_malformed_base_url_is_an_invalid_setting(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        build_settings({"openai_api_key": KEY, "openai_base_url": url})
    assert f"openai-base-url / OPENAI_BASE_URL: {url!r} is not a URL" in str(caught.value)
    with pytest.raises(ConfigError, match="azure-endpoint: .* is not a URL"):
        build_settings({"openai_api_key": KEY, "azure_endpoint": url})


def test_terminal_environment() -> None:
    env = {"GH_TOKEN": TOKEN, "READWORTHY_GITHUB_MODELS_URL": "http://127.0.0.1:9/models"}
    settings = terminal_settings({}, env)
    assert settings.endpoint.kind == "github-models" and settings.endpoint.base_url == "http://127.0.0.1:9/models"
    assert terminal_settings({}, {**env, "READWORTHY_GITHUB_MODELS": "false"}).endpoint.kind == "none"
    assert terminal_settings({}, {**env, "GITHUB_TOKEN": "ghs_other"}).github_token.get_secret_value() == "ghs_other"
    with pytest.raises(ConfigError, match="READWORTHY_GITHUB_MODELS: 'maybe' is not a boolean"):
        terminal_settings({}, {**env, "READWORTHY_GITHUB_MODELS": "maybe"})
    with pytest.raises(ConfigError, match="model-timeout"):
        terminal_settings({"model_timeout": 0}, env)


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after": "30240"}) == 30240
    assert retry_after({"retry-after-ms": "250"}) == 0.25
    assert retry_after({"retry-after": "1.5"}) == 1.5
    in_an_hour = retry_after({"retry-after": formatdate(time() + 3_600, usegmt=True)})
    assert in_an_hour is not None and 3_590 < in_an_hour <= 3_600
    assert retry_after({"retry-after": "soon"}) is None and retry_after({}) is None


def test_day_quota_header() -> None:
    assert is_day_quota({"x-ratelimit-type": "UserByModelByDay"})
    assert is_day_quota({"x-ratelimit-type": "user-by-model-by-day"})
    assert not is_day_quota({"x-ratelimit-type": "UserByModelByMinute"}) and not is_day_quota({})
