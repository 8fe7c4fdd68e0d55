"""GitHub Models' published limits by tier and plan (analyze/limits.py) and the settings that apply them."""

from __future__ import annotations

import json
import logging

import pytest

from readworthy.analyze.limits import (
    FRAMING_TOKENS,
    PLANS,
    REPAIR_RESERVE_TOKENS,
    SCHEMA_TOKENS,
    limits_for,
    model_tier,
)
from readworthy.config import Settings, action_settings
from readworthy.errors import ConfigError
from readworthy.pack.tokens import get_token_counter
from readworthy.prompts.schema import response_format

TOKEN = "ghs_workflow_token_0123456789"


@pytest.mark.parametrize(("model", "tier"), [
    ("openai/gpt-4.1-mini", "low"), ("gpt-4o-mini", "low"), ("openai/gpt-4.1-nano", "low"),
    ("microsoft/Phi-4", "low"), ("openai/gpt-4.1-mini-2025-04-14", "low"),
    ("openai/gpt-4.1", "high"), ("openai/gpt-4o", "high"), ("meta/Llama-3.3-70B-Instruct", "high"),
    ("openai/o1", "reasoning"), ("openai/o3", "reasoning"), ("openai/gpt-5", "reasoning"),
    ("openai/o4-mini", "reasoning-mini"), ("openai/gpt-5-mini", "reasoning-mini"), ("o3-mini", "reasoning-mini"),
    ("deepseek/DeepSeek-R1", "deepseek-r1"), ("deepseek/DeepSeek-R1-0528", "deepseek-r1"),
    ("microsoft/MAI-DS-R1", "deepseek-r1"), ("xai/grok-3", "grok-3"), ("xai/grok-3-mini", "grok-3-mini"),
    ("someone/new-model", None),
])
def test_each_known_model_has_its_tier(model: str, tier: str | None) -> None:
    assert model_tier(model) == tier


def test_the_published_figures() -> None:
    low = limits_for("openai/gpt-4.1-mini")
    assert (low.input_tokens, low.output_tokens, low.per_minute, low.per_day, low.concurrent) == \
        (8_000, 4_000, 15, 150, 5)
    assert limits_for("openai/gpt-4.1-mini", "business").per_day == 300
    enterprise = limits_for("openai/gpt-4.1-mini", "enterprise")
    assert (enterprise.output_tokens, enterprise.per_minute, enterprise.per_day, enterprise.concurrent) == \
        (8_000, 20, 450, 8)
    high = limits_for("openai/gpt-4.1")
    assert (high.per_minute, high.per_day, high.concurrent) == (10, 50, 2)
    assert limits_for("openai/gpt-4.1", "enterprise").input_tokens == 16_000
    r1 = limits_for("deepseek/DeepSeek-R1")
    assert (r1.input_tokens, r1.output_tokens, r1.per_day, r1.concurrent, r1.offered) == (4_000, 4_000, 8, 1, True)


