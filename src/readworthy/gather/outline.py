"""The outline of a changed file at the PR's head: its classes, functions and methods with their lines.

Git names in a hunk header only the nearest column-0 line above the hunk, so a change inside a method
whose `def` line lies above the hunk shows up under `class Foo:`, and the heuristic cannot tell which
method it is (issue 24: `DeepseekV2DecoderLayer.forward` read as `DeepseekV2DecoderLayer`). The head
file itself says: this module reads it, once, for the few files that need it, and keeps only names and
line ranges (not the text: a PR can change 3,000 files).

Python only, by indentation: `def`, `async def` and `class` at a logical line's start, with brackets
(multi-line signatures), strings (a `def` inside a docstring), comments and backslash continuations
skipped. Functions nested in functions are part of their enclosing function, and so is anything nested
deeper than MAX_DEPTH. One pass over the text, linear in its size; a file over MAX_OUTLINE_BYTES or not
UTF-8 has no outline.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..hunk_header import parse_hunk_header
from ..indentation import indentation
from ..models import FileChange, FileStatus, OutlineEntry
from ..pack.classify import FileKind, classify_file

log = logging.getLogger(__name__)

MAX_OUTLINE_FILES = 10  # files read per PR: one REST request each in the action
MAX_OUTLINE_BYTES = 1_000_000  # also the contents API's limit for sending a file's content
MAX_DEPTH = 6  # classes nested deeper (and their methods) count as part of the sixth level
PYTHON_SUFFIXES = (".py", ".pyi")

_DEF = re.compile(r"(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)|class[ \t]+([A-Za-z_]\w*)")
_TOP_FUNCTION = re.compile(r"(?:async[ \t]+)?def[ \t]")
# Outside a string: what can open one, start a comment or change the bracket depth.
_CODE_MARK = re.compile(r"[\"'#()\[\]{}]")
# Inside a string: an escape (skipped whole) or the closing quote.
_STRING_END = {q: re.compile(r"\\.?|" + re.escape(q)) for q in ('"""', "'''", '"', "'")}


def is_python(path: str) -> bool:
    return path.lower().endswith(PYTHON_SUFFIXES)


def decode_source(data: bytes) -> str | None:
    """A file's text for outlining; None when it is too large, not UTF-8, or binary (a NUL byte)."""
    if len(data) > MAX_OUTLINE_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass
class _Open:
    name: str
    qualname: str
    kind: str
    first: int
    indent: int


class _Lines:
    """Python's line structure: whether the next physical line starts a logical line."""

    def __init__(self) -> None:
        self.quote = ""  # the quote of a string still open at the end of the last line
        self.depth = 0  # open brackets
        self.continued = False  # the last line ended with a backslash

    @property
    def at_statement(self) -> bool:
        return not self.quote and self.depth == 0 and not self.continued

    def read(self, line: str) -> None:
        i, n = 0, len(line)
        comment = False
        while i < n:
            if self.quote:
                m = _STRING_END[self.quote].search(line, i)
                if m is None:
                    break
                i = m.end()
                if m.group() == self.quote:
                    self.quote = ""
                continue
            m = _CODE_MARK.search(line, i)
            if m is None or m.group() == "#":
                comment = m is not None
                break
            c, i = m.group(), m.end()
            if c in "\"'":
                self.quote = line[m.start(): m.start() + 3] if line.startswith(c * 3, m.start()) else c
                i = m.start() + len(self.quote)
            elif c in "([{":
                self.depth += 1
            else:
                self.depth = max(0, self.depth - 1)
        ends_with_backslash = line.endswith("\\") and not comment
        if self.quote in ("'", '"') and not ends_with_backslash:
            self.quote = ""  # a one-line string left open: a syntax error, not a string going on
        self.continued = not self.quote and ends_with_backslash


def python_outline(text: str) -> tuple[OutlineEntry, ...] | None:
    """Classes, and functions not nested in functions, in file order; None for a file too large."""
    if len(text) > MAX_OUTLINE_BYTES:
        return None
    found: list[OutlineEntry] = []
    opened: list[_Open] = []
    lines = _Lines()
    last_code = 0

    def close(o: _Open) -> None:
        found.append(OutlineEntry(qualname=o.qualname, kind="class" if o.kind == "class" else "function",
                                  first=o.first, last=max(o.first, last_code), indent=o.indent))

    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        statement = lines.at_statement
        if statement and stripped and not stripped.startswith("#"):
            indent = indentation(line)
            while opened and opened[-1].indent >= indent:
                close(opened.pop())
            m = _DEF.match(stripped)
            if m and len(opened) < MAX_DEPTH and all(o.kind == "class" for o in opened):
                name = m.group(1) or m.group(2)
                qualname = ".".join([*(o.name for o in opened), name])
                opened.append(_Open(name, qualname, "function" if m.group(1) else "class", number, indent))
        if stripped and not (statement and stripped.startswith("#")):
            last_code = number
        lines.read(line)
    while opened:
        close(opened.pop())
    return tuple(sorted(found, key=lambda e: e.first))


def needs_outline(change: FileChange) -> bool:
    """A Python file with a hunk that changes lines before any `def`/`class` line of its own, under a
    header that is not a top-level function: the diff alone cannot say which method they are in."""
    if not change.patch or change.binary or change.status is FileStatus.REMOVED or not is_python(change.path):
        return False
    header: str | None = None
    seen_definition = False
    for raw in change.patch.split("\n"):
        if raw.startswith("@@"):
            parsed = parse_hunk_header(raw)
            header, seen_definition = (parsed.context.strip() if parsed else ""), False
            continue
        if header is None or seen_definition or not raw or raw[0] not in " +-":
            continue
        text = raw[1:].lstrip()
        if raw[0] != "-" and _DEF.match(text):
            seen_definition = True
        elif raw[0] != " " and text and header and not _TOP_FUNCTION.match(header):
            return True
    return False


def add_outlines(files: list[FileChange], read: Callable[[str], bytes | None],
                 limit: int = MAX_OUTLINE_FILES) -> list[FileChange]:
    """`files` with the outlines of at most `limit` files that need one (code before tests, so a long test
    file cannot use up the reads; most changed lines first), each read at the head with `read(path)` (None:
    not available, so no outline)."""
    wanted = sorted((f for f in files if needs_outline(f)),
                    key=lambda f: (classify_file(f) is FileKind.TEST, -(f.additions + f.deletions)))[:limit]
    outlines: dict[str, tuple[OutlineEntry, ...]] = {}
    for change in wanted:
        data = read(change.path)
        text = decode_source(data) if data is not None else None
        outline = python_outline(text) if text is not None else None
        if outline is not None:
            outlines[change.path] = outline
        else:
            log.info("no outline of %s at the head: not readable as a UTF-8 file under %s bytes", change.path,
                     f"{MAX_OUTLINE_BYTES:,}")
    return [f.model_copy(update={"outline": outlines[f.path]}) if f.path in outlines else f for f in files]
