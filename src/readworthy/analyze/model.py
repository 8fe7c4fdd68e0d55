"""Analyze: one model call turns the packed prompt into a validated, grounded Digest.

    analyze(prompt, settings, client) -> Report

- `client is None` (no key): the heuristic analyzer, `analyzer="heuristic"`, no fallback_reason.
- Normal case: ONE chat-completion call with `response_format` json_schema (strict).
- Degrading, each answer validated against `models.Digest`:
    json_schema rejected (400/422 naming the response format) -> json_object -> plain text + extraction;
    a 400 naming `max_tokens` / `temperature` -> the reasoning-model parameters (Azure deployment
    names hide the model family, so this is learned from the error, once each);
    invalid JSON, schema-invalid JSON or a truncated answer (`finish_reason == "length"`)
    -> at most ONE repair turn that sends the problem back.
- 429/5xx/timeouts/connection errors are retried by the SDK itself (`max_retries`,
  `Retry-After` honoured); when those run out, or on a refusal, a content filter, an auth
  error or a second bad answer, the heuristic digest stands in: `analyzer="heuristic"`,
  `fallback_reason` says why, and one WARNING line is logged.

Model faults never raise. The entry point decides the exit code from `report.fallback_reason`
and `settings.fail_on_error` (a model outage must not block merges unless asked to).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import openai

from ..config import Settings
from ..models import Digest, Message, PRContext, Prompt, Report, Usage
from ..prompts.messages import PROMPT_VERSION
from ..prompts.schema import AnswerError, parse_digest, response_format
from .client import is_reasoning_model, make_openai_client, model_name, schema_bounds_supported
from .ground import ground_digest
from .heuristic import heuristic_digest
from .pricing import estimate_cost

__all__ = ["analyze", "make_openai_client"]

log = logging.getLogger("readworthy.analyze.model")

MODES = ("json_schema", "json_object", "text")
MAX_CALLS = 6  # one normal call + format/parameter downgrades + one repair; a hard stop either way
REASONING_HEADROOM = 4_000  # reasoning models spend completion tokens thinking before the JSON
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "json schema", "structured output", "schema")


class ModelFailure(Exception):
    """The model could not produce a usable digest; the message becomes `fallback_reason`."""


@dataclass
class _Call:
    """How the next request is made; adjusted by what the endpoint refuses."""

    model: str
    max_tokens: int
    mode_index: int = 0
    reasoning: bool = False
    bounded: bool = True
    adapted: set[str] = field(default_factory=set)

    @property
    def mode(self) -> str:
        return MODES[self.mode_index]

    def kwargs(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        args: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.reasoning:
            args["max_completion_tokens"] = self.max_tokens + REASONING_HEADROOM
        else:
            args["max_tokens"] = self.max_tokens
            args["temperature"] = 0  # a judgement, not creative writing: same PR, same answer
        fmt = response_format(self.mode, bounded=self.bounded)
        if fmt is not None:
            args["response_format"] = fmt
        return args


@dataclass
class _Spent:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    served_model: str = ""


def analyze(prompt: Prompt, settings: Settings, client: openai.OpenAI | None) -> Report:
    """The Report for one PR: the model's grounded digest, or the heuristic one (labelled, with why).

    Grounding, the heuristic and the Report's title use the prompt's own material: the cleaned,
    redacted context it was packed from (a secret in a PR title must not reach the comment)."""
    if prompt.material is None:
        raise ValueError("analyze() needs a prompt made by pack_prompt (it carries the packed material)")
    ctx = prompt.material
    if client is None:
        return _report(heuristic_digest(ctx, prompt.coverage, settings.language), "heuristic", prompt, ctx,
                       settings, model="", spent=_Spent())
    model = model_name(settings)
    spent = _Spent()
    try:
        digest = _ask(client, prompt.messages, settings, model, spent)
    except ModelFailure as exc:
        reason = str(exc)
        log.warning("model %s failed: %s; using the heuristic digest instead", model, reason)
        return _report(heuristic_digest(ctx, prompt.coverage, settings.language), "heuristic", prompt, ctx,
                       settings, model=model, spent=spent, fallback_reason=reason)
    grounded, dropped = ground_digest(digest, ctx)
    if dropped:
        log.info("grounding dropped %d reference(s) not found in the PR", dropped)
    report = _report(grounded, "model", prompt, ctx, settings, model=model, spent=spent, dropped=dropped)
    log.info(
        "model %s: %d call(s), %d tokens in / %d out, cost %s", model, spent.calls, spent.prompt_tokens,
        spent.completion_tokens, f"${report.usage.cost_usd:.4f}" if report.usage.cost_usd else "unknown or free",
    )
    return report


# --------------------------------------------------------------------------- the conversation


def _ask(client: openai.OpenAI, messages: list[Message], settings: Settings, model: str, spent: _Spent) -> Digest:
    call = _Call(
        model=model,
        max_tokens=settings.output_reserve,
        reasoning=is_reasoning_model(model),
        bounded=schema_bounds_supported(settings),
    )
    base = [{"role": m.role, "content": m.content} for m in messages]
    repair: list[dict[str, str]] = []
    repaired = False
    while spent.calls < MAX_CALLS:
        try:
            response = client.chat.completions.create(**call.kwargs(base + repair))
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            spent.calls += 1
            _adapt_or_raise(call, exc)
            continue
        except openai.APIError as exc:
            raise ModelFailure(_describe_api_error(exc, settings)) from None
        except ValueError as exc:  # the SDK could not decode the body: a proxy page or a cut-off answer
            spent.calls += 1
            raise ModelFailure(f"the endpoint's answer is not JSON ({_clip(str(exc), 80)}): a proxy or login "
                               "page in front of it? Check the base URL") from None
        spent.calls += 1
        _add_usage(spent, response)
        text, problem = _answer_text(response)
        if problem is None:
            try:
                return parse_digest(text)
            except AnswerError as err:
                problem = str(err)
        if repaired:
            raise ModelFailure(f"unusable answer after one repair ({problem})")
        repaired = True
        log.info("model answer unusable (%s); asking once for a corrected answer", problem)
        repair = _repair_turn(text, problem)
    raise ModelFailure(f"gave up after {MAX_CALLS} calls")


def _answer_text(response: Any) -> tuple[str, str | None]:
    """The answer's text, and why it cannot be used as is (None when it may be parsed)."""
    choices = getattr(response, "choices", None)
    if not choices or not isinstance(choices, list):
        raise ModelFailure("the endpoint returned no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:  # the SDK does not validate shapes: an OpenAI-like server may send anything
        raise ModelFailure("the endpoint's answer has no message: it is not an OpenAI chat completion")
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise ModelFailure(f"the model refused: {_clip(refusal, 160)}")
    if choice.finish_reason == "content_filter":
        raise ModelFailure("the provider's content filter stopped the answer")
    text = message.content or ""
    if choice.finish_reason == "length":
        return text, "the answer was cut off at the output token limit before the JSON was complete"
    return text, None


def _repair_turn(previous: str, problem: str) -> list[dict[str, str]]:
    turn = []
    if previous.strip():
        turn.append({"role": "assistant", "content": _clip(previous, 6_000)})
    turn.append({
        "role": "user",
        "content": (
            f"That answer cannot be used: {problem}. Reply again with only the complete JSON object described "
            "in the system message, shorter this time (fewer, briefer decisions), with every field present."
        ),
    })
    return turn


def _adapt_or_raise(call: _Call, exc: openai.APIStatusError) -> None:
    """A 400/422: change what the endpoint refused, once per kind of change; otherwise give up."""
    text = _error_text(exc).lower()
    refused = "support" in text or "max_completion_tokens" in text  # not "max_tokens too large"
    if refused and "max_tokens" in text and "max_tokens" not in call.adapted and not call.reasoning:
        call.adapted.add("max_tokens")
        call.reasoning = True
        log.info("endpoint refused max_tokens; retrying with reasoning-model parameters")
        return
    if refused and "temperature" in text and "temperature" not in call.adapted and not call.reasoning:
        call.adapted.add("temperature")
        call.reasoning = True
        log.info("endpoint refused temperature; retrying with reasoning-model parameters")
        return
    if call.mode == "json_schema" and call.bounded and ("maxlength" in text or "maxitems" in text):
        call.bounded = False  # only the length keywords were refused; keep the schema
        log.info("endpoint refused length keywords in the schema; retrying without them")
        return
    if call.mode_index < len(MODES) - 1 and any(w in text for w in _FORMAT_WORDS):
        call.mode_index += 1
        log.info("endpoint refused the response format (%s); retrying with %s", _clip(text, 120), call.mode)
        return
    raise ModelFailure(f"the endpoint rejected the request ({exc.status_code}): {_clip(_error_text(exc), 200)}")


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(exc.message or exc)


def _describe_api_error(exc: openai.APIError, settings: Settings) -> str:
    retries = settings.model_max_retries
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out ({settings.model_timeout:g}s per attempt, {retries} retries)"
    if isinstance(exc, openai.APIConnectionError):
        return f"could not connect to the model endpoint ({retries} retries): {_clip(str(exc.__cause__ or exc), 120)}"
    if isinstance(exc, openai.AuthenticationError):
        return "the endpoint refused the API key (401): check openai-api-key / OPENAI_API_KEY"
    if isinstance(exc, openai.PermissionDeniedError):
        return "the key may not use this model (403): check the model name and the key's access"
    if isinstance(exc, openai.NotFoundError):
        return f"model or endpoint not found (404): check the model name {settings.model!r} and the base URL"
    if isinstance(exc, openai.RateLimitError):
        return f"rate limited (429) after {retries} retries: {_clip(_error_text(exc), 120)}"
    if isinstance(exc, openai.APIStatusError):
        return f"server error {exc.status_code} after {retries} retries: {_clip(_error_text(exc), 120)}"
    return f"model call failed: {_clip(str(exc), 160)}"


def _count(value: Any) -> int:
    """A token count from the endpoint's usage block; anything that is not a count is 0, not a crash."""
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def _add_usage(spent: _Spent, response: Any) -> None:
    usage = getattr(response, "usage", None)
    if usage is not None:
        spent.prompt_tokens += _count(getattr(usage, "prompt_tokens", 0))
        spent.completion_tokens += _count(getattr(usage, "completion_tokens", 0))
    spent.served_model = str(getattr(response, "model", "") or spent.served_model)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- the report


def _report(
    digest: Digest,
    analyzer: str,
    prompt: Prompt,
    ctx: PRContext,
    settings: Settings,
    *,
    model: str,
    spent: _Spent,
    fallback_reason: str = "",
    dropped: int = 0,
) -> Report:
    cost = None
    if spent.calls:
        cost = estimate_cost(model, spent.prompt_tokens, spent.completion_tokens, settings.price_table)
        if cost is None and spent.served_model:
            cost = estimate_cost(spent.served_model, spent.prompt_tokens, spent.completion_tokens,
                                 settings.price_table)
    return Report(
        digest=digest,
        analyzer="model" if analyzer == "model" else "heuristic",
        model=model,
        prompt_version=PROMPT_VERSION,
        language=settings.language,
        usage=Usage(
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
            cost_usd=cost or 0.0,
            model_calls=spent.calls,
        ),
        coverage=prompt.coverage,
        dropped_references=dropped,
        fallback_reason=fallback_reason,
        repo=ctx.repo,
        number=ctx.number,
        title=ctx.title,
        url=ctx.url,
        head_sha=ctx.head_sha,
        input_hash=prompt.input_hash,
    )
