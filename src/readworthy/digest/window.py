"""The digest's time window: `--since 24h` or `--from DATE --to DATE`, resolved to UTC instants.

Pure: the caller passes "now", so tests and the matrix backfill (whose jobs start at
different times) resolve the same window to the same instants.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from ..errors import ConfigError

_SINCE = re.compile(r"^\s*(\d+)\s*([mhdw])\s*$", re.IGNORECASE)
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# A digest reads stored analyses and may analyse the rest: a year is already a large backfill.
MAX_WINDOW = timedelta(days=366)


@dataclass(frozen=True)
class Window:
    """Half-open interval [start, end) in UTC."""

    start: datetime
    end: datetime

    def contains(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= _as_utc(moment) < self.end

    def describe(self) -> str:
        """`2026-06-01 09:00 – 2026-06-02 09:00 UTC`: the header's wording, language-neutral."""
        fmt = "%Y-%m-%d %H:%M"
        return f"{self.start.strftime(fmt)} – {self.end.strftime(fmt)} UTC"


def _as_utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_since(text: str, now: datetime) -> Window:
    """`90m`, `24h`, `7d`, `2w` -> the window ending now."""
    match = _SINCE.match(text or "")
    if match is None:
        raise ConfigError(f"--since {text!r}: expected a number and a unit, e.g. 24h, 7d, 90m or 2w")
    amount, unit = int(match.group(1)), match.group(2).lower()
    span = timedelta(**{_UNITS[unit]: amount})
    if span <= timedelta(0):
        raise ConfigError(f"--since {text!r}: the window must be longer than zero")
    if span > MAX_WINDOW:
        raise ConfigError(f"--since {text!r}: at most 366 days; use --from/--to and a matrix backfill")
    end = _as_utc(now)
    return Window(end - span, end)


def parse_moment(text: str, *, end_of_day: bool) -> datetime:
    """A date (`2026-06-01`) or an ISO timestamp. A bare date as `--to` includes that whole day."""
    value = (text or "").strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return start + timedelta(days=1) if end_of_day else start
        return _as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        raise ConfigError(
            f"{value!r} is not a date: use YYYY-MM-DD or an ISO timestamp such as 2026-06-01T09:00:00Z"
        ) from None


def parse_range(start: str, end: str | None, now: datetime) -> Window:
    """`--from DATE [--to DATE]`; without --to the window ends now."""
    begin = parse_moment(start, end_of_day=False)
    finish = parse_moment(end, end_of_day=True) if end else _as_utc(now)
    if finish <= begin:
        raise ConfigError(f"--from {start} is not before --to {end or 'now'}")
    if finish - begin > MAX_WINDOW:
        raise ConfigError("the window is longer than 366 days; split the backfill into several runs")
    return Window(begin, finish)


def parse_github_time(value: object) -> datetime | None:
    """PyGithub gives datetimes; raw JSON gives ISO strings. Either -> aware UTC, or None."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return _as_utc(value)
    try:
        return _as_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
    except ValueError:
        return None
