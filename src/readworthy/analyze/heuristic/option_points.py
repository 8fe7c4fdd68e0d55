"""New command-line options and environment variables as design points: a knob every user can now set.

`parser.add_argument("--timeout-keep-alive", type=int, default=5, help="...")` added to a parser is a
new knob, a contract with users the reader must know exists: its name, its default and the authors'
help text say what it is for. A flag the diff also removes is reworded or moved, not new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...models import Decision
from .code_points import CodePoint, anchor_of, standalone_anchor
from .shapes import bracket_depth
from .signals import CODE_KINDS, Signals
from .wording import fit, phrase

_ADD_ARGUMENT = re.compile(r"\badd_argument\(")
_FLAG = re.compile(r"""["'](--[A-Za-z][\w-]*)["']""")
_DEFAULT = re.compile(r"\bdefault\s*=\s*([^,()]+?|\w+\([^()]*\))\s*(?:,|\)\s*$)")
_HELP = re.compile(r"\bhelp\s*=\s*((?:[rfbu]?(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*)+)")
_LITERAL = re.compile(r"""[rfbu]?"((?:[^"\\]|\\.)*)"|[rfbu]?'((?:[^'\\]|\\.)*)'""")
STATEMENT_LINES = 15  # an add_argument call is read up to this many lines
MAX_OPTION_POINTS = 2


def option_points(sig: Signals, language: str) -> list[CodePoint]:
    """The PR's new command-line flags, each in the definition that adds it, with its default and help."""
    out: list[CodePoint] = []
    for facts in sig.ranked:
        if facts.kind not in CODE_KINDS or not facts.change.patch:
            continue
        path = facts.change.path
        removed = {m.group(1) for line in facts.change.patch.split("\n") if line.startswith("-")
                   for m in _FLAG.finditer(line)}
        for first, statement in _added_calls(facts.change.patch):
            flag = _FLAG.search(statement)
            anchor = anchor_of(first, path, sig.centre)
            if flag is None or flag.group(1) in removed or anchor is None:
                continue
            default = _DEFAULT.search(statement)
            words = _help(statement)
            values = {"flag": flag.group(1), "default": default.group(1).strip() if default else "",
                      "name": anchor.definition.qualname, "file": path.rsplit("/", 1)[-1], "help": words}
            title = phrase(language, "c_option_title_default" if default else "c_option_title", **values)
            explanation = phrase(language, "c_option_help" if words else "c_option", **values)
            out.append(CodePoint(Decision(title=fit(title, 160), explanation=fit(explanation, 900),
                                          references=list(dict.fromkeys([path, anchor.reference]))),
                                 anchor, weight=6.0, kind="option"))
            if len(out) >= MAX_OPTION_POINTS:
                return out
    return out


def environment_points(sig: Signals, language: str) -> list[CodePoint]:
    """The PR's new environment variables: a name read from the environment (`os.environ.get("X", "5")`,
    `os.getenv("X")`, `std::env::var("X")`) on an added line that no removed line reads, with its default."""
    out: list[CodePoint] = []
    seen: set[str] = set()
    for facts in sig.ranked:
        if facts.kind not in CODE_KINDS or not facts.change.patch:
            continue
        path = facts.change.path
        lines = facts.change.patch.split("\n")
        removed = {m.group("name") for line in lines if line.startswith("-") for m in _ENV_READ.finditer(line)}
        for line in (x[1:] for x in lines if x.startswith("+")):
            read = _ENV_READ.search(line)
            if read is None or read.group("name") in removed or read.group("name") in seen:
                continue
            seen.add(read.group("name"))
            # read at module level (a table of variables): the variable stands for itself
            anchor = anchor_of(line, path, sig.centre) or standalone_anchor(path, read.group("name"), new=True)
            default = (read.group("default") or "").strip()
            values = {"flag": read.group("name"), "default": default, "name": anchor.definition.qualname,
                      "file": path.rsplit("/", 1)[-1]}
            title = phrase(language, "c_env_title_default" if default else "c_env_title", **values)
            explanation = phrase(language, "c_env" if anchor.definition.line else "c_env_module", **values)
            out.append(CodePoint(Decision(title=fit(title, 160), explanation=fit(explanation, 900),
                                          references=list(dict.fromkeys([path, anchor.reference]))),
                                 anchor, weight=ENV_WEIGHT, kind="option"))
            if len(out) >= MAX_OPTION_POINTS:
                return out
    return out


ENV_WEIGHT = 3.0  # a setting read from outside: told when the authors' own words say less, not before them
# `os.environ.get("NAME", "5")`, `os.getenv("NAME")`, `os.environ["NAME"]`, `std::env::var("NAME")`, `getenv("NAME")`
_ENV_READ = re.compile(r"""(?:\benviron(?:\.get\(|\[)|\bgetenv\(|\benv::var\(|\bprocess\.env\[)\s*"""
                       r"""["'](?P<name>[A-Z][A-Z0-9_]{2,})["'](?:\s*,\s*(?P<default>[^,()]+?))?\s*[)\]]""")


def _added_calls(patch: str) -> Iterator[tuple[str, str]]:
    """(first line, whole statement) of each `add_argument(` call whose lines are all added."""
    lines = patch.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("+") or not _ADD_ARGUMENT.search(line):
            continue
        parts, depth = [], 0
        for raw in lines[i: i + STATEMENT_LINES]:
            if not raw.startswith("+"):
                break
            parts.append(raw[1:].strip())
            depth += bracket_depth(raw[1:])
            if depth <= 0:
                yield line[1:], " ".join(parts)
                break


def _help(statement: str) -> str:
    found = _HELP.search(statement)
    return "".join(a or b for a, b in _LITERAL.findall(found.group(1))).strip() if found else ""

