"""A unified diff's hunk header, `@@ -12,6 +12,7 @@ class Foo:`, read one way by every stage. Pure.

The numbers say where the hunk starts on each side and how many lines it spans there (a count left
out means 1). What follows the second `@@` is git's header context: the nearest line above the hunk,
in the old file, that git's funcname rule takes for the start of a definition (by default any line
starting at column 0 with a letter, `_` or `$`), verbatim after one space, indentation included.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


@dataclass(frozen=True, slots=True)
class HunkHeader:
    old_start: int
    old_lines: int
    new_start: int  # the hunk's first line at the head
    new_lines: int
    context: str  # as git wrote it, not stripped ("" when none)


def parse_hunk_header(line: str) -> HunkHeader | None:
    """The header `line` holds, or None when it is not a readable hunk header."""
    m = _HEADER.match(line)
    if m is None:
        return None
    old_lines, new_lines = m.group(2), m.group(4)
    return HunkHeader(int(m.group(1)), 1 if old_lines is None else int(old_lines),
                      int(m.group(3)), 1 if new_lines is None else int(new_lines), m.group(5))


def hunk_headers(patch: str) -> Iterator[HunkHeader]:
    """Every readable hunk header of a patch, in order."""
    for line in patch.split("\n"):
        if line.startswith("@@"):
            header = parse_hunk_header(line)
            if header is not None:
                yield header
