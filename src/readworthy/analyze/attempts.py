"""One chat-completion request, retried on transient faults, inside the model step's wall-clock bound.

    deadline = Deadline(settings.model_timeout)      # `model-timeout`: every attempt, wait and repair turn
    response = send(client, kwargs, deadline, retries, on_attempt, pace)   # pace: the model's limits

Retried, at most `retries` more times and only while the wait fits in the time left: 408, 409, 5xx,
connection errors, a connect timeout, and a 429 whose Retry-After is short, never before it: a 429 is
retried after its Retry-After plus a little jitter, and one that asks for no wait at all (GitHub Models'
`UserConcurrentRequests` answers `retry-after: 0`) after a floor that doubles (BUSY_FLOOR_S, 2x, 4x ...,
with jitter), so runs that collide spread out instead of spinning. A busy answer does not use up
`retries`: it is retried while the wait fits in the time left (at most BUSY_RETRIES times). Never retried:
- other 4xx (400, 401, 403, 404, 413, 422): configuration errors or the request's shape; they are
  raised unchanged for the caller to adapt to or explain;
- a 429 for a spent day quota (`x-ratelimit-type: ...ByDay`, GitHub Models) or with a Retry-After
  longer than MAX_RATE_WAIT_S or than the time left: waiting it out would hold the run for hours;
- an answer marked `x-should-retry: false`.
A spent day quota is remembered for the rest of the process (per endpoint and model), so the other
PRs of an `all-open` run or a digest do not ask again. So is a silent endpoint: after SILENT_LIMIT
requests in a row that ended without an HTTP answer (the last attempt stuck until the bound, or no
connection), the endpoint is not asked for SILENT_PAUSE_S, then one request probes it again; an
`all-open` run or a digest over a stuck endpoint then costs two bounds, not one per PR.
Each attempt may use all the time left, but connecting at most CONNECT_TIMEOUT_S, so an unreachable
host fails in seconds. The openai client itself is built with max_retries=0 (client.py).

Pace (the model's published limits, analyze/limits.py): at most `concurrent` requests of this process are
in flight per endpoint and model (the digest's workers wait for a slot, inside their bound), and at most
`per_minute` start in any 60 s; a request that could not start within the bound gives up as "deadline".
"""

from __future__ import annotations

import contextlib
import email.utils
import logging
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import openai

log = logging.getLogger("readworthy.analyze.attempts")

CONNECT_TIMEOUT_S = 10.0
MAX_RATE_WAIT_S = 60.0  # a Retry-After beyond this is a quota, not a blip: fall back now
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)
MIN_ATTEMPT_S = 0.2  # less time than this left: another attempt could not finish
BUSY_FLOOR_S = 1.0  # the least wait after a 429 that asks for none (a concurrency limit): never a busy loop
BUSY_CAP_S = 8.0
BUSY_RETRIES = 12
MINUTE_S = 60.0
_RETRIED_STATUS = frozenset({408, 409, 429})
# (base URL, model) -> monotonic time until which the day quota is known to be spent
_spent_quota: dict[tuple[str, str], float] = {}
_spent_lock = threading.Lock()
SILENT_LIMIT = 2
SILENT_PAUSE_S = 300.0
# base URL -> (silent requests in a row, monotonic time of the last one)
_silent: dict[str, tuple[int, float]] = {}


# (base URL, model) -> the slots of requests in flight, and the start times of the last minute's requests
_slots: dict[tuple[str, str], threading.BoundedSemaphore] = {}
_starts: dict[tuple[str, str], deque[float]] = {}


def forget_endpoints() -> None:
    """Forget spent quotas, silent endpoints and paced requests: what a new process starts with (tests and
    benches run many runs in one process)."""
    with _spent_lock:
        _spent_quota.clear()
        _silent.clear()
        _slots.clear()
        _starts.clear()


@dataclass(frozen=True)
class Pace:
    """How many requests to one model may be in flight at once and start per minute (None: no limit)."""

    concurrent: int | None = None
    per_minute: int | None = None


