"""Estimated cost of a model call: a small price table, overridable by settings.price_table.

Prices are US dollars per 1M tokens (input, output), OpenAI's list prices for
standard (non-batch, uncached) requests. They change: the `price-table` input
overrides or extends them, e.g. {"my-deployment": [0.4, 1.6]}. A model that is
in neither table costs an unknown amount, reported as None (not as $0).

GitHub Models bills paid use in token units (docs.github.com, "GitHub Models billing"): input tokens times
the model's input multiplier plus output tokens times its output multiplier, at USD 0.00001 a token unit
(billing/reference/costs-for-github-models lists the multipliers). Per 1M tokens that is the multiplier
times USD 10. Free use costs nothing; models without a published multiplier (the o-series and gpt-5
family at the time of writing) are priced only through `price-table`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

Price = tuple[float, float]  # $ per 1M input tokens, $ per 1M output tokens

PRICES: dict[str, Price] = {
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "o1": (15.00, 60.00),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
}

TOKEN_UNIT_USD = 0.00001
# model -> (input multiplier, output multiplier), GitHub's published table (uncached input)
GITHUB_MODELS_MULTIPLIERS: dict[str, tuple[float, float]] = {
    "gpt-4o": (0.25, 1.0),
    "gpt-4o-mini": (0.015, 0.06),
    "gpt-4.1-mini": (0.04, 0.16),
    "gpt-4.1": (0.2, 0.8),
    "phi-4": (0.0125, 0.05),
    "phi-4-mini-instruct": (0.0075, 0.03),
    "phi-4-multimodal-instruct": (0.008, 0.032),
    "deepseek-r1": (0.135, 0.54),  # and DeepSeek-R1-0528 (snapshot suffixes are dropped before lookup)
    "deepseek-v3": (0.114, 0.456),  # DeepSeek-V3-0324
    "mai-ds-r1": (0.135, 0.54),
    "grok-3-mini": (0.025, 0.127),
    "grok-3": (0.3, 1.5),
    "llama-4-maverick-17b-128e-instruct-fp8": (0.025, 0.1),
    "llama-3.3-70b-instruct": (0.071, 0.071),
}
GITHUB_MODELS_PRICES: dict[str, Price] = {
    name: (inp * TOKEN_UNIT_USD * 1_000_000, out * TOKEN_UNIT_USD * 1_000_000)
    for name, (inp, out) in GITHUB_MODELS_MULTIPLIERS.items()
}

# Dated snapshots ("gpt-4.1-mini-2025-04-14") and "-latest" aliases price like their family.
_SNAPSHOT_SUFFIX = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{4}|-latest|-preview)+$")


def normalise_model_name(model: str) -> str:
    """Lower case, provider prefix ("openai/", "azure/") and snapshot suffix removed."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _SNAPSHOT_SUFFIX.sub("", name)


def lookup_price(model: str, overrides: Mapping[str, Price] | None = None,
                 builtin: bool | Mapping[str, Price] = True) -> Price | None:
    """The (input, output) price for a model: overrides first (exact, then normalised), then the built-in
    table: `True` OpenAI's, a mapping that one (GITHUB_MODELS_PRICES), `False` none (an endpoint whose use
    is free unless the user prices it)."""
    overrides = overrides or {}
    if model in overrides:
        return _as_price(overrides[model])
    name = normalise_model_name(model)
    for key, price in overrides.items():
        if normalise_model_name(key) == name:
            return _as_price(price)
    table = PRICES if builtin is True else (builtin or {})
    return table.get(name)


def _as_price(value: Price | list[float]) -> Price:
    price_in, price_out = value
    return float(price_in), float(price_out)


def estimate_cost(
    model: str, prompt_tokens: int, completion_tokens: int, overrides: Mapping[str, Price] | None = None,
    builtin: bool | Mapping[str, Price] = True,
) -> float | None:
    """Dollars for one run, or None when the model's price is unknown."""
    price = lookup_price(model, overrides, builtin)
    if price is None:
        return None
    price_in, price_out = price
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000
