"""config.py: settings validation and how the repository file combines with explicit inputs."""

from __future__ import annotations

import pytest

from readworthy.config import RepoConfig, Settings, build_settings
from readworthy.errors import ConfigError


def test_invalid_values_name_the_field() -> None:
    with pytest.raises(ConfigError, match="language"):
        build_settings({"language": "fr"})


def test_empty_values_mean_default() -> None:
    settings = build_settings({"language": "", "budget": None, "model": ""})
    assert (settings.language, settings.budget) == ("en", 16_000)


def test_repo_file_fills_only_what_inputs_left_unset() -> None:
    file = RepoConfig(language="zh-CN", budget=8_000, model="gpt-4.1", verdict_labels=True)
    from_inputs = build_settings({"budget": 12_000}).with_repo_config(file)
    assert from_inputs.budget == 12_000  # the explicit input wins
    assert from_inputs.language == "zh-CN"
    assert from_inputs.model == "gpt-4.1"
    assert from_inputs.verdict_labels is True
    assert from_inputs.repo_config is file


def test_repo_file_without_values_changes_nothing() -> None:
    settings = build_settings({"language": "zh-CN"})
    assert settings.with_repo_config(RepoConfig()).language == "zh-CN"


def test_secrets_do_not_print() -> None:
    settings = build_settings({"openai_api_key": "sk-live-secret", "github_token": "ghs_secret"})
    assert "sk-live-secret" not in repr(settings) and "ghs_secret" not in str(settings.model_dump())
    assert settings.has_model


@pytest.mark.parametrize(
    ("api", "graphql"),
    [
        ("https://api.github.com", "https://api.github.com/graphql"),
        ("https://ghe.example.com/api/v3/", "https://ghe.example.com/api/graphql"),
    ],
)
def test_graphql_url_follows_the_api_url(api: str, graphql: str) -> None:
    assert Settings(github_api_url=api).graphql_url == graphql
