"""The diff section: depth, inside a limit (the file index, index.py, gives the breadth).

Diff = hunks, condensed (long context and long removed runs shrunk around the changed
lines), file by file in value order, definition-carrying hunks first, each file under a per-file
cap; leftover budget then grows the files that were cut. Generated, lock, vendored and binary files
never enter the diff. Pure deletions and renames collapse to one line; an edit repeated across many
files (license headers, an import rename) is shown once and the other files are named.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..models import FileChange, FileStatus
from .classify import NAME_ONLY_KINDS, FileKind, definition_name
from .rank import RankedFile
from .tokens import CHARS_PER_TOKEN_CEILING, TokenCounter, truncate_to_tokens

SUMMARY_SHARE = 0.15  # at most this part goes to one-line summaries (renames, deletions, repeats)
PER_FILE_SHARE = 0.3  # first pass: one file gets at most this part of the diff section
MIN_FILE_CAP = 250  # ... but never less than this many tokens
CONTEXT_LINES = 3  # unchanged lines kept around each change in a condensed hunk
MAX_ADDED_RUN = 60  # longer runs of added lines keep their head and tail
MAX_REMOVED_RUN = 4  # longer runs of removed lines collapse to a count
MOVE_MIN_LINES = 4  # a block this long, removed here and added there, is a move
MOVE_SCAN_MAX_LINES = 60_000  # above this many changed lines, moves are not searched for
MIN_USEFUL_PIECE = 24  # below this nothing (header + a hunk) fits: stop trying
MIN_TRUNCATED_HUNK = 80  # a cut hunk shorter than this says too little to be worth its header

_HUNK_SPLIT_RE = re.compile(r"^(?=@@ )", re.MULTILINE)


# --------------------------------------------------------------------------- one file's pieces


def file_header(r: RankedFile) -> str:
    c = r.change
    moved = f" (from {c.previous_path})" if c.previous_path else ""
    return f"### {c.path}{moved} [{r.kind.value}, {c.status.value}, +{c.additions}/-{c.deletions}]"


def split_hunks(patch: str) -> list[str]:
    return [h.rstrip("\n") for h in _HUNK_SPLIT_RE.split(patch) if h.startswith("@@ ")]


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


def condense_hunk(hunk: str, moves: Mapping[tuple[str, str], str] | None = None) -> str:
    """Keep the header and changed lines; shrink unchanged stretches to CONTEXT_LINES around changes,
    long removed runs to a count, very long added runs to their head and tail, and blocks that
    moved (the same lines removed here and added elsewhere, or the reverse) to one line."""
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
            elif kind == "+" and len(run) > MAX_ADDED_RUN:
                head, tail = run[: MAX_ADDED_RUN - 10], run[-5:]
                out += head + [f"+... ({len(run) - len(head) - len(tail)} more added lines)"] + tail
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


def _one_line_summary(r: RankedFile) -> str | None:
    """Files that need no patch to be understood, as a single line."""
    c = r.change
    if r.kind == FileKind.RENAMED:
        return f"- {c.path}: {c.status.value} from {c.previous_path}, content unchanged"
    if c.status == FileStatus.REMOVED:
        return f"- {c.path}: deleted ({c.deletions} lines)"
    if c.status == FileStatus.CHANGED and not c.patch:
        return f"- {c.path}: mode change only"
    return None


# --------------------------------------------------------------------------- packing the diff


@dataclass
class _FileState:
    rank: RankedFile
    header: str
    hunks: list[str] | None = None  # condensed, computed on first use
    order: list[int] = field(default_factory=list)  # hunk indexes, definitions first
    chosen: set[int] = field(default_factory=set)
    full: bool = False
    tokens: int = 0  # spent on this file
    whole_tokens: int | None = None  # the uncondensed patch, once counted
    header_tokens: int | None = None
    hunk_tokens: dict[int, int] = field(default_factory=dict)
    gave_up_at: int | None = None  # room (tokens) with which nothing more fitted; less will not either


@dataclass(frozen=True)
class DiffPack:
    text: str
    full: frozenset[str]
    partial: frozenset[str]


class _Spender:
    """Tracks tokens against the section limit; pieces are counted once and joined with newlines.

    Counting is the expensive part of packing a huge PR, so texts that cannot fit are refused
    without the tokenizer: once a few texts have been counted, the densest characters-per-token
    ratio seen (with a margin) bounds how few tokens a text of a given length can have. A wrong
    guess can only leave a piece out, never break the budget: what is kept is always counted."""

    def __init__(self, limit: int, counter: TokenCounter) -> None:
        self.limit = limit
        self.used = 0
        self.counter = counter
        self.count: Callable[[str], int] = counter.count
        self._samples = 0
        self._chars = self._tokens = 0
        self._max_chars_per_token = 0.0

    @property
    def left(self) -> int:
        return self.limit - self.used

    def too_long(self, length: int, room: int) -> bool:
        """True when a text of `length` characters will not fit `room` tokens: beyond the densest
        ratio seen (with a margin), or beyond 1.3x what the average ratio predicts."""
        ceiling = float(CHARS_PER_TOKEN_CEILING)
        if self._samples >= 8:
            ceiling = min(ceiling, self._max_chars_per_token * 1.5)
            if length / (self._chars / self._tokens) > room * 1.3 + 16:
                return True
        return length > room * ceiling + 64

    def cost(self, text: str) -> int:
        if self.too_long(len(text), self.left):
            return self.left + 1  # cannot fit; skip the tokenizer
        tokens = self.count(text)
        if len(text) >= 200 and tokens:
            self._samples += 1
            self._chars += len(text)
            self._tokens += tokens
            self._max_chars_per_token = max(self._max_chars_per_token, len(text) / tokens)
        return tokens + 1  # + the joining newline


def pack_diff(ranked: Sequence[RankedFile], limit: int, counter: TokenCounter) -> DiffPack:
    spend = _Spender(limit, counter)
    shown = [r for r in ranked if r.kind not in NAME_ONLY_KINDS and r.repeat_of is None]
    one_liners: list[tuple[RankedFile, str]] = []
    states: list[_FileState] = []
    for r in shown:
        line = _one_line_summary(r)
        if line is not None:
            one_liners.append((r, line))
        elif r.change.patch:
            states.append(_FileState(r, file_header(r)))

    moves = find_moves([st.rank.change for st in states])
    # renames, deletions and repeated edits: a line each, charged first (they are cheap and say a
    # lot), but never more than SUMMARY_SHARE of the section
    summary, one_line_full, repeat_lines = _one_liners(one_liners, ranked, spend, int(limit * SUMMARY_SHARE))
    # hunks in value order under a per-file cap; then leftovers grow the cut files; then a last cut hunk
    cap = max(MIN_FILE_CAP, int(limit * PER_FILE_SHARE))
    for st in states:
        if spend.left < MIN_USEFUL_PIECE:
            break
        _grow(st, min(cap, spend.left), spend, moves=moves)
    for st in states:
        if spend.left < MIN_USEFUL_PIECE:
            break
        if not st.full:
            _grow(st, st.tokens + spend.left, spend, moves=moves)
    for st in states:
        if spend.left < MIN_TRUNCATED_HUNK:
            break
        if not st.full:
            _grow(st, st.tokens + spend.left, spend, cut_last=True, moves=moves)

    present = [st for st in states if st.full or st.chosen]
    blocks = [_render_file(st) for st in present]
    full = {st.rank.change.path for st in present if st.full}
    partial = {st.rank.change.path for st in present if not st.full}
    for first, others in repeat_lines:
        if first in full or first in partial:
            partial.update(others)  # their edit is shown, once, under the first file
    full.update(one_line_full)
    extra = ("Also changed:\n" + "\n".join(summary)) if summary else ""
    return DiffPack("\n\n".join(b for b in [*blocks, extra] if b), frozenset(full), frozenset(partial))


def _grow(
    st: _FileState, allowance: int, spend: _Spender, cut_last: bool = False,
    moves: Mapping[tuple[str, str], str] | None = None,
) -> None:
    """Spend up to `allowance` tokens (in total) on this file: the whole patch if it fits, else hunks.
    `cut_last`: the final pass, where a hunk too long for what is left may be cut to fit."""
    room_now = min(allowance - st.tokens, spend.left)
    if st.full or room_now <= 0 or (st.gave_up_at is not None and room_now <= st.gave_up_at and not cut_last):
        return
    before = st.tokens
    patch = st.rank.change.patch or ""
    if _take_whole(st, patch, allowance, spend):
        return
    hunks = _condensed_hunks(st, patch, moves)
    whole_failed = st.whole_tokens is not None
    for i in st.order:
        if i in st.chosen:
            continue
        if whole_failed and not cut_last and len(hunks[i]) >= len(patch):
            continue  # the only hunk, uncondensed: it did not fit as the whole patch either
        _take_hunk(st, i, allowance, spend, cut_last)
    if st.tokens == before:
        st.gave_up_at = room_now


def _take_whole(st: _FileState, patch: str, allowance: int, spend: _Spender) -> bool:
    """Take the whole, uncondensed patch if it fits; True when taken."""
    if spend.too_long(len(patch), min(allowance, st.tokens + spend.left)):
        return False
    if st.whole_tokens is None:
        st.whole_tokens = spend.count(st.header + "\n" + patch) + 1
    whole = st.whole_tokens
    if whole <= allowance and whole - st.tokens <= spend.left:
        spend.used += whole - st.tokens
        st.tokens, st.full = whole, True
        return True
    return False


def _condensed_hunks(st: _FileState, patch: str, moves: Mapping[tuple[str, str], str] | None) -> list[str]:
    """The file's condensed hunks, computed once; `st.order` puts definition-carrying hunks first."""
    if st.hunks is None:
        st.hunks = [condense_hunk(h, moves) for h in split_hunks(patch)]
        with_defs = [i for i, h in enumerate(st.hunks) if _has_definition(h, st.rank.names)]
        st.order = with_defs + [i for i in range(len(st.hunks)) if i not in set(with_defs)]
    return st.hunks


