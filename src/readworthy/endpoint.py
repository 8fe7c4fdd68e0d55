"""Which model endpoint a run talks to, with which key and model: one decision, made from Settings alone.

    configured                                         endpoint            key sent
    openai-api-key + azure-endpoint                    Azure OpenAI        openai-api-key
    openai-api-key + openai-base-url                   that server         openai-api-key
    openai-api-key                                     api.openai.com      openai-api-key
    no key; openai-base-url is GitHub Models' URL      GitHub Models       the GitHub token
    no key, no base URL, no Azure (github-models on)   GitHub Models       the GitHub token
    no key; openai-base-url or azure-endpoint set      none: heuristic, labelled with what to set
    no key and no GitHub token, or github-models off   none: heuristic

The GitHub token goes to GitHub Models' URL (READWORTHY_GITHUB_MODELS_URL overrides it: in the action only
with another https path on models.github.ai, from a terminal also with a loopback address, as
config.check_token_destination enforces) and nowhere else: a custom base URL without a key is a labelled
fallback, never a token leak.
Pure: no network, no SDK; analyze/client.py turns an Endpoint into an openai client.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import urlparse

from pydantic import SecretStr

from .notes import note


class Settings(Protocol):
    """What the endpoint decision reads of config.Settings (which satisfies it): declared here so that this
    module does not import config, which builds on it (no import circle, not even for types)."""

    @property
    def model(self) -> str: ...
    @property
    def openai_api_key(self) -> SecretStr | None: ...
    @property
    def openai_base_url(self) -> str | None: ...
    @property
    def azure_endpoint(self) -> str | None: ...
    @property
    def azure_deployment(self) -> str | None: ...
    @property
    def github_token(self) -> SecretStr | None: ...
    @property
    def github_models(self) -> bool: ...
    @property
    def github_models_url(self) -> str: ...
    @property
    def run_from(self) -> Literal["action", "terminal"]: ...
    @property
    def model_fields_set(self) -> set[str]: ...

GITHUB_MODELS_URL = "https://models.github.ai/inference"
GITHUB_MODELS_HOST = "models.github.ai"
GITHUB_MODELS_DEFAULT_MODEL = "openai/gpt-4.1-mini"
# Per-request token limits, requests per minute, per day and at once depend on the model's tier and the
# plan: analyze/limits.py has GitHub's table; Settings.model_limits applies it to this run.

Kind = Literal["openai", "custom", "azure", "github-models", "none"]
KeySource = Literal["openai-api-key", "github-token", ""]

# Bare OpenAI model names GitHub Models knows under the "openai/" publisher prefix.
_OPENAI_FAMILY = re.compile(r"^(gpt-|o\d|chatgpt-|text-embedding-)", re.IGNORECASE)

# How a setting is named where the user sets it: an action input, or a terminal's variable or flag.
_TERMINAL_NAMES = {
    "openai-api-key": "OPENAI_API_KEY",
    "openai-base-url": "OPENAI_BASE_URL",
    "github-token": "GITHUB_TOKEN` or `GH_TOKEN",
    "model": "--model",
    "budget": "--budget",
    "model-timeout": "--model-timeout",
    "github-models": "--no-github-models",
    "azure-endpoint": "azure-endpoint",
}


@dataclass(frozen=True)
class Endpoint:
    kind: Kind
    base_url: str | None = None  # None with kind "openai": the SDK's default, api.openai.com
    model: str = ""  # what the request's `model` says
    key_source: KeySource = ""
    problem: str = ""  # kind "none": why a model the user configured cannot be used ("" if none was)

    @property
    def label(self) -> str:
        """How messages name this endpoint."""
        if self.kind == "github-models":
            return "GitHub Models"
        if self.kind == "azure":
            return "Azure OpenAI"
        if self.kind == "openai":
            return note("openai_api")
        return note("endpoint_url", url=self.base_url) if self.base_url else note("endpoint_plain")


def setting(settings: Settings, name: str) -> str:
    """`openai-api-key` in the action, OPENAI_API_KEY in a terminal: the name the reader can act on."""
    if settings.run_from == "action":
        return f"`{name}`"
    return f"`{_TERMINAL_NAMES.get(name, name)}`"


def _secret(value: object) -> bool:
    getter = getattr(value, "get_secret_value", None)
    return bool(getter()) if getter is not None else False


def is_github_models_url(url: str | None, settings: Settings) -> bool:
    if not url:
        return False
    if url.rstrip("/") == settings.github_models_url.rstrip("/"):
        return True
    parsed = urlparse(url)
    return parsed.scheme == "https" and (parsed.hostname or "").lower() == GITHUB_MODELS_HOST


def github_models_model(settings: Settings) -> str:
    """The model id GitHub Models expects: "publisher/name"; bare OpenAI names get the "openai/" prefix."""
    if "model" not in settings.model_fields_set:
        return GITHUB_MODELS_DEFAULT_MODEL
    name = settings.model.strip()
    if "/" not in name and _OPENAI_FAMILY.match(name):
        return f"openai/{name}"
    return name


def resolve_endpoint(settings: Settings) -> Endpoint:
    """The endpoint this run uses (see the table at the top of this module)."""
    has_key = _secret(settings.openai_api_key)
    base = settings.openai_base_url or None
    if has_key:
        if settings.azure_endpoint:
            model = settings.azure_deployment or settings.model
            return Endpoint("azure", settings.azure_endpoint, model, "openai-api-key")
        if is_github_models_url(base, settings):
            return Endpoint("github-models", base, github_models_model(settings), "openai-api-key")
        if base:
            return Endpoint("custom", base, settings.model, "openai-api-key")
        return Endpoint("openai", None, settings.model, "openai-api-key")
    has_token = _secret(settings.github_token)
    forks = note("forks") if settings.run_from == "action" else ""
    key_setting, url_setting = setting(settings, "openai-api-key"), setting(settings, "openai-base-url")
    if settings.azure_endpoint:
        return Endpoint("none", problem=note("azure_no_key", azure_setting=setting(settings, "azure-endpoint"),
                                             key_setting=key_setting, forks=forks))
    if base and not is_github_models_url(base, settings):
        return Endpoint("none", base_url=base, problem=note("base_url_no_key", url_setting=url_setting,
                                                            key_setting=key_setting, forks=forks))
    if (base or settings.github_models) and has_token:
        return Endpoint("github-models", base or settings.github_models_url, github_models_model(settings),
                        "github-token")
    if base:  # GitHub Models' URL named explicitly, and no token to send it
        return Endpoint("none", base_url=base, problem=note("models_no_token", url_setting=url_setting,
                                                            token_setting=setting(settings, "github-token")))
    return Endpoint("none")