class Deadline:
    """A wall-clock bound, read with a monotonic clock."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self._end - time.monotonic())


@dataclass
class GaveUp(Exception):
    """No usable answer within the rules above. `why` is one of:
    "exhausted" (retries used up), "deadline" (the bound ran out), "day-quota", "long-wait",
    "silent" (the endpoint gave no answer to the last SILENT_LIMIT requests; `wait` is the pause left)."""

    why: str
    error: openai.APIError | None
    attempts: int
    wait: float | None = None  # the Retry-After that was not waited, in seconds

    @property
    def limit_type(self) -> str:
        """The answer's `x-ratelimit-type` (GitHub Models: UserByModelByDay, UserByMinute ...), if any."""
        if isinstance(self.error, openai.APIStatusError):
            return str(_headers(self.error).get("x-ratelimit-type", ""))
        return ""


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds the server asks us to wait (Retry-After-Ms, Retry-After in seconds or as an HTTP date)."""
    if not headers:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            parsed = email.utils.parsedate_tz(value) if divisor == 1.0 else None
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds):
            return max(0.0, seconds)
        return math.inf
    return None


def is_day_quota(headers: Mapping[str, str] | None) -> bool:
    """GitHub Models' spent daily quota: `x-ratelimit-type: UserByModelByDay` (and its kin)."""
    kind = (headers or {}).get("x-ratelimit-type", "")
    return "byday" in kind.replace("-", "").replace("_", "").lower()


def _headers(exc: openai.APIStatusError) -> Mapping[str, str]:
    try:
        return exc.response.headers
    except AttributeError:
        return {}


def _attempt_timeout(left: float) -> openai.Timeout:
    return openai.Timeout(left, connect=min(CONNECT_TIMEOUT_S, left))


def send(
    client: openai.OpenAI,
    kwargs: dict[str, Any],
    deadline: Deadline,
    retries: int,
    on_attempt: Callable[[], None],
    pace: Pace | None = None,
) -> Any:
    """The chat completion for `kwargs`, or GaveUp / the endpoint's own 4xx error (see the module doc)."""
    quota_key = (str(client.base_url), str(kwargs.get("model", "")))
    with _spent_lock:
        until = _spent_quota.get(quota_key, 0.0)
    if until > time.monotonic():  # an earlier PR of this run met the spent quota: do not ask again
        raise GaveUp("day-quota", None, 0, until - time.monotonic())
    endpoint_key = str(client.base_url)
    paused = _silent_pause_left(endpoint_key)
    if paused > 0:  # earlier PRs of this run waited in vain: do not wait again
        raise GaveUp("silent", None, 0, paused)
    try:
        response = _send_with_retries(client, kwargs, deadline, retries, on_attempt, quota_key, pace or Pace())
    except openai.APIStatusError:
        _note_silence(endpoint_key, heard=True)  # any HTTP answer, even an error, shows it is alive
        raise
    except GaveUp as gave_up:
        if gave_up.attempts:  # not when the bound was spent before any request
            _note_silence(endpoint_key, heard=isinstance(gave_up.error, openai.APIStatusError))
        raise
    _note_silence(endpoint_key, heard=True)
    return response


def _silent_pause_left(key: str) -> float:
    with _spent_lock:
        count, last = _silent.get(key, (0, 0.0))
    return max(0.0, last + SILENT_PAUSE_S - time.monotonic()) if count >= SILENT_LIMIT else 0.0


def _note_silence(key: str, heard: bool) -> None:
    with _spent_lock:
        if heard:
            _silent.pop(key, None)
        else:
            count, _ = _silent.get(key, (0, 0.0))
            _silent[key] = (count + 1, time.monotonic())


def _give_up_unless_it_fits(spent: bool, wait: float, last: openai.APIError | None, tries: int,
                            deadline: Deadline) -> None:
    """Before waiting `wait` for another attempt: give up when the retries are `spent`, or when the wait
    would leave the bound no room for that attempt."""
    if spent:
        raise GaveUp("exhausted", last, tries) from None
    if wait + MIN_ATTEMPT_S > deadline.left():
        raise GaveUp("deadline", last, tries, wait) from None


def _send_with_retries(
    client: openai.OpenAI,
    kwargs: dict[str, Any],
    deadline: Deadline,
    retries: int,
    on_attempt: Callable[[], None],
    quota_key: tuple[str, str],
    pace: Pace,
) -> Any:
    failures = 0
    busy = 0  # 429s that asked for no wait: retried on their own count, with a growing floor
    last: openai.APIError | None = None
    while True:
        left = deadline.left()
        if left < MIN_ATTEMPT_S:
            raise GaveUp("deadline", last, failures + busy)
        try:
            with _slot(quota_key, pace, deadline, last, failures + busy):
                on_attempt()
                return client.chat.completions.create(**kwargs, timeout=_attempt_timeout(deadline.left()))
        except openai.APIStatusError as exc:
            last = exc
            try:
                wait = _wait_for_status(exc, failures, deadline)
            except GaveUp as gave_up:
                if gave_up.why == "day-quota":
                    _remember_spent_quota(quota_key, gave_up.wait)
                gave_up.attempts += busy
                raise
            if wait is None:  # busy: wait out a floor that grows, and do not spend a retry on it
                busy += 1
                wait = _busy_wait(busy)
                _give_up_unless_it_fits(busy > BUSY_RETRIES, wait, last, failures + busy, deadline)
                log.info("model endpoint: %s (busy: %s); retrying in %.1fs", _short(last),
                         _headers(exc).get("x-ratelimit-type", "retry-after 0"), wait)
                time.sleep(wait)
                continue
        except openai.APITimeoutError as exc:
            last = exc
            if deadline.left() < MIN_ATTEMPT_S:
                raise GaveUp("deadline", exc, failures + 1) from None
            wait = _backoff(failures)
        except openai.APIConnectionError as exc:
            last = exc
            wait = _backoff(failures)
        failures += 1
        _give_up_unless_it_fits(failures > retries, wait, last, failures + busy, deadline)
        log.info("model endpoint: %s; attempt %d of %d in %.1fs", _short(last), failures + 1, retries + 1, wait)
        time.sleep(wait)