def _take_hunk(st: _FileState, i: int, allowance: int, spend: _Spender, cut_last: bool) -> None:
    """Add hunk `i` (and the file header, for the file's first hunk) if it fits the room left."""
    hunks = st.hunks or []
    room = min(allowance - st.tokens, spend.left)
    if i in st.hunk_tokens:
        cost = st.hunk_tokens[i]
    elif spend.too_long(len(hunks[i]), room) and not cut_last:
        return
    else:
        cost = st.hunk_tokens[i] = spend.count(hunks[i]) + 1
    if cost >= room and not cut_last:
        return
    if st.header_tokens is None:
        st.header_tokens = spend.count(st.header + f"\n(condensed: {len(hunks)} of {len(hunks)} hunks)") + 1
    header = 0 if st.chosen else st.header_tokens
    room -= header
    if cost > room:
        if not cut_last or room < MIN_TRUNCATED_HUNK:
            return  # a later, smaller hunk may still fit
        # too long for what is left: its beginning is still worth having (hunks with definitions
        # come first, so this is usually where a new function starts)
        hunks[i] = truncate_to_tokens(spend.counter, hunks[i], room - 1, "\n ... (hunk cut)")
        cost = st.hunk_tokens[i] = spend.count(hunks[i]) + 1
        if not hunks[i] or cost > room:
            return
    st.chosen.add(i)
    st.tokens += cost + header
    spend.used += cost + header


