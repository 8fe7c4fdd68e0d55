"""DigestResult -> Markdown reading list (and the same as JSON). Pure.

Every piece of PR-derived or model-written text goes through `safe_markdown` here, before
the template (`templates/{en,zh-CN}/digest.md.j2`) places it: templates only see safe strings.
Entries get shorter with their verdict (deep-read: up to three decisions; skim: two; skip:
one line); deep-reads and skims also say who should read them, the review debate and the open
follow-ups, and every file, symbol and test is a link to its lines at the PR's head (from the
locations kept in the stored Report). A digest must fit GitHub's 65,536-character issue/discussion
body, so rendering steps down a ladder - shorter skip lines, then shorter skims, then shorter
deep-reads - and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from .. import __version__
from ..config import LANGUAGES
from ..models import Verdict
from ..notes import localize
from ..render import safe_markdown as sm
from ..render.comment import host_of, linked_reference, strings, template_environment, verdict_emoji, verdict_word
from ..render.links import Linker
from .agreement import agreement
from .models import DigestEntry, DigestResult, LeftOut, common_reason

BODY_LIMIT = 65_000  # GitHub refuses bodies above 65,536 characters; headroom for the hidden marker
DIGEST_MARKER = "<!-- readworthy-digest:"
DECISIONS = {Verdict.DEEP_READ: 3, Verdict.SKIM: 2, Verdict.SKIP: 1}
MAX_ALONGSIDE = 3

LEFT_OUT_WORDS = {
    "en": {
        "max-prs": "not analysed: the per-run PR limit was reached",
        "max-cost": "not analysed: the cost cap was reached",
        "rate-limit": "not analysed yet: GitHub's hourly request budget ran low; the next run picks it up",
        "not-cached": "no stored analysis yet",
        "failed": "analysis failed",
        "skipped-rule": "skipped by the repository's rules",
        "not-found": "not found",
    },
    "zh-CN": {
        "max-prs": "未分析：已达到单次运行的 PR 数量上限",
        "max-cost": "未分析：已达到费用上限",
        "rate-limit": "暂未分析：GitHub 每小时的请求额度即将用完，下次运行会接着处理",
        "not-cached": "尚无已保存的分析",
        "failed": "分析失败",
        "skipped-rule": "按仓库规则跳过",
        "not-found": "未找到",
    },
}


@dataclass(frozen=True)
class _Detail:
    """How full each kind of entry is. Each step down the ladder shortens the least valuable entries first:
    skip lines, then skims, then deep-reads."""

    skip_reason: int = 400  # characters of a skip line's reason (0: none)
    skim_decisions: int = DECISIONS[Verdict.SKIM]
    skim_extras: bool = True  # who should read, the debate, the follow-ups
    skim_paragraph: bool = True
    deep_decisions: int = DECISIONS[Verdict.DEEP_READ]
    deep_extras: bool = True
    deep_alongside: bool = True
    deep_paragraph: bool = True
    left_out_listed: bool = True
    reason_limit: int = 400
    links: bool = True  # links to the lines at each PR's head (render/links.py)


_LADDER = [
    _Detail(),
    _Detail(skip_reason=140),
    _Detail(skip_reason=0),
    _Detail(skip_reason=0, skim_decisions=1, skim_extras=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False, deep_decisions=2,
            deep_extras=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False, deep_decisions=1,
            deep_extras=False, deep_alongside=False, left_out_listed=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False, deep_decisions=1,
            deep_extras=False, deep_alongside=False, left_out_listed=False, links=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False, deep_decisions=0,
            deep_extras=False, deep_alongside=False, deep_paragraph=False, left_out_listed=False, links=False),
    _Detail(skip_reason=0, skim_decisions=0, skim_extras=False, skim_paragraph=False, deep_decisions=0,
            deep_extras=False, deep_alongside=False, deep_paragraph=False, left_out_listed=False,
            reason_limit=140, links=False),
]
MAX_AUDIENCE = 3
MAX_OPEN = 2
DEBATE_LIMIT = 240
OPEN_LIMIT = 200


def _safe_url(url: str, host: str) -> str:
    """Links come from GitHub's API, but still: only http(s) on the repository's own host."""
    parts = urlsplit(url or "")
    if parts.scheme in ("http", "https") and (parts.hostname or "") == host:
        return url.replace(" ", "%20").replace(")", "%29").replace("(", "%28")
    return ""


def _link(number: int, url: str, host: str) -> str:
    safe = _safe_url(url, host)
    return f"[#{number}]({safe})" if safe else f"#{number}"


def short_ref(ref: str) -> str:
    """`vllm/v1/kv_cache_layout.py::KVCacheLayout` -> `kv_cache_layout.py::KVCacheLayout`: a digest names
    the symbol and its file, the PR comment keeps the full path. Plain paths stay whole (they are
    what you open)."""
    ref = ref.strip().strip("`")
    path, sep, symbol = ref.partition("::")
    if sep and "/" in path:
        return f"{path.rsplit('/', 1)[1]}::{symbol}"
    return ref


def _ref(raw: str, linker: Linker, host: str, *, start_here: bool = False) -> str:
    """A reference as the digest shows it (`short_ref`), linked to its lines at the PR's head."""
    return linked_reference(raw, linker, host, start_here=start_here, shown=short_ref(raw))


