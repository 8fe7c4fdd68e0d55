"""What a run may spend on the model: the cost gate behind `max-cost` (review mode) and
`digest-max-cost` (the digest).

The cap is a promise, not a hope: before an analysis starts it reserves the most one analysis
can cost (a full prompt budget in, the output reserve out, at the model's price); it starts only
if what was spent plus what is reserved stays under the cap. When it finishes, its real cost
replaces its reservation.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from ..config import Settings
from ..errors import ConfigError
from .client import is_github_models, model_name
from .pricing import GITHUB_MODELS_PRICES, Price, estimate_cost


def builtin_prices(settings: Settings) -> bool | Mapping[str, Price]:
    """Which built-in prices apply: OpenAI's list prices (True), GitHub Models' token-unit prices when its
    use is paid (`github-models-paid`), or none (False: free GitHub Models costs nothing unless
    `price-table` names the model)."""
    if not is_github_models(settings):
        return True
    return GITHUB_MODELS_PRICES if settings.github_models_paid else False


class CostGate:
    """Spent + reserved never exceeds the cap. Thread-safe (the digest analyses a few PRs at once)."""

    def __init__(self, cap: float | None, per_analysis: float) -> None:
        self.cap = cap
        self.per_analysis = per_analysis
        self.spent = 0.0
        self.reserved = 0.0
        self._lock = threading.Lock()

    def try_reserve(self) -> bool:
        with self._lock:
            if self.cap is not None and self.spent + self.reserved + self.per_analysis > self.cap + 1e-12:
                return False
            self.reserved += self.per_analysis
            return True

    def settle(self, actual: float) -> None:
        with self._lock:
            self.reserved -= self.per_analysis
            self.spent += actual


def max_cost_per_analysis(settings: Settings, has_client: bool, cap_name: str = "--max-cost") -> float:
    """The most one analysis should cost; ConfigError when a cap is asked for but the price is unknown.
    Free GitHub Models use costs nothing unless the price table names the model."""
    if not has_client:
        return 0.0
    model = model_name(settings)
    builtin = builtin_prices(settings)
    cost = estimate_cost(model, settings.budget, settings.output_reserve, settings.price_table, builtin)
    if cost is None and builtin is False:
        return 0.0
    if cost is None:
        paid = " (paid GitHub Models: GitHub publishes no token-unit multiplier for it)" \
            if is_github_models(settings) else ""
        raise ConfigError(
            f"{cap_name} needs the price of model {model!r}, which readworthy does not know{paid}: add it to the "
            'price table (action input `price-table`, e.g. {"' + model + '": [0.4, 1.6]} USD per 1M tokens).'
        )
    return cost


def cost_gate(settings: Settings, has_client: bool) -> CostGate | None:
    """The review-mode gate for `max-cost`, or None when no cap is set."""
    if settings.max_cost is None:
        return None
    return CostGate(settings.max_cost, max_cost_per_analysis(settings, has_client, "max-cost"))
