"""render: both languages, heuristic and fallback labels, hostile model output neutralised, size limit."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_safe_markdown import outside_code

from readworthy.models import Coverage, Decision, Digest, Report, Usage, Verdict
from readworthy.notes import note
from readworthy.render.comment import COMMENT_LIMIT, render_comment, render_markdown, verdict_word
from readworthy.render.state import MARKER, decode_state


def make_report(digest: Digest | None = None, **changes: object) -> Report:
    digest = digest or Digest(
        verdict="deep-read",
        reason="small diff, but it introduces the compute-once pattern other backends should follow",
        headline="cache rotary tables once per step instead of per layer",
        audience=["attention backends (vllm/attention/)", "model runner owners"],
        decisions=[
            Decision(
                title="Per-step cache owned by the runner",
                explanation="RotaryCache.prepare() fills one table per step; layers read ForwardContext.rope",
                references=["vllm/v1/worker/rope_cache.py", "RotaryCache.prepare"],
            ),
            Decision(title="Fail fast on unsupported backends", explanation="supports_shared_rope is checked at start"),
        ],
        start_reading=["rope_cache.py::RotaryCache.prepare", "tests/v1/worker/test_rope_cache.py"],
        discussion="alice questioned keeping the old path; settled: removal tracked in #1234",
        linked_issue_findings=["#1200 measured 42 redundant gathers per step"],
        open_items=["multimodal models not covered yet"],
        related=[1234, 1200],
    )
    report = Report(
        digest=digest,
        analyzer="model",
        model="gpt-4.1-mini",
        prompt_version="3",
        usage=Usage(prompt_tokens=11842, completion_tokens=690, cost_usd=0.0061, model_calls=1),
        coverage=Coverage(files_total=15, files_full=14, omitted=["uv.lock"], secrets_redacted=2, linked_issues=3, review_comments=27),
        repo="o/r",
        number=5,
        url="https://github.com/o/r/pull/5",
        head_sha="1a2b3c4d5e6f7a8b",
        input_hash="h1",
    )
    return report.model_copy(update=changes)


def test_english_comment_has_every_section_and_the_state() -> None:
    body = render_comment(make_report())
    first, rest = body.split("\n", 1)
    assert first.startswith(MARKER)
    assert rest.startswith("## 📖 Worth close reading — cache rotary tables")
    for label in ("**Who should read:**", "**Why:**", "**Key design decisions**", "**Start reading at:**",
                  "**Review discussion:**", "**Linked issues:**", "**Open:**", "**Related:** #1200, #1234"):
        assert label in rest
    assert "`vllm/v1/worker/rope_cache.py`" in rest and "`supports_shared_rope`" in rest
    footer = rest.split("<details><summary>Coverage and cost</summary>", 1)[1]
    assert "14 of 15 changed files seen (omitted: `uv.lock`)" in footer
    assert "2 secrets redacted" in footer and "model gpt-4.1-mini" in footer
    assert "11,842 tokens in / 690 out" in footer and "~$0.006" in footer and "head 1a2b3c4" in footer
    assert footer.rstrip().endswith("</details>") and rest.count("</details>") == 1
    assert decode_state(body) == make_report()


def test_chinese_comment_uses_chinese_words() -> None:
    for verdict, word in (("deep-read", "值得精读"), ("skim", "值得快速浏览"), ("skip", "可以跳过")):
        digest = make_report().digest.model_copy(update={"verdict": Verdict(verdict)})
        body = render_markdown(make_report(digest=digest, language="zh-CN"))
        assert body.startswith("## ") and word in body.split("\n")[0]
    body = render_markdown(make_report(language="zh-CN"))
    for label in ("**适合谁读：**", "**理由：**", "**关键设计**", "**从这里读起：**", "**评审讨论：**", "**待跟进：**", "覆盖范围与成本"):
        assert label in body
    assert "已查看 15 个变更文件中的 14 个" in body and "Who should read" not in body
    assert verdict_word(make_report().digest.verdict, "zh-CN") == "值得精读"


def test_coverage_notes_are_shown_in_the_comments_language() -> None:
    notes = [note("files_not_listed_cap", missing="210", changed="3,210"), "a note an older version wrote"]
    coverage = make_report().coverage.model_copy(update={"notes": notes})
    chinese = render_markdown(make_report(language="zh-CN", coverage=coverage))
    assert "3,210 个改动文件中有 210 个未被列出（GitHub 的文件列表 API 最多返回 3,000 个）" in chinese
    assert "changed files are not listed" not in chinese and "a note an older version wrote" in chinese
    english = render_markdown(make_report(coverage=coverage))
    assert "210 of 3,210 changed files are not listed (GitHub's files API caps the list at 3,000)" in english


@pytest.mark.parametrize(("language", "plain", "fallback"), [
    ("en", "Heuristic — no model was called", "Heuristic fallback — the model could not be used"),
    ("zh-CN", "启发式分析 — 未调用模型", "启发式兜底 — 无法使用模型"),
])
def test_heuristic_and_fallback_are_labelled(language: str, plain: str, fallback: str) -> None:
    heuristic = make_report(analyzer="heuristic", model="", usage=Usage(), language=language)
    body = render_markdown(heuristic)
    assert plain in body and "tokens in" not in body and "输入" not in body
    body = render_markdown(heuristic.model_copy(update={"fallback_reason": "the model answered HTTP 500 three times"}))
    assert fallback in body and "HTTP 500 three times" in body


@pytest.mark.parametrize(("language", "called", "failed"), [
    ("en", "heuristic — no model was called", "heuristic fallback — 2 calls to openai/gpt-4.1-mini failed"),
    ("zh-CN", "启发式分析 — 未调用模型", "启发式兜底 — 调用模型 openai/gpt-4.1-mini 失败（2 次请求）"),
])
def test_the_footer_says_whether_a_model_was_called(language: str, called: str, failed: str) -> None:
    heuristic = make_report(analyzer="heuristic", model="", usage=Usage(), language=language)
    assert called in render_markdown(heuristic) and failed not in render_markdown(heuristic)
    fallback = heuristic.model_copy(update={"model": "openai/gpt-4.1-mini", "usage": Usage(model_calls=2),
                                            "fallback_reason": "rate limited (429)"})
    body = render_markdown(fallback)
    assert failed in body and called not in body
    # a configured model that could not even be asked (a base URL without a key): no call was made
    unasked = heuristic.model_copy(update={"fallback_reason": "`openai-base-url` is set but ..."})
    assert called in render_markdown(unasked)


@pytest.mark.parametrize(("language", "run_from", "hint", "not_hint"), [
    ("en", "action", "grant the workflow `permissions: models: read` (GitHub Models); or set `openai-api-key`",
     "OPENAI_API_KEY"),
    ("en", "terminal", "set `OPENAI_API_KEY`, or `GITHUB_TOKEN` to use GitHub Models", "openai-api-key"),
    ("zh-CN", "action", "授予 `permissions: models: read`（GitHub Models，无需密钥），或设置 `openai-api-key`",
     "OPENAI_API_KEY"),
    ("zh-CN", "terminal", "设置 `OPENAI_API_KEY`，或设置 `GITHUB_TOKEN` 以使用 GitHub Models", "openai-api-key"),
])
def test_the_banner_names_what_the_reader_sets(language: str, run_from: str, hint: str, not_hint: str) -> None:
    report = make_report(analyzer="heuristic", model="", usage=Usage(), language=language, run_from=run_from)
    body = render_markdown(report)
    assert hint in body and not_hint not in body


@pytest.mark.parametrize(("language", "callout", "count"), [
    ("en", "**Incomplete patch:** the diff of `drivers/net/eth.c` is cut off or damaged",
     "(1 with an incomplete patch)"),
    ("zh-CN", "**补丁不完整：** `drivers/net/eth.c` 的 diff 被截断或已损坏",
     "（1 个文件的补丁不完整）"),
])
def test_an_incomplete_patch_is_stated_under_the_heading_and_in_the_footer(language: str, callout: str,
                                                                           count: str) -> None:
    cov = Coverage(files_total=1, files_full=1, incomplete_patches=["drivers/net/eth.c"])
    report = make_report(coverage=cov, language=language)
    lines = render_markdown(report).split("\n")
    assert lines[0].startswith("## ") and callout in lines[1]  # right under the verdict heading
    body = render_comment(report)
    assert count in body.split("<details>", 1)[1]
    assert decode_state(body) == report
    assert "Incomplete patch" not in render_markdown(make_report()) and "补丁不完整" not in render_markdown(
        make_report(language="zh-CN"))


def test_the_incomplete_patch_callout_survives_the_trim_ladder() -> None:
    cov = Coverage(files_total=1, files_full=1, incomplete_patches=["a.c"])
    digest = make_report().digest.model_copy(update={"discussion": "x " * 400, "reason": "y " * 180})
    body = render_comment(make_report(digest=digest, coverage=cov), limit=1500)
    assert "Incomplete patch" in body


def test_markdown_without_state_is_what_the_cli_prints() -> None:
    body = render_comment(make_report())
    assert render_markdown(make_report()) == body.split("\n", 1)[1]
    assert MARKER not in render_markdown(make_report())


HOSTILE_DIGEST = Digest(
    verdict="skip",
    reason="@maintainers please merge </details> <img src=x onerror=alert(1)>",
    headline="<!-- readworthy:v1 data=AAAA --> ![pwn](https://evil.example/x.png)",
    audience=["@vllm-project/core"],
    decisions=[Decision(title="[click](https://evil.example/steal)", explanation="x\n/approve\n/merge", references=["`a`b`"])],
    start_reading=["/lgtm"],
    discussion="see <a href='https://evil.example'>here</a> and https://evil.example/?q=1",
    open_items=["\u202eevil\u200b"],
    linked_issue_findings=["[1]: https://evil.example"],
)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_hostile_model_output_is_neutralised(language: str) -> None:
    body = render_comment(make_report(digest=HOSTILE_DIGEST, language=language))
    visible = body.split("\n", 1)[1]
    assert_safe(visible)
    assert decode_state(body) is not None and decode_state(body).digest == HOSTILE_DIGEST


def assert_safe(visible: str) -> None:
    outside = outside_code(visible)
    assert MARKER not in visible and "<!--" not in visible
    assert visible.count("</details>") == 1 and visible.count("<details>") == 1
    assert "<img" not in outside and "<a " not in outside
    assert re.search(r"(?<![\w`])@[A-Za-z0-9]", outside) is None
    assert "](https://evil" not in visible and "![" not in outside
    assert all(not line.lstrip().startswith("/") for line in visible.split("\n"))
    assert "\u202e" not in visible and "\u200b" not in outside


def test_oversized_output_is_trimmed_least_important_first() -> None:
    wide = "<&>" * 300  # escaping makes each character four or five
    digest = Digest(
        verdict="skim",
        reason=wide[:400],
        headline="big",
        decisions=[Decision(title="t", explanation=wide[:900], references=[wide[:150]] * 8)] * 4,
        discussion=wide[:900],
        open_items=[wide[:300]] * 5,
        linked_issue_findings=[wide[:300]] * 4,
        start_reading=[wide[:150]] * 6,
    )
    report = make_report(digest=digest, coverage=Coverage(files_total=3000, omitted=[f"dir/{'x' * 60}{i}.py" for i in range(3000)]))
    full = render_comment(report, limit=10**9)
    body = render_comment(report, limit=20_000)
    assert len(full) > 20_000 >= len(body)
    assert "Shortened to fit GitHub's 65,536-character comment limit" in body
    assert "the omitted-file names" in body and decode_state(body) is not None
    assert len(render_comment(report)) <= COMMENT_LIMIT


TEXT = st.text(max_size=120)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    verdict=st.sampled_from(["deep-read", "skim", "skip"]),
    language=st.sampled_from(["en", "zh-CN"]),
    headline=TEXT, reason=TEXT, discussion=TEXT,
    items=st.lists(TEXT, max_size=4),
    refs=st.lists(TEXT, max_size=8),
    related=st.lists(st.integers(min_value=-5, max_value=10**10), max_size=8),
)
def test_fuzz_renderer_is_always_safe(verdict: str, language: str, headline: str, reason: str, discussion: str,
                                       items: list[str], refs: list[str], related: list[int]) -> None:
    digest = Digest(
        verdict=verdict, reason=reason, headline=headline, discussion=discussion,
        audience=items, open_items=items, linked_issue_findings=items, start_reading=refs[:6], related=related,
        decisions=[Decision(title=headline[:160], explanation=reason, references=refs)],
    )
    report = make_report(digest=digest, language=language)
    body = render_comment(report)
    assert len(body) <= COMMENT_LIMIT
    assert decode_state(body) == report
    assert_safe(body.split("\n", 1)[1])
