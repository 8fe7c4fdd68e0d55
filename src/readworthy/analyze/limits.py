"""GitHub Models' published limits, by model tier and plan: what one request may hold, how many may run.

    limits_for("openai/gpt-4.1-mini", "free")  -> ModelLimits(tier="low", input_tokens=8000, ...)
    limits_for("openai/o4-mini", "pro")        -> ModelLimits(tier="reasoning-mini", input_tokens=4000, ...)

The figures are GitHub's "Prototyping with AI models" rate-limit table (docs.github.com, github-models/
use-github-models/prototyping-with-ai-models, "subject to change without notice"): per plan of the account
whose quota the token draws on (Copilot Free, Pro, Business, Enterprise), per request the input and output
tokens, and requests per minute, per day and at once. Which account's quota the workflow token draws on is
not documented, so the action plans for Copilot Free unless `github-models-plan` says otherwise, and
`github-models-limits` overrides any figure (paid use raises them by an amount GitHub does not publish).

A tier GitHub does not offer on a plan (the o-series and gpt-5 family on Copilot Free) has `per_day == 0`
and `offered == False`; its other figures are the next plan's, so a request is still shaped to fit.
A model the table does not name gets the most conservative published figures (`known == False`), and
the first use says so in the log: the request then always fits, at the price of a smaller prompt.

Pure: no I/O, no settings. `request_budget` turns the input limit into the prompt budget the packer uses.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, cast

log = logging.getLogger(__name__)

Plan = Literal["free", "pro", "business", "enterprise"]
PLANS: tuple[Plan, ...] = ("free", "pro", "business", "enterprise")
DEFAULT_PLAN: Plan = "free"

# Beside the messages GitHub counts the response_format schema (788 tokens for readworthy's, o200k_base;
# tests/unit/test_limits.py checks every mode fits), and the endpoint adds a little framing of its own.
SCHEMA_TOKENS = 800
FRAMING_TOKENS = 160
# The smallest repair turn (model.py): the correction request alone, without the rejected answer. Reserved
# in every budget so a repair turn always fits; the rejected answer is added only where room is left.
REPAIR_RESERVE_TOKENS = 130
# The smallest prompt budget a model is asked with (Settings refuses less when a model is asked; with none,
# the heuristic packs at it): the instructions, the repository's taste and every section's fences, with room
# for the PR, in every language and tokenizer. The worst, zh-CN with a full taste on a non-OpenAI model
# (counted with a safety factor), needs about 2,530; tests/e2e/test_cli_issue23.py keeps it true. GitHub
# Models' smallest request budget (4,000-token models) is 2,910.
MIN_BUDGET = 2_600


@dataclass(frozen=True)
class ModelLimits:
    """One model's limits on one plan. Counts are per request (tokens) or per user and model (requests)."""

    tier: str
    input_tokens: int  # the whole request: messages, the response_format schema, any repair turn
    output_tokens: int
    per_minute: int
    per_day: int  # 0: the tier is not offered on this plan
    concurrent: int
    plan: Plan = DEFAULT_PLAN
    known: bool = True  # False: the model is not in the table; these are the most conservative figures
    offered: bool = True  # False: GitHub's table says "not applicable" for this plan

    @property
    def budget(self) -> int:
        """The prompt budget that leaves room for the schema, the framing and the smallest repair turn."""
        return request_budget(self.input_tokens)


def request_budget(input_tokens: int) -> int:
    """Prompt tokens a request may use so that the whole request fits `input_tokens`."""
    return max(MIN_BUDGET, input_tokens - SCHEMA_TOKENS - FRAMING_TOKENS - REPAIR_RESERVE_TOKENS)


def _row(per_minute: tuple[int, ...], per_day: tuple[int, ...], tokens: tuple[tuple[int, int], ...],
         concurrent: tuple[int, ...]) -> dict[Plan, tuple[int, int, int, int, int]]:
    """One tier of GitHub's table, its four columns (Free, Pro, Business, Enterprise) side by side."""
    return {plan: (tokens[i][0], tokens[i][1], per_minute[i], per_day[i], concurrent[i])
            for i, plan in enumerate(PLANS)}


_NA = 0  # "Not applicable" in GitHub's table
_4K = (4_000, 4_000)
# tier -> plan -> (input tokens, output tokens, per minute, per day, concurrent)
TABLE: dict[str, dict[Plan, tuple[int, int, int, int, int]]] = {
    "low": _row((15, 15, 15, 20), (150, 150, 300, 450),
                ((8_000, 4_000), (8_000, 4_000), (8_000, 4_000), (8_000, 8_000)), (5, 5, 5, 8)),
    "high": _row((10, 10, 10, 15), (50, 50, 100, 150),
                 ((8_000, 4_000), (8_000, 4_000), (8_000, 4_000), (16_000, 8_000)), (2, 2, 2, 4)),
    # Azure OpenAI o1-preview; o1, o3 and gpt-5 (same figures)
    "reasoning": _row((_NA, 1, 2, 2), (_NA, 8, 10, 12), (_4K, _4K, _4K, (4_000, 8_000)), (1, 1, 1, 1)),
    # o1-mini, o3-mini, o4-mini, gpt-5-mini, gpt-5-nano, gpt-5-chat
    "reasoning-mini": _row((_NA, 2, 3, 3), (_NA, 12, 15, 20), (_4K, _4K, _4K, _4K), (1, 1, 1, 1)),
    # DeepSeek-R1, DeepSeek-R1-0528, MAI-DS-R1
    "deepseek-r1": _row((1, 1, 2, 2), (8, 8, 10, 12), (_4K, _4K, _4K, _4K), (1, 1, 1, 1)),
    "grok-3": _row((1, 1, 2, 2), (15, 15, 20, 30), (_4K, _4K, (4_000, 8_000), (4_000, 16_000)), (1, 1, 1, 1)),
    "grok-3-mini": _row((2, 2, 3, 3), (30, 30, 40, 50),
                        ((4_000, 8_000), (4_000, 8_000), (4_000, 12_000), (4_000, 12_000)), (1, 1, 1, 1)),
}
# Not in the table: the smallest figure of every column, so whatever the model's real tier, requests fit.
CONSERVATIVE = ("unknown", 4_000, 4_000, 1, 8, 1)

