"""Changed defaults in a diff: a setting whose value every caller that does not pass one gets.

`max_tokens: int = 2048` → `8192`, `add_argument("--timeout", default=5)` → `30`, `Field(default=1)` →
`4`, and a module constant `MAX_SPEC_LEN = 32` → `128` (a constant every use reads, `is_constant`). The
name is what a user sets: the flag or field, not the `default` keyword.
"""

from __future__ import annotations

import re

from .line_conditions import argument_end, first_argument
from .shapes import COMMENT_LINE

# A default a reader relies on: `default=...`, an annotated field `name: T = ...`, a constant `NAME = ...`.
# (Keyword arguments in calls and local assignments change values, not defaults.)
# The value's trailing blanks and comma are stripped after the match (default_value): a lazy value
# before `\s*,?\s*$` retries the blanks from every position of a long run of them.
# A constant may be declared (`export const MAX_RETRIES = 2;`, `static constexpr int MAX_X = 4;`).
_DECLARED = (r"(?:(?:export|pub|static|const|let|var|val|final|constexpr|inline|public|private|protected|internal)\s+)+"
             r"(?:[\w:<>]+\s+)?")
_DEFAULT = re.compile(r"^\s*(?P<lhs>.*\bdefault\s*=|[A-Za-z_]\w*\s*:\s*[\w.\[\], |]+\s*=|[A-Z][A-Z0-9_]{2,}\s+="
                      rf"|{_DECLARED}[A-Z][A-Z0-9_]{{2,}}\s*(?::\s*[\w.<>\[\]]+\s*)?=)"
                      r"\s*(?P<value>[^=].*)$")
_MAYBE_DEFAULT = re.compile(r".*\bdefault\b|\s*[A-Z][A-Z0-9_]{2,}\s+=|\s*[A-Za-z_]\w*\s*:"  # cheap pre-check
                            r"|\s*(?:export|pub|static|const|let|var|val|final|constexpr|inline|public|private"
                            r"|protected|internal)\s")


def changed_defaults(added: list[str], removed: list[str], patch: str | None = None) -> list[tuple[str, str, str]]:
    """(name, old, new) for defaults whose left side stays and whose literal value changes. The name is
    what a user sets: the flag of an `add_argument("--flag", default=…)`, the field of a `x: int =
    Field(default=…)`, the name assigned; a `default=` alone on its line takes the flag or field it
    belongs to from the lines above it in `patch` (or is "default" where none says)."""
    if not added or not removed:
        return []
    old: dict[str, str] = {}
    for line in removed:
        m = _default_match(line)
        if m and not COMMENT_LINE.match(line):
            old.setdefault(" ".join(m.group("lhs").split()), default_value(m))
    out = []
    for line in added:
        m = _default_match(line)
        if not m or COMMENT_LINE.match(line):
            continue
        lhs = " ".join(m.group("lhs").split())
        before, after = old.get(lhs), default_value(m)
        if before is not None and before != after and _literal(before) and _literal(after):
            name = (_setting_name(lhs) or _setting_above(patch, line) or "default") if "default" in lhs \
                else _assigned_name(lhs)
            out.append((name, before.rstrip(","), after.rstrip(",")))
    return out + _parameter_defaults(added, removed)


# A module-level constant of any case, declared at the line's start (`export const retryDelayMs = 500;`,
# Go's `const DefaultTimeout = 30 * time.Second`): indented, `const` is a local value in a function.
_TOP_CONST = re.compile(r"^(?P<lhs>(?:export\s+)?const\s+[A-Za-z_]\w*\s*(?:[\w.]+\s*)?(?::\s*[\w.<>\[\]]+\s*)?=)"
                        r"\s*(?P<value>[^=].*)$")


def _default_match(line: str) -> re.Match[str] | None:
    if "=" not in line:
        return None
    return (_DEFAULT.match(line) if _MAYBE_DEFAULT.match(line) else None) or _TOP_CONST.match(line)


# A function head with its parameters on the same line: `def f(a, b=1):`, `fun f(a: Int = 1)`,
# `export function f(a = 1) {`. (Parameters on lines of their own, `b: int = 1,`, are _DEFAULT's.)
_SIGNATURE = re.compile(r"^\s*(?:(?:export|public|private|protected|internal|static|async|suspend|override|pub)\s+)*"
                        r"(?:def|fun|function)\s+(?P<name>\w+)\s*(?:<[^>]*>)?\s*\((?P<rest>.*)$")
_PARAMETER_DEFAULT = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w*)\s*(?::[^=]+)?=\s*(?P<value>.+)$")


def _parameter_defaults(added: list[str], removed: list[str]) -> list[tuple[str, str, str]]:
    """(parameter, old, new) for a parameter whose literal default changes in a function head kept on one
    line (`def __init__(self, log_requests: bool = True)` -> `= False`): every caller that leaves it out now
    gets the new value."""
    def defaults(lines: list[str]) -> dict[tuple[str, str], str]:
        out: dict[tuple[str, str], str] = {}
        for line in lines:
            m = _SIGNATURE.match(line) if "(" in line and "=" in line else None
            if m is None or COMMENT_LINE.match(line):
                continue
            for parameter in _parameters(m.group("rest")):
                if p := _PARAMETER_DEFAULT.match(parameter):
                    out.setdefault((m.group("name"), p.group("name")), p.group("value").strip())
        return out

    old = defaults(removed)
    return [(parameter, old[key], value) for key, value in defaults(added).items()
            if (parameter := key[1]) and key in old and old[key] != value and _literal(old[key]) and _literal(value)]


