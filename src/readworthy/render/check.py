"""Report -> the check run's output: a title, the reading guide as its summary, and start-here marks. Pure.

The check run (check_run.py writes it) puts the guide where reviewers read: the PR's checks list shows its
title — the verdict and the headline —, its page shows the summary (the comment's Markdown, links
included), and its annotations mark the diff itself, at `notice` level, on the lines where to start
reading and where each key decision lives. Annotations notify nobody; their messages are plain text,
one line each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import LANGUAGES
from ..models import Location, Report
from . import safe_markdown as sm
from .comment import render_markdown, verdict_emoji, verdict_word
from .links import Linker

TITLE_LIMIT = 200
MESSAGE_LIMIT = 300
SUMMARY_LIMIT = 65_000  # the Checks API takes 65,535 characters

_WORDS = {
    "en": {"start": "readworthy: start reading here", "decision": "readworthy: key decision {n}",
           "start_message": "{verdict} — start reading here ({i} of {n}): {ref}",
           "decision_message": "key decision {n}: {title}", "also": " · ", "list_sep": ", "},
    "zh-CN": {"start": "readworthy：从这里读起", "decision": "readworthy：关键设计 {n}",
              "start_message": "{verdict} — 从这里读起（第 {i} 处，共 {n} 处）：{ref}",
              "decision_message": "关键设计 {n}：{title}", "also": " · ", "list_sep": "、"},
}


@dataclass(frozen=True)
class Mark:
    """One annotation: a line of the PR's head where the reader should look, and why."""

    path: str
    line: int
    title: str
    message: str

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "start_line": self.line, "end_line": self.line, "annotation_level": "notice",
                "title": self.title, "message": self.message}


@dataclass(frozen=True)
class CheckOutput:
    title: str
    summary: str
    marks: tuple[Mark, ...] = ()


def _plain(text: str, limit: int) -> str:
    """One line of plain text (titles and annotation messages are not Markdown)."""
    return " ".join(sm.strip_invisible(text or "").split())[:limit].strip()


def check_title(report: Report) -> str:
    """"📖 Worth close reading — what the PR does": the verdict that counts (the team's, when given)."""
    lang = report.language if report.language in LANGUAGES else "en"
    headline = _plain(report.digest.headline or report.title, TITLE_LIMIT)
    word = verdict_word(report.verdict, lang)
    return _plain(f"{verdict_emoji(report.verdict)} {word} — {headline}" if headline else word, TITLE_LIMIT)


@dataclass
class _Spot:
    loc: Location
    start: tuple[int, str] | None = None  # (its place in the reading order, the reference)
    decisions: list[tuple[int, str]] = field(default_factory=list)  # (number, title)


def start_here_marks(report: Report, limit: int) -> list[Mark]:
    """At most `limit` marks: the first place to start reading, then the line each key decision lives in,
    then the other start-reading places. What falls on one line is said in one message."""
    if limit <= 0:
        return []
    lang = report.language if report.language in LANGUAGES else "en"
    words = _WORDS[lang]
    linker = Linker.of(report)
    starts = [(ref, loc) for ref in report.digest.start_reading if (loc := _line(linker, ref))]
    decisions: list[tuple[int, str, Location]] = []
    for n, decision in enumerate(report.digest.decisions, 1):
        placed = [loc for ref in decision.references if (loc := _line(linker, ref))]
        placed.sort(key=lambda loc: "::" not in loc.ref)  # where it lives: the definition rather than the file
        if placed:
            decisions.append((n, decision.title, placed[0]))
    spots: dict[tuple[str, int], _Spot] = {}

    def spot(loc: Location) -> _Spot | None:
        key = (loc.path, loc.diff_line)
        if key not in spots and len(spots) < limit:
            spots[key] = _Spot(loc)
        return spots.get(key)

    for i, (ref, loc) in enumerate(starts[:1], 1):
        if (found := spot(loc)) is not None:
            found.start = (i, ref)
    for n, title, loc in decisions:
        if (found := spot(loc)) is not None:
            found.decisions.append((n, title))
    for i, (ref, loc) in enumerate(starts[1:], 2):
        if (found := spot(loc)) is not None and found.start is None:
            found.start = (i, ref)
    return [_mark(s, words, verdict_word(report.verdict, lang), len(starts)) for s in spots.values()]


def _mark(s: _Spot, words: dict[str, str], verdict: str, starts: int) -> Mark:
    parts = []
    if s.start is not None:
        parts.append(words["start_message"].format(verdict=verdict, i=s.start[0], n=starts, ref=s.start[1].strip("`")))
    if s.decisions:
        numbers = words["list_sep"].join(str(n) for n, _ in s.decisions)
        parts.append(words["decision_message"].format(n=numbers, title=s.decisions[0][1]))
    title = words["start"] if s.start is not None else words["decision"].format(n=s.decisions[0][0])
    message = words["also"].join(parts)
    text = _clip(message[:1].upper() + message[1:], MESSAGE_LIMIT)
    return Mark(s.loc.path, s.loc.diff_line, _plain(title, 120), text)


def _clip(text: str, limit: int) -> str:
    text = _plain(text, 10 * limit)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _line(linker: Linker, ref: str) -> Location | None:
    loc = linker.location(ref)
    return loc if loc is not None and loc.start > 0 and not loc.removed else None


def check_output(report: Report, annotations: int = 5) -> CheckOutput:
    """The check run's title, summary (the reading guide) and at most `annotations` start-here marks."""
    summary = render_markdown(report)
    if len(summary) > SUMMARY_LIMIT:  # render_markdown's own ladder keeps it under 65,000 already
        summary = summary[: summary.rfind("\n", 0, SUMMARY_LIMIT)] + "\n"
    return CheckOutput(check_title(report), summary, tuple(start_here_marks(report, annotations)))
