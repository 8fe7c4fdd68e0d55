"""Whether a changed condition only follows a rename: `if m is None` → `if parsed is None`, where the hunk
also swaps the binding (`m = RE.match(line)` → `parsed = parse(line)`) and never uses the old name again.

The condition tests the same thing under a new name, so it is not a decision to show a reader; the
decision, if there is one, is in the new binding. A condition that swaps one name for another the hunk
does not rename (`x > limit` → `x > budget` with `limit` still in use) is a real change and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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
