"""How many model requests a day the repository's budget allows when `model-budget` is not set.

On GitHub Models: the free tier's day limit for the model and plan (analyze/limits.py), less a fifth of
headroom — the same quota serves the account's other uses, and a reservation whose call failed still
counts. Elsewhere (an OpenAI key, a self-hosted server) no day quota is published: no budget, unless
`model-budget` sets one.
"""

from __future__ import annotations

import math

from ..analyze.client import model_name
from ..analyze.limits import limits_for
from ..config import Settings
from ..gather.github_api import GitHub
from .ledger import ModelBudget

HEADROOM = 0.2


def model_budget(settings: Settings) -> int:
    """Model requests a day for the repository; 0: no budget is kept."""
    if settings.model_budget is not None:
        return settings.model_budget
    if settings.endpoint.kind != "github-models":
        return 0
    per_day = limits_for(model_name(settings), getattr(settings, "github_models_plan", "free")).per_day
    return math.floor(per_day * (1 - HEADROOM))


def per_minute(settings: Settings) -> int:
    """Requests a minute the endpoint allows (the catch-up run's pace); 0: none published."""
    if settings.endpoint.kind != "github-models":
        return 0
    return limits_for(model_name(settings), getattr(settings, "github_models_plan", "free")).per_minute


def make_budget(gh: GitHub, settings: Settings, repo: str, has_client: bool) -> ModelBudget | None:
    """The run's view of the repository's budget, or None when none is kept (or no model is asked)."""
    limit = model_budget(settings)
    return ModelBudget(gh, repo, limit) if limit > 0 and has_client else None
