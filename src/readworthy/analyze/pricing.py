"""Estimated cost of a model call: a small price table, overridable by settings.price_table.

Prices are US dollars per 1M tokens (input, output), OpenAI's list prices for
standard (non-batch, uncached) requests. They change: the `price-table` input
overrides or extends them, e.g. {"my-deployment": [0.4, 1.6]}. A model that is
in neither table costs an unknown amount, reported as None (not as $0).
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

# Dated snapshots ("gpt-4.1-mini-2025-04-14") and "-latest" aliases price like their family.
_SNAPSHOT_SUFFIX = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{4}|-latest|-preview)+$")


def normalise_model_name(model: str) -> str:
    """Lower case, provider prefix ("openai/", "azure/") and snapshot suffix removed."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return _SNAPSHOT_SUFFIX.sub("", name)


def lookup_price(model: str, overrides: Mapping[str, Price] | None = None, builtin: bool = True) -> Price | None:
    """The (input, output) price for a model: overrides first (exact, then normalised), then the table
    (unless `builtin` is False: an endpoint whose use is free unless the user prices it)."""
    overrides = overrides or {}
    if model in overrides:
        return _as_price(overrides[model])
    name = normalise_model_name(model)
    for key, price in overrides.items():
        if normalise_model_name(key) == name:
            return _as_price(price)
    return PRICES.get(name) if builtin else None


def _as_price(value: Price | list[float]) -> Price:
    price_in, price_out = value
    return float(price_in), float(price_out)


def estimate_cost(
    model: str, prompt_tokens: int, completion_tokens: int, overrides: Mapping[str, Price] | None = None,
    builtin: bool = True,
) -> float | None:
    """Dollars for one run, or None when the model's price is unknown."""
    price = lookup_price(model, overrides, builtin)
    if price is None:
        return None
    price_in, price_out = price
    return (prompt_tokens * price_in + completion_tokens * price_out) / 1_000_000
