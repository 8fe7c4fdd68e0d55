"""How many model requests a day the repository's budget allows when `model-budget` is not set, and how fast
the catch-up run may ask.

On GitHub Models: the day limit of the model on the plan (`settings.model_limits`: analyze/limits.py, with
`github-models-plan` and `github-models-limits`), less a fifth of headroom — the same quota serves the
account's other uses, GitHub does not say whether its day is a calendar day or a rolling 24 hours, and a
reservation whose call failed still counts. Elsewhere (an OpenAI key, a self-hosted server) no day quota is
published: no budget, unless `model-budget` sets one.
"""

from __future__ import annotations

import math

from ..config import Settings
from ..gather.github_api import GitHub
from .ledger import ModelBudget

HEADROOM = 0.2


def model_budget(settings: Settings) -> int:
    """Model requests a day for the repository; 0: no budget is kept."""
    if settings.model_budget is not None:
        return settings.model_budget
    limits = settings.model_limits
    return math.floor(limits.per_day * (1 - HEADROOM)) if limits is not None else 0


def per_minute(settings: Settings) -> int:
    """Requests a minute the endpoint allows (the catch-up run's pace); 0: none published."""
    limits = settings.model_limits
    return limits.per_minute if limits is not None else 0


def make_budget(gh: GitHub, settings: Settings, repo: str, has_client: bool) -> ModelBudget | None:
    """The run's view of the repository's budget, or None when none is kept (or no model is asked)."""
    limit = model_budget(settings)
    return ModelBudget(gh, repo, limit) if limit > 0 and has_client else None
