"""Report -> Markdown comment. Pure: no I/O beyond reading the package's own templates.

Wording lives in `templates/{language}/` (comment.md.j2 + strings.json). Every piece of
untrusted text (the model's answer, PR paths and titles) goes through `safe_markdown`
*before* it reaches a template, so templates only ever place safe strings.

A comment must fit GitHub's 65,536-character limit. Hostile input can make escaped
text several times longer than its source, so rendering steps down a ladder of
detail levels, dropping the least important parts first and saying what was left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import jinja2

from ..config import LANGUAGES
from ..models import Report, Verdict
from ..notes import localize
from . import safe_markdown as sm
from .links import Linker
from .state import encode_state

# GitHub refuses bodies above 65,536 characters; keep headroom for a trim note added later.
COMMENT_LIMIT = 65_536
TARGET_LIMIT = 65_000
EMOJI = {Verdict.DEEP_READ: "📖", Verdict.SKIM: "👀", Verdict.SKIP: "⏭️"}
MAX_OMITTED_NAMES = 10
# What a linked reference may spell: one name, nothing a Markdown or HTML reader could act on.
_LINKABLE = re.compile(r"(?!.*www\.)[^\s<>`\\]{1,200}")

# Field limits (characters of source text) — the Digest schema bounds a validated answer,
# these bound whatever reaches the renderer.
_LIMITS = {
    "headline": 200,
    "reason": 400,
    "fallback": 600,  # why the model was not used, and what to set: both must survive
    "audience": 300,
    "title": 160,
    "explanation": 900,
    "reference": 200,
    "discussion": 900,
    "finding": 300,
    "open": 300,
}


@dataclass(frozen=True)
class _Detail:
    """What a rendering includes; each step down the ladder removes one more part."""

    omitted: bool = True
    notes: bool = True
    related: bool = True
    linked: bool = True
    open: bool = True
    discussion: bool = True
    explanations: bool = True
    reading: bool = True
    links: bool = True  # links to the lines at the head commit (render/links.py)


_LADDER: list[tuple[_Detail, list[str]]] = [
    (_Detail(), []),
    (_Detail(omitted=False, notes=False), ["omitted", "notes"]),
    (_Detail(omitted=False, notes=False, related=False, linked=False), ["omitted", "notes", "related", "linked"]),
    (
        _Detail(omitted=False, notes=False, related=False, linked=False, open=False, discussion=False),
        ["omitted", "notes", "related", "linked", "open", "discussion"],
    ),
    (
        _Detail(False, False, False, False, False, False, links=False),
        ["omitted", "notes", "related", "linked", "open", "discussion", "links"],
    ),
    (
        _Detail(False, False, False, False, False, False, explanations=False, links=False),
        ["omitted", "notes", "related", "linked", "open", "discussion", "links", "explanations"],
    ),
    (
        _Detail(False, False, False, False, False, False, False, reading=False, links=False),
        ["omitted", "notes", "related", "linked", "open", "discussion", "links", "explanations", "reading"],
    ),
]


def _language(report: Report) -> str:
    return report.language if report.language in LANGUAGES else "en"


@cache
def template_environment() -> jinja2.Environment:
    """The one Jinja2 environment for comment and digest templates (templates/{en,zh-CN}/)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("readworthy.render", "templates"),
        autoescape=False,  # values are pre-escaped Markdown, not HTML
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


