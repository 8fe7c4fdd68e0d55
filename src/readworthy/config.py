"""Configuration: one frozen value, built once by an entry point and passed down.

Three sources, in order of precedence for the fields they share:
  1. action inputs (`INPUT_*`) or CLI flags,
  2. the repository's `.github/readworthy.yml`, read from the *base* branch
     (a PR must not be able to change the rules that judge it),
  3. the defaults below.
Secrets are `SecretStr` so they never print by accident.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlparse

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from .analyze.limits import DEFAULT_PLAN, ModelLimits, Plan, limits_for, with_overrides
from .analyze.limits import MIN_BUDGET as _MIN_BUDGET
from .endpoint import GITHUB_MODELS_HOST, GITHUB_MODELS_URL, Endpoint, resolve_endpoint
from .errors import ConfigError

DEFAULT_MODEL = "gpt-4.1-mini"
DEFAULT_BUDGET = 16_000
MIN_BUDGET = _MIN_BUDGET  # the one floor (analyze/limits.py says why); refused only when a model is asked
DEFAULT_MAX_ANALYSES_PER_DAY = 12  # a PR pushed every hour still gets a model-written guide most of the day
DEFAULT_MODEL_TIMEOUT = 120.0  # seconds for the whole model step: every attempt, wait and repair turn
DEFAULT_API_URL = "https://api.github.com"
LANGUAGES = ("en", "zh-CN")
Language = Literal["en", "zh-CN"]


TASTE_GUIDANCE_MAX_CHARS = 1_500  # "a few sentences"
TASTE_REASON_MAX_CHARS = 240  # one line
TASTE_EXAMPLES_MAX = 12


class TasteExample(BaseModel):
    """One of the repository's own PRs with the verdict its maintainers gave it, and why in one line."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pr: int = Field(ge=1)
    verdict: Literal["deep-read", "skim", "skip"]
    reason: str = Field(min_length=1, max_length=TASTE_REASON_MAX_CHARS)

    @field_validator("reason")
    @classmethod
    def _one_line(cls, v: str) -> str:
        line = " ".join(v.split())
        if not line:
            raise ValueError("reason must not be blank")
        return line


class Taste(BaseModel):
    """The repository's own reading taste, shown to the model after the default rubric (pack/taste.py
    renders it, fenced, inside at most TASTE_MAX_TOKENS of the budget)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    guidance: str = Field(default="", max_length=TASTE_GUIDANCE_MAX_CHARS)
    examples: list[TasteExample] = Field(default_factory=list, max_length=TASTE_EXAMPLES_MAX)

    @field_validator("guidance")
    @classmethod
    def _trimmed(cls, v: str) -> str:
        return v.strip()

    @property
    def empty(self) -> bool:
        return not self.guidance and not self.examples


class RepoConfig(BaseModel):
    """What `.github/readworthy.yml` may set. Unknown keys are an error (typos must not pass silently)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    language: Language | None = None
    budget: int | None = Field(default=None, ge=MIN_BUDGET, le=1_000_000)
    model: str | None = None
    # path glob (gitignore style) -> human area name, e.g. "vllm/v1/worker/**": "MRV2 / worker"
    areas: dict[str, str] = Field(default_factory=dict)
    # extra file-kind rules: glob -> kind (see classify.py), checked before the built-in table
    file_kinds: dict[str, str] = Field(default_factory=dict)
    # logins whose comments are noise (CI bots); "[bot]" accounts are always noise
    ignore_authors: list[str] = Field(default_factory=list)
    skip_labels: list[str] = Field(default_factory=list)
    skip_authors: list[str] = Field(default_factory=list)
    skip_base_branches: list[str] = Field(default_factory=list)
    skip_paths: list[str] = Field(default_factory=list)  # skip when *every* changed path matches
    include_drafts: bool = False
    include_bots: bool = False
    verdict_labels: bool | None = None
    section_shares: dict[str, float] = Field(default_factory=dict)
    # the team's own taste: a few sentences and labelled examples of its PRs, after the default rubric
    taste: Taste = Field(default_factory=Taste)


