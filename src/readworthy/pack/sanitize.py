"""PR prose (title, body, comments, issue text) cleaned before it reaches the model.

Anyone who can open a PR can hide text from human readers that a model would still read:
HTML comments, invisible and bidi control characters, elements hidden with `hidden` or
`display:none`, attributes (alt/title/data-*), image alt text, Markdown link titles (shown only on
hover), entity-encoded characters. We keep
what a person sees on GitHub and drop the rest. Copies of our own previous comment are removed too,
so the model does not grade its own earlier output.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# Our comment starts with this hidden marker (see state.py); a copy quoted into a PR body is dropped.
READWORTHY_MARKER = "<!-- readworthy:"

_INVISIBLE_RE = re.compile(
    "["
    "\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f"  # C0/C1 controls except \t \n \r
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"  # soft hyphen, fillers, Mongolian selectors
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f"  # zero-width, LRM/RLM, bidi embeddings/overrides/isolates
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"  # Hangul filler, variation selectors, BOM, annotations
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef"  # tag characters (ASCII smuggling), selectors supplement
    "]"
)
_HTML_COMMENT_RE = re.compile(r"<!--[\s\S]*?(?:-->|\Z)")
_OPEN_TAG_RE = re.compile(r"<(?P<tag>[a-zA-Z][\w-]*)(?P<attrs>\s[^<>]*)?>")
_ATTR_RE = re.compile(r"""(?P<name>[^\s=/>"']+)(?:\s*=\s*(?P<value>"[^"]*"|'[^']*'|[^\s>]+))?""")
_HIDING_STYLE_RE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])"
    r"|(?:max-)?height\s*:\s*0(?![.\d]*[1-9])|(?:max-)?width\s*:\s*0(?![.\d]*[1-9])|clip\s*:|left\s*:\s*-\d{3,}",
    re.IGNORECASE,
)
_VOID_TAGS = frozenset({"img", "input", "br", "hr", "meta", "link", "source", "area", "base", "col", "embed", "wbr"})
# Elements whose content a browser never shows; the content goes with them (to the end when unclosed).
_INVISIBLE_OPEN_RE = re.compile(r"<(?P<tag>script|style|template|noscript|iframe|object|svg|math)\b[^>]*>",
                                re.IGNORECASE)
_INVISIBLE_CLOSE_RE = {tag: re.compile(rf"</{tag}\s*>", re.IGNORECASE)
                       for tag in ("script", "style", "template", "noscript", "iframe", "object", "svg", "math")}
_HTML_IMAGE_RE = re.compile(r"<(?:img|picture|image)\b[^>]*>", re.IGNORECASE)
# An image's alt text and destination stop at the next `![`: a run of unclosed `![` is then read once,
# not once from each of them.
_MD_IMAGE_RE = re.compile(r"!\[(?:[^\]\\!]|!(?!\[)|\\.)*\](?:\((?:[^)!]|!(?!\[))*\)|\[[^\]]*\])")
# A link title: "…", '…' or (…); it may run over several lines, but not over a blank one.
_TITLE = (
    r"""(?:"(?:[^"\\\n]|\\.|\n(?![ \t]*\n))*"|'(?:[^'\\\n]|\\.|\n(?![ \t]*\n))*'"""
    r"""|\((?:[^()\\\n]|\\.|\n(?![ \t]*\n))*\))"""
)
# Blanks that may hold one line break. Possessive (`*+`): a long run of spaces is read once, where
# `[ \t]*\n?[ \t]*` would try every way of splitting it between its two halves.
_BLANKS = r"[ \t]*+(?:\n[ \t]*+)?"
# [text](destination "title"): the destination may be <bracketed> or hold balanced parentheses.
_MD_LINK_TITLE_RE = re.compile(
    r"(?P<link>\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]\(" + _BLANKS +
    r"(?:<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*+))"
    r"(?=[ \t\n])" + _BLANKS + _TITLE + _BLANKS + r"\)"
)
# A reference definition renders as nothing, its title included, even when the destination or the
# title stands on the next line.
_MD_REF_DEF_RE = re.compile(
    r"^ {0,3}\[(?:[^\[\]\\]|\\.)+\]:" + _BLANKS + r"(?:<[^<>\n]*>|\S++)"
    r"(?:" + _BLANKS + _TITLE + r")?[ \t]*+$",
    re.MULTILINE,
)
_KEPT_TAG_RE = re.compile(r"<(/?)(details|summary)\b[^>]*>", re.IGNORECASE)
_ANY_TAG_RE = re.compile(r"</?[a-zA-Z][\w-]*(?:\s[^<>]*)?/?>")
_BLANK_RUNS_RE = re.compile(r"\n{3,}")
_LONGER_WHEN_LOWERED_RE = re.compile("[\u0130]")  # tests/unit/test_text_linear_time.py checks it is the only one


