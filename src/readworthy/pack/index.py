"""The compact index tier: every path and the names it defines, in as few tokens as stay readable.

When the full one-line-per-file index does not fit, the files below the top ones are written
compactly before anything is folded into directory counts: the kind once as a header line for a
run of files instead of on every line, no +/- counts (the section head gives the totals), names
separated by spaces (a comma costs a token per name), and one line per repeated edit listing all
its paths (a license header on 250 files is one fact, not 250 lines). Paths stay whole: the
model cites files by path, and a directory header plus basenames would make it rebuild them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..models import FileStatus
from .tokens import TokenCounter

if TYPE_CHECKING:  # packdiff imports this module; the type is only needed for annotations
    from .diff import RankedFile

STATUS_LETTER = {
    FileStatus.ADDED: "A",
    FileStatus.MODIFIED: "M",
    FileStatus.REMOVED: "D",
    FileStatus.RENAMED: "R",
    FileStatus.COPIED: "C",
    FileStatus.CHANGED: "T",
}
COMPACT_HEAD = (
    "(compact from here: a [kind] line heads the files below it; status path: names its added lines "
    "define; ~ the diff shows part of it, = all of it)"
)


def compact_lines(
    rest: Sequence[RankedFile], full: frozenset[str], partial: frozenset[str], shown: frozenset[str]
) -> list[str]:
    """`rest` (in value order) as compact lines; a repeated edit's files share one line, placed where
    the first of them ranks."""
    groups: dict[str, list[RankedFile]] = {}
    for r in rest:
        if "repeated_change" in r.features:
            groups.setdefault(r.repeat_of or r.change.path, []).append(r)
    out = [COMPACT_HEAD]
    kind = None
    done: set[str] = set()
    for r in rest:
        key = (r.repeat_of or r.change.path) if "repeated_change" in r.features else None
        if key is not None and len(groups[key]) > 1:
            if key in done:
                continue
            done.add(key)
            out.append(_repeat_line(groups[key], full, partial))
            kind = None  # the repeat line names its kinds; the next file restates its own
            continue
        if r.kind != kind:
            kind = r.kind
            out.append(f"[{kind.value}]")
        out.append(_compact_line(r, full, partial, shown))
    return out


def _mark(path: str, full: frozenset[str], partial: frozenset[str]) -> str:
    return "=" if path in full else "~" if path in partial else ""


def _compact_line(r: RankedFile, full: frozenset[str], partial: frozenset[str], shown: frozenset[str]) -> str:
    c = r.change
    path = f"{c.previous_path} -> {c.path}" if c.previous_path else c.path
    line = f"{STATUS_LETTER[c.status]} {path}{_mark(c.path, full, partial)}"
    if c.path in full:
        return line  # everything it defines is in the diff
    names = [n for n in r.names if n not in shown]
    if names:
        line += ": " + " ".join(names)
    return line


def _repeat_line(members: Sequence[RankedFile], full: frozenset[str], partial: frozenset[str]) -> str:
    c = members[0].change
    kinds = sorted({m.kind.value for m in members})
    statuses = "".join(sorted({STATUS_LETTER[m.change.status] for m in members}))
    marks = {_mark(m.change.path, full, partial) for m in members}
    if len(marks) == 1:  # usually: the diff shows the edit once for all of them; say so once
        mark = marks.pop()
        paths = " ".join(m.change.path for m in members)
    else:
        mark = ""
        paths = " ".join(m.change.path + _mark(m.change.path, full, partial) for m in members)
    return (
        f"{statuses} [{', '.join(kinds)}]{mark} the same small edit as {members[0].repeat_of or c.path} "
        f"(+{c.additions}/-{c.deletions}) in {len(members)} files: {paths}"
    )


def compact_index_tokens(ranked: Sequence[RankedFile], counter: TokenCounter) -> int:
    """What the index costs with every file on a compact line (nothing in the diff yet)."""
    empty: frozenset[str] = frozenset()
    return counter.count("\n".join(compact_lines(ranked, empty, empty, empty))) + 1 if ranked else 0