class Settings(BaseModel):
    """Everything a run needs to know, resolved. Frozen: stages read it, nobody writes it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # output
    language: Language = "en"
    # model
    model: str = DEFAULT_MODEL
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    azure_endpoint: str | None = None
    azure_deployment: str | None = None
    azure_api_version: str | None = None
    # With no OpenAI key: GitHub Models with the GitHub token (False: the heuristic, no model call).
    github_models: bool = True
    # READWORTHY_GITHUB_MODELS_URL: another path on models.github.ai (an organisation's endpoint); loopback only
    # from a terminal or the tests (check_token_destination)
    github_models_url: str = GITHUB_MODELS_URL
    # GitHub Models' limits (analyze/limits.py): the plan whose published figures apply, figures to override,
    # and whether the organisation pays for use beyond the free quota (then it is priced, and caps apply).
    github_models_plan: Plan = DEFAULT_PLAN
    github_models_limits: dict[str, int] = Field(default_factory=dict)
    github_models_paid: bool = False
    model_timeout: float = Field(default=DEFAULT_MODEL_TIMEOUT, gt=0, le=3_600)  # the whole model step
    model_max_retries: int = Field(default=3, ge=0, le=10)
    # Default 16,000; with GitHub Models, what the model's per-request input limit leaves (see below).
    budget: int = Field(default=DEFAULT_BUDGET, ge=1, le=1_000_000)
    output_reserve: int = Field(default=2_000, ge=200)
    price_table: dict[str, tuple[float, float]] = Field(default_factory=dict)  # model -> ($/1M in, $/1M out)
    # github
    github_token: SecretStr | None = None
    github_api_url: str = DEFAULT_API_URL
    github_graphql_url: str = ""
    github_timeout: float = Field(default=30.0, gt=0)
    own_login: str | None = None  # override for "who are we" (sticky-comment author check)
    # behaviour
    trigger_label: str = "readworthy"
    force: bool = False
    verdict_labels: bool = False
    check_run: bool = True  # the `readworthy` check run on the PR's head commit (check_run.py)
    check_annotations: int = Field(default=5, ge=0, le=50)  # its start-here marks in the diff; 0 = none
    fail_on_error: bool = False
    show_prompt: bool = False
    # cost and abuse control (review mode): who gets a model analysis, and how many
    model_for: Literal["everyone", "contributors", "members"] = "everyone"
    max_cost: float | None = Field(default=None, ge=0)  # USD per run; the heuristic once it is reached
    max_analyses_per_day: int = Field(default=DEFAULT_MAX_ANALYSES_PER_DAY, ge=0)  # per PR; 0 = no cap
    # model requests a day for the whole repository (spend/ledger.py); None: the default for the endpoint
    model_budget: int | None = Field(default=None, ge=0)
    repo_config: RepoConfig = Field(default_factory=RepoConfig)
    # Where the run was started: names settings the way the reader sets them (`openai-api-key` / OPENAI_API_KEY).
    run_from: Literal["action", "terminal"] = "terminal"

    @field_validator("github_api_url")
    @classmethod
    def _strip_slash(cls, v: str) -> str:
        return v.rstrip("/")

    @field_validator("openai_base_url", "azure_endpoint", "github_models_url")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        # A malformed URL is a configuration error to fix, not a transient fault to retry.
        if v is None:
            return v
        parsed = urlparse(v.strip())
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"{v[:80]!r} is not a URL: expected http(s)://HOST[:PORT]/PATH, "
                             "e.g. https://api.example.com/v1")
        return v.strip()

    @field_validator("github_models_limits")
    @classmethod
    def _known_limits(cls, v: dict[str, int]) -> dict[str, int]:
        with_overrides(limits_for("openai/gpt-4.1-mini"), v)  # raises ValueError naming the bad key or value
        return v

    @model_validator(mode="after")
    def _budget_fits_the_endpoint(self) -> Settings:
        object.__setattr__(self, "budget", self._fitted_budget(self.budget, "budget" in self.model_fields_set))
        if self.budget < MIN_BUDGET and self.endpoint.kind != "none":
            raise ValueError(f"budget: {self.budget:,} is below {MIN_BUDGET:,}, the smallest budget a model is "
                             "asked with (the instructions, the repository's taste and the section fences take up "
                             "to about 2,500); raise it")
        return self

    def _fitted_budget(self, budget: int, explicit: bool) -> int:
        """GitHub Models refuses a request over the model's input limit (8,000 tokens for most, 4,000 for the
        o-series, gpt-5 family and DeepSeek-R1): with no budget given, pack to what the limit leaves; a
        larger explicit one is lowered to it (raise the limit itself with `github-models-limits`)."""
        limits = self.model_limits
        if limits is None:
            return budget
        return min(budget, limits.budget) if explicit else limits.budget

    @property
    def model_limits(self) -> ModelLimits | None:
        """GitHub Models' limits for the model this run asks (None for any other endpoint)."""
        endpoint = self.endpoint
        if endpoint.kind != "github-models":
            return None
        return limits_for(endpoint.model, self.github_models_plan, self.github_models_limits)

    @property
    def graphql_url(self) -> str:
        if self.github_graphql_url:
            return self.github_graphql_url
        # github.com: https://api.github.com/graphql; GHES: https://HOST/api/v3 -> https://HOST/api/graphql
        base = self.github_api_url
        if base.endswith("/api/v3"):
            return base[: -len("/v3")] + "/graphql"
        return base + "/graphql"

    @property
    def endpoint(self) -> Endpoint:
        """The model endpoint this run uses (endpoint.py): OpenAI, a custom server, Azure, GitHub Models, none."""
        return resolve_endpoint(self)

    @property
    def has_model(self) -> bool:
        """A model will be asked: an OpenAI-compatible key, or GitHub Models with the GitHub token."""
        return self.endpoint.kind != "none"

    def for_packing(self) -> Settings:
        """These settings with a budget the packer can fill: with no model to ask, a budget under the floor
        (accepted then) is raised to it, since only the heuristic reads the packed material."""
        if self.budget >= MIN_BUDGET or self.has_model:
            return self
        return self.model_copy(update={"budget": MIN_BUDGET})

    def with_repo_config(self, repo_config: RepoConfig) -> Settings:
        """Settings with the repository's file applied under explicitly given inputs."""
        update: dict[str, object] = {"repo_config": repo_config}
        # The file fills what the inputs/flags left unset; an explicit input always wins.
        explicit = self.model_fields_set
        for name in ("language", "budget", "model", "verdict_labels"):
            value = getattr(repo_config, name)
            if value is not None and name not in explicit:
                update[name] = value
        updated = self.model_copy(update=update)  # model_copy validates nothing: fit the budget again
        given = "budget" in explicit or repo_config.budget is not None
        object.__setattr__(updated, "budget", updated._fitted_budget(updated.budget, given))
        return updated


