"""Which of the head file's definitions (FileChange.outline) a line lies inside of. Pure.

The heuristic's definitions.py, the prompt's hunk headers (pack/hunks.py) and the locator (locate.py)
ask once per hunk or reference; a file can have thousands of hunks and of definitions, so each question
costs a binary search plus a walk up the enclosing definitions (the outline's nesting is capped:
gather/outline.py MAX_DEPTH), never a scan of the outline.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from .models import OutlineEntry


class Enclosing:
    def __init__(self, outline: Sequence[OutlineEntry]) -> None:
        self.entries = sorted(outline, key=lambda e: (e.first, -e.last))
        self.firsts = [e.first for e in self.entries]
        self.parent = [-1] * len(self.entries)
        open_: list[int] = []  # entries containing the current one, outermost first
        for i, entry in enumerate(self.entries):
            while open_ and self.entries[open_[-1]].last < entry.first:
                open_.pop()
            self.parent[i] = open_[-1] if open_ else -1
            open_.append(i)

    def _deepest(self, i: int, line: int) -> int:
        """From entry `i` (the last to start at or above `line`), out to the first whose body reaches
        `line`: the innermost holding it, or -1. Siblings before `i` end before it starts, so only its
        enclosing entries can."""
        while i >= 0 and self.entries[i].last < line:
            i = self.parent[i]
        return i

    def above(self, line: int) -> list[OutlineEntry]:
        """The definitions whose first line lies above `line` and whose body reaches it, outermost first."""
        i = self._deepest(bisect_left(self.firsts, line) - 1, line)
        chain: list[OutlineEntry] = []
        while i >= 0:
            chain.append(self.entries[i])
            i = self.parent[i]
        return chain[::-1]

    def innermost(self, line: int) -> OutlineEntry | None:
        """The innermost definition whose body holds `line` (its own `def` line included)."""
        i = self._deepest(bisect_right(self.firsts, line) - 1, line)
        return self.entries[i] if i >= 0 else None

    def named(self, dotted: str) -> list[OutlineEntry]:
        """The definitions whose qualified name is `dotted` or ends with it (`forward` -> `Foo.forward`)."""
        return [e for e in self.entries if e.qualname == dotted or e.qualname.endswith("." + dotted)]
