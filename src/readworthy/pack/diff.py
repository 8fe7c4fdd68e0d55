"""The diff section: depth, inside a limit (the file index, index.py, gives the breadth).

Files in value order (rank.py). Each file first gets at most PER_FILE_SHARE of the section: its
whole patch if that fits, else its hunks (hunks.py) skeleton first: every hunk in its brief form
(long added runs as outlines: the definitions they add) in reading order, then bodies, hunk by
hunk, while the file's share lasts. What is left then grows the files in the same order (whole
patch, or the remaining bodies and hunks), and a last pass may cut one hunk to fill the rest.
Generated, lock, vendored and binary files never enter the diff. Pure deletions and renames
collapse to one line; an edit repeated across many files (license headers, an import rename) is
shown once and the other files are named.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..models import FileStatus
from .classify import NAME_ONLY_KINDS, FileKind
from .hunks import Hunk, Moves, file_hunks, find_moves, reading_order, with_enclosing_headers
from .rank import RankedFile
from .tokens import CHARS_PER_TOKEN_CEILING, TokenCounter, truncate_to_tokens

SUMMARY_SHARE = 0.15  # at most this part goes to one-line summaries (renames, deletions, repeats)
FIRST_LOOK_SHARE = 0.1  # first pass: every file gets a first look of at most this part of the section
MIN_FIRST_LOOK = 150  # ... but never less than this many tokens
PER_FILE_SHARE = 0.3  # second pass: one file gets at most this part of the diff section
MIN_FILE_CAP = 250  # ... but never less than this many tokens
MIN_USEFUL_PIECE = 24  # below this nothing (header + a hunk) fits: stop trying
MIN_TRUNCATED_HUNK = 80  # a cut hunk shorter than this says too little to be worth its header
MIN_RECUT_GAIN = 60  # a cut hunk is cut again, longer, only when this many more tokens fit


# --------------------------------------------------------------------------- one file's pieces


def file_header(r: RankedFile) -> str:
    c = r.change
    moved = f" (from {c.previous_path})" if c.previous_path else ""
    return f"### {c.path}{moved} [{r.kind.value}, {c.status.value}, +{c.additions}/-{c.deletions}]"


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
    patch: str  # as the model reads it: hunk headers name the method a change is in (hunks.py)
    hunks: list[Hunk] | None = None  # computed on first use
    order: list[int] = field(default_factory=list)  # hunk indexes in reading order
    shown: dict[int, str] = field(default_factory=dict)  # hunk index -> the text shown (brief, full or cut)
    costs: dict[int, int] = field(default_factory=dict)  # hunk index -> tokens of its shown text
    full: bool = False
    tokens: int = 0  # spent on this file
    whole_tokens: int | None = None  # the uncondensed patch, once counted
    header_tokens: int | None = None
    counted: dict[str, int] = field(default_factory=dict)  # piece text -> tokens
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
            states.append(_FileState(r, file_header(r), with_enclosing_headers(r.change.patch, r.change.outline)))

    moves = find_moves([st.rank.change for st in states])
    # renames, deletions and repeated edits: a line each, charged first (they are cheap and say a
    # lot), but never more than SUMMARY_SHARE of the section
    summary, one_line_full, repeat_lines = _one_liners(one_liners, ranked, spend, int(limit * SUMMARY_SHARE))
    # a first look at every file, then depth under a larger cap, both in value order; then what is
    # left grows the files in the same order; then a last pass may cut hunks to fill the rest
    for share, floor in ((FIRST_LOOK_SHARE, MIN_FIRST_LOOK), (PER_FILE_SHARE, MIN_FILE_CAP)):
        cap = max(floor, int(limit * share))
        for st in states:
            if spend.left < MIN_USEFUL_PIECE:
                break
            _grow(st, min(cap, st.tokens + spend.left), spend, moves)
    for st in states:
        if spend.left < MIN_USEFUL_PIECE:
            break
        if not st.full:
            _grow(st, st.tokens + spend.left, spend, moves)
    for st in states:
        if spend.left < MIN_TRUNCATED_HUNK:
            break
        if not st.full:
            _grow(st, st.tokens + spend.left, spend, moves, cut_last=True)

    present = [st for st in states if st.full or st.shown]
    blocks = [_render_file(st) for st in present]
    full = {st.rank.change.path for st in present if st.full}
    partial = {st.rank.change.path for st in present if not st.full}
    for first, others in repeat_lines:
        if first in full or first in partial:
            partial.update(others)  # their edit is shown, once, under the first file
    full.update(one_line_full)
    extra = ("Also changed:\n" + "\n".join(summary)) if summary else ""
    return DiffPack("\n\n".join(b for b in [*blocks, extra] if b), frozenset(full), frozenset(partial))


def _grow(st: _FileState, allowance: int, spend: _Spender, moves: Moves, cut_last: bool = False) -> None:
    """Spend up to `allowance` tokens (in total) on this file: the whole patch if it fits; else every
    hunk's brief form that fits, in reading order; then the beginning of each definition-carrying
    hunk that did not (a hunk cut before grows with the room); then full bodies in the same order.
    `cut_last`: the final pass, where any hunk may be cut to what is left."""
    room_now = min(allowance - st.tokens, spend.left)
    if st.full or room_now <= 0 or (st.gave_up_at is not None and room_now <= st.gave_up_at and not cut_last):
        return
    before = st.tokens
    patch = st.patch
    if _take_whole(st, patch, allowance, spend):
        return
    hunks = _hunks(st, patch, moves)
    whole_failed = st.whole_tokens is not None
    for i in st.order:  # the skeleton: every hunk, brief
        if i in st.shown or whole_failed and not cut_last and len(hunks[i].brief) >= len(patch):
            continue  # (the only hunk, uncondensed: it did not fit as the whole patch either)
        _show(st, i, hunks[i].brief, allowance, spend)
    for i in st.order:  # a definition-carrying hunk too long for the room: its beginning
        shown = st.shown.get(i)
        if shown is None:
            if hunks[i].definitions or cut_last:
                _cut(st, i, hunks[i].brief, allowance, spend)
        elif shown not in (hunks[i].brief, hunks[i].full) and not _show(st, i, hunks[i].brief, allowance, spend):
            _cut(st, i, hunks[i].brief, allowance, spend)  # cut before: now longer, if the room grew
    for i in st.order:  # then the bodies
        if st.shown.get(i) == hunks[i].brief != hunks[i].full:
            _show(st, i, hunks[i].full, allowance, spend)
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
        st.shown.clear()
        st.costs.clear()
        return True
    return False


def _hunks(st: _FileState, patch: str, moves: Moves) -> list[Hunk]:
    if st.hunks is None:
        st.hunks = file_hunks(patch, st.rank.change.path, moves)
        st.order = reading_order(st.hunks)
    return st.hunks


def _piece_cost(st: _FileState, text: str, room: int, spend: _Spender) -> int | None:
    """Tokens of a piece (+ its joining newline), or None when it surely exceeds `room`."""
    if text in st.counted:
        return st.counted[text]
    if spend.too_long(len(text), room):
        return None
    cost = st.counted[text] = spend.count(text) + 1
    return cost


def _header_cost(st: _FileState, spend: _Spender) -> int:
    """The file header and the "(condensed: ...)" line, charged with the file's first hunk."""
    if st.shown:
        return 0
    if st.header_tokens is None:
        n = len(st.hunks or [])
        st.header_tokens = spend.count(st.header + f"\n(condensed: {n} of {n} hunks)") + 1
    return st.header_tokens