def build_settings(values: Mapping[str, object]) -> Settings:
    """Validate raw values (from inputs, flags, env) into Settings, or raise ConfigError naming the field."""
    clean = {k: v for k, v in values.items() if v is not None and v != ""}
    try:
        return Settings.model_validate(clean)
    except ValidationError as exc:
        lines = [f"  {_field_name(e['loc'])}: {e['msg'].removeprefix('Value error, ')}".replace("  : ", "  ")
                 for e in exc.errors()]
        raise ConfigError("invalid settings:\n" + "\n".join(lines)) from None


# Settings whose field name differs from what the user typed: name both in a validation error.
_SOURCE_NAMES = {
    "openai_base_url": "openai-base-url / OPENAI_BASE_URL",
    "azure_endpoint": "azure-endpoint",
    "github_models_url": "READWORTHY_GITHUB_MODELS_URL",
    "model_timeout": "model-timeout / --model-timeout",
    "github_models": "github-models / READWORTHY_GITHUB_MODELS",
    "github_models_plan": "github-models-plan / READWORTHY_GITHUB_MODELS_PLAN",
    "github_models_limits": "github-models-limits / READWORTHY_GITHUB_MODELS_LIMITS",
    "github_models_paid": "github-models-paid / READWORTHY_GITHUB_MODELS_PAID",
}


def _field_name(loc: tuple[int | str, ...]) -> str:
    name = ".".join(str(p) for p in loc)
    return _SOURCE_NAMES.get(name, name)


