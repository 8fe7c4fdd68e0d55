"""Our comment rendered by GitHub's own Markdown parser (cmark-gfm, raw HTML *allowed* so anything we
let through shows): only the tags we write, links only to the repository's host, no images, no
mentions outside code, one <details>, one HTML comment (our state), no /command line."""

from __future__ import annotations

import html
import os
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_render import HOSTILE_DIGEST, make_report

from readworthy.models import Decision, Digest
from readworthy.render.comment import render_comment

ALLOWED_TAGS = {"h2", "p", "strong", "em", "code", "ol", "ul", "li", "blockquote", "details", "summary", "a", "del"}
HOST = "github.com"  # make_report's url


def github_html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def assert_inert(markdown: str) -> None:
    page = github_html(markdown)
    tags = {t.lower() for t in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", page)}
    assert tags <= ALLOWED_TAGS, sorted(tags - ALLOWED_TAGS)
    for href in re.findall(r'<a [^>]*href="([^"]*)"', page):
        assert re.match(rf"https?://{re.escape(HOST)}(/|$)", html.unescape(href)), href
    assert page.count("<!--") == 1 and page.lstrip().startswith("<!-- readworthy:")
    assert page.count("<details>") == 1 and page.count("</details>") == 1
    assert page.rstrip().endswith("</details>")
    # GitHub links @mentions in text, but not inside code or links.
    text = re.sub(r"<code>.*?</code>|<a [^>]*>.*?</a>", " ", page, flags=re.DOTALL)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    assert re.search(r"(?<![\w`])@[A-Za-z0-9]", text) is None, text
    assert all(not line.lstrip().startswith("/") for line in markdown.splitlines())


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_normal_and_hostile_comments_render_inert(language: str) -> None:
    assert_inert(render_comment(make_report(language=language)))
    assert_inert(render_comment(make_report(digest=HOSTILE_DIGEST, language=language)))


def test_lists_stay_lists_and_labels_stay_paragraphs() -> None:
    digest = make_report().digest.model_copy(update={"open_items": ["first thing", "second thing"]})
    page = github_html(render_comment(make_report(digest=digest)))
    assert "<li>second thing</li>" in page  # the next label was not swallowed into the last item
    assert "<strong>Related:</strong>" in page.split("</ul>")[-1]


PIECES = ["<", ">", "&", "@", "/", "`", "``", "[", "]", "(", ")", "!", "#", "-", "*", "_", "\\", " ", "\n",
          "<!--", "-->", "</details>", "<img src=x>", "https://evil.example/", "https://github.com/o/r/pull/1",
          "@alice", "a", "b_c", "x.py", "&#64;", "&lt;", "[t](https://evil.example)", "![i](https://evil.example/i.png)",
          "\u202e", "\u200b", "/merge", "www.evil.example", "o/r#1"]
HOSTILE = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(language=st.sampled_from(["en", "zh-CN"]), a=HOSTILE, b=HOSTILE, c=HOSTILE,
       items=st.lists(HOSTILE, max_size=3))
def test_fuzz_github_sees_nothing_active(language: str, a: str, b: str, c: str, items: list[str]) -> None:
    digest = Digest(
        verdict="skim", headline=a[:200], reason=b[:400], discussion=c[:900],
        audience=[i[:300] for i in items], open_items=[i[:300] for i in items],
        linked_issue_findings=[i[:300] for i in items], start_reading=[i[:200] for i in items],
        decisions=[Decision(title=a[:160], explanation=c[:900], references=[b[:200], *[i[:200] for i in items]])],
    )
    assert_inert(render_comment(make_report(digest=digest, language=language)))