def _has_definition(hunk: str, names: tuple[str, ...]) -> bool:
    return any(name in hunk for name in names[:20])


def _render_file(st: _FileState) -> str:
    if st.full:
        return st.header + "\n" + (st.rank.change.patch or "")
    shown = sorted(st.chosen)
    hunks = st.hunks or []
    return "\n".join([st.header, f"(condensed: {len(shown)} of {len(hunks)} hunks)", *(hunks[i] for i in shown)])


def _one_liners(
    one_liners: list[tuple[RankedFile, str]], ranked: Sequence[RankedFile], spend: _Spender, cap: int
) -> tuple[list[str], set[str], list[tuple[str, list[str]]]]:
    """Renames, deletions (a line each) and repeated edits (a line per group) while `cap` lasts.
    Returns the lines, the files they show completely, and the repeat groups that made it in."""
    lines: list[str] = []
    complete: set[str] = set()
    groups: dict[str, list[str]] = defaultdict(list)
    for r in ranked:
        if r.repeat_of is not None:
            groups[r.repeat_of].append(r.change.path)
    candidates: list[tuple[str, RankedFile | None, tuple[str, list[str]] | None]] = [
        (f"- the same edit as {first} also in {len(others)} other files: {_dir_summary(others)}", None, (first, others))
        for first, others in groups.items()
    ] + [(line, r, None) for r, line in one_liners]
    shown_groups: list[tuple[str, list[str]]] = []
    budget_end = spend.used + cap
    for line, owner, group in candidates:
        cost = spend.cost(line)
        if spend.used + cost > budget_end or cost > spend.left:
            continue
        spend.used += cost
        lines.append(line)
        if group is not None:
            shown_groups.append(group)
        elif owner is not None and (owner.kind == FileKind.RENAMED or owner.change.status == FileStatus.CHANGED):
            complete.add(owner.change.path)  # nothing more to see than the line says
    return lines, complete, shown_groups


def _dir_summary(paths: list[str], top: int = 6) -> str:
    dirs = Counter(p.rsplit("/", 1)[0] + "/" if "/" in p else "./" for p in paths)
    parts = [f"{d} ({n})" for d, n in dirs.most_common(top)]
    if len(dirs) > top:
        parts.append(f"{len(dirs) - top} more directories")
    return ", ".join(parts)