def _decisions(entry: DigestEntry, count: int, host: str, shown: set[str], linker: Linker) -> list[dict[str, str]]:
    out = []
    for d in entry.report.digest.decisions[:count]:
        refs = []
        for raw in d.references:
            ref = short_ref(raw)
            # "New code in `a.py`" followed by `pkg/a.py` says the same thing twice.
            if ref in shown or ("::" not in ref and ref.rsplit("/", 1)[-1] in d.title):
                continue
            shown.add(ref)
            refs.append(_ref(raw, linker, host))
            if len(refs) == 2:
                break
        out.append({"title": sm.inline(d.title, 160, host), "refs": ", ".join(r for r in refs if r)})
    return out


def _is_test(ref: str) -> bool:
    path = ref.partition("::")[0]
    name = path.rsplit("/", 1)[-1]
    return "test" in name or "/tests/" in f"/{path}" or ref.partition("::")[2].startswith("test")


def _alongside(entry: DigestEntry, host: str, sep: str, shown: set[str], linker: Linker) -> str:
    """What to read alongside, tests first: where to start reading and the decisions' tests the entry did not
    name yet, then related items. Each opens the PR's Files changed tab at its line."""
    digest = entry.report.digest
    pool = [*digest.start_reading, *(r for d in digest.decisions for r in d.references if _is_test(r))]
    pool = sorted(dict.fromkeys(pool), key=lambda r: not _is_test(r))
    items = []
    for raw in pool:
        ref = short_ref(raw)
        if ref not in shown:
            shown.add(ref)
            items.append(_ref(raw, linker, host, start_here=True))
        if len(items) == MAX_ALONGSIDE:
            break
    related = sorted({n for n in digest.related if 0 < n < 10**9})[:MAX_ALONGSIDE]
    items += [f"#{n}" for n in related]
    return sep.join(i for i in items if i)


def _extras(entry: DigestEntry, host: str, sep: str) -> dict[str, str]:
    """Who should read it, the review debate in one line, the open follow-ups: what the team's own digest
    says of every PR."""
    digest = entry.report.digest
    audience = [sm.inline(a, 120, host) for a in digest.audience[:MAX_AUDIENCE]]
    open_items = [sm.inline(x, OPEN_LIMIT, host) for x in digest.open_items[:MAX_OPEN]]
    more = len(digest.open_items) - MAX_OPEN
    return {
        "audience": sep.join(a for a in audience if a),
        "debate": sm.inline(digest.discussion, DEBATE_LIMIT, host),
        "open": " · ".join(x for x in open_items if x) + (f" (+{more})" if more > 0 else ""),
    }


def _entry_view(entry: DigestEntry, detail: _Detail, lang: str) -> dict[str, Any]:
    report = entry.report
    cand = entry.candidate
    host = host_of(cand.url or report.url)
    verdict = report.verdict
    text = strings(lang)
    linker = Linker.of(report) if detail.links else Linker()
    reason_limit = detail.reason_limit
    if verdict is Verdict.DEEP_READ:
        n_decisions, paragraph, alongside = detail.deep_decisions, detail.deep_paragraph, detail.deep_alongside
        extras = detail.deep_extras
    elif verdict is Verdict.SKIM:
        n_decisions, paragraph, alongside = detail.skim_decisions, detail.skim_paragraph, detail.skim_paragraph
        extras = detail.skim_extras
    else:
        n_decisions, paragraph, alongside, extras = 0, False, False, False
        reason_limit = min(reason_limit, detail.skip_reason)
    when = cand.merged_at or cand.created_at
    shown: set[str] = set()
    empty = {"audience": "", "debate": "", "open": ""}
    return {
        "link": _link(cand.number, cand.url or report.url, host),
        "title": sm.inline(cand.title or report.title, 160, host),
        "headline": sm.inline(report.digest.headline, 200, host) or sm.inline(cand.title, 160, host),
        "reason": sm.inline(report.digest.reason, reason_limit, host) if reason_limit else "",
        "author": sm.inline(cand.author, 60, host),
        "when": when.strftime("%Y-%m-%d") if when else "",
        "merged": cand.merged,
        "decisions": _decisions(entry, n_decisions, host, shown, linker),
        "alongside": _alongside(entry, host, text["list_sep"], shown, linker) if alongside else "",
        **(_extras(entry, host, text["list_sep"]) if extras and paragraph else empty),
        "paragraph": paragraph,
        "heuristic": report.analyzer == "heuristic",
        "cached": entry.source == "cached",
        "team": AGREEMENT_WORDS[lang]["entry"].format(by=sm.inline(report.team.by, 60, host) or "?",
                                                      analysed=report.digest.verdict.value)
        if report.team is not None and report.team.verdict is not report.digest.verdict else "",
    }