# Model name (publisher prefix, case and date suffix removed) -> tier. GitHub's catalogue shows each model's
# tier; these are the chat models readworthy may be pointed at.
_TIERS: tuple[tuple[str, str], ...] = (
    (r"o1-preview|o1|o3|gpt-5", "reasoning"),
    (r"o1-mini|o3-mini|o4-mini|gpt-5-mini|gpt-5-nano|gpt-5-chat", "reasoning-mini"),
    (r"deepseek-r1|deepseek-r1-0528|mai-ds-r1", "deepseek-r1"),
    (r"grok-3", "grok-3"),
    (r"grok-3-mini", "grok-3-mini"),
    (r"gpt-4\.1-mini|gpt-4\.1-nano|gpt-4o-mini|phi-[\w.-]+|ministral-3b|mistral-small[\w.-]*|codestral[\w.-]*"
     r"|meta-llama-3\.1-8b-instruct|llama-3\.2-11b-vision-instruct", "low"),
    (r"gpt-4\.1|gpt-4o|meta-llama-3\.1-405b-instruct|llama-3\.3-70b-instruct|llama-3\.2-90b-vision-instruct"
     r"|llama-4-[\w.-]+|mistral-large[\w.-]*|mistral-medium[\w.-]*|deepseek-v3[\w.-]*", "high"),
)
_TIER_PATTERNS = tuple((re.compile(rf"^(?:{pattern})$"), tier) for pattern, tier in _TIERS)
_DATE_SUFFIX = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{4})$")  # gpt-4.1-mini-2025-04-14, o1-mini-2024
OVERRIDABLE = tuple(f.name for f in fields(ModelLimits) if f.type in ("int", int))
_warned: set[str] = set()
_warned_plans: set[tuple[str, str]] = set()


def model_key(model: str) -> str:
    """`openai/gpt-4.1-mini-2025-04-14` -> `gpt-4.1-mini`: the name the tier table is keyed by."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    if not any(p.match(name) for p, _ in _TIER_PATTERNS):
        name = _DATE_SUFFIX.sub("", name)
    return name


def model_tier(model: str) -> str | None:
    """The rate-limit tier of a GitHub Models model id, or None when the table does not name it."""
    name = model_key(model)
    return next((tier for pattern, tier in _TIER_PATTERNS if pattern.match(name)), None)


def limits_for(model: str, plan: str = DEFAULT_PLAN, overrides: Mapping[str, int] | None = None) -> ModelLimits:
    """GitHub Models' limits for `model` on `plan`, with `overrides` (any ModelLimits count) applied last."""
    if plan not in PLANS:
        raise ValueError(f"unknown GitHub Models plan {plan!r}; one of {', '.join(PLANS)}")
    tier = model_tier(model)
    if tier is None:
        name, inp, out, minute, day, concurrent = CONSERVATIVE
        if model not in _warned:
            _warned.add(model)
            log.warning("GitHub Models: %r is not in readworthy's table of model tiers; using the most "
                        "conservative published limits (%d input tokens, %d at once, %d a day). Set "
                        "`github-models-limits` to the figures of its tier.", model, inp, concurrent, day)
        limits = ModelLimits(name, inp, out, minute, day, concurrent, plan, known=False)
    else:
        row = TABLE[tier]
        inp, out, minute, day, concurrent = row[plan]
        offered = day != _NA
        if not offered:  # shape and pace requests as on the first plan that offers the tier; none a day
            inp, out, minute, _, concurrent = next(row[p] for p in PLANS if row[p][3] != _NA)
            if (model, plan) not in _warned_plans:
                _warned_plans.add((model, plan))
                log.warning("GitHub Models: GitHub's table does not offer %r (%s tier) on Copilot %s; if the "
                            "account has it, set `github-models-plan`", model, tier, plan.capitalize())
        limits = ModelLimits(tier, inp, out, minute, day, concurrent, plan, offered=offered)
    return with_overrides(limits, overrides or {})


def with_overrides(limits: ModelLimits, overrides: Mapping[str, int]) -> ModelLimits:
    unknown = sorted(set(overrides) - set(OVERRIDABLE))
    if unknown:
        raise ValueError(f"unknown GitHub Models limit(s) {unknown}; valid: {', '.join(OVERRIDABLE)}")
    if not overrides:
        return limits
    bad = {k: v for k, v in overrides.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0
           or (v == 0 and k != "per_day")}
    if bad:
        raise ValueError(f"GitHub Models limits must be positive whole numbers (per_day may be 0): {bad}")
    return replace(limits, **cast(dict[str, Any], dict(overrides)))
