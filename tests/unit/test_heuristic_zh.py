"""zh-CN reads as a Chinese engineer writes it: 可以跳过 for skip, 、 in lists, every string translated,
counts written the Chinese way, no "等另外 N 个"."""

from __future__ import annotations

import json
import re
import string
from importlib import resources
from pathlib import Path

import pytest
from vllm_sets import fixture_contexts

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.wording import PHRASES, count, phrase
from readworthy.gather.sample import load_sample
from readworthy.models import (
    Coverage,
    Digest,
    FileChange,
    FileStatus,
    LinkedIssue,
    PRContext,
    Report,
    Verdict,
)
from readworthy.render.comment import render_markdown, verdict_word

# Words an engineer writing Chinese keeps in English.
# Product names and the words Chinese engineers write in English anyway ("GitHub Models" is a product).
_KEPT_IN_ENGLISH = {"diff", "issue", "PR", "CI", "GitHub", "Models", "head", "tokens", "openai", "api", "key", "README"}
_TEMPLATES = resources.files("readworthy.render") / "templates" / "zh-CN"


def _english_words(text: str) -> set[str]:
    text = re.sub(r"`[^`]*`|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|\{[^}]*\}|</?\w+>", " ", text, flags=re.DOTALL)
    return {w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in _KEPT_IN_ENGLISH}


def test_skip_reads_as_can_be_skipped() -> None:
    assert verdict_word(Verdict.SKIP, "zh-CN") == "可以跳过"
    assert verdict_word(Verdict.SKIM, "zh-CN") == "值得快速浏览"


def test_every_heuristic_sentence_is_translated() -> None:
    for key, text in PHRASES["zh-CN"].items():
        assert not _english_words(text), (key, text)
        fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
        assert fields == {f for _, f, _, _ in string.Formatter().parse(PHRASES["en"][key]) if f} - {"s", "ls"}, key


def test_the_comment_template_and_its_strings_are_translated() -> None:
    strings = json.loads((_TEMPLATES / "strings.json").read_text("utf-8"))
    values = [v for v in strings.values() if isinstance(v, str)]
    values += [v for group in strings.values() if isinstance(group, dict) for v in group.values()]
    for value in values:
        assert not _english_words(value), value
    template = (_TEMPLATES / "comment.md.j2").read_text("utf-8")
    assert not _english_words(re.sub(r"\{#.*?#\}", "", template, flags=re.DOTALL)), "English left in comment.md.j2"


def test_no_ungrammatical_more_phrase_anywhere() -> None:
    texts = [*PHRASES["zh-CN"].values(), (_TEMPLATES / "strings.json").read_text("utf-8")]
    assert not any("等另外" in t for t in texts)


def test_omitted_files_are_listed_with_the_chinese_separator_and_a_total() -> None:
    omitted = [f"gen/f{i}.json" for i in range(14)]
    report = Report(digest=Digest(verdict=Verdict.SKIP, reason="x", headline="y"), analyzer="heuristic",
                    language="zh-CN", coverage=Coverage(files_total=20, files_full=6, omitted=omitted))
    footer = render_markdown(report).split("<summary>", 1)[1]
    assert "（略去：`gen/f0.json`、`gen/f1.json`、" in footer
    assert "`gen/f9.json` 等 14 个文件）" in footer and ", `" not in footer


def test_issue_states_and_numbers_are_chinese() -> None:
    ctx = load_sample()
    digest = heuristic_digest(ctx, Coverage(), "zh-CN")
    assert digest.linked_issue_findings[0].startswith("#812 ") and "（已关闭）" in digest.linked_issue_findings[0]
    assert "(closed)" not in " ".join(digest.linked_issue_findings)
    open_issue = ctx.model_copy(update={"linked_issues": [LinkedIssue(number=9, title="t", state="open")]})
    assert "（未关闭）" in heuristic_digest(open_issue, Coverage(), "zh-CN").linked_issue_findings[0]
    assert (count("zh-CN", 9047), count("zh-CN", 15314), count("zh-CN", 20000)) == ("9047", "1.5 万", "2 万")
    assert count("en", 15314) == "15,314"
    assert phrase("zh-CN", "removal", deleted=15314) == "删除了 1.5 万 行且没有新增：记住删掉了什么即可。"


def test_lists_in_chinese_sentences_use_the_enumeration_comma() -> None:
    patch = ("@@ -1,0 +1,4 @@\n+class AttentionBackend(ABC):\n+    supports_fp8: bool = False\n"
             "+    supports_sinks: bool = False\n+    can_graph: bool = True")
    ctx = PRContext(title="Backend capabilities", files=[
        FileChange(path="engine/attention/backend.py", status=FileStatus.MODIFIED, additions=4, patch=patch)])
    reason = heuristic_digest(ctx, Coverage(), "zh-CN").reason
    assert "`supports_fp8`、`supports_sinks`、`can_graph`" in reason


