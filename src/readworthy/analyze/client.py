"""The openai SDK client for whichever endpoint the settings name, and what that endpoint accepts.

Endpoints (all through the openai SDK, so its retries and timeouts apply):

- OpenAI: `openai-api-key` (or OPENAI_API_KEY); `model` e.g. gpt-4.1-mini.
- Azure OpenAI: `azure-endpoint` (https://NAME.openai.azure.com), `azure-deployment`,
  `azure-api-version` (default below) and the Azure key in `openai-api-key`; the
  deployment name is what is sent as the model.
- Any OpenAI-compatible server (self-hosted vLLM, llama.cpp, OpenRouter, DeepSeek, ...):
  `openai-base-url` (OPENAI_BASE_URL) plus its key; servers that need none still need a
  non-empty dummy key, which is what "a key is configured" means to the openai SDK.
- GitHub Models: `openai-base-url: https://models.github.ai/inference`, the workflow
  token as the key (`permissions: models: read`), and a model such as `openai/gpt-4.1-mini`.
  With that base URL and no OpenAI key, the GitHub token is used.

Retries: the SDK's own (`max_retries`, exponential backoff, honours `Retry-After` up to
two minutes on 408/409/429/5xx and connection errors); `timeout` bounds each attempt.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import openai

from ..config import Settings

GITHUB_MODELS_URL = "https://models.github.ai/inference"
DEFAULT_AZURE_API_VERSION = "2024-10-21"  # GA, supports json_schema structured outputs

# o1, o3, o4-mini, gpt-5 ...: max_completion_tokens instead of max_tokens, and no temperature.
_REASONING = re.compile(r"^(o\d+(?:-[\w.-]+)?|gpt-5(?:[\w.-]*))$")
# Hosted endpoints whose strict mode refuses length keywords; self-hosted grammar engines use them.
_STRICT_SUBSET_HOSTS = ("api.openai.com", "openai.azure.com", "models.github.ai", "models.inference.ai.azure.com")


def is_reasoning_model(model: str) -> bool:
    return bool(_REASONING.match(model.strip().lower().rsplit("/", 1)[-1]))


def _host(url: str | None) -> str:
    return (urlparse(url).hostname or "") if url else ""


def is_github_models(settings: Settings) -> bool:
    return _host(settings.openai_base_url) == "models.github.ai"


def schema_bounds_supported(settings: Settings) -> bool:
    """Whether to put maxLength/maxItems into the json_schema (they bound a local model's output)."""
    if settings.azure_endpoint:
        return False
    host = _host(settings.openai_base_url) or "api.openai.com"
    return not any(host == h or host.endswith("." + h) for h in _STRICT_SUBSET_HOSTS)


def _api_key(settings: Settings) -> str | None:
    if settings.openai_api_key is not None and settings.openai_api_key.get_secret_value():
        return settings.openai_api_key.get_secret_value()
    if is_github_models(settings) and settings.github_token is not None:
        return settings.github_token.get_secret_value() or None
    return None


def make_openai_client(settings: Settings) -> openai.OpenAI | None:
    """The client for the configured endpoint, or None when no key is configured (heuristic only)."""
    key = _api_key(settings)
    if key is None:
        return None
    if settings.azure_endpoint:
        return openai.AzureOpenAI(
            api_key=key,
            azure_endpoint=settings.azure_endpoint,
            azure_deployment=settings.azure_deployment,
            api_version=settings.azure_api_version or DEFAULT_AZURE_API_VERSION,
            max_retries=settings.model_max_retries,
            timeout=settings.model_timeout,
        )
    return openai.OpenAI(
        api_key=key,
        base_url=settings.openai_base_url or None,
        max_retries=settings.model_max_retries,
        timeout=settings.model_timeout,
    )


def model_name(settings: Settings) -> str:
    """What goes in the request's `model`: the Azure deployment when there is one."""
    if settings.azure_endpoint and settings.azure_deployment:
        return settings.azure_deployment
    return settings.model