def _parameters(text: str) -> list[str]:
    """The parameters before the bracket that closes the list `text` starts inside, each stripped; where the
    list goes on past this line, the piece not yet ended is left out."""
    out, rest = [], text
    while (end := argument_end(rest)) < len(rest):
        out.append(rest[:end].strip())
        if rest[end] != ",":
            break
        rest = rest[end + 1:]
    return [x for x in out if x]


def is_constant(name: str) -> bool:
    """An upper-case name (`MAX_SPEC_LEN`): a constant the code reads, not a setting a caller leaves out."""
    return bool(re.fullmatch(r"_*[A-Z][A-Z0-9_]*", name)) and any(c.isalpha() for c in name)


_FLAG = re.compile(r"""\badd_argument\(\s*["'](-{1,2}[\w-]+)["']""")
_FIELD = re.compile(r"^\s*(?:self\.)?([A-Za-z_]\w*)\s*(?::[^=(]*)?=\s*[\w.]*\(")
SETTING_LOOKBACK = 8  # lines above a lone `default=` searched for the flag or field it belongs to


def _setting_name(text: str) -> str:
    """The flag or field a `default=` on this text sets, or ""."""
    if m := _FLAG.search(text):
        return m.group(1)
    m = _FIELD.match(text)
    return m.group(1) if m else ""


def _setting_above(patch: str | None, line: str) -> str:
    """The flag or field opened in the new side's lines just above the added `line`, or ""."""
    lines = (patch or "").split("\n")
    at = next((i for i, x in enumerate(lines) if x.startswith("+") and x[1:] == line), -1)
    for above in reversed(lines[max(0, at - SETTING_LOOKBACK):at] if at > 0 else []):
        if above.startswith("-"):
            continue
        if above.startswith("@@"):
            break
        if name := _setting_name(above[1:]) or (m.group(1) if (m := _FLAG_ALONE.match(above[1:])) else ""):
            return name
    return ""


_FLAG_ALONE = re.compile(r"""^\s*["'](--[\w-]+)["'],\s*$""")  # `"--flag",` on its own line in an add_argument


# words a `const` may be followed by that are not the constant's name: C's type, Kotlin's `val`
_C_TYPES = frozenset({"int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "auto",
                      "void", "size_t", "val", "var"})


def _assigned_name(lhs: str) -> str:
    """The name a declaration assigns: `max_tokens` of `max_tokens: int =`, `MAX_X` of `const int MAX_X =`,
    `DefaultTimeout` of Go's `const DefaultTimeout time.Duration =` (its type after the name)."""
    go = re.match(r"(?:export\s+)?const\s+([A-Za-z_]\w*)\s+[\w.]+\s*=$", lhs)
    if go and go.group(1) not in _C_TYPES and not go.group(1).endswith("_t"):  # C writes the type first
        return go.group(1)
    m = re.search(r"([A-Za-z_]\w*)\s*(?::[^=]*)?=$", lhs)
    return m.group(1) if m else re.split(r"[\s:=]", lhs, maxsplit=1)[0]


def default_value(match: re.Match[str]) -> str:
    """The value of a _DEFAULT match without its trailing blanks and one trailing comma; after `default=`
    only the argument itself (`Field(default=1, ge=1)` -> `1`)."""
    value = match.group("value")
    if match.group("lhs").rstrip().endswith("="):
        value = first_argument(value) if "default" in match.group("lhs") else value
    stripped = value.rstrip()
    stripped = stripped[:-1].rstrip() if stripped.endswith((",", ";")) else stripped  # `= 2;` in C-family code
    return stripped or value[:1]


_NUMBER = r"-?[\d_.]+(?:e-?\d+)?[lLfFuU]{0,2}"  # `14L`, `0.5f`, `8u`
# Arithmetic on numbers and unit names, at least one a number: `64 * 1024`, `1 << 20`, `10 * time.Second`.
_ARITHMETIC = re.compile(rf"\(?(?:{_NUMBER}|[A-Za-z_][\w.]*)\)?(?:\s*(?:\*\*|\*|/|<<|\+|-)\s*"
                         rf"\(?(?:{_NUMBER}|[A-Za-z_][\w.]*)\)?)+")


def _literal(value: str) -> bool:
    """A constant a reader can compare: a number, a boolean, None, a short string, or a short sum or
    product of numbers and unit names."""
    v = value.rstrip(",").strip()
    if re.fullmatch(rf"{_NUMBER}|True|False|true|false|None|null|\"[^\"]{{0,40}}\"|'[^']{{0,40}}'", v):
        return True
    return len(v) <= 40 and bool(_ARITHMETIC.fullmatch(v)) and bool(re.search(r"(?<![\w.])\d", v))
