"""GitHub Models' limits, enforced the way GitHub enforces them: the stand-in option of openai_server.py.

    server = OpenAIServer().start()
    clock = ManualClock()                                  # or leave it out: real (monotonic) time
    server.github_models(Limits(), clock=clock,            # the free tier's low figures by default
                         per_model={"openai/o4-mini": Limits(input_tokens=4_000, per_minute=2, per_day=12,
                                                              concurrent=1)},
                         latency=0.0)                      # seconds each admitted request is held in flight
    clock.advance(3_600)                                   # a replay moves the day on without waiting

readworthy paces its own requests by the tier's limits in real time (analyze/attempts.py); a replay that moves
this clock on should call `readworthy.analyze.attempts.forget_endpoints()` as it does (a new runner process
starts with nothing remembered), or readworthy waits out in real seconds a minute the replay already skipped.

What is counted and answered (GitHub's "Prototyping with AI models" rate limits, and its real answers):
- **The whole request**: every message's content plus its framing (4 tokens a message, 3 for the reply)
  and the `response_format` schema (and `tools`, if any) as JSON text, counted with o200k_base. Over the
  model's `input_tokens`: **413** `{"error": {"code": "tokens_limit_reached", "message": "Request body too
  large for MODEL model. Max size: N tokens."}}`. `max_tokens` / `max_completion_tokens` over
  `output_tokens`: 400 `invalid_request_error`.
- **Concurrent requests** per token (user), across models: **429** with `x-ratelimit-type:
  UserConcurrentRequests` and `retry-after: 0`.
- **Requests per minute** per token and model, a sliding 60 s window: **429** `UserByMinute`,
  `retry-after` = seconds until the oldest request in the window leaves it.
- **Requests per day** per token and model, a rolling 86,400 s window: **429** `UserByModelByDay`.
- Every 429 carries `retry-after`, `x-ratelimit-timeremaining` (the same seconds) and GitHub's body:
  `{"error": {"code": "RateLimitReached", "message": "Rate limit of N per Ws exceeded for TYPE. Please wait
  S seconds before retrying.", "details": ...}}`.
A refused request counts against no quota (only admitted ones are counted). `refusals` counts them by
kind ("tokens_limit_reached", "UserConcurrentRequests", "UserByMinute", "UserByModelByDay");
`admitted` counts the requests let through; `largest_request` is the most input tokens one request held
(`largest_admitted`: one that was let through);
`peak_in_flight` the most admitted requests one user had in flight at once.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from readworthy.pack.tokens import get_token_counter

MINUTE_S = 60.0
DAY_S = 86_400.0
PER_MESSAGE_TOKENS = 4
REPLY_PRIMING_TOKENS = 3


@dataclass(frozen=True)
class Limits:
    """One model's limits (the defaults: a low-tier model on Copilot Free)."""

    input_tokens: int = 8_000
    output_tokens: int = 4_000
    per_minute: int = 15
    per_day: int = 150
    concurrent: int = 5


