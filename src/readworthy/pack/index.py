"""The file index: every changed file, most valuable first, in as few tokens as stay readable.

Tiers, each tried only when the one before does not fit: a full line per file (status, kind, +/-,
how much the diff shows, defined names, touched functions); the top files on full lines and the
rest compact (below); the top files compact and the rest as bare paths (every file still named);
the top files compact and the rest folded into directory counts. Compact lines: the kind once as a
header line for a run of files instead of on every line, no +/- counts (the section head gives the
totals), names separated by spaces (a comma costs a token per name), at most NAMES_PER_LINE names,
and one line per repeated edit listing all its paths (a license header on 250 files is one fact,
not 250 lines). Paths stay whole: the model cites files by path, and a directory header plus
basenames would make it rebuild them.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from ..models import FileStatus
from .rank import RankedFile
from .tokens import CHARS_PER_TOKEN_CEILING, TokenCounter

TOUCHED_KEPT_WHEN_SHORT = 20  # when the index must shrink, only the top files keep their "changes:" lists
NAMES_PER_LINE = 16  # names listed per file; the rest are counted
_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*")

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
PATHS_HEAD = "(paths only from here, same marks)"


def compact_lines(
    rest: Sequence[RankedFile], full: frozenset[str], partial: frozenset[str], shown: frozenset[str],
    names: bool = True,
) -> list[str]:
    """`rest` (in value order) as compact lines; a repeated edit's files share one line, placed where
    the first of them ranks. `names=False`: paths only (the tier before folding into directories)."""
    groups: dict[str, list[RankedFile]] = {}
    for r in rest:
        if "repeated_change" in r.features:
            groups.setdefault(r.repeat_of or r.change.path, []).append(r)
    out = [COMPACT_HEAD if names else PATHS_HEAD]
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
        out.append(_compact_line(r, full, partial, shown if names else None))
    return out


def _mark(path: str, full: frozenset[str], partial: frozenset[str]) -> str:
    return "=" if path in full else "~" if path in partial else ""


def _compact_line(
    r: RankedFile, full: frozenset[str], partial: frozenset[str], shown: frozenset[str] | None
) -> str:
    """`shown` None: the path alone."""
    c = r.change
    path = f"{c.previous_path} -> {c.path}" if c.previous_path else c.path
    line = f"{STATUS_LETTER[c.status]} {path}{_mark(c.path, full, partial)}"
    if c.path in full or shown is None:
        return line  # everything it defines is in the diff, or no room for names
    names = [n for n in r.names if n not in shown]
    if names:
        kept, more = _some(names)
        line += ": " + " ".join(kept) + (f" +{more} more" if more else "")
    return line


def _some(names: Sequence[str]) -> tuple[list[str], int]:
    """At most NAMES_PER_LINE names, public ones first (a line listing eighty names is no index)."""
    if len(names) <= NAMES_PER_LINE:
        return list(names), 0
    ordered = [n for n in names if not n.startswith("_")] + [n for n in names if n.startswith("_")]
    return ordered[:NAMES_PER_LINE], len(names) - NAMES_PER_LINE


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


def naming_tokens(ranked: Sequence[RankedFile], counter: TokenCounter) -> int:
    """What naming every changed file costs: the index with every path on a paths-only line."""
    empty: frozenset[str] = frozenset()
    if not ranked:
        return 0
    return counter.count(_head(ranked, 0) + "\n" + "\n".join(compact_lines(ranked, empty, empty, empty, False))) + 1


# --------------------------------------------------------------------------- the whole file list


def render_file_list(
    ranked: Sequence[RankedFile],
    full: frozenset[str],
    partial: frozenset[str],
    limit: int,
    counter: TokenCounter,
    missing: int = 0,
    diff_text: str = "",
) -> str:
    """Every changed file, most valuable first; folded into directory groups when it does not fit.
    Names the diff section already shows are not repeated (the line says how many there are)."""
    if not ranked:
        return ""
    shown = frozenset(_WORD_RE.findall(diff_text)) if diff_text else frozenset()
    head = _head(ranked, missing)
    lines = [_file_line(r, full, partial, shown) for r in ranked]
    by_path = {r.change.path: line for r, line in zip(ranked, lines, strict=True)}

    def line_of(r: RankedFile) -> str:
        return by_path[r.change.path]

    line_costs = [counter.count(line) + 1 for line in lines]
    head_cost = counter.count(head) + 1
    if head_cost + sum(line_costs) <= limit:
        return head + "\n" + "\n".join(lines)
    # Too long: below the top files, drop the "changes:" lists (paths and new names matter more),
    # then keep the first k lines (highest value) individually and fold the rest into directory
    # groups; find the largest k that fits.
    for i in range(TOUCHED_KEPT_WHEN_SHORT, len(ranked)):
        if ranked[i].touched:
            lines[i] = _file_line(ranked[i], full, partial, shown, with_touched=False)
            by_path[ranked[i].change.path] = lines[i]
            line_costs[i] = counter.count(lines[i]) + 1
    prefix = [0]
    for cost in line_costs:
        prefix.append(prefix[-1] + cost)

    def fits(text: str, fixed: int) -> bool:
        return len(text) <= (limit - fixed) * CHARS_PER_TOKEN_CEILING and fixed + counter.count(text) + 1 <= limit

    def compact(part: Sequence[RankedFile], names: bool = True) -> str:
        return "\n".join(compact_lines(part, full, partial, shown, names)) if part else ""

    # Then: the top k files on full lines, every other file compact (path and names, no counts);
    # the largest k that fits. Only when even all-compact is too long do files fold into groups.
    if fits(compact(ranked), head_cost):
        lo, hi, k_best = 1, len(ranked), 0
        while lo <= hi:
            k = (lo + hi) // 2
            if fits(compact(ranked[k:]), head_cost + prefix[k]):
                k_best, lo = k, k + 1
            else:
                hi = k - 1
        return "\n".join([head, *lines[:k_best], compact(ranked[k_best:])]).rstrip("\n")
    # Else the top k compact with their names and the rest as bare paths: every file still named.
    if fits(compact(ranked, names=False), head_cost):
        lo, hi, k_best = 1, len(ranked), 0
        while lo <= hi:
            k = (lo + hi) // 2
            if fits(compact(ranked[:k]) + "\n" + compact(ranked[k:], names=False), head_cost):
                k_best, lo = k, k + 1
            else:
                hi = k - 1
        return "\n".join(part for part in (head, compact(ranked[:k_best]), compact(ranked[k_best:], False)) if part)
    # Else the top k compact and the rest folded into directory groups. The grouping depth that
    # names the most files individually wins (a finer grouping of the rest is worth less than
    # another file's path and names); on a tie the finer one.
    best: str | None = None
    most = -1
    for depth in (3, 2, 1, 0):
        lo, hi = max(0, most), len(ranked)
        while lo <= hi:
            k = (lo + hi) // 2
            top, folded = compact(ranked[:k]), _folded_lines(ranked[k:], depth, line_of)
            if fits(top + "\n" + folded, head_cost):
                if k > most:
                    most, best = k, "\n".join(part for part in (head, top, folded) if part)
                lo = k + 1
            else:
                hi = k - 1
    if best is None:  # even one line per kind is too long: the caller's final trim handles it
        best = head + "\n" + _folded_lines(ranked, 0, line_of)
    return best


def _head(ranked: Sequence[RankedFile], missing: int) -> str:
    adds = sum(r.change.additions for r in ranked)
    dels = sum(r.change.deletions for r in ranked)
    head = (
        f"{len(ranked)} files changed, +{adds}/-{dels}, most worth reading first. Format: status path [kind] "
        "+added/-removed diff:full|partial (how much of its patch the diff section shows; absent: none) "
        "defines: names its added lines define; changes: existing functions its hunks touch."
    )
    if missing:
        head += f"\n{missing} more files were not returned by the GitHub API (3,000-file cap)."
    return head


def _file_line(
    r: RankedFile,
    full: frozenset[str],
    partial: frozenset[str],
    shown: frozenset[str] = frozenset(),
    with_touched: bool = True,
) -> str:
    c = r.change
    path = f"{c.previous_path} -> {c.path}" if c.previous_path else c.path
    seen = " diff:full" if c.path in full else " diff:partial" if c.path in partial else ""
    line = f"{STATUS_LETTER[c.status]} {path} [{r.kind.value}] +{c.additions}/-{c.deletions}{seen}"
    if seen == " diff:full":
        return line  # everything it defines is in the diff
    names = [n for n in r.names if n not in shown]
    in_diff = len(r.names) - len(names)
    if names:
        kept, more = _some(names)
        line += " defines: " + ", ".join(kept) + (f" (+{more} more)" if more else "")
        line += f" (+{in_diff} in the diff)" if in_diff else ""
    elif in_diff:
        line += f" defines: (all {in_diff} in the diff)"
    touched = [n for n in r.touched if n not in shown] if with_touched else []
    if touched:
        line += "; changes: " + ", ".join(touched)
    return line


def _folded_lines(rest: Sequence[RankedFile], depth: int, line_of: Callable[[RankedFile], str]) -> str:
    """Files grouped by their first `depth` directories (depth 0: by kind only), one line per group."""
    if not rest:
        return ""
    groups: dict[str, list[RankedFile]] = defaultdict(list)
    for r in rest:
        if depth == 0:
            key = f"[{r.kind.value}]"
        else:
            path = r.change.path
            cut = -1
            for _ in range(depth):
                cut = path.find("/", cut + 1)
                if cut < 0:
                    break
            key = path[: cut + 1] if cut >= 0 else (path[: path.rfind("/") + 1] or "./")
        groups[key].append(r)
    singles = sum(1 for members in groups.values() if len(members) == 1)
    by = "directory" if depth else "kind"
    out = [f"(+ {len(rest) - singles} more files, grouped by {by}; not in the diff)"]
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if len(members) == 1:  # a group of one costs as much as the file's own line
            out.append(line_of(members[0]))
            continue
        kinds = Counter(m.kind.value for m in members)
        kind_text = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
        adds = dels = 0
        statuses = set()
        for m in members:
            adds += m.change.additions
            dels += m.change.deletions
            statuses.add(STATUS_LETTER[m.change.status])
        out.append(f"{''.join(sorted(statuses))} {key} {len(members)} files ({kind_text}) +{adds}/-{dels}")
    return "\n".join(out)