def _left_out_view(item: LeftOut, lang: str, host: str) -> dict[str, str]:
    return {
        "link": _link(item.number, item.url, host),
        "title": sm.inline(item.title, 120, host),
        "why": LEFT_OUT_WORDS[lang][item.reason],
        # Only an error says more than the reason word; other details stay in the log and the JSON.
        "detail": sm.inline(item.detail, 200, host) if item.reason == "failed" else "",
    }


def _cost(usd: float) -> str:
    if usd <= 0:
        return "0"
    return f"{usd:.4f}" if usd < 0.01 else f"{usd:.2f}"


def marker(result: DigestResult) -> str:
    """The hidden line that marks a body as our digest and records its window (for 'since the last one')."""
    window = result.request.window
    end = window.end.strftime("%Y-%m-%dT%H:%M:%SZ") if window else ""
    repo = "".join(ch for ch in result.request.repo if ch.isalnum() or ch in "-_./")
    return f"{DIGEST_MARKER}v1 repo={repo} end={end or '_'} -->"


def _view(result: DigestResult, detail: _Detail, now: datetime) -> dict[str, Any]:
    lang = result.language if result.language in LANGUAGES else "en"
    ordered = result.ordered()
    groups = []
    for verdict in (Verdict.DEEP_READ, Verdict.SKIM, Verdict.SKIP):
        items = [_entry_view(e, detail, lang) for e in ordered if e.report.verdict is verdict]
        if items:
            groups.append({"verdict": verdict.value, "emoji": verdict_emoji(verdict),
                           "word": verdict_word(verdict, lang), "entries": items})
    counts = result.counts()
    host = host_of(next((e.candidate.url for e in ordered if e.candidate.url), ""))
    window = result.request.window
    banner = _banner_view(result, lang, host)
    models = sorted({e.report.model for e in result.entries if e.report.analyzer == "model" and e.report.model})
    return {
        "marker": marker(result),
        "repo": sm.inline(result.request.repo, 140, host),
        "window": window.describe() if window else "",
        "prs": ", ".join(f"#{n}" for n in result.request.prs[:30]) + (" …" if len(result.request.prs) > 30 else ""),
        "state": result.request.state,
        "considered": result.considered,
        "listed": len(result.entries),
        "counts": [{"emoji": verdict_emoji(v), "word": verdict_word(v, lang), "n": counts[v]} for v in counts],
        "groups": groups,
        "left_out": [_left_out_view(x, lang, host) for x in result.left_out if x.reason != "skipped-rule"]
        if detail.left_out_listed else [],
        "left_out_count": sum(1 for x in result.left_out if x.reason != "skipped-rule"),
        "skipped_by_rule": sum(1 for x in result.left_out if x.reason == "skipped-rule"),
        **banner,
        "cached": result.cached_count,
        "analysed": result.analysed_count,
        "model_calls": result.usage.model_calls,
        "tokens_in": f"{result.usage.prompt_tokens:,}",
        "tokens_out": f"{result.usage.completion_tokens:,}",
        "cost": _cost(result.usage.cost_usd),
        "models": ", ".join(sm.inline(m, 60, host) for m in models),
        "agreement": _agreement_view(result, lang),
        "shortened": detail != _LADDER[0],
        "generated": now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
    }


