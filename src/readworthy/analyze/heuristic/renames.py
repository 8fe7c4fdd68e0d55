"""Renames: whether a whole diff only swaps a few names (`get_kv_cache_shape` → `kv_cache_shape` everywhere),
and whether a changed condition only follows a rename: `if m is None` → `if parsed is None`, where the hunk
also swaps the binding (`m = RE.match(line)` → `parsed = parse(line)`) and never uses the old name again.

The condition tests the same thing under a new name, so it is not a decision to show a reader; the
decision, if there is one, is in the new binding. A condition that swaps one name for another the hunk
does not rename (`x > limit` → `x > budget` with `limit` still in use) is a real change and stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from ...models import FileChange
from ...pack.classify import definition_name, patterns_for

_RENAMED = "@@"  # what an expression on a renamed name becomes (never in a condition's code)
_ROOT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
# Words a condition is built of, not names a hunk could rename.
_NOT_NAMES = frozenset({
    "and", "or", "not", "is", "in", "if", "else", "None", "True", "False", "true", "false", "null", "nullptr",
    "self", "this", "cls", "len", "isinstance", "hasattr", "getattr", "sizeof", "return",
})


def _roots(code: str) -> set[str]:
    """The names an expression starts from (`a.b(c)` → a, c), quoted text left out."""
    unquoted = re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", "''", code)
    return {m.group(1) for m in _ROOT.finditer(unquoted)} - _NOT_NAMES


def _placeholder(code: str, names: set[str]) -> str:
    """Each expression rooted at one of `names` (`m.group(2).strip()`) turned into one mark, spaces dropped."""
    for name in sorted(names, key=len, reverse=True):
        code = re.sub(rf"(?<![\w.]){re.escape(name)}\b(?:\s*\.\s*\w+|\([^()]*\)|\[[^\[\]]*\])*", _RENAMED, code)
    while (shorter := re.sub(r"(?<![\w.])[A-Za-z_]\w*\(\s*@@\s*\)", _RENAMED, code)) != code:
        code = shorter  # `int(m.group(1))`: a conversion around a renamed value goes with it
    return re.sub(r"\s+", "", code)


def _binds(name: str, lines: Sequence[str]) -> bool:
    """Whether one of `lines` gives `name` a value: `name = ...`, `name: T = ...`, `name := ...`,
    `for i, name in ...`, `... as name`, `auto name = ...` (an import is not one: which function a condition
    calls is a choice, not a name)."""
    n = re.escape(name)
    binding = re.compile(rf"(?:^|[\s,(*&]){n}\s*(?::\s*[^=]+?)?\s*(?::=|=(?!=))|\bfor\s+(?:[\w\s,]*,\s*)?{n}\b"
                         rf"|\bas\s+{n}\b")
    return any(binding.search(line) and not line.lstrip().startswith(("import ", "from ")) for line in lines)


def only_renamed(old: str, new: str, removed: Sequence[str], added: Sequence[str]) -> bool:
    """Whether condition `old` became `new` only because the hunk renamed what it tests: a name that left
    is bound in the hunk's other removed lines and used in none of its added lines, one that came is bound
    in its added lines and used in none of its removed lines, and once the expressions on those names are
    set aside (a conversion around one, `int(m.group(1))`, with them) the two conditions are the same."""
    gone = {n for n in _roots(old) - _roots(new) if _binds(n, removed)}
    came = {n for n in _roots(new) - _roots(old) if _binds(n, added)}
    if not gone or not came:
        return False
    removed_names = set().union(*(_roots(line) for line in removed))
    added_names = set().union(*(_roots(line) for line in added))
    if gone & added_names or came & removed_names:
        return False
    return _placeholder(old, gone) == _placeholder(new, came)


RENAME_MAX_NAMES = 3  # a diff that swaps more names than this is more than a rename
# A quoted string is one token: a name swapped only inside strings (`mode="fast"` → `mode="slow"`) changes a
# value, not a name.
_TOKEN = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|\w+|\S")


def renamed_names(changes: Iterable[FileChange]) -> tuple[tuple[str, str], ...]:
    """The (old, new) names, when every changed line of these files is a removed line with only a few names
    swapped (`get_kv_cache_shape` → `kv_cache_shape`, the same swap everywhere, in strings too): a rename and
    nothing else. Each swap must rename something the diff shows renamed: a definition (its line is among
    the swapped ones) or a file or directory (a moved file's path). Swapping one existing thing for another
    (`x > limit` → `x > budget`, `float16` → `bfloat16`) changes behaviour; it is no rename. Empty otherwise."""
    swaps: dict[str, str] = {}
    strings: list[tuple[str, str]] = []  # changed string literals: they may change only by the swaps
    renamed: set[tuple[str, str]] = set()  # (old, new) that the diff renames: definitions, path parts
    for change in changes:
        path, patch = change.path, change.patch
        patterns = patterns_for(path)
        if change.previous_path:
            renamed |= _path_renames(change.previous_path, path)
        for removed, added in changed_runs(patch or ""):
            if len(removed) != len(added):
                return ()
            for old, new in zip(removed, added, strict=True):
                found = swapped_names(old, new, swaps, strings)
                if found is None or len(swaps) > RENAME_MAX_NAMES:
                    return ()
                declared = definition_name(old, patterns) if found and patterns else None
                if declared in found:
                    renamed.add((declared, swaps[declared]))
    if not swaps or any(pair not in renamed for pair in swaps.items()):
        return ()
    if any(_with_swaps(old, swaps) != new for old, new in strings):
        return ()
    return tuple(swaps.items())


def changed_runs(patch: str) -> Iterator[tuple[list[str], list[str]]]:
    """Each run of changed lines between two unchanged ones, as (removed, added) without their markers."""
    removed: list[str] = []
    added: list[str] = []
    for line in [*patch.split("\n"), " "]:  # a final context line closes the last run
        if line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif removed or added:
            yield removed, added
            removed, added = [], []


def swapped_names(old: str, new: str, swaps: dict[str, str], strings: list[tuple[str, str]],
                  token: re.Pattern[str] = _TOKEN) -> list[str] | None:
    """The names swapped between `old` and `new` (each consistently with `swaps`, which it extends), or None
    when the lines differ otherwise; string literals that differ go to `strings`, to be checked at the end.
    `token` splits a line: by default a dotted name is several tokens (`torch.float16` swaps `float16`)."""
    before, after = token.findall(old), token.findall(new)
    if len(before) != len(after):
        return None
    names = []
    for a, b in zip(before, after, strict=True):
        if a == b:
            continue
        if a[0] in "\"'" and b[0] == a[0]:
            strings.append((a, b))
            continue
        if not (a[0].isalpha() or a[0] == "_") or not (b[0].isalpha() or b[0] == "_") \
                or swaps.setdefault(a, b) != b:
            return None
        names.append(a)
    return names


def _path_renames(old: str, new: str) -> set[tuple[str, str]]:
    """The path parts a move renames (`tests/test_a.py` → `tests/test_b.py`: `test_a` → `test_b`)."""
    before = re.split(r"[/.]", old)
    after = re.split(r"[/.]", new)
    if len(before) != len(after):
        return set()
    return {(a, b) for a, b in zip(before, after, strict=True) if a != b}


def _with_swaps(text: str, swaps: dict[str, str]) -> str:
    return re.sub(r"\w+", lambda m: swaps.get(m.group(0), m.group(0)), text)