class ManualClock:
    """A clock a test or a bench moves by hand, so that a day of quota replays in seconds."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds

    def set(self, now: float) -> None:
        with self._lock:
            self._now = now


@dataclass(frozen=True)
class Refusal:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass(frozen=True)
class Ticket:
    user: str
    prompt_tokens: int  # the messages alone, as the usage block reports them


def _o200k() -> Callable[[str], int]:
    counter = get_token_counter("gpt-4o", None)  # o200k_base, no safety factor: what GitHub's OpenAI models use
    return counter.count


class GitHubModelsLimiter:
    """Admits or refuses each chat request against its model's limits. Thread-safe."""

    def __init__(self, limits: Limits, per_model: Mapping[str, Limits] | None = None,
                 clock: Callable[[], float] = time.monotonic, latency: float = 0.0) -> None:
        self.default = limits
        self.per_model = {k.lower(): v for k, v in (per_model or {}).items()}
        self.clock = clock
        self.latency = latency
        self.refusals: Counter[str] = Counter()
        self.admitted = 0
        self.largest_request = 0
        self.peak_in_flight = 0  # the most admitted requests of one user in flight at once
        self.largest_admitted = 0  # the most input tokens a request that was let through held
        self._count = _o200k()
        self._lock = threading.Lock()
        self._in_flight: Counter[str] = Counter()
        self._minute: dict[tuple[str, str], deque[float]] = {}
        self._day: dict[tuple[str, str], deque[float]] = {}

    def limits(self, model: str) -> Limits:
        return self.per_model.get(model.lower(), self.default)

    def input_tokens(self, body: Mapping[str, Any]) -> tuple[int, int]:
        """(the whole request, the messages alone) in tokens, counted as GitHub counts a request."""
        messages = body.get("messages") or []
        framed = sum(self._count(str(m.get("content") or "")) + PER_MESSAGE_TOKENS
                     for m in messages if isinstance(m, dict)) + REPLY_PRIMING_TOKENS
        extra = sum(self._count(json.dumps(body[k])) for k in ("response_format", "tools") if body.get(k))
        return framed + extra, framed

    def admit(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> Ticket | Refusal:
        model = str(body.get("model") or "")
        limits = self.limits(model)
        user = headers.get("authorization", "")
        whole, messages = self.input_tokens(body)
        asked = body.get("max_completion_tokens") or body.get("max_tokens") or 0
        with self._lock:
            self.largest_request = max(self.largest_request, whole)
            if whole > limits.input_tokens:
                return self._refuse_size(model, limits)
            if isinstance(asked, int) and asked > limits.output_tokens:
                self.refusals["max_tokens"] += 1
                text = f"max_tokens is too large: {asked}. This model supports at most {limits.output_tokens}."
                return Refusal(400, {"error": {"code": "invalid_request_error", "message": text,
                                               "details": text}}, {})
            if self._in_flight[user] >= limits.concurrent:
                return self._refuse_rate("UserConcurrentRequests", limits.concurrent, 0, 0.0)
            now = self.clock()
            minute = self._window(self._minute, (user, model), now, MINUTE_S)
            if len(minute) >= limits.per_minute:
                return self._refuse_rate("UserByMinute", limits.per_minute, 60, minute[0] + MINUTE_S - now)
            day = self._window(self._day, (user, model), now, DAY_S)
            if len(day) >= limits.per_day:
                return self._refuse_rate("UserByModelByDay", limits.per_day, 86_400, day[0] + DAY_S - now)
            minute.append(now)
            day.append(now)
            self._in_flight[user] += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight[user])
            self.largest_admitted = max(self.largest_admitted, whole)
            self.admitted += 1
        return Ticket(user, messages)

    def release(self, ticket: Ticket) -> None:
        with self._lock:
            self._in_flight[ticket.user] -= 1

    def reset(self) -> None:
        """Forget every counted request (a new day for every model at once)."""
        with self._lock:
            self._minute.clear()
            self._day.clear()

    @staticmethod
    def _window(windows: dict[tuple[str, str], deque[float]], key: tuple[str, str], now: float,
                span: float) -> deque[float]:
        times = windows.setdefault(key, deque())
        while times and times[0] <= now - span:
            times.popleft()
        return times

    def _refuse_size(self, model: str, limits: Limits) -> Refusal:
        self.refusals["tokens_limit_reached"] += 1
        name = model.rsplit("/", 1)[-1]
        text = f"Request body too large for {name} model. Max size: {limits.input_tokens} tokens."
        return Refusal(413, {"error": {"code": "tokens_limit_reached", "message": text, "details": text}}, {})

    def _refuse_rate(self, kind: str, allowed: int, per_s: int, wait: float) -> Refusal:
        self.refusals[kind] += 1
        seconds = max(0, math.ceil(wait))
        text = (f"Rate limit of {allowed} per {per_s}s exceeded for {kind}. "
                f"Please wait {seconds} seconds before retrying.")
        headers = {"retry-after": str(seconds), "x-ratelimit-type": kind, "x-ratelimit-timeremaining": str(seconds)}
        return Refusal(429, {"error": {"code": "RateLimitReached", "message": text, "details": text}}, headers)


def hold_a_slot(limiter: GitHubModelsLimiter, url: str, token: str, seconds: float) -> threading.Thread:
    """Another workflow run of the same token: one request held in flight for `seconds`, admitted before this
    returns; the requests after it are answered at once. Join the thread when done."""
    import openai  # the client side, as another run would send it

    admitted = limiter.admitted
    limiter.latency = seconds

    def other_run() -> None:
        client = openai.OpenAI(api_key=token, base_url=url, max_retries=0)
        client.chat.completions.create(model="openai/gpt-4.1-mini", messages=[{"role": "user", "content": "x"}])

    other = threading.Thread(target=other_run)
    other.start()
    while limiter.admitted <= admitted:  # the other run's request holds the slot
        time.sleep(0.01)
    time.sleep(0.2)  # its handler has read the latency
    limiter.latency = 0.0  # only the other run's request is slow
    return other