def _show(st: _FileState, i: int, text: str, allowance: int, spend: _Spender) -> bool:
    """Show hunk `i` as `text` (adding it, or replacing its shorter form) if the room allows."""
    room = min(allowance - st.tokens, spend.left)
    if room <= 0:
        return False
    header = _header_cost(st, spend)
    now = st.costs.get(i, 0)  # replacing a shorter form frees its tokens
    cost = _piece_cost(st, text, room + now - header, spend)
    if cost is None:
        return False
    delta = cost - now + header
    if delta > room:
        return False
    st.shown[i], st.costs[i] = text, cost
    st.tokens += delta
    spend.used += delta
    return True


def _cut(st: _FileState, i: int, text: str, allowance: int, spend: _Spender) -> None:
    """The last pass: hunk `i` cut to the room left, when that leaves enough to be worth showing
    (hunks come in reading order, so this is usually where a new definition starts)."""
    now = st.costs.get(i, 0)  # a hunk cut before is replaced by a longer cut
    room = min(allowance - st.tokens, spend.left) - _header_cost(st, spend)
    if room < (MIN_RECUT_GAIN if now else MIN_TRUNCATED_HUNK):
        return
    cut = truncate_to_tokens(spend.counter, text, room + now - 1, "\n ... (hunk cut)")
    if cut:
        _show(st, i, cut, allowance, spend)


def _render_file(st: _FileState) -> str:
    if st.full:
        return st.header + "\n" + st.patch
    shown = sorted(st.shown)
    n = len(st.hunks or [])
    return "\n".join([st.header, f"(condensed: {len(shown)} of {n} hunks)", *(st.shown[i] for i in shown)])


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
