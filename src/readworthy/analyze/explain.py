"""Why the model could not be used, and what to change: the fallback reason the comment and summary show.

Each message names the setting to fix the way the reader sets it: an action input (`openai-api-key`,
`permissions: models: read`) or a terminal's variable or flag (OPENAI_API_KEY, --model-timeout).
No message ever quotes a key: error bodies are clipped and the key is never part of them here.
"""

from __future__ import annotations

import math
import re

import openai

from ..config import Settings
from ..endpoint import GITHUB_MODELS_DEFAULT_MODEL, setting
from .attempts import MAX_RATE_WAIT_S, SILENT_LIMIT, GaveUp
from .client import model_name

_KEY_LIKE = re.compile(r"\b(sk-[\w-]{8,}|gh[pousr]_\w{8,}|github_pat_\w{8,})")


def clip(text: str, limit: int) -> str:
    text = _KEY_LIKE.sub("[key]", " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_text(exc: openai.APIStatusError) -> str:
    """The message inside an OpenAI-style error body, else the SDK's summary."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(exc.message or exc)


def error_code(exc: openai.APIStatusError) -> str:
    body = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    code = inner.get("code") if isinstance(inner, dict) else None
    return str(code or getattr(exc, "code", None) or "")


def duration(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7_200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3_600:.1f} h"


def _other_endpoint(settings: Settings) -> str:
    return f"set {setting(settings, 'openai-api-key')} to use another endpoint"


def explain_gave_up(failure: GaveUp, settings: Settings) -> str:
    """The retries or the time ran out, or a rate limit asked for a wait we must not take."""
    endpoint = settings.endpoint
    exc = failure.error
    tries = f"{failure.attempts} attempt{'s' if failure.attempts != 1 else ''}"
    if failure.why == "day-quota":
        kind = _header(exc, "x-ratelimit-type") or "met earlier in this run"
        return (f"rate limited (429, {kind}): the daily request quota for {model_name(settings)} at "
                f"{endpoint.label} is used up and resets in {duration(failure.wait)}. Wait for the quota to reset, "
                f"choose another {setting(settings, 'model')}, or {_other_endpoint(settings)}")
    if failure.why == "long-wait":
        return (f"rate limited (429): {endpoint.label} asks for a wait of {duration(failure.wait)}, longer than a "
                f"run waits (at most {MAX_RATE_WAIT_S:.0f} s, within {setting(settings, 'model-timeout')} of "
                f"{settings.model_timeout:g} s). Re-run later, or {_other_endpoint(settings)}")
    if failure.why == "silent":
        return (f"not asked: {endpoint.label} gave no answer to {SILENT_LIMIT} requests in a row earlier in this run "
                f"(each waited up to the {setting(settings, 'model-timeout')} bound of {settings.model_timeout:g} s "
                f"or failed to connect), so it is not asked again for {duration(failure.wait)}. Check that the "
                f"endpoint is up, or raise {setting(settings, 'model-timeout')} if it is just slow")
    if failure.why == "deadline" or isinstance(exc, openai.APITimeoutError):
        last = f"; last: {_short(exc)}" if exc is not None and not isinstance(exc, openai.APITimeoutError) else ""
        return (f"timed out: no usable answer from {endpoint.label} within the model-timeout bound of "
                f"{settings.model_timeout:g} s ({tries}{last}). Raise {setting(settings, 'model-timeout')} if "
                "the endpoint is just slow")
    if isinstance(exc, openai.APIConnectionError):
        where = f" at {endpoint.base_url}" if endpoint.base_url else ""
        fix = (f"check that the runner can reach it, or {_other_endpoint(settings)}" if endpoint.kind == "github-models"
               else f"check {setting(settings, 'openai-base-url')} and that the runner can reach it")
        return (f"could not connect to {endpoint.label}{where} ({tries}: "
                f"{clip(str(exc.__cause__ or exc), 100)}): {fix}")
    if isinstance(exc, openai.RateLimitError):
        return f"rate limited (429) after {tries}: {clip(error_text(exc), 120)}. Re-run later"
    if isinstance(exc, openai.APIStatusError):
        return f"server error {exc.status_code} after {tries}: {clip(error_text(exc), 120)}"
    return f"model call failed after {tries}: {clip(str(exc), 160)}"


def explain_status(exc: openai.APIStatusError, settings: Settings) -> str:
    """A 4xx that no retry or downgrade can fix: say which setting is wrong."""
    endpoint = settings.endpoint
    model = model_name(settings)
    text = clip(error_text(exc), 160)
    github_token = endpoint.kind == "github-models" and endpoint.key_source == "github-token"
    status = exc.status_code
    if status == 401:
        if github_token:
            return f"GitHub Models did not accept the GitHub token (401): check {setting(settings, 'github-token')}"
        return f"the endpoint refused the API key (401): check {setting(settings, 'openai-api-key')}"
    if status == 403:
        if github_token and settings.run_from == "action":
            return ("GitHub Models refused the workflow token (403): grant it with `permissions: models: read` in "
                    f"the workflow (or the job), or {_other_endpoint(settings)}")
        if github_token:
            return ("GitHub Models refused the GitHub token (403): use a token allowed to call GitHub Models "
                    f"(a fine-grained token with the Models read permission), or {_other_endpoint(settings)}")
        return (f"the key may not use the model {model!r} (403: {text}): check {setting(settings, 'model')} and "
                "the key's access")
    if status == 413 or error_code(exc) == "tokens_limit_reached":
        return (f"the request is larger than {endpoint.label} accepts for {model} ({status}: {text}): lower "
                f"{setting(settings, 'budget')} (now {settings.budget:,} tokens) or choose another "
                f"{setting(settings, 'model')}")
    if error_code(exc) == "unknown_model" or "unknown model" in text.lower():
        example = GITHUB_MODELS_DEFAULT_MODEL if endpoint.kind == "github-models" else "gpt-4.1-mini"
        return (f"{endpoint.label} has no model {model!r} ({status}: {text}): set {setting(settings, 'model')} to "
                f"one it serves, e.g. {example}")
    if status == 404:
        where = endpoint.base_url or "api.openai.com"
        return (f"model {model!r} or the endpoint was not found (404 from {where}): check "
                f"{setting(settings, 'model')} and {setting(settings, 'openai-base-url')}")
    return f"the endpoint rejected the request ({status}): {clip(error_text(exc), 200)}"


def _header(exc: openai.APIError | None, name: str) -> str:
    if isinstance(exc, openai.APIStatusError):
        return str(exc.response.headers.get(name, ""))
    return ""


def _short(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__
