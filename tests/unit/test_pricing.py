"""Price table lookups and cost estimates."""

from __future__ import annotations

import pytest

from readworthy.analyze.pricing import estimate_cost, lookup_price, normalise_model_name


def test_known_models_and_their_snapshots() -> None:
    assert lookup_price("gpt-4.1-mini") == (0.40, 1.60)
    assert lookup_price("gpt-4.1-mini-2025-04-14") == (0.40, 1.60)
    assert lookup_price("openai/gpt-4.1-mini") == (0.40, 1.60)  # GitHub Models naming
    assert lookup_price("GPT-4o-mini") == (0.15, 0.60)
    assert lookup_price("gpt-4o") == (2.50, 10.00)  # not confused with gpt-4o-mini
    assert normalise_model_name("o3-mini-2025-01-31") == "o3-mini"


def test_cost_is_per_million_tokens() -> None:
    assert estimate_cost("gpt-4.1-mini", 11_842, 690) == pytest.approx(11_842 * 0.4e-6 + 690 * 1.6e-6)
    assert estimate_cost("gpt-4.1-mini", 0, 0) == 0.0


def test_unknown_models_cost_none_not_zero() -> None:
    assert lookup_price("SmolLM2-135M-Instruct") is None
    assert estimate_cost("my-local-model", 1000, 100) is None


def test_overrides_win_and_extend() -> None:
    overrides = {"gpt-4.1-mini": (1.0, 2.0), "my-deployment": (0.5, 0.5)}
    assert estimate_cost("gpt-4.1-mini", 1_000_000, 0, overrides) == 1.0
    assert estimate_cost("gpt-4.1-mini-2025-04-14", 0, 1_000_000, overrides) == 2.0
    assert estimate_cost("my-deployment", 2_000_000, 0, overrides) == 1.0
    assert estimate_cost("my-deployment", 1, 1) is None  # without the override it is unknown


def test_paid_github_models_is_priced_per_token_unit() -> None:
    """GitHub's worked example: GPT-4o, 1M tokens in and out, multipliers 0.25 / 1 -> 1,250,000 token units
    at USD 0.00001 = USD 12.50."""
    from readworthy.analyze.pricing import GITHUB_MODELS_PRICES

    assert estimate_cost("openai/gpt-4o", 1_000_000, 1_000_000, None, GITHUB_MODELS_PRICES) == pytest.approx(12.5)
    # gpt-4.1-mini: 0.04 / 0.16 per token unit -> USD 0.40 / 1.60 per 1M tokens (GitHub's table says so too)
    assert lookup_price("openai/gpt-4.1-mini", None, GITHUB_MODELS_PRICES) == pytest.approx((0.40, 1.60))
    assert lookup_price("deepseek/DeepSeek-R1-0528", None, GITHUB_MODELS_PRICES) == pytest.approx((1.35, 5.40))
    assert lookup_price("openai/o4-mini", None, GITHUB_MODELS_PRICES) is None  # no published multiplier
    assert lookup_price("openai/o4-mini", {"openai/o4-mini": (1.1, 4.4)}, GITHUB_MODELS_PRICES) == (1.1, 4.4)
    assert lookup_price("openai/gpt-4.1-mini", None, False) is None  # free use: no built-in price


def test_which_built_in_prices_a_run_uses() -> None:
    from readworthy.analyze.pricing import GITHUB_MODELS_PRICES
    from readworthy.analyze.spending import builtin_prices, max_cost_per_analysis
    from readworthy.config import Settings
    from readworthy.errors import ConfigError

    free = Settings(github_token="ghs_x")
    paid = Settings(github_token="ghs_x", github_models_paid=True)
    assert builtin_prices(Settings(openai_api_key="sk-x")) is True
    assert builtin_prices(free) is False and builtin_prices(paid) is GITHUB_MODELS_PRICES
    assert max_cost_per_analysis(free, True) == 0.0
    # the worst case: a full budget in, the output reserve out, at GPT-4.1-mini's token-unit price
    assert max_cost_per_analysis(paid, True) == pytest.approx(
        (paid.budget * 0.04 + paid.output_reserve * 0.16) * 0.00001)
    with pytest.raises(ConfigError, match="no token-unit multiplier"):
        max_cost_per_analysis(Settings(github_token="ghs_x", github_models_paid=True, model="o4-mini"), True)
