"""Untrusted text -> Markdown that can only say things, never do things.

Everything the model writes (and every path or title that came from a PR) is
data an attacker may have steered. Rendered through this module it cannot:
  - ping people or teams (`@name` loses its `@`),
  - inject HTML, close our `<details>` or forge our hidden marker (`&`, `<`, `>` escaped;
    `<!--` and our own `<details>`/`<summary>` tags broken even inside code spans),
  - show images or link anywhere but the repository's own host (other URLs become code),
  - start a line with `/` (bot commands) or break out of its one line,
  - grow without bound (every field has a length limit).
Code-looking names (paths, absolute and relative, `snake_case`, `Class.method`, `fn()`) are put in backticks,
which also keeps `_` and `*` in them from turning into emphasis.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from urllib.parse import urlsplit

ELLIPSIS = "…"
_KEEP_CONTROLS = {"\n", "\t"}

_BACKTICKS = re.compile(r"`+")
_LINK = re.compile(r"(!?)\[([^\[\]\n]{0,400})\]\(\s*<?([^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'`\[\]()\\]+", re.IGNORECASE)
# GitHub mentions "@x" after any non-ASCII-alphanumeric (its \W is ASCII), and "_"/"*" may vanish
# as emphasis delimiters, so only a letter or digit right before "@" keeps it (e-mail addresses).
_MENTION = re.compile(r"(?<![A-Za-z0-9])@+(?=[A-Za-z0-9])")
_MENTION_TAIL = re.compile(r"(?<![A-Za-z0-9])@+$")
_CROSS_REF = re.compile(r"\b[A-Za-z0-9][\w.-]*/[\w.-]+#\d+\b")
# A dot-led name (`.github/x.yml`) or a shell variable (`$GITHUB_OUTPUT`) starts at its dot or dollar, or that
# character would be left outside the span.
# A glob's `*` belongs to the path where it starts a part (`requirements/*.txt`, `docs/**/x.md`).
_CANDIDATE = re.compile(r"(?:(?<![\w.$])[.$])?[A-Za-z_](?:[\w./:…-]|(?<=[/*])\*)*(?:\(\))?")
# A path from a root (`/tmp/x/52385.json`, `./src/a.py`, `../a/b`, `~/.cache/x`), which _CANDIDATE alone
# would start after the slash (rendering "/`tmp/…`"); `…` stands for a shortened part of a path.
_ROOTED_PATH = re.compile(r"(?<![\w./…~])(?:~|\.{1,2})?/[A-Za-z0-9_.…-]+(?:/[A-Za-z0-9_.…-]+)*/?")
_IDENTIFIER_DOTTED = re.compile(r"[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+")
_FILE_EXT = re.compile(
    r"\.(?:py|pyi|pyx|cu|cuh|cpp|cc|c|h|hpp|rs|go|ts|js|java|yaml|yml|toml|json|md|rst|txt|sh|cfg|ini|proto|lock)$"
)
_TRAILING_PUNCT = ".,;:!?-"
# `<` starts every tag, comment and autolink, so escaping it (and `&` before an entity, which could
# spell `<` or `@`) is enough; `>` stays readable ("TP>1", "->"): without an opener it does nothing.
_MARKDOWN_ESCAPES = str.maketrans({"\\": "\\\\", "<": "&lt;", "[": "\\[", "]": "\\]", "`": "\\`"})
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_BARE_WWW = re.compile(r"(?<![\w.])www\.", re.IGNORECASE)


def strip_invisible(text: str) -> str:
    """Drop control, format (zero-width, bidi), private-use and unassigned characters."""
    out = []
    for ch in text:
        if ch in _KEEP_CONTROLS:
            out.append(ch)
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Co", "Cs", "Cn"):
            continue
        out.append(ch)
    return "".join(out)


def _one_line(text: str, limit: int) -> str:
    text = " ".join(strip_invisible(text or "").split())
    if len(text) > limit:
        text = text[: max(0, limit - 1)].rstrip() + ELLIPSIS
    return text


def clean_line(text: str, limit: int) -> str:
    """One line of plain text: invisible characters out, whitespace folded, cut to `limit` (no ellipsis).
    For text kept as data (the taste memory's titles and reasons), not rendered."""
    return " ".join(strip_invisible(text or "").split())[:limit]


# Our own structure: the comment's one <details> block. Inert inside a code span, but the raw body is
# what other readers of the comment (e-mail notifications, our own parsers) see.
_OWN_TAG = re.compile(r"<(/?)(details|summary)\b", re.IGNORECASE)


def _break_comment_markers(text: str) -> str:
    # Even inside a code span, the raw body must never contain an HTML comment opener or
    # closer (that is how our hidden state is found and how a comment would be closed early),
    # nor a tag of our own <details> block.
    text = text.replace("<!--", "<\u200b!--").replace("--!>", "-\u200b-!>").replace("-->", "-\u200b->")
    return _OWN_TAG.sub(lambda m: f"<{m.group(1)}\u200b{m.group(2)}", text)


def _join(parts: list[str]) -> str:
    """Concatenate rendered pieces so that two code spans never touch ("`a`" + "`b`" would read as one
    broken span "`a``b`" and expose the raw text inside it) and no piece completes a mention."""
    out = ""
    for part in parts:
        if part and out.endswith("`") and part.startswith("`"):
            out += " "
        if part.startswith("[") and out.endswith("!"):
            out = out[:-1] + "\\!"  # "!" + "[label](url)" would be an image
        if part[:1].isalnum() and _MENTION_TAIL.search(out):
            # "@" + a link's label "t" would make a live "@t": drop the dangling "@".
            out = _MENTION_TAIL.sub("", out)
        out += part
    return out


def code(name: str, limit: int = 160) -> str:
    """`name` as one inline code span, whatever backticks it contains. Empty in, empty out."""
    name = _break_comment_markers(_one_line(name, limit))
    if not name:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", name)), default=0)
    fence = "`" * (longest + 1)
    if name.startswith("`") or name.endswith("`"):
        name = f" {name} "
    return f"{fence}{name}{fence}"


def escape_text(text: str) -> str:
    """Escape raw text so Markdown and HTML treat it as letters; mentions are broken too."""
    escaped = _ENTITY.sub("&amp;", _MENTION.sub("", text)).translate(_MARKDOWN_ESCAPES)
    # No comment closer either, even though nothing can open one: defence in depth for our state line.
    escaped = escaped.replace("-->", "--&gt;").replace("--!>", "--!&gt;")
    # A bare "www." left over (a URL cut at a field's limit) would autolink with what a template puts after it.
    return _BARE_WWW.sub(lambda m: m.group(0)[:-1] + "\\.", escaped)


def _looks_like_code(token: str) -> bool:
    if token.startswith("$"):  # `$GITHUB_OUTPUT`: a variable is code when its name is
        return _looks_like_code(token[1:]) or token[1:].isupper()
    if token.startswith(("/", "~/", "./", "../")):
        # From a root: `/a/b`, `/a.py` or any `./`, `../`, `~/` path; a lone `/word` stays prose.
        return not token.startswith("/") or token.count("/") >= 2 or bool(_FILE_EXT.search(token))
    if "::" in token or token.endswith("()"):
        return True
    if "/" in token:
        return token.count("/") >= 2 or token.endswith("/") or bool(_FILE_EXT.search(token))
    if _FILE_EXT.search(token) and "." in token[1:]:
        return True
    if "_" in token.strip("_") and re.fullmatch(r"[\w.]+", token):
        return True
    return bool(_IDENTIFIER_DOTTED.fullmatch(token))


def _plain(text: str) -> str:
    """Text that is neither code, link nor URL: mentions broken, code names wrapped, rest escaped."""
    text = _MENTION.sub("", text)
    out: list[str] = []
    pos = 0
    for match in re.finditer("|".join((_CROSS_REF.pattern, _ROOTED_PATH.pattern, _CANDIDATE.pattern)), text):
        token = match.group(0)
        start, end = match.span()
        if _CROSS_REF.fullmatch(token) is None:
            stripped = token.rstrip(_TRAILING_PUNCT)
            if stripped.endswith("(") or not stripped:
                continue
            if not _looks_like_code(stripped):
                continue
            end = start + len(stripped)
            token = stripped
        # A cross-repository reference (`owner/repo#12`) would notify that repository: show it as code.
        out.append(_escape_piece(text[pos:start]))
        out.append(code(token))
        pos = end
    out.append(_escape_piece(text[pos:]))
    return _join(out)


def _escape_piece(piece: str) -> str:
    # Again per piece: `a_a@b` becomes code + `@b`, and a mention right after a code span is live.
    return escape_text(piece)


_SAFE_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+", re.IGNORECASE)


def _host_allowed(url: str, host: str) -> bool:
    if not _SAFE_URL.fullmatch(url):
        return False  # a backslash, quote or bracket could end or escape the Markdown link around it
    try:
        parts = urlsplit(url if "://" in url else "https://" + url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and (parts.hostname or "").lower() == host.lower()


def link(label_md: str, url: str, host: str) -> str:
    """`[label_md](url)` for a URL readworthy built itself, when it is on `host` and its characters cannot
    end the link; `label_md` (already safe Markdown) alone otherwise."""
    if not label_md or not _host_allowed(url, host):
        return label_md
    return f"[{label_md}]({url})"


def _urls_and_plain(text: str, host: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(_TRAILING_PUNCT)
        start = match.start()
        end = start + len(url)
        out.append(_plain(text[pos:start]))
        if url.lower().startswith("http") and _host_allowed(url, host):
            # An explicit link, not a bare URL: GFM's autolinker would run on into a following
            # backtick and break the code span after it (found with GitHub's own parser).
            out.append(f"[{escape_text(url)}]({url})")
        else:
            out.append(code(url))
        pos = end
    out.append(_plain(text[pos:]))
    return _join(out)


def _links_urls_plain(text: str, host: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _LINK.finditer(text):
        out.append(_urls_and_plain(text[pos : match.start()], host))
        bang, label, url = match.groups()
        label_md = _urls_and_plain(label, host) if label.strip() else ""
        if not bang and url.lower().startswith("http") and _host_allowed(url, host) and label_md:
            out.append(f"[{label_md}]({url})")
        else:
            # Images and foreign links keep only their words.
            out.append(label_md)
        pos = match.end()
    out.append(_urls_and_plain(text[pos:], host))
    return _join(out)


def code_spans(text: str) -> list[tuple[int, str, int]]:
    """(start, content, end) of each code span, as CommonMark finds them: a run of N backticks up to the
    next run of exactly N. Each run is looked at once (a pattern with a back-reference tries every
    opening length against every later position: cubic in a line of backticks)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}  # run length -> indexes of the runs that long, in order
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[tuple[int, str, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        after = bisect.bisect_right(same, index)
        if after == len(same):
            index += 1  # no closing run: these backticks are plain text
            continue
        close_start, close_end = runs[same[after]]
        spans.append((start, text[end:close_start], close_end))
        index = same[after] + 1
    return spans


def inline(text: str, limit: int, host: str = "github.com") -> str:
    """One line of untrusted prose as safe Markdown, at most `limit` characters of source text."""
    text = _one_line(text, limit)
    out: list[str] = []
    pos = 0
    for start, content, end in code_spans(text):
        out.append(_links_urls_plain(text[pos:start], host))
        out.append(code(content.strip() or content))
        pos = end
    out.append(_links_urls_plain(text[pos:], host))
    result = _join(out).strip()
    return guard_line_start(guard_block_start(result))


def reference(text: str, limit: int = 160, host: str = "github.com") -> str:
    """A reference the model gave (a path, symbol or test): code if it is one name, else prose."""
    text = _one_line(text, limit)
    if text and " " not in text:
        return code(text.strip("`") or text)
    return inline(text, limit, host)


# Only what would really open a block: "# h", "- x", "--" / "___" (rules), "> q", "~~~", "1. x".
_BLOCK_START = re.compile(r"^(?:#{1,6}(?=\s|$)|[-+*_](?=[\s\-*+_]|$)|>|~~~|\d{1,9}[.)](?=\s|$))")


def guard_block_start(text: str) -> str:
    """A field placed after "- " or at a line start must not open a list, heading, quote or rule."""
    match = _BLOCK_START.match(text)
    if match is None:
        return text
    marker = match.group(0)
    return (marker[:-1] + "\\" + marker[-1]) + text[len(marker):]


def guard_line_start(line: str) -> str:
    """A line must not begin with `/` (bot commands read raw text)."""
    stripped = line.lstrip()
    if stripped.startswith("/"):
        return line[: len(line) - len(stripped)] + "\\" + stripped
    return line


def guard_lines(markdown: str) -> str:
    """Apply `guard_line_start` to every line: defence in depth after templating."""
    return "\n".join(guard_line_start(line) for line in markdown.split("\n"))
