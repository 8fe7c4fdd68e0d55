"""The model side of bench/day.py: one scripted answer per PR, behind GitHub Models' free-tier limits.

`LimitedModels` is the tests' OpenAI-compatible server (tests/servers/openai_server.py) answering each
PR with that PR's scripted structured answer (the team's labelled verdict, references into its own
files), and refusing the way GitHub Models does, by the replay's clock:
    413 tokens_limit_reached   the request's input (messages + schema) is over the per-request limit
    429 UserByMinute           more than the per-minute number of requests in the last 60 s
    429 UserByModelByDay       the day's number of requests is spent (`retry-after` until midnight UTC)
each with `retry-after` and `x-ratelimit-timeremaining`. Every refusal is counted by its type.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from servers.openai_server import OpenAIServer, _Step

from readworthy.pack.tokens import get_token_counter

_COUNT = get_token_counter("gpt-4.1-mini")

PER_REQUEST_INPUT = 8_000
PER_MINUTE = 15
PER_DAY = 150


class LimitedModels(OpenAIServer):
    def __init__(self, clock: Callable[[], datetime], answers: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.clock = clock
        self.answers = answers  # PR title -> its structured answer
        self.calls: list[tuple[datetime, str]] = []  # accepted calls: (when, PR title)
        self.refused: Counter[str] = Counter()
        self._limit_lock = threading.Lock()

    def reset_day(self) -> None:
        with self._limit_lock:
            self.calls.clear()

    def _title_of(self, body: Any) -> str:
        text = json.dumps(body.get("messages", []), ensure_ascii=False) if isinstance(body, dict) else ""
        found = [title for title in self.answers if json.dumps(title, ensure_ascii=False)[1:-1] in text]
        return max(found, key=len) if found else ""

    def _next_step(self, body: Any) -> _Step:
        now = self.clock()
        with self._limit_lock:
            refusal = self._refusal(body, now)
            if refusal is not None:
                self.refused[refusal.headers.get("x-ratelimit-type") or refusal.code or "?"] += 1
                return refusal
            title = self._title_of(body)
            self.calls.append((now, title))
        answer = self.answers.get(title)
        if answer is None:
            return _Step(kind="error", status=500, message="no scripted answer for this PR",
                         headers={"x-should-retry": "false"})
        return _Step(kind="reply", content=json.dumps(answer, ensure_ascii=False), prompt_tokens=6_000,
                     completion_tokens=600)

    def _refusal(self, body: Any, now: datetime) -> _Step | None:
        messages = body.get("messages", []) if isinstance(body, dict) else []
        schema = body.get("response_format") or {} if isinstance(body, dict) else {}
        tokens = sum(_COUNT.count(str(m.get("content") or "")) + 4 for m in messages if isinstance(m, dict)) \
            + _COUNT.count(json.dumps(schema, ensure_ascii=False))
        if tokens > PER_REQUEST_INPUT:
            return _Step(kind="error", status=413, code="tokens_limit_reached",
                         message=f"Request body too large for gpt-4.1-mini model. "
                                 f"Max size: {PER_REQUEST_INPUT} tokens.")
        today = [when for when, _ in self.calls if when.date() == now.date()]
        if len(today) >= PER_DAY:
            midnight = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), now.tzinfo)
            wait = int((midnight - now).total_seconds())
            return _limited("UserByModelByDay", wait, "Rate limit of 150 per 86400s exceeded for UserByModelByDay.")
        last_minute = [when for when in today if now - when < timedelta(minutes=1)]
        if len(last_minute) >= PER_MINUTE:
            wait = 60 - int((now - last_minute[0]).total_seconds())
            return _limited("UserByMinute", wait, "Rate limit of 15 per 60s exceeded for UserByMinute.")
        return None


def _limited(kind: str, wait: int, message: str) -> _Step:
    return _Step(kind="error", status=429, message=message, code="RateLimitReached",
                 headers={"x-ratelimit-type": kind, "retry-after": str(max(0, wait)),
                          "x-ratelimit-timeremaining": str(max(0, wait))})