def _banner_view(result: DigestResult, lang: str, host: str) -> dict[str, Any]:
    """How many entries are the heuristic's, and why, told apart: no model at all; the model asked and
    failed (with the reason); the model not asked (a cap, `model-for`, a missing key; with the reason)."""
    heuristic = [e.report for e in result.entries if e.report.analyzer == "heuristic"]
    failed = [r for r in heuristic if r.fallback_reason and r.model]
    not_asked = [r for r in heuristic if r not in failed and (r.model_withheld or r.fallback_reason)]

    def reason(reports: list[Any], attr: str) -> str:
        why = common_reason([(r.number, getattr(r, attr) or r.fallback_reason) for r in reports])
        return sm.inline(localize(why, lang), 400, host)

    return {
        "heuristic": len(heuristic) - len(failed) - len(not_asked),
        "model_failed": len(failed),
        "failed_reason": reason(failed, "fallback_reason") if failed else "",
        "not_asked": len(not_asked),
        "not_asked_reason": reason(not_asked, "model_withheld") if not_asked else "",
        "failed_analyses": len(result.model_failures),
    }


AGREEMENT_WORDS = {
    "en": {"move": "{n} {analysed} → {team}", "kind": "{kind} ({n})",
           "entry": "the team's verdict, given by {by}; readworthy said {analysed}"},
    "zh-CN": {"move": "{n} 个 {analysed} → {team}", "kind": "{kind}（{n}）",
              "entry": "团队的判定，由 {by} 给出；自动分析判为 {analysed}"},
}


def _agreement_view(result: DigestResult, lang: str) -> dict[str, Any] | None:
    """How often the team corrected readworthy in this window (digest/agreement.py); None when it never
    gave a verdict here."""
    found = agreement(result.entries, lang)
    if not found.judged:
        return None
    words = AGREEMENT_WORDS[lang]
    sep = strings(lang)["list_sep"]
    return {
        "verdicts": found.verdicts,
        "judged": found.judged,
        "corrected": found.corrected,
        "confirmed": found.confirmed,
        "moves": sep.join(words["move"].format(n=n, analysed=a.value, team=b.value) for a, b, n in found.moves),
        "kinds": sep.join(words["kind"].format(kind=kind, n=n) for kind, n in found.kinds),
    }


def render_digest(result: DigestResult, now: datetime | None = None, limit: int = BODY_LIMIT) -> str:
    """The reading list as Markdown, hidden marker first, within GitHub's body limit."""
    lang = result.language if result.language in LANGUAGES else "en"
    template = template_environment().get_template(f"{lang}/digest.md.j2")
    moment = now or datetime.now(UTC)
    body = ""
    for detail in _LADDER:
        body = sm.guard_lines(template.render(**_view(result, detail, moment)).strip()) + "\n"
        if len(body) <= limit:
            return body
    # Still too long (thousands of PRs): cut at a line boundary and say so.
    cut = body[: limit - 300]
    note = ("_…为符合 GitHub 的长度上限，清单在此截断；完整清单见 JSON 输出。_" if lang == "zh-CN"
            else "_… cut here to fit GitHub's 65,536-character limit; the JSON output has the whole list._")
    return cut[: cut.rfind("\n")] + "\n\n" + note + "\n"


def digest_to_json(result: DigestResult) -> str:
    """A machine-readable reading list for a chat-ops bot or a feed job. Text is raw (not Markdown)."""
    window = result.request.window
    data = {
        "repo": result.request.repo,
        "language": result.language,
        "window": {"start": window.start.isoformat(), "end": window.end.isoformat()} if window else None,
        "prs": list(result.request.prs),
        "state": result.request.state,
        "considered": result.considered,
        "counts": {v.value: n for v, n in result.counts().items()},
        "entries": [_entry_json(e) for e in result.ordered()],
        "left_out": [
            {"number": x.number, "title": x.title, "url": x.url, "reason": x.reason, "detail": x.detail}
            for x in result.left_out
        ],
        "usage": result.usage.model_dump(mode="json"),
        "cached": result.cached_count,
        "analysed": result.analysed_count,
        "published_url": result.published_url,
        "warnings": result.warnings,
    }
    return json.dumps(data, ensure_ascii=False, indent=2)


def _entry_json(entry: DigestEntry) -> dict[str, Any]:
    cand, report = entry.candidate, entry.report
    return {
        "number": cand.number,
        "title": cand.title,
        "url": cand.url,
        "author": cand.author,
        "merged_at": cand.merged_at.isoformat() if cand.merged_at else None,
        "verdict": report.verdict.value,
        "analysed_verdict": report.digest.verdict.value,
        "team": report.team.model_dump(mode="json", exclude={"profile"}) if report.team else None,
        "headline": report.digest.headline,
        "reason": report.digest.reason,
        "decisions": [d.model_dump(mode="json") for d in report.digest.decisions],
        "start_reading": report.digest.start_reading,
        "related": report.digest.related,
        "source": entry.source,
        "analyzer": report.analyzer,
        "model": report.model,
        "head_sha": report.head_sha,
        "comment_url": entry.comment_url,
    }