@pytest.mark.vllm_fixtures
def test_real_prs_in_chinese_use_chinese_separators(vllm_fixture_sets: list[Path]) -> None:
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        entry = {"number": number}
        digest = heuristic_digest(ctx, Coverage(), "zh-CN")
        for text in (digest.reason, *digest.audience, *(d.explanation.split("“")[0] for d in digest.decisions)):
            assert "`, `" not in text and "等另外" not in text, (entry["number"], text)
        assert not _english_words(re.sub(r"“[^”]*”", "", digest.reason)), (entry["number"], digest.reason)


def test_an_english_docstring_is_quoted_under_a_chinese_title() -> None:
    patch = ("@@ -10,3 +10,9 @@ class Detokenizer:\n     pass\n+\n+\n+class StopStringMatcher:\n"
             '+    """Per-request stop-string search state, built once in __init__. Single-character stop strings\n'
             '+    are checked with one set lookup over the new characters."""\n+\n'
             "+    def check(self, text: str) -> bool:\n+        return any(s in text for s in self.stops)\n")
    ctx = PRContext(title="Match stop strings per request", files=[FileChange(
        path="engine/detokenizer.py", status=FileStatus.MODIFIED, additions=8, deletions=0, patch=patch)])
    en = next(d for d in heuristic_digest(ctx, Coverage(), "en").decisions if "Per-request" in d.title)
    zh = heuristic_digest(ctx, Coverage(), "zh-CN").decisions
    point = next(d for d in zh if "StopStringMatcher" in d.title)
    assert point.title == "`detokenizer.py` 中 `StopStringMatcher` 的文档字符串"  # no English sentence as a title
    assert not _english_words(point.title)
    # the authors' words are quoted as they wrote them, the lead sentence too
    assert point.explanation.startswith("原文：“Per-request stop-string search state, built once in __init__”"), \
        point.explanation
    assert en.title == "Per-request stop-string search state, built once in __init__"


_QUOTE_THEN_CHINESE = re.compile(r"”[\u4e00-\u9fff]")


def test_a_sentence_after_a_quote_starts_after_a_full_stop() -> None:
    code = ("@@ -0,0 +1,4 @@\n+class StopStringMatcher:\n"
            '+    """Per-request stop-string search state, built once in __init__"""\n'
            "+    def check(self, text: str) -> bool:\n+        return any(s in text for s in self.stops)\n")
    test = "@@ -0,0 +1,2 @@\n+def test_stop_strings():\n+    assert StopStringMatcher().check('x')\n"
    ctx = PRContext(title="Match stop strings per request", files=[
        FileChange(path="engine/stop.py", status=FileStatus.ADDED, additions=4, patch=code),
        FileChange(path="tests/test_stop.py", status=FileStatus.ADDED, additions=2, patch=test)])
    point = next(d for d in heuristic_digest(ctx, Coverage(), "zh-CN").decisions if "StopStringMatcher" in d.title)
    assert "有测试 `test_stop_strings` 覆盖" in point.explanation, point.explanation
    assert not _QUOTE_THEN_CHINESE.search(point.explanation), point.explanation


@pytest.mark.vllm_fixtures
def test_no_real_pr_runs_a_chinese_sentence_on_from_a_quote(vllm_fixture_sets: list[Path]) -> None:
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        for d in heuristic_digest(ctx, Coverage(), "zh-CN").decisions:
            assert not _QUOTE_THEN_CHINESE.search(d.explanation), (number, d.explanation)


def test_a_long_first_sentence_is_quoted_once_under_a_chinese_title() -> None:
    code = ("@@ -0,0 +1,3 @@\n+def alloc_raw(size, align):\n+    if end == 0:\n+        return alloc_slow(size, align)\n")
    body = ("`alloc_raw(0, 1)` computes `start = 0`, and `0 + 0 > 0` is false, so the fast path hands out address "
            "zero as a pointer that must never be null, which the sanitizer reports as undefined behaviour in "
            "every build that stores an empty value. The fix sends the empty arena to the slow path.")
    ctx = PRContext(title="Fix a null pointer from an empty arena", body=body, files=[
        FileChange(path="core/arena.py", status=FileStatus.ADDED, additions=3, patch=code)])
    point = next(d for d in heuristic_digest(ctx, Coverage(), "zh-CN").decisions if "alloc_raw" in d.title)
    assert point.explanation.count("computes `start = 0`") == 1, point.explanation
