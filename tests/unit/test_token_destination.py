"""Issue 23: the GitHub token goes, as a model key, only to GitHub Models over https (SECURITY.md).

READWORTHY_GITHUB_MODELS_URL used to send the workflow token to any URL, plain http included. In the
action it may now only name another path on https://models.github.ai (an organisation's endpoint); a
terminal run may also name a loopback address (a local proxy, the tests' server). The in-process test
runner's `loopback_models=True` is the only way an action run reaches a loopback stand-in.
"""

from __future__ import annotations

import pytest

from readworthy.config import action_settings, terminal_settings
from readworthy.errors import ConfigError

TOKEN = "ghs_workflow_token_0123456789"
KEY = "sk-test-0123456789abcdef"
INPUTS = {"github-token": TOKEN}


def action_env(url: str, **extra: str) -> dict[str, str]:
    return {"READWORTHY_GITHUB_MODELS_URL": url, **extra}


@pytest.mark.parametrize("url", [
    "http://proxy.example.com/inference",          # plain http: the token in the clear
    "https://proxy.example.com/inference",         # https, but not GitHub Models
    "http://models.github.ai/inference",           # GitHub Models' host without TLS
    "https://models.github.ai.example.com/inference",
    "http://127.0.0.1:8080/inference",             # loopback: only the tests' in-process runner
    "http://localhost:8080/inference",
])
def test_the_action_refuses_to_send_the_workflow_token_elsewhere(url: str) -> None:
    with pytest.raises(ConfigError, match="READWORTHY_GITHUB_MODELS_URL: the GitHub token is sent as a model key "
                                          "only to GitHub Models at https://models.github.ai") as caught:
        action_settings(INPUTS, action_env(url))
    assert TOKEN not in str(caught.value) and "`openai-api-key`" in str(caught.value)


@pytest.mark.parametrize("url", ["https://models.github.ai/inference", "https://models.github.ai/orgs/acme/inference",
                                 "https://MODELS.github.ai/inference/"])
def test_the_action_accepts_github_models_over_https(url: str) -> None:
    endpoint = action_settings(INPUTS, action_env(url)).endpoint
    assert endpoint.kind == "github-models" and endpoint.key_source == "github-token" and endpoint.base_url == url


def test_a_base_url_naming_the_overridden_url_cannot_smuggle_the_token() -> None:
    """openai-base-url equal to READWORTHY_GITHUB_MODELS_URL counts as "GitHub Models": still refused."""
    with pytest.raises(ConfigError, match="READWORTHY_GITHUB_MODELS_URL"):
        action_settings({**INPUTS, "openai-base-url": "http://proxy.example.com/v1"},
                        action_env("http://proxy.example.com/v1"))


def test_only_runs_that_send_the_token_are_checked() -> None:
    # GitHub Models off, or a key of its own: the URL is never given the token.
    off = action_settings(INPUTS, action_env("http://proxy.example.com/x", READWORTHY_GITHUB_MODELS="false"))
    assert off.endpoint.kind == "none"
    keyed = action_settings({**INPUTS, "openai-api-key": KEY}, action_env("http://proxy.example.com/x"))
    assert keyed.endpoint.kind == "openai" and keyed.endpoint.key_source == "openai-api-key"


def test_loopback_is_for_the_tests_in_process_runner_only() -> None:
    url = "http://127.0.0.1:8080/inference"
    assert action_settings(INPUTS, action_env(url), loopback_models=True).endpoint.base_url == url
    with pytest.raises(ConfigError, match="or a loopback address"):  # never anything else, even then
        action_settings(INPUTS, action_env("http://proxy.example.com/x"), loopback_models=True)


def test_the_image_entry_point_never_allows_loopback() -> None:
    """`readworthy action` calls run_action(os.environ): no argument, so no input or variable can allow it."""
    import inspect

    from readworthy import cli

    source = inspect.getsource(cli)
    assert "run_action(os.environ)" in source and "loopback_models" not in source


@pytest.mark.parametrize(("url", "allowed"), [
    ("http://127.0.0.1:9/models", True), ("http://[::1]:9/models", True), ("http://localhost:9/models", True),
    ("https://models.github.ai/inference", True),
    ("http://10.0.0.5:9/models", False), ("http://proxy.example.com/models", False),
])
def test_a_terminal_run_allows_loopback_too(url: str, allowed: bool) -> None:
    env = {"GH_TOKEN": TOKEN, "READWORTHY_GITHUB_MODELS_URL": url}
    if allowed:
        assert terminal_settings({}, env).endpoint.base_url == url
    else:
        with pytest.raises(ConfigError, match="or a loopback address"):
            terminal_settings({}, env)
        assert "OPENAI_API_KEY" in str(pytest.raises(ConfigError, terminal_settings, {}, env).value)