def test_a_tier_not_offered_on_the_plan_says_so_and_keeps_the_request_shape(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        free = limits_for("openai/o3-mini", "free")
    assert "does not offer 'openai/o3-mini'" in caplog.text and "github-models-plan" in caplog.text
    assert not free.offered
    free = limits_for("openai/o4-mini", "free")
    pro = limits_for("openai/o4-mini", "pro")
    assert not free.offered and free.per_day == 0 and pro.offered and pro.per_day == 12
    assert (free.input_tokens, free.output_tokens, free.concurrent) == (pro.input_tokens, pro.output_tokens, 1)


def test_an_unknown_model_gets_the_most_conservative_figures_and_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        unknown = limits_for("acme/brand-new-model", "enterprise")
    assert not unknown.known and unknown.tier == "unknown"
    every = [limits_for(m, p) for m in ("gpt-4.1-mini", "gpt-4.1", "o1", "o4-mini", "DeepSeek-R1", "grok-3",
                                         "grok-3-mini") for p in PLANS]
    assert unknown.input_tokens == min(x.input_tokens for x in every)
    assert unknown.output_tokens == min(x.output_tokens for x in every)
    assert unknown.concurrent == min(x.concurrent for x in every)
    assert "acme/brand-new-model" in caplog.text and "github-models-limits" in caplog.text


def test_overrides_apply_last_and_bad_ones_are_refused() -> None:
    assert limits_for("openai/gpt-4.1", "free", {"concurrent": 4, "per_day": 0}).concurrent == 4
    with pytest.raises(ValueError, match="unknown GitHub Models limit"):
        limits_for("openai/gpt-4.1", "free", {"tokens": 4})
    with pytest.raises(ValueError, match="positive whole numbers"):
        limits_for("openai/gpt-4.1", "free", {"concurrent": 0})
    with pytest.raises(ValueError, match="unknown GitHub Models plan"):
        limits_for("openai/gpt-4.1", "team")


def test_the_overhead_covers_every_response_format() -> None:
    counter = get_token_counter("gpt-4.1-mini", None)
    for mode in ("json_schema", "json_object", "text"):
        for bounded in (False, True):
            fmt = response_format(mode, bounded=bounded)
            if fmt is not None and not bounded:  # GitHub Models gets the unbounded schema (client.py)
                assert counter.count(json.dumps(fmt)) <= SCHEMA_TOKENS
    budget = limits_for("openai/o4-mini", "pro").budget
    assert budget == 4_000 - SCHEMA_TOKENS - FRAMING_TOKENS - REPAIR_RESERVE_TOKENS


def test_settings_apply_the_plan_the_overrides_and_the_inputs() -> None:
    settings = action_settings({"github-models-plan": "enterprise", "model": "gpt-4.1",
                                "github-models-limits": '{"concurrent": 3}', "github-models-paid": "true"},
                               {"GITHUB_TOKEN": TOKEN})
    limits = settings.model_limits
    assert limits is not None and (limits.input_tokens, limits.concurrent, limits.plan) == (16_000, 3, "enterprise")
    assert settings.github_models_paid and settings.budget == limits.budget
    assert Settings(openai_api_key="sk-x").model_limits is None  # only GitHub Models has this table
    with pytest.raises(ConfigError, match="github-models-limits"):
        action_settings({"github-models-limits": "[1, 2]"}, {"GITHUB_TOKEN": TOKEN})
    with pytest.raises(ConfigError, match="github-models-limits"):
        action_settings({"github-models-limits": '{"concurrent": -1}'}, {"GITHUB_TOKEN": TOKEN})
    with pytest.raises(ConfigError, match="github-models-plan"):
        action_settings({"github-models-plan": "team"}, {"GITHUB_TOKEN": TOKEN})


def test_a_terminal_sets_the_same_through_the_environment() -> None:
    from readworthy.config import terminal_settings

    settings = terminal_settings({"model": "gpt-4.1"}, {
        "GITHUB_TOKEN": TOKEN, "READWORTHY_GITHUB_MODELS_PLAN": "enterprise",
        "READWORTHY_GITHUB_MODELS_LIMITS": '{"concurrent": 3}', "READWORTHY_GITHUB_MODELS_PAID": "true"})
    limits = settings.model_limits
    assert limits is not None and (limits.input_tokens, limits.concurrent) == (16_000, 3)
    assert settings.github_models_paid
    with pytest.raises(ConfigError, match="READWORTHY_GITHUB_MODELS_LIMITS"):
        terminal_settings({}, {"GITHUB_TOKEN": TOKEN, "READWORTHY_GITHUB_MODELS_LIMITS": "nope"})
    with pytest.raises(ConfigError, match="READWORTHY_GITHUB_MODELS_PLAN"):
        terminal_settings({}, {"GITHUB_TOKEN": TOKEN, "READWORTHY_GITHUB_MODELS_PLAN": "team"})
