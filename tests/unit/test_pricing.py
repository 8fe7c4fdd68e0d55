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
