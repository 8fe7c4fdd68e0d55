"""attempts.py's pacing and 429 waits against the GitHub Models stand-in, over real HTTP (no mocks)."""

from __future__ import annotations

import threading
import time

import openai
import pytest
from servers.github_models_limits import Limits
from servers.openai_server import OpenAIServer

from readworthy.analyze import attempts
from readworthy.analyze.attempts import Deadline, GaveUp, Pace, send

BODY = {"model": "openai/gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}


def _client(server: OpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="ghs_x", base_url=server.url, max_retries=0)


def test_no_more_requests_in_flight_than_the_pace_allows(openai_server: OpenAIServer) -> None:
    limiter = openai_server.github_models(Limits(concurrent=2), latency=0.3)
    openai_server.set_default_json({"ok": True})
    client = _client(openai_server)
    threads = [threading.Thread(target=send, args=(client, BODY, Deadline(20), 3, lambda: None, Pace(concurrent=2)))
               for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limiter.admitted == 5 and limiter.refusals == {} and limiter.peak_in_flight == 2


def test_no_more_starts_a_minute_than_the_pace_allows(openai_server: OpenAIServer,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attempts, "MINUTE_S", 0.6)  # a short "minute", the rule unchanged
    openai_server.set_default_json({"ok": True})
    client = _client(openai_server)
    before_first = time.monotonic()
    for _ in range(3):
        send(client, BODY, Deadline(10), 0, lambda: None, Pace(per_minute=2))
    _, _, third = openai_server.chat_requests
    # The third may start only a "minute" after the first started (which was after `before_first`); the
    # server's clock is the same monotonic clock, and a request arrives after it starts. Measured from the
    # client's side, a slow first connection cannot make a correct pace look too fast.
    assert third.time - before_first >= 0.6


def test_a_start_that_cannot_fit_the_bound_gives_up_without_asking(openai_server: OpenAIServer) -> None:
    openai_server.set_default_json({"ok": True})
    client = _client(openai_server)
    send(client, BODY, Deadline(10), 0, lambda: None, Pace(per_minute=1))
    with pytest.raises(GaveUp) as caught:
        send(client, BODY, Deadline(2), 0, lambda: None, Pace(per_minute=1))  # the next start is ~60 s away
    assert caught.value.why == "long-wait" and caught.value.wait is not None and caught.value.wait > 50
    assert len(openai_server.chat_requests) == 1


def test_retry_after_is_never_undercut(openai_server: OpenAIServer) -> None:
    openai_server.add_error(429, "Rate limit of 15 per 60s exceeded for UserByMinute.",
                            headers={"retry-after": "1", "x-ratelimit-type": "UserByMinute"})
    openai_server.add_json({"ok": True})
    send(_client(openai_server), BODY, Deadline(10), 3, lambda: None)
    first, second = openai_server.chat_requests
    assert 1.0 <= second.time - first.time < 3.0  # jitter adds at most 0.1 s; the rest is a loaded machine


def test_busy_answers_back_off_with_a_growing_floor_and_do_not_spend_retries(openai_server: OpenAIServer) -> None:
    busy = {"retry-after": "0", "x-ratelimit-type": "UserConcurrentRequests"}
    openai_server.add_error(429, "Rate limit of 5 per 0s exceeded for UserConcurrentRequests.", headers=busy, times=3)
    openai_server.add_json({"ok": True})
    send(_client(openai_server), BODY, Deadline(30), 1, lambda: None)  # one retry allowed, three busy answers
    times = [r.time for r in openai_server.chat_requests]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(times) == 4
    assert gaps[0] >= 1.0 and gaps[1] >= 2.0 and gaps[2] >= 4.0  # 1 s, 2 s, 4 s floors (plus jitter)
    assert all(gap <= floor * 1.5 + 1.5 for gap, floor in zip(gaps, (1, 2, 4), strict=True))  # jitter, load


def test_busy_waits_end_at_the_bound(openai_server: OpenAIServer) -> None:
    busy = {"retry-after": "0", "x-ratelimit-type": "UserConcurrentRequests"}
    openai_server.add_error(429, "busy", headers=busy, times=20)
    started = time.monotonic()
    with pytest.raises(GaveUp) as caught:
        send(_client(openai_server), BODY, Deadline(4), 3, lambda: None)
    assert caught.value.why == "deadline" and time.monotonic() - started < 6.0  # the bound, and a loaded machine
    assert 2 <= len(openai_server.chat_requests) <= 3  # 0 s, ~1 s, ~3 s: never a busy loop
