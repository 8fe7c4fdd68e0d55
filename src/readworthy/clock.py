"""The current time and waiting, from one place, so that a replay of a whole day (bench/day.py) or a test
can drive them in seconds instead of living through them.

    clock.now()          an aware UTC datetime
    clock.sleep(s)       wait s seconds
    with clock.driven(now_fn, sleep_fn): ...   both replaced inside the block (a replay's clock)

Only the decisions that depend on the day use it: the repository's model budget (which UTC day a call
counts against, when a spent quota resets), the per-PR daily cap and the catch-up run's pacing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

_now: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731
_sleep: Callable[[float], None] = time.sleep


def now() -> datetime:
    return _now()


def sleep(seconds: float) -> None:
    if seconds > 0:
        _sleep(seconds)


@contextmanager
def driven(now_fn: Callable[[], datetime], sleep_fn: Callable[[float], None]) -> Iterator[None]:
    global _now, _sleep
    saved = _now, _sleep
    _now, _sleep = now_fn, sleep_fn
    try:
        yield
    finally:
        _now, _sleep = saved
