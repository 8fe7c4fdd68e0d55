"""The locator: a reference the Report cites -> the path and lines it names at the PR's head. Pure.

References are what the model or the heuristic cites (and grounding kept): a path (or a unique path
suffix), `path::Symbol`, `path::Class.method`, a test `tests/x.py::test_y[param]`, or a bare symbol.
Each is placed from the gathered diff, on its new side (the head commit), and the head file's outline
where gather read one (gather/outline.py):

- a symbol -> its definition's line range (the definition line to the last line of its body the
  diff shows); a symbol whose definition line the diff does not show -> with an outline, its whole
  definition at the head (`Location.changed`: the first change inside it, where the diff is opened);
  without, when a hunk header (`@@ ... @@ def run(...)`) names it, the first changed line of that hunk;
- a file -> its first changed line;
- a reference the diff cannot place -> the file (no line); a bare symbol in no file -> nothing.

The result is kept in the Report (`Report.locations`, with `head_sha`), so every link built from it
(render/links.py) names a line that exists at that commit.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .enclosing import Enclosing
from .hunk_header import parse_hunk_header
from .indentation import indentation
from .models import Digest, FileChange, FileStatus, Location, OutlineEntry, PRContext
from .pack.classify import definition_name, patterns_for

_BRACKETS = re.compile(r"\[[^\]]*\]$")  # pytest parametrisation: test_x[fp8]
_SYMBOL_SPLIT = re.compile(r"::|\.|:|#")
_IDENT = re.compile(r"[A-Za-z_$~][\w$-]*")  # dashes: a build stage or target (`test-deps`, `rust-ci`)
# A line that only closes what the definition opened (`}`, `};`, `)`, `end`) still belongs to it.
_CLOSER = re.compile(r"^\s*(?:[})\]]+[;,]?|end\b.*|fi|done|esac)\s*$")
_OPENER = re.compile(r"^\s*\{\s*$")
MAX_LOCATIONS = 64
MAX_LINES_SCANNED = 200_000  # a 3,000-file PR: enough to place what a comment cites, bounded all the same


@dataclass
class _Definition:
    name: str
    start: int
    end: int
    indent: int
    parent: str = ""  # the nearest enclosing definition the diff shows (a method's class)


@dataclass
class _File:
    """One changed file as the locator sees it: where its changes start and what it defines, new side."""

    change: FileChange
    first_changed: int = 0
    definitions: list[_Definition] = field(default_factory=list)
    touched: dict[str, int] = field(default_factory=dict)  # hunk-header name -> the hunk's first changed line
    changes: list[int] = field(default_factory=list)  # each hunk's first changed line, in file order
    enclosing: Enclosing | None = None  # the head file's outline (gather/outline.py), when gather read it


def _new_side(patch: str) -> Iterator[tuple[int, str, str, str]]:
    """(line number at head, marker, code, hunk header context) for each line of the patch's new side;
    marker "@" once per hunk (its first line number, code = ""), then "+" or " "."""
    line = 0
    in_hunk = False
    context = ""
    for raw in patch.split("\n"):
        header = parse_hunk_header(raw) if raw.startswith("@@") else None
        if header is not None:
            line = header.new_start
            context = header.context.strip()
            in_hunk = True
            yield line, "@", "", context
            continue
        if not in_hunk or not raw:
            continue
        marker = raw[0]
        if marker in "+ ":
            yield line, marker, raw[1:], context
            line += 1


def _scan(change: FileChange, budget: list[int]) -> _File:
    found = _File(change, enclosing=Enclosing(change.outline) if change.outline else None)
    patch = change.patch or ""
    if not patch or change.status is FileStatus.REMOVED:
        return found
    patterns = patterns_for(change.path)
    open_defs: list[_Definition] = []
    hunk_first_change = 0
    hunk_start = 0
    hunk_parent = ""
    pending_touched = ""
    last_line = 0
    for line, marker, code, context in _new_side(patch):
        budget[0] -= 1
        if budget[0] < 0:
            break
        if marker == "@":
            open_defs = []  # a definition's body the diff shows ends with its hunk
            hunk_start, hunk_first_change = line, 0
            pending_touched = context
            hunk_parent = (definition_name(context, patterns) or "") if context and patterns else ""
            continue
        last_line = line
        if marker == "+" and not hunk_first_change:
            hunk_first_change = line
            found.changes.append(line)
            if not found.first_changed:
                found.first_changed = line
            if pending_touched:
                name = definition_name(pending_touched, patterns) if patterns else None
                if name:
                    found.touched.setdefault(name, line)
                pending_touched = ""
        if not code.strip():
            continue
        indent = indentation(code)
        # Close the definitions this line is not inside of (an Allman-style `{` opens the body instead).
        while open_defs and indent <= open_defs[-1].indent and not (
                indent == open_defs[-1].indent and _OPENER.match(code)):
            closing = open_defs.pop()
            if indent == closing.indent and _CLOSER.match(code):
                closing.end = line
        for d in open_defs:
            d.end = line
        name = definition_name(code, patterns) if patterns else None
        if name:
            parent = open_defs[-1].name if open_defs else hunk_parent
            d = _Definition(name, line, line, indent, parent)
            found.definitions.append(d)
            open_defs.append(d)
    if not found.first_changed:
        # Only removals: the first line the hunks show at the head (where the removed code was).
        found.first_changed = hunk_start if last_line else 0
    return found


@dataclass
class _Index:
    files: list[_File]
    by_path: dict[str, _File]

    @classmethod
    def of(cls, ctx: PRContext) -> _Index:
        budget = [MAX_LINES_SCANNED]
        files = [_scan(f, budget) for f in ctx.files]
        by_path: dict[str, _File] = {}
        for f in files:
            by_path.setdefault(f.change.path, f)
        for f in files:
            if f.change.previous_path:
                by_path.setdefault(f.change.previous_path, f)
        return cls(files, by_path)

    def file(self, ref: str) -> _File | None:
        """The changed file `ref` names: exactly, or as the unique file it is a /-suffix of."""
        ref = ref.removeprefix("./")
        if ref in self.by_path:
            return self.by_path[ref]
        ref = ref.removeprefix("a/").removeprefix("b/")
        if ref in self.by_path:
            return self.by_path[ref]
        if "/" not in ref and "." not in ref:
            return None
        hits = {id(f): f for p, f in self.by_path.items() if p.endswith("/" + ref)}
        return next(iter(hits.values())) if len(hits) == 1 else None


def _clean(ref: str) -> str:
    return _BRACKETS.sub("", ref.strip().strip("`'\"").strip().rstrip(",;.").removesuffix("()"))


def _file_location(ref: str, f: _File) -> Location:
    change = f.change
    if change.status is FileStatus.REMOVED:
        return Location(ref=ref, path=change.path, removed=True)
    line = f.first_changed
    return Location(ref=ref, path=change.path, start=line, end=line)


def _definition_in(f: _File, name: str, qualifier: str) -> _Definition | None:
    named = [d for d in f.definitions if d.name == name]
    if qualifier:
        inside = [d for d in named if d.parent == qualifier]
        if inside:
            return inside[0]
    return named[0] if named else None


def _outline_location(ref: str, f: _File, parts: list[str]) -> Location | None:
    """A symbol whose definition line the diff does not show, placed by the head file's outline: its
    whole definition, and the first change inside it for the diff's anchor (the one holding a change
    first when the name is ambiguous)."""
    hits = f.enclosing.named(".".join(parts)) if f.enclosing is not None else []

    def change_in(entry: OutlineEntry) -> int:
        at = bisect_left(f.changes, entry.first)
        return f.changes[at] if at < len(f.changes) and f.changes[at] <= entry.last else 0

    best = next((e for e in hits if change_in(e)), hits[0] if hits else None)
    if best is None:
        return None
    return Location(ref=ref, path=f.change.path, start=best.first, end=best.last, changed=change_in(best))


def _symbol_location(ref: str, f: _File, parts: list[str]) -> Location | None:
    name, qualifier = parts[-1], parts[-2] if len(parts) > 1 else ""
    found = _definition_in(f, name, qualifier)
    if found is None and (placed := _outline_location(ref, f, parts)) is not None:
        return placed
    if found is None and len(parts) > 1 and _definition_in(f, qualifier, "") is None and name not in f.touched:
        return None
    if found is not None:
        return Location(ref=ref, path=f.change.path, start=found.start, end=max(found.start, found.end))
    line = f.touched.get(name) or (f.touched.get(qualifier) if qualifier else None)
    if line:
        return Location(ref=ref, path=f.change.path, start=line, end=line)
    if qualifier:
        outer = _definition_in(f, qualifier, "")
        if outer is not None:
            return Location(ref=ref, path=f.change.path, start=outer.start, end=max(outer.start, outer.end))
    return None


def _symbol_anywhere(ref: str, index: _Index, parts: list[str]) -> Location | None:
    """A bare symbol: the file that defines it (tests first for a `test_` name), else one whose change
    is inside it."""
    name = parts[-1]
    files = index.files
    if name.startswith("test"):
        files = sorted(files, key=lambda f: "test" not in f.change.path.rsplit("/", 1)[-1])
    for f in files:
        if any(d.name == name for d in f.definitions):
            return _symbol_location(ref, f, parts)
    for f in files:
        if name in f.touched or (f.enclosing is not None and f.enclosing.named(".".join(parts))):
            return _symbol_location(ref, f, parts)
    return None


def locate_reference(raw: str, index: _Index) -> Location | None:
    """Where `raw` lives at the head, or None when the diff names no such file or symbol."""
    ref = _clean(raw)
    if not ref or len(raw) > 200:
        return None
    whole = index.file(ref)
    if whole is not None:
        return _file_location(raw, whole)
    head, sep, symbol = ref.partition("::")
    if sep:
        f = index.file(head)
        if f is not None:
            parts = [p for p in _SYMBOL_SPLIT.split(symbol) if _IDENT.fullmatch(p)]
            if f.change.status is FileStatus.REMOVED or not parts:
                return _file_location(raw, f)
            placed = _symbol_location(raw, f, parts)
            return placed or _file_location(raw, f)
    parts = [p for p in _SYMBOL_SPLIT.split(ref) if _IDENT.fullmatch(p)]
    if not parts or " " in ref or len(parts) > 8:
        return None
    return _symbol_anywhere(raw, index, parts)


def cited_references(digest: Digest) -> Iterator[str]:
    """Every reference a Digest cites, in reading order: the decisions' and where to start reading."""
    for decision in digest.decisions:
        yield from decision.references
    yield from digest.start_reading


def locate(digest: Digest, ctx: PRContext, extra: Iterable[str] = ()) -> list[Location]:
    """The locations of what `digest` cites (and `extra`), at `ctx`'s head; unplaceable ones left out."""
    if not ctx.files:
        return []
    index = _Index.of(ctx)
    out: dict[str, Location] = {}
    for raw in [*cited_references(digest), *extra]:
        if raw in out or len(out) >= MAX_LOCATIONS:
            continue
        found = locate_reference(raw, index)
        if found is not None:
            out[raw] = found
    return list(out.values())