def clean_prose(text: str) -> str:
    """What a human sees of a piece of PR prose, minus our own earlier comments."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE_RE.sub("", text)
    text = strip_previous_readworthy(text)
    text = _HTML_COMMENT_RE.sub("", text)
    text = _remove_invisible_elements(text)
    text = remove_hidden_elements(text)
    text = _sub_tags(_HTML_IMAGE_RE, "[image]", text)
    text = _MD_IMAGE_RE.sub("[image]", text)
    text = _MD_REF_DEF_RE.sub("", text)  # reference definitions render as nothing
    text = _MD_LINK_TITLE_RE.sub(lambda m: m.group("link") + ")", text)  # the hover title, not the link
    text = _sub_tags(_KEPT_TAG_RE, lambda m: f"<{m.group(1)}{m.group(2).lower()}>", text)
    text = _ANY_TAG_RE.sub(lambda m: m.group(0) if _is_kept(m.group(0)) else "", text)
    # entities last: `&lt;!-- x --&gt;` was visible text on GitHub and stays visible text here
    text = html.unescape(text)
    text = _INVISIBLE_RE.sub("", text)  # &#8203; and friends decode into invisible characters
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUNS_RE.sub("\n\n", text).strip()


def lower_keeping_offsets(text: str) -> str:
    """text.lower() with every character at its offset: İ (U+0130), the one character whose lower case is
    longer, becomes "x" first, so a position found in the lowered copy is the same position in `text`."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else _LONGER_WHEN_LOWERED_RE.sub("x", text).lower()


def _sub_tags(pattern: re.Pattern[str], repl: str | Callable[[re.Match[str]], str], text: str) -> str:
    """pattern.sub for a tag pattern (`<name ...>`), run only up to the text's last `>`: no tag starts
    after it, and each `<name` in a long run of them would otherwise read on to the end, looking for one."""
    end = text.rfind(">") + 1
    return pattern.sub(repl, text[:end]) + text[end:] if end else text


def _remove_invisible_elements(text: str) -> str:
    """Drop <script>, <style>, <svg> ... elements, content included; an unclosed one hides to the end."""
    pieces: list[str] = []
    pos = 0
    for match in _INVISIBLE_OPEN_RE.finditer(text, 0, text.rfind(">") + 1):
        if match.start() < pos:
            continue
        close = _INVISIBLE_CLOSE_RE[match.group("tag").lower()].search(text, match.end())
        pieces.append(text[pos : match.start()])
        pos = close.end() if close else len(text)
    pieces.append(text[pos:])
    return "".join(pieces)


def _is_hiding(attrs: str) -> bool:
    for match in _ATTR_RE.finditer(attrs):
        name = match.group("name").lower()
        value = (match.group("value") or "").strip("\"'")
        if name == "hidden" or (name == "aria-hidden" and value.lower() == "true"):
            return True
        if name == "style" and _HIDING_STYLE_RE.search(value):
            return True
        if name == "type" and value.lower() == "hidden":
            return True
    return False


def remove_hidden_elements(text: str) -> str:
    """Drop elements a browser would not show (`hidden`, `display:none`, ...), content included."""
    pieces: list[str] = []
    pos = 0
    lowered = lower_keeping_offsets(text)
    for match in _OPEN_TAG_RE.finditer(text):
        if match.start() < pos or not match.group("attrs") or not _is_hiding(match.group("attrs")):
            continue
        tag = match.group("tag").lower()
        end = match.end()
        if tag not in _VOID_TAGS and not match.group(0).endswith("/>"):
            end = _closing_tag_end(lowered, tag, end)
        pieces.append(text[pos : match.start()])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _closing_tag_end(lowered: str, tag: str, pos: int) -> int:
    """End of the tag closing the element opened before `pos`, counting nested same-name elements."""
    tag_re = re.compile(rf"<(/?){re.escape(tag)}(?=[\s>/])")
    depth = 1
    for match in tag_re.finditer(lowered, pos):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            close = lowered.find(">", match.end())
            return len(lowered) if close < 0 else close + 1
    return len(lowered)  # unclosed: hidden to the end, the safe direction


def _is_kept(tag: str) -> bool:
    return tag.lower() in ("<details>", "</details>", "<summary>", "</summary>")


def strip_previous_readworthy(text: str) -> str:
    """Drop copies of a readworthy comment: quoted blocks that carry the marker, and an unquoted copy
    from the marker to the end of its `<details>` footer (or the end of the text)."""
    if "readworthy" not in text.lower():
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(">"):
            block_end = i
            while block_end < len(lines) and lines[block_end].lstrip().startswith(">"):
                block_end += 1
            block = lines[i:block_end]
            if not any(_has_marker(line) for line in block):
                out.extend(block)
            i = block_end
            continue
        out.append(lines[i])
        i += 1
    text = "\n".join(out)
    lowered = lower_keeping_offsets(text)
    pieces: list[str] = []
    pos = 0
    start = lowered.find(READWORTHY_MARKER)
    while start >= 0:
        end = lowered.find("</details>", start)
        end = len(text) if end < 0 else end + len("</details>")
        pieces.append(text[pos:start])
        pos = end
        start = lowered.find(READWORTHY_MARKER, end)
    pieces.append(text[pos:])
    return "".join(pieces)


def _has_marker(line: str) -> bool:
    lowered = line.lower()
    return READWORTHY_MARKER in lowered or "&lt;!-- readworthy:" in lowered
