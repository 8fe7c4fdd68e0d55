"""Rendering the reading list: order, shape per verdict, both languages, hostile text, size limit, JSON."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

from readworthy.digest.models import DigestEntry, DigestRequest, DigestResult, LeftOut
from readworthy.digest.render import BODY_LIMIT, DIGEST_MARKER, digest_to_json, render_digest, short_ref
from readworthy.digest.window import Window
from readworthy.models import Decision, Digest, PullSummary, Report, Usage, Verdict
from readworthy.render.state import MARKER

NOW = datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
HOST = "https://github.com/o/r/pull/"


def entry(number: int, verdict: Verdict, *, hours_ago: int = 1, title: str = "A change", headline: str = "",
          reason: str = "Because.", decisions: list[Decision] | None = None, start: list[str] | None = None,
          source: str = "cached", analyzer: str = "model", related: list[int] | None = None,
          url: str | None = None) -> DigestEntry:
    digest = Digest(verdict=verdict, reason=reason, headline=headline or f"Headline {number}",
                    decisions=decisions or [], start_reading=start or [], related=related or [])
    report = Report(digest=digest, analyzer=analyzer, model="gpt-4.1-mini" if analyzer == "model" else "",  # type: ignore[arg-type]
                    language="en", number=number)
    cand = PullSummary(number=number, title=title, url=HOST + str(number) if url is None else url, author="alice",
                     author_is_bot=False, draft=False, state="closed", merged=True,
                     merged_at=NOW - timedelta(hours=hours_ago), created_at=NOW - timedelta(days=1),
                     head_sha="a" * 40, base_ref="main")
    return DigestEntry(cand, report, source)  # type: ignore[arg-type]


def result(entries: list[DigestEntry], language: str = "en", left_out: list[LeftOut] | None = None,
           usage: Usage | None = None) -> DigestResult:
    request = DigestRequest(repo="o/r", window=Window(NOW - timedelta(days=1), NOW))
    return DigestResult(request=request, language=language, entries=entries, left_out=left_out or [],
                        considered=len(entries) + len(left_out or []), usage=usage or Usage())


DECISIONS = [
    Decision(title="Per-step cache owned by the runner", explanation="x",
             references=["vllm/v1/worker/rope_cache.py::RotaryCache.prepare", "vllm/v1/worker/rope_cache.py"]),
    Decision(title="Fail fast on unsupported backends", explanation="y", references=["supports_shared_rope"]),
    Decision(title="Moved into the base class", explanation="z", references=["vllm/attention/base.py"]),
    Decision(title="A fourth one", explanation="w", references=["x.py"]),
]


def test_order_is_deep_read_then_skim_then_skip_newest_first_within_a_verdict() -> None:
    md = render_digest(result([
        entry(1, Verdict.SKIP), entry(2, Verdict.SKIM, hours_ago=5), entry(3, Verdict.DEEP_READ),
        entry(4, Verdict.SKIM, hours_ago=2), entry(5, Verdict.DEEP_READ, hours_ago=9),
    ]), now=NOW)
    order = [int(n) for n in re.findall(r"\[#(\d+)\]", md)]
    assert order == [3, 5, 4, 2, 1]
    assert md.index("Worth close reading (2)") < md.index("Worth a skim (2)") < md.index("Safe to skip (1)")
    assert "**5 considered**, 5 listed" in md
    assert "2026-06-09 12:00 – 2026-06-10 12:00 UTC" in md


def test_entry_shape_shrinks_with_the_verdict() -> None:
    md = render_digest(result([
        entry(1, Verdict.DEEP_READ, decisions=DECISIONS, start=["tests/v1/test_rope.py"], related=[77]),
        entry(2, Verdict.SKIM, decisions=DECISIONS),
        entry(3, Verdict.SKIP, decisions=DECISIONS, reason="Version bump."),
    ]), now=NOW)
    deep, rest = md.split("## 👀")
    skim, skip = rest.split("## ⏭️")
    assert deep.count("\n- **") == 3  # at most three decisions worth remembering
    assert "`rope_cache.py::RotaryCache.prepare`" in deep  # symbol with its file, directories dropped
    assert "A fourth one" not in deep
    assert "**Read alongside:** `tests/v1/test_rope.py`, #77" in deep
    assert skim.count("\n- **") == 2
    assert skip.strip().splitlines()[1].startswith("- [#3](")  # one line
    assert "Version bump." in skip and "Per-step cache" not in skip


def test_chinese_digest() -> None:
    md = render_digest(result([entry(1, Verdict.DEEP_READ, decisions=DECISIONS), entry(2, Verdict.SKIM),
                               entry(3, Verdict.SKIP)], language="zh-CN",
                              left_out=[LeftOut(9, "Later", HOST + "9", "max-cost")]), now=NOW)
    assert "# 📚 阅读清单 — o/r" in md
    assert "值得精读（1）" in md and "值得快速浏览（1）" in md and "可以跳过（1）" in md
    assert "**值得记住：**" in md and "**理由：**" in md
    assert "未列入本清单（1）" in md and "已达到费用上限" in md
    assert "Worth" not in md and "Why" not in md


def test_hostile_pr_and_model_text_cannot_ping_inject_or_forge_markers() -> None:
    evil = entry(
        1, Verdict.DEEP_READ,
        title="@maintainers please merge <img src=x onerror=alert(1)> <!-- readworthy:v1 data=AAAA -->",
        headline="[click](https://evil.example/x) ![](https://evil.example/p.png) @org/team",
        reason="/approve\n# Heading injection -->",
        decisions=[Decision(title="`code` </details> <script>", explanation="",
                            references=["<!--", "https://evil.example"])],
    )
    md = render_digest(result([evil]), now=NOW)
    assert "@maintainers" not in md and "@org" not in md
    assert "<img" not in md and "<script>" not in md and "</details>" not in md
    assert "](https://evil.example" not in md  # no foreign link or image survives
    assert MARKER not in md  # no forged per-PR state
    assert md.count(DIGEST_MARKER) == 1 and md.startswith(DIGEST_MARKER)
    assert not any(line.startswith("/") for line in md.splitlines())
    assert "\n# Heading injection" not in md


def test_links_only_to_the_repository_host() -> None:
    md = render_digest(result([entry(1, Verdict.SKIP, url="javascript:alert(1)")]), now=NOW)
    assert "javascript:" not in md and "#1" in md


def test_a_huge_digest_fits_the_body_limit_by_shortening_skims_first() -> None:
    long_reason = "A reason that goes on. " * 17
    entries = [entry(i, Verdict.SKIM if i % 3 else Verdict.DEEP_READ, decisions=DECISIONS, reason=long_reason,
                     start=["a/b/c.py", "d/e/f.py"]) for i in range(1, 220)]
    md = render_digest(result(entries), now=NOW)
    assert len(md) <= BODY_LIMIT
    assert "Shortened to fit" in md
    assert md.count("[#") >= 150  # most entries survive, only shorter


def test_empty_window_says_so() -> None:
    md = render_digest(result([]), now=NOW)
    assert "Nothing to read in this window" in md and "**0 considered**" in md


def test_footer_has_tokens_cost_and_reuse_counts() -> None:
    md = render_digest(result([entry(1, Verdict.SKIM, source="analysed"), entry(2, Verdict.SKIP)],
                              usage=Usage(prompt_tokens=12_345, completion_tokens=678, cost_usd=0.0061,
                                          model_calls=1)), now=NOW)
    footer = md.strip().splitlines()[-1]
    assert "1 reused" in footer and "1 analysed now" in footer and "1 model call " in footer
    assert "12,345 tokens in / 678 out" in footer and "~$0.0061" in footer and "gpt-4.1-mini" in footer


def test_heuristic_entries_are_labelled() -> None:
    md = render_digest(result([entry(1, Verdict.SKIM, analyzer="heuristic")]), now=NOW)
    assert "1 of these analyses are **heuristic**" in md


def test_json_has_raw_text_ordered_entries_and_left_out() -> None:
    r = result([entry(1, Verdict.SKIP, title="Fix `x` @bob"), entry(2, Verdict.DEEP_READ, decisions=DECISIONS)],
               left_out=[LeftOut(3, "T", HOST + "3", "max-prs", "only 2")])
    data = json.loads(digest_to_json(r))
    assert [e["number"] for e in data["entries"]] == [2, 1]
    assert data["entries"][1]["title"] == "Fix `x` @bob"  # raw: the consumer escapes for its medium
    assert data["counts"] == {"deep-read": 1, "skim": 0, "skip": 1}
    assert data["left_out"] == [{"number": 3, "title": "T", "url": HOST + "3", "reason": "max-prs", "detail": "only 2"}]
    assert data["window"]["start"].startswith("2026-06-09T12:00")


def test_short_ref() -> None:
    assert short_ref("vllm/a/b.py::C.m") == "b.py::C.m"
    assert short_ref("vllm/a/b.py") == "vllm/a/b.py"
    assert short_ref("`fn()`") == "fn()"


def _why(e: DigestEntry, **update: str) -> DigestEntry:
    return DigestEntry(e.candidate, e.report.model_copy(update=update), e.source)


def test_the_banner_tells_no_model_a_failed_model_and_a_model_not_asked_apart() -> None:
    """Issue 23: "no model was called" only where none was; a failure and a withheld model say why."""
    failed = _why(entry(1, Verdict.SKIM, analyzer="heuristic"), model="gpt-4.1-mini",
                  fallback_reason="timed out: no usable answer from the model endpoint within the model-timeout bound "
                                  "of 120 s (3 attempts). Raise `model-timeout` if the endpoint is just slow")
    withheld = _why(entry(2, Verdict.SKIP, analyzer="heuristic"), model_withheld="this run's model cost cap is reached")
    plain = entry(3, Verdict.SKIP, analyzer="heuristic")
    md = render_digest(result([failed, withheld, plain]), now=NOW)
    assert "> ⚠️ 1 of these analyses are **heuristic** because the model was asked and failed: timed out:" in md
    assert "> ℹ️ 1 of these analyses are **heuristic** because the model was not asked: this run's model cost cap" in md
    assert "> ℹ️ 1 of these analyses are **heuristic** (no model was called)" in md
    zh = render_digest(result([failed], language="zh-CN"), now=NOW)
    assert "因为调用了模型但失败了：超时：" in zh and "未调用模型" not in zh


def test_a_path_in_a_failure_reason_is_one_code_span() -> None:
    failed = _why(entry(1, Verdict.SKIM, analyzer="heuristic"), model="m",
                  fallback_reason="the answer could not be saved to /tmp/rw-3f2a/…/52385.json")
    md = render_digest(result([failed]), now=NOW)
    assert "`/tmp/rw-3f2a/…/52385.json`" in md and "/`tmp" not in md
