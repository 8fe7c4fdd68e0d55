"""One file's patch as pieces the diff section can choose from: hunks, condensed, in two fidelities.

  full   every added line; unchanged stretches shrunk to CONTEXT_LINES around the changes, long
         removed runs to a count, and blocks that moved (removed in one place, added in another)
         to one line;
  brief  the same, but a long run of added lines becomes its OUTLINE: the definitions it adds
         (each with its decorators, its whole signature and the line after it: a docstring or the
         first statement) and the first lines of the run, the rest counted. At a small budget a new
         300-line module shows every function it defines instead of its imports.

Hunks are ordered by what a reader needs first: those adding definitions, in file order, then the
others by how much code they add; removal-only hunks last.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..enclosing import Enclosing
from ..hunk_header import parse_hunk_header
from ..models import FileChange, OutlineEntry
from .classify import definition_lines, definition_name, patterns_for

CONTEXT_LINES = 3  # unchanged lines kept around each change in a condensed hunk
MAX_REMOVED_RUN = 4  # longer runs of removed lines collapse to a count
BRIEF_RUN = 24  # in a brief hunk, longer runs of added lines become their outline
OUTLINE_HEAD = 4  # an outline keeps this many first lines of the run (imports, the first statement)
OUTLINE_FOLLOW = 1  # ... and this many lines after each definition's signature (a docstring, the first statement)
SIGNATURE_MAX_LINES = 8  # a signature spread over more lines is cut at its first line
MOVE_MIN_LINES = 4  # a block this long, removed here and added there, is a move
MOVE_SCAN_MAX_LINES = 60_000  # above this many changed lines, moves are not searched for

_HUNK_SPLIT_RE = re.compile(r"^(?=@@ )", re.MULTILINE)
Moves = Mapping[tuple[str, str], str]


@dataclass(frozen=True)
class Hunk:
    full: str
    brief: str  # == full when nothing was outlined
    definitions: int  # definition lines among its added lines
    added: int  # non-blank added lines


def with_enclosing_headers(patch: str, outline: Sequence[OutlineEntry] | None) -> str:
    """`patch` with each hunk header naming the head definition its first change lies in, when the hunk
    does not show that definition's own line: `@@ -40,6 +40,7 @@ class Foo: [in Foo.forward]`. git's
    header names only the nearest column-0 line, so without this a model reads a change in `forward`
    as one in `Foo`. No outline (gather read none): the patch unchanged. One pass over the lines."""
    if not outline:
        return patch
    where = Enclosing(outline)
    lines = patch.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        parsed = parse_hunk_header(lines[i]) if lines[i].startswith("@@") else None
        if parsed is None:
            out.append(lines[i])
            i += 1
            continue
        start = new = parsed.new_start
        first_change = 0
        j = i + 1
        while j < len(lines) and not lines[j].startswith("@@ "):
            mark = lines[j][:1]
            if not first_change and mark in ("+", "-"):
                first_change = new
            if mark in (" ", "+", ""):
                new += 1
            j += 1
        entry = where.innermost(first_change) if first_change else None
        header = lines[i]
        if entry is not None and entry.first < start:
            header += f" [in {entry.qualname}]"
        out.append(header)
        out.extend(lines[i + 1:j])
        i = j
    return "\n".join(out)


def split_hunks(patch: str) -> list[str]:
    return [h.rstrip("\n") for h in _HUNK_SPLIT_RE.split(patch) if h.startswith("@@ ")]


def file_hunks(patch: str, path: str, moves: Moves | None = None) -> list[Hunk]:
    """The file's hunks in reading order (see the module docstring)."""
    patterns = patterns_for(path)
    hunks = []
    for raw in split_hunks(patch):
        full = condense_hunk(raw, moves)
        brief = condense_hunk(raw, moves, outline=patterns) if _has_long_added_run(raw) else full
        lines = raw.split("\n")[1:]
        added = sum(1 for line in lines if line[:1] == "+" and line[1:].strip())
        hunks.append(Hunk(full, brief, len(definition_lines(lines, patterns)), added))
    return hunks


def reading_order(hunks: Sequence[Hunk]) -> list[int]:
    with_defs = [i for i, h in enumerate(hunks) if h.definitions]
    adding = sorted((i for i, h in enumerate(hunks) if not h.definitions and h.added), key=lambda i: -hunks[i].added)
    removing = [i for i, h in enumerate(hunks) if not h.added]
    return with_defs + adding + removing


def _has_long_added_run(hunk: str) -> bool:
    run = 0
    for line in hunk.split("\n"):
        run = run + 1 if line[:1] == "+" else 0
        if run > BRIEF_RUN:
            return True
    return False


# --------------------------------------------------------------------------- moved blocks


def _run_key(run: Sequence[str]) -> str:
    """Identity of a block of changed lines regardless of sign and indentation."""
    return hashlib.sha1("\n".join(line[1:].strip() for line in run).encode("utf-8", "replace")).hexdigest()


