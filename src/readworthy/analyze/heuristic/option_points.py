"""New command-line options and environment variables as design points: a knob every user can now set.

`parser.add_argument("--timeout-keep-alive", type=int, default=5, help="...")` added to a parser is a
new knob, a contract with users the reader must know exists: its name, its default and the authors'
help text say what it is for. A flag the diff also removes is reworded or moved, not new.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...hunk_header import parse_hunk_header
from ...indentation import indentation
from ...languages import PYTHON, written_in
from ...models import Decision
from .centre import RankedDefinition
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
            out.append(_knob(title, explanation, path, anchor, weight=6.0))
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
            out.append(_knob(title, explanation, path, anchor, weight=ENV_WEIGHT))
            if len(out) >= MAX_OPTION_POINTS:
                return out
    return out


ENV_WEIGHT = 3.0  # a setting read from outside: told when the authors' own words say less, not before them
# `os.environ.get("NAME", "5")`, `os.getenv("NAME")`, `os.environ["NAME"]`, `std::env::var("NAME")`, `getenv("NAME")`
_ENV_READ = re.compile(r"""(?:\benviron(?:\.get\(|\[)|\bgetenv\(|\benv::var\(|\bprocess\.env\[)\s*"""
                       r"""["'](?P<name>[A-Z][A-Z0-9_]{2,})["'](?:\s*,\s*(?P<default>[^,()]+?))?\s*[)\]]""")


def _knob(title: str, explanation: str, path: str, anchor: RankedDefinition, weight: float,
          reference: str = "") -> CodePoint:
    """A point about a knob users set (an option, an environment variable, a setting), in the file and
    the definition that adds it (`reference`: a narrower place inside it, a settings class's field)."""
    return CodePoint(Decision(title=fit(title, 160), explanation=fit(explanation, 900),
                              references=list(dict.fromkeys([path, reference or anchor.reference]))),
                     anchor, weight=weight, kind="option")


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


# A class named for settings (`SchedulerConfig`, `ServerSettings`, `TrainingArguments`, `SamplingParams`)
_SETTINGS_CLASS = re.compile(r"(?:Config|Configuration|Settings|Options|Args|Arguments|Params|Parameters)$")
# An annotated attribute with a default, in a class body: `max_num_seqs: int = 128`
_FIELD = re.compile(r"^(?P<indent>\s+)(?P<name>[a-z_]\w*)\s*:\s*(?P<type>[^=#]+?)\s*=\s*(?P<default>.+?)\s*$")
_PYDANTIC_DEFAULT = re.compile(r"^(?:Field|field)\((?:.*?\bdefault\s*=\s*(?P<default>[^,()]+))?")
_DOCSTRING = re.compile(r'^\s*[rRuU]?("""|\'\'\')(?P<text>.*?)(?:\1)?\s*$')
SETTING_DOC_LINES = 8  # an attribute's docstring is read over at most this many lines


def setting_points(sig: Signals, language: str) -> list[CodePoint]:
    """The PR's new settings: an annotated field with a default added to an existing class named for settings
    (a config dataclass, a pydantic model), with what its docstring or the comment above it says it is for. A
    field the diff also removes is moved or retyped, not new."""
    out: list[CodePoint] = []
    for facts in sig.ranked:
        if facts.kind not in CODE_KINDS or not facts.change.patch or not written_in(facts.change.path, PYTHON):
            continue
        path = facts.change.path
        lines = facts.change.patch.split("\n")
        removed = {m.group("name") for line in lines if line.startswith("-") and (m := _FIELD.match(line[1:]))}
        fields = [(i, m) for i, raw in enumerate(lines) if raw.startswith("+") and (m := _FIELD.match(raw[1:]))]
        in_class = _class_body_lines(lines) if fields else set()
        for i, field in fields:
            raw = lines[i]
            if field.group("name") in removed or field.group("default").endswith(",") \
                    or i not in in_class:  # `x: int = 0,` is a parameter
                continue
            anchor = anchor_of(raw[1:], path, sig.centre)
            # a field of a new class is part of what the class is, told (if at all) as the class
            if anchor is None or not anchor.definition.is_type or anchor.definition.new \
                    or not _SETTINGS_CLASS.search(anchor.definition.name):
                continue
            default = field.group("default")
            if (factory := _PYDANTIC_DEFAULT.match(default)) is not None:
                default = (factory.group("default") or "").strip()
            words = _field_doc(lines, i)
            values = {"flag": f"{anchor.definition.name}.{field.group('name')}", "default": default,
                      "name": anchor.definition.qualname, "file": path.rsplit("/", 1)[-1], "help": words}
            title = phrase(language, "c_setting_title_default" if default else "c_setting_title", **values)
            explanation = phrase(language, "c_setting_doc" if words else "c_setting", **values)
            out.append(_knob(title, explanation, path, anchor, weight=6.0 if words else ENV_WEIGHT,
                             reference=f"{anchor.reference}.{field.group('name')}"))  # the field's line
            if len(out) >= MAX_OPTION_POINTS:
                return out
    return out


def _class_body_lines(lines: list[str]) -> set[int]:
    """The indexes of the new side's lines that sit directly in a class body (not in a parameter list or a
    function): the nearest line above each that is indented less is a `class` line, or git's header is (a
    class body is one step in, a method's parameters two). One pass, a stack of the open lines."""
    out: set[int] = set()
    header: tuple[int, bool] | None = None
    stack: list[tuple[int, bool]] = []  # (indentation, is a class line) of the lines that may hold the next
    for i, raw in enumerate(lines):
        if raw.startswith("@@"):
            hunk = parse_hunk_header(raw)
            context = hunk.context if hunk is not None else ""
            header = (indentation(context), context.lstrip().startswith("class ")) if context.strip() else None
            stack = []
            continue
        if raw.startswith("-") or not raw[1:].strip():
            continue
        indent = indentation(raw[1:])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        held_by_class = stack[-1][1] if stack else bool(header and header[1] and header[0] < indent <= header[0] + 4)
        if held_by_class:
            out.add(i)
        stack.append((indent, raw[1:].lstrip().startswith("class ")))
    return out


def _field_doc(lines: list[str], at: int) -> str:
    """The added docstring under a field (a string on the lines below it), else the added comment lines
    right above it, as one line of words."""
    below = [x[1:] for x in lines[at + 1: at + 1 + SETTING_DOC_LINES]]
    first = _DOCSTRING.match(below[0]) if below and lines[at + 1].startswith("+") else None
    if first is not None:
        quote, parts = first.group(1), [first.group("text")]
        if not below[0].rstrip().endswith(quote) or below[0].strip() in (quote, "r" + quote):
            for line in below[1:]:
                end = line.find(quote)
                parts.append(line if end < 0 else line[:end])
                if end >= 0:
                    break
        return " ".join(" ".join(parts).split()).strip()
    above: list[str] = []
    for raw in reversed(lines[max(0, at - SETTING_DOC_LINES): at]):
        if not raw.startswith("+") or not raw[1:].lstrip().startswith("#"):
            break
        above.append(raw[1:].lstrip()[1:].strip())
    return " ".join(reversed(above)).strip()