@contextlib.contextmanager
def _slot(key: tuple[str, str], pace: Pace, deadline: Deadline, last: openai.APIError | None,
          attempts: int) -> Iterator[None]:
    """Hold one of the model's concurrent slots, once the minute's pace allows another start."""
    slots = None
    if pace.concurrent:
        with _spent_lock:
            slots = _slots.setdefault(key, threading.BoundedSemaphore(pace.concurrent))
        if not slots.acquire(timeout=max(0.0, deadline.left() - MIN_ATTEMPT_S)):
            raise GaveUp("deadline", last, attempts)
    try:
        if pace.per_minute:
            _wait_for_the_minute(key, pace.per_minute, deadline, last, attempts)
        yield
    finally:
        if slots is not None:
            slots.release()


def _wait_for_the_minute(key: tuple[str, str], per_minute: int, deadline: Deadline,
                         last: openai.APIError | None, attempts: int) -> None:
    while True:
        with _spent_lock:
            starts = _starts.setdefault(key, deque())
            now = time.monotonic()
            while starts and starts[0] <= now - MINUTE_S:
                starts.popleft()
            if len(starts) < per_minute:
                starts.append(now)
                return
            wait = starts[0] + MINUTE_S - now
        if wait + MIN_ATTEMPT_S > deadline.left():
            raise GaveUp("long-wait", last, attempts, wait)
        log.info("model endpoint: %d requests started in the last minute (its limit); next in %.1fs", per_minute, wait)
        time.sleep(wait)


def _remember_spent_quota(key: tuple[str, str], wait: float | None) -> None:
    seconds = wait if wait is not None and math.isfinite(wait) else 3_600.0
    with _spent_lock:
        _spent_quota[key] = time.monotonic() + seconds


def _wait_for_status(exc: openai.APIStatusError, failures: int, deadline: Deadline) -> float | None:
    """How long to wait before retrying this answer (None: busy, see _busy_wait); raises when it must not be
    retried."""
    headers = _headers(exc)
    status = exc.status_code
    if status not in _RETRIED_STATUS and status < 500:
        raise exc  # a configuration error or the request's shape: the caller adapts or explains
    if headers.get("x-should-retry", "").lower() == "false":
        raise GaveUp("exhausted", exc, failures + 1) from None
    asked = retry_after(headers)
    if status == 429:
        if is_day_quota(headers):
            raise GaveUp("day-quota", exc, failures + 1, asked) from None
        if asked is not None and (asked > MAX_RATE_WAIT_S or asked + MIN_ATTEMPT_S > deadline.left()):
            raise GaveUp("long-wait", exc, failures + 1, asked) from None
        if asked == 0.0 or "concurrent" in headers.get("x-ratelimit-type", "").lower():
            return None  # busy (`retry-after: 0`), not rate limited: the caller waits a growing floor
    if asked is not None and asked <= MAX_RATE_WAIT_S:
        return asked + random.uniform(0.0, min(1.0, 0.1 * asked))  # never before it; spread a little
    return _backoff(failures)


def _busy_wait(busy: int) -> float:
    """BUSY_FLOOR_S, doubling per busy answer up to BUSY_CAP_S, plus up to half again of jitter."""
    return min(BUSY_CAP_S, BUSY_FLOOR_S * float(2 ** (busy - 1))) * (1 + 0.5 * random.random())


def _backoff(failures: int) -> float:
    """Exponential, with up to 25% taken off so that many runs retrying together spread out."""
    return BACKOFF_S[min(failures, len(BACKOFF_S) - 1)] * (1 - 0.25 * random.random())


def _short(exc: openai.APIError | None) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__ if exc is not None else "no answer"
