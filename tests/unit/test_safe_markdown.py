"""safe_markdown: hostile model text is neutralised, ordinary prose and code names survive."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readworthy.render import safe_markdown as sm


def test_mentions_are_broken_but_names_kept() -> None:
    out = sm.inline("thanks @alice and @vllm-project/core-team; mail bob@example.org", 400)
    assert "@alice" not in out and "alice" in out
    assert "@vllm-project" not in out and "vllm-project/core-team" in out


def test_html_is_escaped_and_details_cannot_be_closed() -> None:
    out = sm.inline("<img src=x onerror=alert(1)></details><!-- readworthy:v1 data=AAAA -->", 400)
    assert "<" not in out
    assert "&lt;/details>" in out and "<!--" not in out


def test_entities_cannot_smuggle_characters() -> None:
    out = sm.inline("&#64;alice &lt;b&gt; R&D -> TP>1", 400)
    assert "&#64;" not in out and out.startswith("&amp;#64;") and "&amp;lt;b&amp;gt;" in out
    assert out.endswith("R&D -> TP>1")  # readable where nothing can be smuggled


def test_images_and_foreign_links_lose_their_target() -> None:
    out = sm.inline("![x](https://evil.example/p.png) [docs](https://evil.example/) [pr](https://github.com/o/r/pull/2)", 400)
    assert "![" not in out and "(https://evil.example" not in out
    assert "[pr](https://github.com/o/r/pull/2)" in out


def test_bare_foreign_urls_become_code_and_own_host_stays_linkable() -> None:
    out = sm.inline("see https://evil.example/x and www.evil.example and https://ghe.corp/o/r/pull/1", 400, host="ghe.corp")
    assert "`https://evil.example/x`" in out and "`www.evil.example`" in out
    assert "[https://ghe.corp/o/r/pull/1](https://ghe.corp/o/r/pull/1)" in out


def test_reference_links_cannot_be_defined() -> None:
    out = sm.inline("[x][1]\n[1]: https://evil.example", 400)
    assert "\\[x\\]" in out and "\n" not in out


@pytest.mark.parametrize("text", ["/approve", "  /merge now", "/readworthy refresh"])
def test_no_line_starts_with_a_slash(text: str) -> None:
    assert not sm.inline(text, 100).lstrip().startswith("/")
    assert all(not line.lstrip().startswith("/") for line in sm.guard_lines(f"a\n{text}\nb").split("\n"))


def test_code_names_are_wrapped_and_prose_is_not() -> None:
    out = sm.inline("RotaryCache.prepare() in vllm/v1/worker/rope_cache.py sets supports_shared_rope, e.g. 1.8% faster", 400)
    for name in ("`RotaryCache.prepare()`", "`vllm/v1/worker/rope_cache.py`", "`supports_shared_rope`"):
        assert name in out
    assert "`e.g`" not in out and "`1.8`" not in out


@pytest.mark.parametrize(("text", "path"), [
    ("the answer was saved to /tmp/rw-abc/…/52385.json for review", "/tmp/rw-abc/…/52385.json"),
    ("could not read /tmp/x/52385.json.", "/tmp/x/52385.json"),
    ("see ./src/readworthy/x.py first", "./src/readworthy/x.py"),
    ("and ../a/b.c", "../a/b.c"),
    ("cached in ~/.cache/readworthy/a.json", "~/.cache/readworthy/a.json"),
    ("the runner in vllm/…/gpu_model_runner.py", "vllm/…/gpu_model_runner.py"),
    ("读取 /tmp/a/b.json 失败", "/tmp/a/b.json"),
    ("owners and .github/readworthy.yml areas", ".github/readworthy.yml"),
    ("the (.github/workflows/ci.yml) file", ".github/workflows/ci.yml"),
    # a glob is one path: never `requirements/`*.txt
    ("depends only on requirements/*.txt, not on the source", "requirements/*.txt"),
    ("every docs/**/*.md page", "docs/**/*.md"),
])
def test_paths_are_wrapped_whole(text: str, path: str) -> None:
    """A path from a root, or with `…` for a shortened part, is one code span: never /`tmp/…` (issue 23)."""
    out = sm.inline(text, 400)
    assert f"`{path}`" in out
    assert out.count("`") == 2


@pytest.mark.parametrize(("text", "expected"), [
    ("$GITHUB_OUTPUT lines: name=value", "`$GITHUB_OUTPUT` lines"),
    ("set $HOME first", "set `$HOME` first"),
    # a price or a lower-case word after a dollar stays prose
    ("costs $5 a month", "costs $5 a month"),
    ("the $x variable", "the $x variable"),
])
def test_a_shell_variable_is_one_code_span_with_its_dollar(text: str, expected: str) -> None:
    assert expected in sm.inline(text, 400)


@pytest.mark.parametrize("text", ["a 1/2 ratio", "and/or", "TP/PP", "w/o tests", "/tmp alone"])
def test_slashes_in_prose_stay_prose(text: str) -> None:
    assert "`" not in sm.inline(f"x {text}", 200)


def test_cross_repo_references_do_not_notify_other_repos() -> None:
    out = sm.inline("as in other/repo#12 and #34", 200)
    assert "`other/repo#12`" in out and " #34" in out


def test_code_span_survives_backticks_and_marker() -> None:
    assert sm.code("a``b") == "```a``b```"
    assert sm.code("`x") == "`` `x ``"
    assert "<!--" not in sm.code("<!-- readworthy:v1 -->") and "-->" not in sm.code("x-->")


@pytest.mark.parametrize("text", [
    "` </details></summary>## Verdict: skip <details> `",  # found by the hostile-answer fuzz test
    "`<DETAILS open><Summary>x</SUMMARY>`",
])
def test_our_details_tags_are_broken_inside_an_authors_code_span(text: str) -> None:
    for rendered in (sm.inline(text, 300), sm.reference(text), sm.code(text)):
        assert not re.search(r"</?(details|summary)\b", rendered, re.IGNORECASE), rendered
        assert "`" in rendered  # still shown as code


def test_length_is_bounded_and_invisible_characters_removed() -> None:
    out = sm.inline("a\u200b\u202eb" + "x" * 1000, 50)
    assert "\u200b" not in out and "\u202e" not in out and len(out) <= 50 and out.endswith("…")


HOSTILE = st.lists(
    st.sampled_from(list("<>&@/`[]()!#-*_\\ \nab\u200b\u202e:.") + ["<!--", "-->", "</details>", "https://x.y/", "@a"]),
    max_size=60,
).map("".join)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "500")), deadline=None)
@given(st.one_of(HOSTILE, st.text(max_size=200)))
def test_fuzz_inline_never_produces_active_markdown(text: str) -> None:
    out = sm.inline(text, 150)
    assert "\n" not in out
    assert "<" not in outside_code(out)  # inside a code span "<" is shown, not parsed
    assert "<!--" not in out and "-->" not in outside_code(out)
    assert re.search(r"(?<![\w`])@[A-Za-z0-9]", outside_code(out)) is None
    assert not out.startswith("/")
    assert "![" not in outside_code(out).replace("\\[", "")


def outside_code(md: str) -> str:
    """The text of `md` that is not inside a code span, scanning like CommonMark: a backslash escapes
    the next punctuation character outside code spans; inside them it is literal."""
    out: list[str] = []
    i = 0
    while i < len(md):
        ch = md[i]
        if ch == "\\" and i + 1 < len(md) and not md[i + 1].isalnum() and not md[i + 1].isspace():
            i += 2  # an escaped character is literal text, never a mention start or a code fence
            out.append(" ")
            continue
        if ch == "`":
            run = len(md[i:]) - len(md[i:].lstrip("`"))
            close = re.search(r"(?<!`)" + "`" * run + r"(?!`)", md[i + run :])
            if close:
                i = i + run + close.end()
                out.append(" ")
                continue
            out.append(md[i : i + run])
            i += run
            continue
        out.append(ch)
        i += 1
    return "".join(out)
