"""Analyze: one model call turns the packed prompt into a validated, grounded Digest.

    analyze(prompt, settings, client) -> Report

- `client is None` (no model configured): the heuristic analyzer, `analyzer="heuristic"`; its
  `fallback_reason` says what to set when a model was asked for but cannot be used (a base URL
  without a key), and is empty otherwise.
- Normal case: ONE chat-completion call with `response_format` json_schema (strict).
- Degrading, each answer validated against `models.Digest`:
    json_schema rejected (400/422 naming the response format) -> json_object -> plain text + extraction;
    a 400 naming `max_tokens` / `temperature` -> the reasoning-model parameters (Azure deployment
    names hide the model family, so this is learned from the error, once each);
    invalid JSON, schema-invalid JSON or a truncated answer (`finish_reason == "length"`)
    -> at most ONE repair turn that sends the problem back, built to fit the endpoint's input limit
    (fitting.py: the rejected answer only as far as room is left);
    a 413 (`tokens_limit_reached`) -> at most ONE smaller retry, the PR packed again to a smaller budget.
- Limits: on GitHub Models the model's published limits (limits.py) cap the output tokens asked for and
  pace the requests (attempts.Pace: in flight at once, starts per minute).
- Time: the whole step — every attempt, wait and repair turn — is bounded by `model-timeout`
  (default 120 s). attempts.py retries transient faults inside that bound and never waits out a
  long Retry-After; a worker thread enforces the bound even on an endpoint that trickles bytes.
- When the bound, the retries or a rate limit end it, on a refusal, a content filter, a
  configuration error (401, 403, 404, a second 413, unknown model) or a second bad answer, the heuristic
  digest stands in: `analyzer="heuristic"`, `fallback_reason` says why and what to change
  (explain.py), and one WARNING line is logged. A 429 that ended it is in `Report.rate_limit` (which
  limit, and until when: a spent day quota means no call to this model succeeds before then).

Model faults never raise. The entry point decides the exit code from `report.fallback_reason`
and `settings.fail_on_error` (a model outage must not block merges unless asked to).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import openai

from ..config import Settings
from ..endpoint import setting
from ..errors import ConfigError
from ..locate import locate
from ..models import CorrectionMatch, Digest, Message, PRContext, Prompt, RateLimitHit, Report, TasteUse, Usage
from ..notes import note
from ..pack.prompt import pack_prompt
from ..pack.tokens import TokenCounter, get_token_counter
from ..prompts.messages import PROMPT_VERSION
from ..prompts.schema import AnswerError, parse_digest, response_format
from .attempts import Deadline, GaveUp, Pace, send
from .client import (
    input_limit,
    is_reasoning_model,
    make_openai_client,
    model_name,
    output_limit,
    schema_bounds_supported,
)
from .explain import clip, error_code, error_text, explain_gave_up, explain_status
from .fitting import repair_room, repair_turn, smaller_budget
from .fragment import guard_fragment
from .ground import ground_digest
from .heuristic import heuristic_analysis
from .pricing import estimate_cost
from .spending import builtin_prices

__all__ = ["analyze", "make_openai_client"]

log = logging.getLogger("readworthy.analyze.model")

MODES = ("json_schema", "json_object", "text")
MAX_CALLS = 6  # one normal call + format/parameter downgrades + one repair; a hard stop either way
REASONING_HEADROOM = 4_000  # reasoning models spend completion tokens thinking before the JSON
HARD_STOP_GRACE_S = 3.0  # the worker's own timeouts end it by the bound; this only catches a trickle
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "json schema", "structured output", "schema")


class ModelFailure(Exception):
    """The model could not produce a usable digest; the message becomes `fallback_reason`."""

    def __init__(self, reason: str, rate_limit: RateLimitHit | None = None) -> None:
        super().__init__(reason)
        self.rate_limit = rate_limit


Repack = Callable[[int], Prompt]  # budget -> the PR packed again within it (the one smaller retry after a 413)


@dataclass
class _Call:
    """How the next request is made; adjusted by what the endpoint refuses."""

    model: str
    max_tokens: int
    mode_index: int = 0
    reasoning: bool = False
    bounded: bool = True
    limit: int | None = None  # the endpoint's cap on completion tokens per request (GitHub Models: 4,000)
    adapted: set[str] = field(default_factory=set)

    @property
    def mode(self) -> str:
        return MODES[self.mode_index]

    def kwargs(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        args: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.reasoning:
            args["max_completion_tokens"] = self._capped(self.max_tokens + REASONING_HEADROOM)
        else:
            args["max_tokens"] = self._capped(self.max_tokens)
            args["temperature"] = 0  # a judgement, not creative writing: same PR, same answer
        fmt = response_format(self.mode, bounded=self.bounded)
        if fmt is not None:
            args["response_format"] = fmt
        return args

    def _capped(self, tokens: int) -> int:
        return tokens if self.limit is None else min(tokens, self.limit)


@dataclass
class _Spent:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0  # requests sent, answered or not: "a model was called" once this is > 0
    served_model: str = ""

    def attempt(self) -> None:
        self.calls += 1


def analyze(prompt: Prompt, settings: Settings, client: openai.OpenAI | None,
            taste: Sequence[CorrectionMatch] = (), repack: Repack | None = None) -> Report:
    """The Report for one PR: the model's grounded digest, or the heuristic one (labelled, with why).

    Grounding, the heuristic and the Report's title use the prompt's own material: the cleaned,
    redacted context it was packed from (a secret in a PR title must not reach the comment).
    `taste`: the team's past corrections most like this PR; the model sees the ones the prompt has room
    for (`prompt.taste_prs`), the heuristic weighs the close ones as evidence. `repack(budget)`: the PR packed
    again to a smaller budget, for the one retry after a 413 (default: the prompt's own material packed again)."""
    if prompt.material is None:
        raise ValueError("analyze() needs a prompt made by pack_prompt (it carries the packed material)")
    ctx = prompt.material
    if client is None:
        reason = settings.endpoint.problem
        if reason:
            log.warning("no model call: %s; using the heuristic digest", reason)
        digest, use = heuristic_analysis(ctx, prompt.coverage, settings.language, taste)
        digest = guard_fragment(digest, prompt.coverage, settings.language)
        return _report(digest, "heuristic", prompt, ctx, settings, model="", spent=_Spent(), fallback_reason=reason,
                       taste=use)
    model = model_name(settings)
    spent = _Spent()
    try:
        digest, used = _ask_within_bound(client, prompt, settings, model, spent,
                                         repack or _repack_material(prompt, settings, taste))
    except ModelFailure as exc:
        spent = replace(spent)  # an abandoned worker may still count; the report keeps what was seen
        reason = str(exc)
        log.warning("model %s failed: %s; using the heuristic digest instead", model, reason)
        digest, use = heuristic_analysis(ctx, prompt.coverage, settings.language, taste)
        digest = guard_fragment(digest, prompt.coverage, settings.language)
        return _report(digest, "heuristic", prompt, ctx, settings, model=model, spent=spent,
                       fallback_reason=reason, taste=use).model_copy(update={"rate_limit": exc.rate_limit})
    prompt = used  # what the model answered: the smaller prompt after a 413
    grounded, dropped = ground_digest(guard_fragment(digest, prompt.coverage, settings.language), ctx)
    if dropped:
        log.info("grounding dropped %d reference(s) not found in the PR", dropped)
    shown = TasteUse(prs=prompt.taste_prs[:10]) if prompt.taste_prs else None
    report = _report(grounded, "model", prompt, ctx, settings, model=model, spent=spent, dropped=dropped,
                     taste=shown)
    log.info(
        "model %s: %d call(s), %d tokens in / %d out, cost %s", model, spent.calls, spent.prompt_tokens,
        spent.completion_tokens, f"${report.usage.cost_usd:.4f}" if report.usage.cost_usd else "unknown or free",
    )
    return report


# --------------------------------------------------------------------------- the conversation


def _repack_material(prompt: Prompt, settings: Settings, taste: Sequence[CorrectionMatch]) -> Repack | None:
    """The default `repack`: the prompt's own material packed again (its hash and redaction count kept)."""
    material = prompt.material
    if material is None:
        return None

    def repack(budget: int) -> Prompt:
        smaller = pack_prompt(material, settings.model_copy(update={"budget": budget}), corrections=taste)
        redacted = max(prompt.coverage.secrets_redacted, smaller.coverage.secrets_redacted)
        coverage = smaller.coverage.model_copy(update={"secrets_redacted": redacted})
        return smaller.model_copy(update={"input_hash": prompt.input_hash, "material": material, "coverage": coverage})

    return repack


def _ask_within_bound(client: openai.OpenAI, prompt: Prompt, settings: Settings, model: str,
                      spent: _Spent, repack: Repack | None) -> tuple[Digest, Prompt]:
    """_ask in a worker thread, abandoned when the bound has passed: httpx times each read, not the
    whole answer, so an endpoint sending a byte now and then would otherwise hold the run for ever."""
    deadline = Deadline(settings.model_timeout)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["digest"] = _ask(client, prompt, settings, model, spent, deadline, repack)
        except BaseException as exc:  # noqa: BLE001 -- handed to the calling thread below
            box["error"] = exc

    worker = threading.Thread(target=work, name="readworthy-model-call", daemon=True)
    worker.start()
    worker.join(settings.model_timeout + HARD_STOP_GRACE_S)
    if worker.is_alive():
        raise ModelFailure(note("hard_stop", label=settings.endpoint.label, timeout=f"{settings.model_timeout:g}",
                                timeout_setting=setting(settings, "model-timeout")))
    if "error" in box:
        raise box["error"]
    answer: tuple[Digest, Prompt] = box["digest"]
    return answer


def _pace(settings: Settings) -> Pace | None:
    limits = settings.model_limits
    return Pace(limits.concurrent, limits.per_minute) if limits is not None else None


def _as_dicts(messages: list[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _ask(client: openai.OpenAI, prompt: Prompt, settings: Settings, model: str, spent: _Spent,
         deadline: Deadline, repack: Repack | None) -> tuple[Digest, Prompt]:
    call = _Call(
        model=model,
        max_tokens=settings.output_reserve,
        reasoning=is_reasoning_model(model),
        bounded=schema_bounds_supported(settings),
        limit=output_limit(settings),
    )
    limit = input_limit(settings)
    counter = _PackerCounter(settings)
    pace = _pace(settings)
    base = _as_dicts(prompt.messages)
    repair: list[dict[str, str]] = []
    repaired = shrunk = retried = False
    rejected: tuple[str, str] | None = None  # the answer the repair turn is about, and its problem
    for _turn in range(MAX_CALLS):
        try:
            response = send(client, call.kwargs(base + repair), deadline, settings.model_max_retries, spent.attempt,
                            pace)
        except openai.APIStatusError as exc:
            if _too_large(exc) and not shrunk and repack is not None:
                smaller = smaller_budget(error_text(exc), prompt.budget, limit)
                repacked = _repacked(repack, smaller[0]) if smaller is not None else None
                shrunk = True
                if smaller is not None and repacked is not None and repacked.tokens < prompt.tokens:
                    log.info("request too large for %s (%s); packed again into %d tokens, once", model,
                             clip(error_text(exc), 100), smaller[0])
                    prompt, limit, retried = repacked, smaller[1], True
                    base = _as_dicts(prompt.messages)
                    if rejected is not None:
                        repair = _fitted_repair(rejected, limit, prompt, call, counter)
                    continue
            if isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError) and not _too_large(exc):
                _adapt_or_raise(call, exc, settings)
                continue
            raise ModelFailure(explain_status(exc, settings, prompt.budget, retried)) from None
        except GaveUp as exc:
            raise ModelFailure(explain_gave_up(exc, settings), _rate_limit_hit(exc)) from None
        except openai.APIError as exc:
            raise ModelFailure(note("call_failed", text=clip(str(exc), 160))) from None
        except ValueError as exc:  # the SDK could not decode the body: a proxy page or a cut-off answer
            raise ModelFailure(note("not_json", text=clip(str(exc), 80))) from None
        _add_usage(spent, response)
        text, problem = _answer_text(response)
        if problem is None:
            try:
                return parse_digest(text), prompt
            except AnswerError as err:
                problem = str(err)
        if repaired:
            raise ModelFailure(note("unusable", problem=problem))
        repaired = True
        log.info("model answer unusable (%s); asking once for a corrected answer", problem)
        rejected = (text, problem)
        repair = _fitted_repair(rejected, limit, prompt, call, counter)
    raise ModelFailure(note("refused_in_turn", n=MAX_CALLS))


class _PackerCounter:
    """The packer's own token counter, made on first use (a repair turn): loading it costs time in the bound."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._counter: TokenCounter | None = None

    def get(self) -> TokenCounter:
        if self._counter is None:
            self._counter = get_token_counter(self._settings.model, self._settings.openai_base_url)
        return self._counter


def _fitted_repair(rejected: tuple[str, str], limit: int | None, prompt: Prompt, call: _Call,
                   counter: _PackerCounter) -> list[dict[str, str]]:
    """The repair turn, within what the input limit leaves beside the prompt and the schema."""
    fmt = response_format(call.mode, bounded=call.bounded)
    tokens = counter.get()
    return repair_turn(rejected[0], rejected[1], repair_room(limit, prompt.tokens, fmt, tokens), tokens)


def _repacked(repack: Repack, budget: int) -> Prompt | None:
    try:
        return repack(budget)
    except ConfigError:  # the instructions alone would not fit so small a budget: no smaller request exists
        return None


def _too_large(exc: openai.APIStatusError) -> bool:
    return exc.status_code == 413 or error_code(exc) == "tokens_limit_reached"


def _rate_limit_hit(exc: GaveUp) -> RateLimitHit | None:
    """The 429 that ended the call, for the caller (a spent day quota: no call succeeds before `until`)."""
    if exc.why not in ("day-quota", "long-wait"):
        return None
    wait = exc.wait if exc.wait is not None and math.isfinite(exc.wait) else None
    until = (datetime.now(UTC) + timedelta(seconds=wait)).isoformat(timespec="seconds") if wait is not None else ""
    kind = exc.limit_type or ("UserByModelByDay" if exc.why == "day-quota" and exc.error is None else "")
    return RateLimitHit(kind=kind, day_quota=exc.why == "day-quota", retry_after_s=wait, until=until)


def _answer_text(response: Any) -> tuple[str, str | None]:
    """The answer's text, and why it cannot be used as is (None when it may be parsed)."""
    choices = getattr(response, "choices", None)
    if not choices or not isinstance(choices, list):
        raise ModelFailure(note("no_choices"))
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:  # the SDK does not validate shapes: an OpenAI-like server may send anything
        raise ModelFailure(note("no_message"))
    refusal = getattr(message, "refusal", None)
    if refusal:
        raise ModelFailure(note("model_refused", text=clip(refusal, 160)))
    if choice.finish_reason == "content_filter":
        raise ModelFailure(note("content_filter"))
    text = message.content or ""
    if choice.finish_reason == "length":
        return text, "the answer was cut off at the output token limit before the JSON was complete"
    return text, None


def _adapt_or_raise(call: _Call, exc: openai.APIStatusError, settings: Settings) -> None:
    """A 400/422: change what the endpoint refused, once per kind of change; otherwise give up."""
    text = error_text(exc).lower()
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
        log.info("endpoint refused the response format (%s); retrying with %s", clip(text, 120), call.mode)
        return
    raise ModelFailure(explain_status(exc, settings))


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
    taste: TasteUse | None = None,
) -> Report:
    cost = None
    # Free GitHub Models use costs nothing; paid use is priced per token unit (spending.builtin_prices).
    builtin = builtin_prices(settings)
    if spent.calls:
        cost = estimate_cost(model, spent.prompt_tokens, spent.completion_tokens, settings.price_table, builtin)
        if cost is None and spent.served_model:
            cost = estimate_cost(spent.served_model, spent.prompt_tokens, spent.completion_tokens,
                                 settings.price_table, builtin)
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
        run_from=settings.run_from,
        repo=ctx.repo,
        number=ctx.number,
        title=ctx.title,
        url=ctx.url,
        head_sha=ctx.head_sha,
        input_hash=prompt.input_hash,
        taste=taste,
        locations=locate(digest, ctx),
    )
