"""Python docstrings in a diff: where a hunk starts inside one, and a hunk's code with them left out.

A docstring is words about the code, as a comment is: a PR that only writes or rewords docstrings
changes no behaviour (shapes.is_cosmetic), and the words are what definitions.py quotes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...pack.classify import definition_name, patterns_for

TRIPLE = ('"""', "'''")
_CODE_SHAPED_LINE = re.compile(r"^#|[(\[{=\\]$|^\w+\s*(?::\s*[\w.\[\]]+\s*)?=[^=]|^(?:return|if|for|import|from)\b")
_STATEMENT_STRING = re.compile(r"^\s*[rRuU]?(\"\"\"|''')")  # a string standing alone: a docstring
_ANY_TRIPLE = re.compile(r"\"\"\"|'''")


def docstring_tail(lines: Sequence[str], sides: str = " +") -> str:
    """The quote that closes a docstring a hunk starts inside of, or "": `lines` are the hunk's lines
    with their diff marks, read on the side of `sides` (" +" the new file, " -" the old)."""
    for raw in lines:
        if not raw or raw[0] not in sides:
            continue
        text = raw[1:].strip()
        for quote in TRIPLE:
            if quote in text:
                return quote if text.endswith(quote) and text.count(quote) == 1 else ""
        if text and (_CODE_SHAPED_LINE.search(text) or definition_name(raw[1:], patterns_for("x.py"))):
            return ""  # code before the first triple quote: the hunk does not start in a docstring
    return ""


_QUOTED = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")


def without_blanks(line: str) -> str:
    """The line with its blanks taken out, except inside a string: `" ".join(parts)` -> `"".join(parts)` is
    a different key, not a reformat."""
    if '"' not in line and "'" not in line:  # most lines: no string to keep
        return "".join(line.split())
    out, last = [], 0
    for m in _QUOTED.finditer(line):
        out += ["".join(line[last:m.start()].split()), m.group(0)]
        last = m.end()
    out.append("".join(line[last:].split()))
    return "".join(out)


def code_outside_docstrings(lines: Sequence[str], tail: str, comment: re.Pattern[str]) -> str | None:
    """The code of one side of a hunk (its lines without diff marks) as its characters alone: docstrings,
    comment lines and whitespace left out; `tail` closes a docstring the hunk starts inside of. A
    triple-quoted string that is a value (`x = \"\"\"...`) is code. None where a string is still open
    at the hunk's end: what follows it is out of sight."""
    docstring, value = tail, ""  # the quote that closes the string being read, one kind or the other
    out: list[str] = []
    for line in lines:
        rest = line
        while rest:
            if docstring or value:
                quote = docstring or value
                if quote not in rest:
                    out.append("".join(rest.split()) if value else "")
                    break
                cut = rest.index(quote) + 3
                out.append("".join(rest[:cut].split()) if value else "")
                rest, docstring, value = rest[cut:], "", ""
                continue
            if opened := _STATEMENT_STRING.match(rest):
                rest, docstring = rest[opened.end():], opened.group(1)
                continue
            if not rest.strip() or comment.match(rest):
                break
            found = _ANY_TRIPLE.search(rest)
            if found is None or rest.count(found.group(0)) % 2 == 0:
                out.append(without_blanks(rest))
                break
            cut = found.end()
            out.append(without_blanks(rest[:cut]))
            rest, value = rest[cut:], found.group(0)
    return None if docstring or value else "".join(out)
