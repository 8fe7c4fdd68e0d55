"""From a terminal: `readworthy local` and `readworthy pr` use GitHub Models when no OpenAI key is set and
GITHUB_TOKEN or GH_TOKEN is (issue 13); `--model` picks the model, `--model-timeout` bounds the step,
`--no-github-models` asks for the heuristic; the banner names what a terminal user sets (issue 16)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from action_run import GOOD_DIGEST, REPO
from servers.github_fixtures import seed_discussed_pr
from servers.github_server import GitHubServer
from servers.github_state import PERSONAL_TOKEN
from servers.openai_server import OpenAIServer

from readworthy.cli import main

SAMPLE_PATCH = Path(__file__).resolve().parents[2] / "src" / "readworthy" / "gather" / "sample" / "diff.patch"
TOKEN = "ghp_terminal_user_token_0123456789"


@pytest.fixture
def models(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.delenv("READWORTHY_GITHUB_MODELS", raising=False)
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS_URL", openai_server.url)
    return openai_server


def local_json(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    code = main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json", *flags])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.mark.parametrize("variable", ["GITHUB_TOKEN", "GH_TOKEN"])
def test_local_uses_github_models_with_the_token_from_the_environment(
    variable: str, models: OpenAIServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, TOKEN)
    models.add_json(GOOD_DIGEST)
    data = local_json(capsys)
    [request] = models.chat_requests
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert request.json["model"] == "openai/gpt-4.1-mini"
    assert data["analyzer"] == "model" and data["model"] == "openai/gpt-4.1-mini"


def test_the_model_flag_picks_the_model(models: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    models.add_json(GOOD_DIGEST)
    local_json(capsys, "--model", "meta/Llama-3.3-70B-Instruct")
    assert models.chat_requests[0].json["model"] == "meta/Llama-3.3-70B-Instruct"


def test_an_openai_key_wins_over_github_models(models: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    other = OpenAIServer().start()
    try:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-terminal-0123456789")
        monkeypatch.setenv("OPENAI_BASE_URL", other.url)
        other.add_json(GOOD_DIGEST)
        local_json(capsys)
        assert models.requests == [] and len(other.chat_requests) == 1
        assert other.chat_requests[0].headers["authorization"] == "Bearer sk-terminal-0123456789"
        assert TOKEN not in json.dumps([r.headers for r in other.requests])
    finally:
        other.stop()


@pytest.mark.parametrize(("language", "banner"), [
    ("en", "For a model-written reading guide, set `OPENAI_API_KEY`, or `GITHUB_TOKEN` to use GitHub Models."),
    ("zh-CN", "设置 `OPENAI_API_KEY`，或设置 `GITHUB_TOKEN` 以使用 GitHub Models，即可获得由模型撰写的阅读指南。"),
])
def test_no_github_models_flag_is_the_heuristic_and_the_banner_names_terminal_settings(
    language: str, banner: str, models: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code = main(["local", "--patch", str(SAMPLE_PATCH), "--no-github-models", "--language", language])
    out = capsys.readouterr().out
    assert code == 0 and models.requests == []
    assert banner in out and "openai-api-key" not in out


def test_terminal_fallback_reasons_name_variables_and_flags(models: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    models.add_error(403, "no access to models")
    data = local_json(capsys)
    assert data["fallback_reason"] == (
        "GitHub Models refused the request (403; it said “no access to models”): either the token lacks the Models "
        "read permission (a fine-grained token needs it), GitHub Models is not enabled for the organization, or "
        "the model openai/gpt-4.1-mini is not allowed there. Check these, set `--model` to an allowed model, or set "
        "`OPENAI_API_KEY` to use another endpoint")
    models.add_stall()
    started = time.monotonic()
    data = local_json(capsys, "--model-timeout", "1.5")
    assert time.monotonic() - started < 4.5
    assert "bound of 1.5 s" in data["fallback_reason"] and "Raise `--model-timeout`" in data["fallback_reason"]


def test_pr_command_reviews_with_github_models(github_server: GitHubServer, models: OpenAIServer,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    seeded = seed_discussed_pr(github_server)
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    models.add_json(GOOD_DIGEST)
    assert main(["pr", f"{REPO}#{seeded.number}", "--dry-run", "--model", "gpt-4o"]) == 0
    out = capsys.readouterr().out
    [request] = models.chat_requests
    assert request.headers["authorization"] == f"Bearer {PERSONAL_TOKEN}"
    assert request.json["model"] == "openai/gpt-4o"
    assert GOOD_DIGEST["headline"] in out


def test_demo_stays_offline_and_heuristic_whatever_the_environment(
    models: OpenAIServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-terminal-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", models.url)
    assert main(["demo", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["analyzer"] == "heuristic" and not data["fallback_reason"] and models.requests == []
