"""The openai SDK client for the endpoint endpoint.py chose, and what that endpoint accepts.

Endpoints (which one a run uses is decided in endpoint.py, in one table):

- OpenAI: `openai-api-key` (or OPENAI_API_KEY); `model` e.g. gpt-4.1-mini.
- Azure OpenAI: `azure-endpoint` (https://NAME.openai.azure.com), `azure-deployment`,
  `azure-api-version` (default below) and the Azure key in `openai-api-key`; the
  deployment name is what is sent as the model.
- Any OpenAI-compatible server (self-hosted vLLM, llama.cpp, OpenRouter, DeepSeek, ...):
  `openai-base-url` (OPENAI_BASE_URL) plus its key; servers that need none still need a
  non-empty dummy key.
- GitHub Models, the default when no key is set: https://models.github.ai/inference with the
  GitHub token (the workflow needs `permissions: models: read`) and `openai/gpt-4.1-mini`.

Retries and time: the client never retries on its own (max_retries=0). analyze/attempts.py retries
transient faults itself, inside the model step's wall-clock bound (`model-timeout`), so a long
`Retry-After` or a stuck endpoint cannot hold a run longer than that bound.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import openai

from ..config import Settings

DEFAULT_AZURE_API_VERSION = "2024-10-21"  # GA, supports json_schema structured outputs

# o1, o3, o4-mini, gpt-5 ...: max_completion_tokens instead of max_tokens, and no temperature.
_REASONING = re.compile(r"^(o\d+(?:-[\w.-]+)?|gpt-5(?:[\w.-]*))$")
# Hosted endpoints whose strict mode refuses length keywords; self-hosted grammar engines use them.
_STRICT_SUBSET_HOSTS = ("api.openai.com", "openai.azure.com", "models.github.ai", "models.inference.ai.azure.com")


def is_reasoning_model(model: str) -> bool:
    return bool(_REASONING.match(model.strip().lower().rsplit("/", 1)[-1]))


def is_github_models(settings: Settings) -> bool:
    return settings.endpoint.kind == "github-models"


def schema_bounds_supported(settings: Settings) -> bool:
    """Whether to put maxLength/maxItems into the json_schema (they bound a local model's output)."""
    endpoint = settings.endpoint
    if endpoint.kind in ("azure", "github-models", "openai"):
        return False
    host = (urlparse(endpoint.base_url).hostname or "") if endpoint.base_url else "api.openai.com"
    return not any(host == h or host.endswith("." + h) for h in _STRICT_SUBSET_HOSTS)


def output_limit(settings: Settings) -> int | None:
    """The most completion tokens one request may ask for at this endpoint (None: no known limit)."""
    limits = settings.model_limits
    return limits.output_tokens if limits is not None else None


def input_limit(settings: Settings) -> int | None:
    """The most input tokens one whole request may hold at this endpoint (None: no known limit)."""
    limits = settings.model_limits
    return limits.input_tokens if limits is not None else None


def concurrency_limit(settings: Settings) -> int | None:
    """How many requests to this model may run at once (None: no known limit)."""
    limits = settings.model_limits
    return limits.concurrent if limits is not None else None


def _api_key(settings: Settings) -> str | None:
    source = settings.endpoint.key_source
    secret = settings.openai_api_key if source == "openai-api-key" else settings.github_token
    if not source or secret is None:
        return None
    return secret.get_secret_value() or None


def make_openai_client(settings: Settings) -> openai.OpenAI | None:
    """The client for the configured endpoint, or None when no model will be asked (heuristic only)."""
    endpoint = settings.endpoint
    key = _api_key(settings)
    if key is None:
        return None
    if endpoint.kind == "azure":
        return openai.AzureOpenAI(
            api_key=key,
            azure_endpoint=settings.azure_endpoint or "",
            azure_deployment=settings.azure_deployment,
            api_version=settings.azure_api_version or DEFAULT_AZURE_API_VERSION,
            max_retries=0,
            timeout=settings.model_timeout,
        )
    return openai.OpenAI(api_key=key, base_url=endpoint.base_url, max_retries=0, timeout=settings.model_timeout)


def model_name(settings: Settings) -> str:
    """What goes in the request's `model`: the Azure deployment, GitHub Models' "openai/..." id, or `model`."""
    endpoint = settings.endpoint
    return endpoint.model if endpoint.kind != "none" else settings.model