def _switch(raw: str | None, name: str) -> bool | None:
    if raw is None or raw.strip() == "":
        return None
    value = raw.strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise ConfigError(f"{name}: {raw[:40]!r} is not a boolean; use `true` or `false`")


def model_env(environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The openai SDK's own conventions (OPENAI_API_KEY, OPENAI_BASE_URL) and GitHub Models' switches
    (READWORTHY_GITHUB_MODELS=false turns it off, READWORTHY_GITHUB_MODELS_URL points it elsewhere; from a
    terminal READWORTHY_GITHUB_MODELS_PLAN, _LIMITS and _PAID are the action's github-models-* inputs)."""
    env = os.environ if environ is None else environ
    return {
        "openai_api_key": env.get("OPENAI_API_KEY") or None,
        "openai_base_url": env.get("OPENAI_BASE_URL") or None,
        "github_models": _switch(env.get("READWORTHY_GITHUB_MODELS"), "READWORTHY_GITHUB_MODELS"),
        "github_models_url": env.get("READWORTHY_GITHUB_MODELS_URL") or None,
        "github_models_plan": env.get("READWORTHY_GITHUB_MODELS_PLAN") or None,
        "github_models_limits": _limits_table(env.get("READWORTHY_GITHUB_MODELS_LIMITS", ""),
                                              "READWORTHY_GITHUB_MODELS_LIMITS"),
        "github_models_paid": _switch(env.get("READWORTHY_GITHUB_MODELS_PAID"), "READWORTHY_GITHUB_MODELS_PAID"),
    }


def _loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_token_destination(settings: Settings, *, loopback: bool) -> Settings:
    """The GitHub token is sent as a model key only to GitHub Models over https (any path on
    models.github.ai, e.g. an organisation's `/orgs/ORG/inference`), and, where `loopback` is allowed, to
    this machine (a local proxy or the tests' server). Raises ConfigError naming READWORTHY_GITHUB_MODELS_URL
    otherwise, before anything is sent. Only runs that would send the token are checked."""
    endpoint = settings.endpoint
    if endpoint.kind != "github-models" or endpoint.key_source != "github-token":
        return settings
    parsed = urlparse(endpoint.base_url or "")
    host = parsed.hostname or ""
    if parsed.scheme == "https" and host.lower() == GITHUB_MODELS_HOST:
        return settings
    if loopback and parsed.scheme in ("http", "https") and _loopback(host):
        return settings
    where = "https://models.github.ai (any path)" + (", or a loopback address" if loopback else "")
    raise ConfigError(
        f"READWORTHY_GITHUB_MODELS_URL: the GitHub token is sent as a model key only to GitHub Models at {where}; "
        f"{(endpoint.base_url or '')[:80]!r} is not: unset READWORTHY_GITHUB_MODELS_URL, or set "
        f"{'`openai-api-key`' if settings.run_from == 'action' else 'OPENAI_API_KEY'} (and the base URL) "
        "to use another endpoint with its own key")


def terminal_settings(flags: Mapping[str, object], environ: Mapping[str, str] | None = None) -> Settings:
    """Settings for a command run from a terminal: the openai SDK's and GitHub's environment variables
    (OPENAI_API_KEY, OPENAI_BASE_URL, GITHUB_TOKEN or GH_TOKEN, GITHUB_API_URL, GITHUB_GRAPHQL_URL) and
    READWORTHY_OWN_LOGIN, then the flags. With no OpenAI key and a GitHub token, GitHub Models answers (endpoint.py)."""
    env = os.environ if environ is None else environ
    values: dict[str, object] = model_env(env)
    values.update(
        github_token=env.get("GITHUB_TOKEN") or env.get("GH_TOKEN") or None,
        github_api_url=env.get("GITHUB_API_URL") or None,
        github_graphql_url=env.get("GITHUB_GRAPHQL_URL") or None,
        own_login=env.get("READWORTHY_OWN_LOGIN") or None,  # the action's `own-login` input
    )
    values.update(flags)
    # From a terminal the token is the user's own, and this machine may run a proxy or a test server.
    return check_token_destination(build_settings(values), loopback=True)


# --------------------------------------------------------------------------- the action's inputs

# action.yml input -> Settings field (the docstring of action.py lists every input)
_BOOL_INPUTS = {"force": "force", "verdict-labels": "verdict_labels", "fail-on-error": "fail_on_error",
                "show-prompt": "show_prompt", "github-models": "github_models",
                "github-models-paid": "github_models_paid",
                "check-run": "check_run"}
_TEXT_INPUTS = {"model": "model", "language": "language", "budget": "budget", "trigger-label": "trigger_label",
                "own-login": "own_login", "azure-endpoint": "azure_endpoint", "azure-deployment": "azure_deployment",
                "azure-api-version": "azure_api_version", "model-timeout": "model_timeout",
                "model-for": "model_for", "max-cost": "max_cost", "max-analyses-per-day": "max_analyses_per_day",
                "github-models-plan": "github_models_plan",
                "check-annotations": "check_annotations", "model-budget": "model_budget"}


def read_inputs(environ: Mapping[str, str]) -> dict[str, str]:
    """INPUT_GITHUB-TOKEN -> {"github-token": ...}; underscores are accepted for hyphens."""
    inputs: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("INPUT_") and len(key) > 6:
            inputs[key[6:].lower().replace("_", "-")] = value.strip()
    return inputs


def _bool(inputs: Mapping[str, str], name: str) -> bool | None:
    raw = inputs.get(name, "")
    if raw == "":
        return None
    if raw.lower() in ("true", "yes", "1", "on"):
        return True
    if raw.lower() in ("false", "no", "0", "off"):
        return False
    raise ConfigError(f"input {name}: {raw[:40]!r} is not a boolean; use `true` or `false`")


def _price_table(raw: str) -> dict[str, tuple[float, float]] | None:
    if not raw:
        return None
    try:
        data = json.loads(raw)
        table = {str(k): (float(v[0]), float(v[1])) for k, v in data.items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        raise ConfigError(
            'input price-table: expected a JSON object like {"my-model": [0.4, 1.6]} (USD per 1M tokens in, out)'
        ) from None
    return table


def _limits_table(raw: str, name: str = "input github-models-limits") -> dict[str, int] | None:
    if not raw:
        return None
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise TypeError
        return {str(k): v for k, v in data.items()}
    except (ValueError, TypeError):
        raise ConfigError(
            f'{name}: expected a JSON object like {{"input_tokens": 16000, "concurrent": 4}}'
        ) from None


def action_settings(inputs: Mapping[str, str], environ: Mapping[str, str], *,
                    loopback_models: bool = False) -> Settings:
    """One Settings for the whole action run, from its inputs and the standard environment.

    `loopback_models` lets the workflow token go to a loopback GitHub Models stand-in: only the test
    suite's in-process runner passes it; `readworthy action` (the image's entry point) never does, and no
    input or variable sets it, so in a workflow the token goes to https://models.github.ai and nowhere else."""
    values: dict[str, object] = {
        "github_token": inputs.get("github-token") or environ.get("GITHUB_TOKEN"),
        "openai_api_key": inputs.get("openai-api-key") or environ.get("OPENAI_API_KEY"),
        "openai_base_url": inputs.get("openai-base-url") or environ.get("OPENAI_BASE_URL"),
        "github_api_url": environ.get("GITHUB_API_URL"),
        "github_graphql_url": environ.get("GITHUB_GRAPHQL_URL"),
        "price_table": _price_table(inputs.get("price-table", "")),
        "github_models_limits": _limits_table(inputs.get("github-models-limits", "")),
        "github_models_url": model_env(environ)["github_models_url"],
        "run_from": "action",
    }
    for name, fld in _TEXT_INPUTS.items():
        values[fld] = inputs.get(name)
    for name, fld in _BOOL_INPUTS.items():
        values[fld] = _bool(inputs, name)
    if values["github_models"] is None:  # READWORTHY_GITHUB_MODELS, as from a terminal
        values["github_models"] = model_env(environ)["github_models"]
    return check_token_destination(build_settings(values), loopback=loopback_models)