@cache
def strings(language: str) -> dict[str, Any]:
    """The small per-language strings table (verdict words, separators, part names)."""
    text = resources.files("readworthy.render").joinpath("templates", language, "strings.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def verdict_word(verdict: Verdict, language: str = "en") -> str:
    """`deep-read` -> "Worth close reading" / 值得精读 (for the digest and the CLI too)."""
    return str(strings(language if language in LANGUAGES else "en")["verdict"][verdict.value])


def verdict_emoji(verdict: Verdict) -> str:
    return EMOJI[verdict]


def repo_host(report: Report) -> str:
    """The host links may point to: the PR's own (github.com or the GHES host)."""
    return host_of(report.url)


def host_of(url: str) -> str:
    """The host of a GitHub URL, github.com when there is none."""
    return (urlsplit(url).hostname or "github.com") if url else "github.com"


def _omitted(report: Report, text: dict[str, Any]) -> str:
    return _path_list(report.coverage.omitted, text)


def _path_list(names: list[str], text: dict[str, Any]) -> str:
    shown = [sm.code(p, 120) for p in names[:MAX_OMITTED_NAMES]]
    shown = [s for s in shown if s]
    rest = len(names) - MAX_OMITTED_NAMES
    joined = str(text["list_sep"]).join(shown)
    if rest > 0:  # "a, b and 3 more" / "a、b 等 5 个文件"
        joined += " " + text["and_more"].format(n=rest, total=len(names))
    return joined


def linked_reference(ref: str, linker: Linker, host: str, *, start_here: bool = False,
                     shown: str | None = None) -> str:
    """A cited reference as safe Markdown: a code span linked to its lines at the head when the diff placed
    it (`start_here`: the Files changed tab at that line), else as `safe_markdown.reference` renders it.
    `shown` is the text to show instead of `ref` (the digest's shorter form)."""
    label_text = ref if shown is None else shown
    if linker.location(ref) is None or not _LINKABLE.fullmatch(label_text.strip().strip("`")):
        # A name with spaces, `<` or a `www.` is shown as prose, escaped, as before: never inside a link.
        return sm.reference(label_text, _LIMITS["reference"], host)
    label = sm.code(label_text.strip().strip("`") or label_text, _LIMITS["reference"])
    return linker.code(ref, label, start_here=start_here)


def _view(report: Report, detail: _Detail, trimmed: list[str], with_state: bool) -> dict[str, Any]:
    lang = _language(report)
    text = strings(lang)
    host = repo_host(report)
    digest = report.digest
    cov = report.coverage
    linker = Linker.of(report) if detail.links else Linker()

    def prose(value: str, limit_key: str) -> str:
        return sm.inline(value, _LIMITS[limit_key], host)

    decisions = []
    for d in digest.decisions[:4]:
        if not (d.title.strip() or (detail.explanations and d.explanation.strip())):
            continue  # an empty item would render as "1. ****", a thematic break
        refs = [linked_reference(r, linker, host) for r in d.references[:8]]
        decisions.append(
            {
                "title": prose(d.title, "title"),
                "explanation": prose(d.explanation, "explanation") if detail.explanations else "",
                "refs": text["list_sep"].join(r for r in refs if r),
            }
        )
    reading = [linked_reference(r, linker, host, start_here=True) for r in digest.start_reading[:6]]
    audience = [prose(a, "audience") for a in digest.audience[:6]]
    related = sorted({n for n in digest.related if isinstance(n, int) and 0 < n < 10**9})[:8]
    seen = cov.files_full + cov.files_partial
    return {
        "state": encode_state(report) if with_state else "",
        "emoji": verdict_emoji(report.verdict),
        "verdict_word": verdict_word(report.verdict, lang),
        "team": _team(report, lang, host),
        "taste": ", ".join(f"#{n}" for n in (report.taste.prs if report.taste else [])[:10] if 0 < n < 10**9),
        "taste_changed": bool(report.taste and report.taste.changed_from),
        "headline": prose(digest.headline, "headline") or prose(report.title, "headline"),
        "analyzer": report.analyzer,
        "fallback_reason": prose(localize(report.fallback_reason, lang), "fallback"),
        "model_withheld": prose(localize(report.model_withheld, lang), "fallback"),
        "run_from": report.run_from,
        "calls": report.usage.model_calls,
        "audience": text["list_sep"].join(a for a in audience if a) if detail.reading else "",
        "reason": prose(digest.reason, "reason"),
        "decisions": decisions,
        "start_reading": _reading_chain([r for r in reading if r], text) if detail.reading else "",
        "discussion": prose(digest.discussion, "discussion") if detail.discussion else "",
        "linked": _nonempty(prose(x, "finding") for x in digest.linked_issue_findings[:4]) if detail.linked else [],
        "open_items": _nonempty(prose(x, "open") for x in digest.open_items[:5]) if detail.open else [],
        "related": ", ".join(f"#{n}" for n in related) if detail.related else "",
        "trimmed": text["list_sep"].join(text["parts"][p] for p in trimmed),
        # never trimmed: a guide written from a fragment of the diff must say so
        "incomplete": _path_list(cov.incomplete_patches, text),
        "cov": {
            "files_total": cov.files_total,
            "files_seen": seen,
            "name_only": cov.files_name_only,
            "incomplete": len(cov.incomplete_patches),
            "omitted": _omitted(report, text) if detail.omitted and cov.omitted else "",
            "secrets": cov.secrets_redacted,
            "linked_issues": cov.linked_issues,
            "review_comments": cov.review_comments,
        },
        "notes": [prose(localize(n, lang), "finding") for n in cov.notes[:5]] if detail.notes else [],
        "model": sm.inline(report.model or "unknown", 80, host),
        "tokens_in": f"{report.usage.prompt_tokens:,}",
        "tokens_out": f"{report.usage.completion_tokens:,}",
        "cost": _cost(report.usage.cost_usd),
        "dropped": report.dropped_references,
        "head": sm.inline(report.head_sha[:7], 7, host),
        # issue 21: the analysis describes an earlier head (later pushes were not material), and/or a model
        # analysis is queued for the catch-up run
        "later_head": sm.code(report.later_head[:7], 7) if re.fullmatch(r"[0-9a-f]{7,40}", report.later_head) else "",
        "later_lines": report.later_lines,
        "queued": bool(report.queued),
    }


def _team(report: Report, lang: str, host: str) -> dict[str, Any] | None:
    """The team's verdict beside the analysed one, and the head it was given on."""
    team = report.team
    if team is None:
        return None
    return {
        "word": verdict_word(team.verdict, lang),
        "emoji": verdict_emoji(team.verdict),
        "by": sm.inline(team.by, 60, host) or "?",
        "reason": sm.inline(team.reason, 200, host),
        "head": sm.code(team.head_sha[:7], 7) if team.head_sha else "",
        "moved": bool(team.head_sha and report.head_sha and team.head_sha != report.head_sha),
        "same": team.verdict is report.digest.verdict,
        "analysed_word": verdict_word(report.digest.verdict, lang),
        "analysed_emoji": verdict_emoji(report.digest.verdict),
    }


def _reading_chain(places: list[str], text: dict[str, Any]) -> str:
    """Where to start, in order: "A, then B, then C"; in Chinese "A，然后依次是 B、C。" (one 再看 a place reads
    as a machine's)."""
    end = str(text.get("reading_end", "")) if places else ""
    if "reading_then" not in text or len(places) < 2:
        return str(text["then"]).join(places) + end
    return places[0] + str(text["reading_then"]) + str(text["list_sep"]).join(places[1:]) + end


def _nonempty(items: Iterable[str]) -> list[str]:
    return [item for item in items if item]


def _cost(usd: float) -> str:
    if usd <= 0:
        return "0"
    if usd < 0.001:
        return "0.001"  # "~$0.001" reads better than a long row of zeros
    return f"{usd:.3f}" if usd < 1 else f"{usd:.2f}"


def _render(report: Report, with_state: bool, limit: int) -> str:
    template = template_environment().get_template(f"{_language(report)}/comment.md.j2")
    body = ""
    for detail, trimmed in _LADDER:
        body = sm.guard_lines(template.render(**_view(report, detail, trimmed, with_state)).strip()) + "\n"
        if len(body) <= limit:
            return body
    return body  # still too long: publish.fit_comment makes the final, hard cut


def render_comment(report: Report, limit: int = TARGET_LIMIT) -> str:
    """The full comment: hidden state on the first line, then the reading guide."""
    return _render(report, with_state=True, limit=limit)


def render_markdown(report: Report) -> str:
    """The same Markdown without the hidden state: what the CLI prints and the job summary shows."""
    return _render(report, with_state=False, limit=TARGET_LIMIT)


render_terminal = render_markdown
