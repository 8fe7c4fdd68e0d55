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
from ..notes import note
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
    return note("other_endpoint", setting=setting(settings, "openai-api-key"))


def _attempts(n: int) -> str:
    return note("one_attempt") if n == 1 else note("attempts", n=n)


def explain_gave_up(failure: GaveUp, settings: Settings) -> str:
    """The retries or the time ran out, or a rate limit asked for a wait we must not take."""
    endpoint = settings.endpoint
    exc = failure.error
    tries = _attempts(failure.attempts)
    timeout = {"timeout": f"{settings.model_timeout:g}", "timeout_setting": setting(settings, "model-timeout")}
    if failure.why == "day-quota":
        return note("day_quota", kind=_header(exc, "x-ratelimit-type") or note("met_earlier"),
                    model=model_name(settings), label=endpoint.label, wait=duration(failure.wait),
                    model_setting=setting(settings, "model"), other=_other_endpoint(settings))
    if failure.why == "long-wait":
        return note("long_wait", label=endpoint.label, wait=duration(failure.wait), max=f"{MAX_RATE_WAIT_S:.0f}",
                    other=_other_endpoint(settings), **timeout)
    if failure.why == "silent":
        return note("silent", label=endpoint.label, n=SILENT_LIMIT, wait=duration(failure.wait), **timeout)
    if failure.why == "deadline" or isinstance(exc, openai.APITimeoutError):
        if exc is not None and not isinstance(exc, openai.APITimeoutError):
            tries = note("attempts_last", tries=tries, what=_short(exc))
        return note("timed_out", label=endpoint.label, tries=tries, **timeout)
    if isinstance(exc, openai.APIConnectionError):
        target = note("endpoint_at", label=endpoint.label, url=endpoint.base_url) if endpoint.base_url \
            else endpoint.label
        fix = (note("fix_reach", other=_other_endpoint(settings)) if endpoint.kind == "github-models"
               else note("fix_url", setting=setting(settings, "openai-base-url")))
        return note("no_connection", target=target, tries=tries, error=clip(str(exc.__cause__ or exc), 100), fix=fix)
    if isinstance(exc, openai.RateLimitError):
        return note("rate_limited", tries=tries, text=clip(error_text(exc), 120))
    if isinstance(exc, openai.APIStatusError):
        return note("server_error", status=exc.status_code, tries=tries, text=clip(error_text(exc), 120))
    return note("failed_after", tries=tries, text=clip(str(exc), 160))


def explain_status(exc: openai.APIStatusError, settings: Settings, budget: int | None = None,
                   retried: bool = False) -> str:
    """A 4xx that no retry or downgrade can fix: say which setting is wrong. `budget`: the prompt budget of
    the refused request; `retried`: it was the one smaller retry after a 413, so lowering the budget to what
    was sent first would not help."""
    endpoint = settings.endpoint
    model = model_name(settings)
    text = clip(error_text(exc), 160)
    github_token = endpoint.kind == "github-models" and endpoint.key_source == "github-token"
    status = exc.status_code
    model_setting = setting(settings, "model")
    if status == 401:
        if github_token:
            return note("token_401", setting=setting(settings, "github-token"))
        return note("key_401", setting=setting(settings, "openai-api-key"))
    if status == 403:
        if endpoint.kind == "github-models":
            return _github_models_403(exc, settings, github_token)
        return note("key_403", model=repr(model), text=text, model_setting=model_setting)
    if status == 413 or error_code(exc) == "tokens_limit_reached":
        sent = f"{budget if budget is not None else settings.budget:,}"
        budget_setting = setting(settings, "budget")
        if not retried:
            return note("too_large", label=endpoint.label, model=model, status=status, text=text,
                        budget_setting=budget_setting, budget=sent, model_setting=model_setting)
        if endpoint.kind == "github-models":
            limits = "`github-models-limits`" if settings.run_from == "action" else "`READWORTHY_GITHUB_MODELS_LIMITS`"
            fix = note("fix_limits", limits_setting=limits, model_setting=model_setting)
        else:
            fix = note("fix_budget", budget_setting=budget_setting, budget=sent, model_setting=model_setting)
        return note("too_large_retried", label=endpoint.label, model=model, status=status, text=text, budget=sent,
                    fix=fix)
    if error_code(exc) == "unknown_model" or "unknown model" in text.lower():
        example = GITHUB_MODELS_DEFAULT_MODEL if endpoint.kind == "github-models" else "gpt-4.1-mini"
        return note("unknown_model", label=endpoint.label, model=repr(model), status=status, text=text,
                    model_setting=model_setting, example=example)
    if status == 404:
        return note("not_found_404", model=repr(model), where=endpoint.base_url or "api.openai.com",
                    model_setting=model_setting, url_setting=setting(settings, "openai-base-url"))
    return note("rejected", status=status, text=clip(error_text(exc), 200))


# What GitHub Models' 403 bodies say (GITHUB_FACTS.md: a missing `models: read`, GitHub Models not enabled for
# the organisation or enterprise, a model its owners do not allow). Matched loosely: GitHub words them.
_NO_PERMISSION = re.compile(r"models\W+permission|permission\W+.{0,30}\bmodels\b|not accessible by integration|"
                            r"models:\s*read", re.IGNORECASE)
_DISABLED = re.compile(r"\b(disabled|not enabled|enable github models|turned off)\b", re.IGNORECASE)
_MODEL_REFUSED = re.compile(r"no access to (the )?model\b|model\b.{0,60}\b(not allowed|not permitted|restricted|"
                            r"blocked|policy)|not allowed to use", re.IGNORECASE)


def said(exc: openai.APIStatusError, limit: int = 160) -> str:
    """What the refusal said, cleaned (keys masked, one line, no backticks) and bounded; "" when nothing."""
    body = exc.body
    text = error_text(exc) if body not in (None, "", b"") else ""
    return clip(text.replace("`", "'"), limit)


def _github_models_403(exc: openai.APIStatusError, settings: Settings, github_token: bool) -> str:
    """GitHub Models' 403, told apart by its body where it allows: the permission, the organisation's switch,
    the model's policy, or (no message) all three named."""
    text = said(exc)
    quoted = note("refusal_said", text=text) if text else note("refusal_silent")
    other = _other_endpoint(settings)
    model, model_setting = model_name(settings), setting(settings, "model")
    if github_token and _NO_PERMISSION.search(text):
        key = "workflow_token_403" if settings.run_from == "action" else "github_token_403"
        return note(key, said=quoted, other=other)
    if _DISABLED.search(text):
        return note("models_disabled_403", said=quoted, other=other)
    if _MODEL_REFUSED.search(text):
        return note("model_not_allowed_403", model=model, said=quoted, model_setting=model_setting, other=other)
    if not github_token:  # the OpenAI key names GitHub Models: the key itself may be the problem
        return note("key_403", model=repr(model), text=text or "no message", model_setting=model_setting)
    fix = note("fix_models_permission" if settings.run_from == "action" else "fix_token_models")
    return note("github_models_403", said=quoted, fix=fix, model=model, model_setting=model_setting, other=other)


def _header(exc: openai.APIError | None, name: str) -> str:
    if isinstance(exc, openai.APIStatusError):
        return str(exc.response.headers.get(name, ""))
    return ""


def _short(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__