def _changed_runs(patch: str) -> list[tuple[str, list[str]]]:
    """Runs of consecutive added (or removed) lines, at least MOVE_MIN_LINES long, with their sign."""
    runs: list[tuple[str, list[str]]] = []
    current: list[str] = []
    sign = ""
    for line in patch.split("\n"):
        first = line[:1]
        if first in ("+", "-") and first == sign:
            current.append(line)
            continue
        if len(current) >= MOVE_MIN_LINES:
            runs.append((sign, current))
        current, sign = ([line], first) if first in ("+", "-") else ([], "")
    if len(current) >= MOVE_MIN_LINES:
        runs.append((sign, current))
    return runs


def find_moves(files: Sequence[FileChange]) -> dict[tuple[str, str], str]:
    """Blocks removed in one place and added in another (code moved between or inside files):
    (sign, block key) -> the path holding the other side. Bounded: skipped on very large PRs,
    where a line-by-line pass would cost more than the rest of packing."""
    if sum(f.additions + f.deletions for f in files) > MOVE_SCAN_MAX_LINES:
        return {}
    seen: dict[tuple[str, str], str] = {}
    for change in files:
        if not change.patch or change.additions == 0 and change.deletions == 0:
            continue
        for sign, run in _changed_runs(change.patch):
            seen.setdefault((sign, _run_key(run)), change.path)
    moves: dict[tuple[str, str], str] = {}
    for sign, key in seen:
        other = seen.get(("-" if sign == "+" else "+", key))
        if other is not None:
            moves[(sign, key)] = other
    return moves


# --------------------------------------------------------------------------- condensing


def condense_hunk(hunk: str, moves: Moves | None = None, outline: tuple[re.Pattern[str], ...] | None = None) -> str:
    """Keep the header and changed lines; shrink unchanged stretches to CONTEXT_LINES around changes,
    long removed runs to a count, and blocks that moved (the same lines removed here and added
    elsewhere, or the reverse) to one line. With `outline` (a language's definition patterns), added
    runs longer than BRIEF_RUN become their outline."""
    lines = hunk.split("\n")
    header, body = lines[0], lines[1:]
    out = [header]
    n = len(body)
    changed = [i for i, line in enumerate(body) if line[:1] in ("+", "-")]
    near: set[int] = set()
    for i in changed:
        near.update(range(max(0, i - CONTEXT_LINES), min(n, i + CONTEXT_LINES + 1)))
    i = 0
    while i < n:
        line = body[i]
        kind = line[:1]
        if kind in ("+", "-"):
            j = i
            while j < n and body[j][:1] == kind:
                j += 1
            run = body[i:j]
            other = moves.get((kind, _run_key(run))) if moves and len(run) >= MOVE_MIN_LINES else None
            if other is not None:
                where = "to" if kind == "-" else "from"
                names = [n for n in (definition_name(line[1:]) for line in run) if n]
                defines = f"; defines {', '.join(names)}" if names else ""
                out.append(f"{kind}... ({len(run)} lines moved {where} {other}{defines})")
            elif kind == "-" and len(run) > MAX_REMOVED_RUN:
                out += run[:2] + [f"-... ({len(run) - 2} more removed lines)"]
            elif kind == "+" and outline is not None and len(run) > BRIEF_RUN:
                out += outline_run(run, outline)
            else:
                out += run
            i = j
            continue
        if i in near or kind == "\\":
            out.append(line)
            i += 1
            continue
        j = i
        while j < n and j not in near and body[j][:1] not in ("+", "-"):
            j += 1
        out.append(f" ... ({j - i} unchanged lines)")
        i = j
    return "\n".join(out)


def outline_run(run: Sequence[str], patterns: tuple[re.Pattern[str], ...]) -> list[str]:
    """A long run of added lines as its outline: the first OUTLINE_HEAD lines, every definition line
    with the decorators above it and OUTLINE_FOLLOW lines below, the gaps counted. A run that
    defines nothing keeps its head and tail."""
    keep: set[int] = set(range(min(len(run), OUTLINE_HEAD)))
    defs = definition_lines(run, patterns)
    if not defs:
        keep.update(range(BRIEF_RUN - 5))
        keep.update(range(len(run) - 5, len(run)))
    for k in defs:
        start = k
        while start > 0 and run[start - 1][1:].lstrip().startswith("@"):  # decorators belong to it
            start -= 1
        keep.update(range(start, _signature_end(run, k) + OUTLINE_FOLLOW + 1))
    keep.intersection_update(range(len(run)))
    out: list[str] = []
    gap = 0
    for k, line in enumerate(run):
        if k in keep:
            if gap:
                out.append(f"+... ({gap} more added lines)")
                gap = 0
            out.append(line)
        elif line[1:].strip():
            gap += 1
    if gap:
        out.append(f"+... ({gap} more added lines)")
    return out


def _signature_end(run: Sequence[str], k: int) -> int:
    """The last line of the signature starting at run[k]: where its brackets close (at most
    SIGNATURE_MAX_LINES on)."""
    depth = 0
    for j in range(k, min(len(run), k + SIGNATURE_MAX_LINES)):
        code = run[j][1:]
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        if depth <= 0:
            return j
    return k
