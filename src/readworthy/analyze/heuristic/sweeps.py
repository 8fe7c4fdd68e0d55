"""Call-site sweeps: a diff that swaps one callee for another at many call sites and does nothing else.

`ast.literal_eval(v)` → `safe_literal_eval(v)` in six parsers, `torch.cuda.synchronize()` →
`current_platform.synchronize()` in ten files: the rubric's "applying an established pattern to more
call sites". What it establishes is one convention (call the new name), and what a reader needs is the
name, not the sites. A sweep is verified line by line, never taken from the title:

- in every swept file each changed line, imports aside, is a removed line whose paired added line
  differs only by swapping whole (dotted) names, the same swaps everywhere, at most SWEEP_MAX_SWAPS;
- at least SWEEP_MIN_FILES files are swept;
- at most one other file changes, and only to define what the sites now call: a few added lines
  (HOME_MAX_LINES) that define one of the swapped-in names, and no removed line but imports. Anything
  else beside it (a second new helper, a test of the new behaviour, a rewritten branch, a rename whose
  definition also changes what it does) is more than a sweep.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...models import FileChange
from ...pack.classify import definition_name, patterns_for
from .renames import changed_runs, swapped_names
from .shapes import is_import_line

SWEEP_MIN_FILES = 3
SWEEP_MAX_SWAPS = 2
HOME_MAX_LINES = 20
# A whole dotted name is one token (`ast.literal_eval`), so is a quoted string; anything else is one character.
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*|\S")


@dataclass(frozen=True)
class Sweep:
    swaps: tuple[tuple[str, str], ...]  # (old, new) names, first seen first
    files: int  # files whose lines swap them
    sites: int  # changed line pairs
    home: str  # the file that defines the swapped-in name, "" when it existed before the PR


@dataclass
class _Tally:
    swaps: dict[str, str]
    strings: list[tuple[str, str]]  # changed string literals: they may change only by the swaps
    files: int = 0
    sites: int = 0


def call_site_sweep(changes: Iterable[FileChange]) -> Sweep | None:
    """The sweep these changes make, or None when they do anything more (see the module docstring)."""
    tally = _Tally({}, [])
    others: list[FileChange] = []
    for change in changes:
        swaps, strings = dict(tally.swaps), list[tuple[str, str]]()  # kept only if the whole file is a sweep
        # a change whose patch GitHub left out may hold anything: it is never part of a sweep
        unread = change.patch is None and bool(change.additions or change.deletions)
        sites = None if unread else _swept_sites(change.patch or "", swaps, strings)
        if sites is None:
            others.append(change)
            if len(others) > 1:
                return None  # more than a sweep: a huge PR need not be read to the end
        elif sites:
            tally.swaps, tally.files, tally.sites = swaps, tally.files + 1, tally.sites + sites
            tally.strings += strings
    if tally.files < SWEEP_MIN_FILES or not tally.swaps or len(others) > 1:
        return None
    if any(_with_swaps(old, tally.swaps) != new for old, new in tally.strings):
        return None
    home = others[0] if others else None
    if home is not None and not _defines_new_name(home, set(tally.swaps.values())):
        return None
    return Sweep(tuple(tally.swaps.items()), tally.files, tally.sites, home.path if home else "")


def _swept_sites(patch: str, swaps: dict[str, str], strings: list[tuple[str, str]]) -> int | None:
    """How many line pairs of this patch only swap names (recorded in `swaps`), or None when a changed
    line does anything else (a line only reformatted too). Import lines and blank lines are set aside: the
    swap moves them."""
    sites = 0
    for removed, added in changed_runs(patch):
        before = [x for x in removed if x.strip() and not is_import_line(x)]
        after = [x for x in added if x.strip() and not is_import_line(x)]
        if len(before) != len(after):
            return None
        for old, new in zip(before, after, strict=True):
            if _TOKEN.findall(old) == _TOKEN.findall(new) or len(swaps) > SWEEP_MAX_SWAPS \
                    or swapped_names(old, new, swaps, strings, _TOKEN) is None:
                return None
            sites += 1
    return sites if len(swaps) <= SWEEP_MAX_SWAPS else None


def _with_swaps(text: str, swaps: dict[str, str]) -> str:
    for old, new in swaps.items():
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)
    return text


def _defines_new_name(change: FileChange, names: set[str]) -> bool:
    """Whether this file only adds a few lines, among them the definition of one of `names`, and removes
    nothing but imports (a rewritten line beside the new definition is a change of its own)."""
    if change.additions > HOME_MAX_LINES:
        return False
    lines = (change.patch or "").split("\n")
    if any(x.startswith("-") and not x.startswith("---") and x[1:].strip() and not is_import_line(x[1:])
           for x in lines):
        return False
    patterns = patterns_for(change.path)
    short = {n.rsplit(".", 1)[-1] for n in names}
    added = (x[1:] for x in lines if x.startswith("+") and not x.startswith("+++"))
    return any(definition_name(x, patterns) in short for x in added)
