"""What one line of code states as a condition: an `if`/`while` test, a check (`assert`, `TORCH_CHECK`), or
a boolean assigned to a name, so that an edit to it can be shown as "the condition changes from ... to ...".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator

from .comment_text import comment_syntax

_IF = re.compile(r"^\s*(?:\}\s*)?(?P<kw>if|elif|else\s+if|while|unless)\b\s*(?P<cond>.+?)\s*(?::|\{|;?\s*then|do)?\s*$")
_CHECK = re.compile(r"^\s*(?P<kw>assert|(?:STD_)?TORCH_CHECK\w*|CHECK\w*|debug_assert\w*!?|assert\w*!|"
                    r"TORCH_INTERNAL_ASSERT)\s*\(?(?P<cond>.+?)\)?\s*;?\s*$")
_BOOL_OPERATOR = re.compile(r"\band\b|\bor\b|&&|\|\||==|!=|\bnot\b|\bis\b|\bin\b|[<>]=?")
_BOOL_ASSIGN = re.compile(r"^\s*(?:(?:let|const|auto|bool|var)\s+)?(?P<kw>[\w.]+)\s*(?::\s*bool\s*)?=(?!=)\s*"
                          rf"(?P<cond>.*(?:{_BOOL_OPERATOR.pattern}).*?)\s*;?\s*$")
_CHOICE = re.compile(r"\bif\b.*\belse\b|\?.*:")  # a conditional expression picks a value; it is no condition
_WS = re.compile(r"\s+")
_OPEN_END = re.compile(r"(?:&&|\|\||\band|\bor|[-+*/%,\\(&|^<>=!])\s*$")


def condition_of(line: str, path: str = "") -> tuple[str, str] | None:
    """(what kind of condition, the condition) of one line of code, or None; with the file's `path`, a
    comment after the code is not part of it (`//` is floor division in Python, a comment in C)."""
    stripped = line.strip()
    if stripped.startswith(("#", "//", "/*", "*")):
        return None
    line = _without_trailing_comment(line, *comment_syntax(path))  # `if x:  # why` tests `x`
    for pattern in (_IF, _CHECK, _BOOL_ASSIGN):
        m = pattern.match(line)
        if m is None:
            continue
        cond = m.group("cond").strip()
        if pattern is _CHECK:  # `CHECK(cond, "message")`: the condition, not its message
            cond = first_argument(cond)
        elif pattern is _IF and cond.startswith("(") and cond.endswith(")") and balanced(cond[1:-1]):
            cond = cond[1:-1].strip()  # `if (cond) {`
        elif pattern is _BOOL_ASSIGN and not _own_condition(cond):
            continue
        # a condition that goes on over the next lines (`if (a and`, `a &&`) is not one to quote
        if len(cond.strip("() ")) >= 3 and balanced(cond) and not _OPEN_END.search(cond):
            kw = _WS.sub(" ", m.group("kw"))
            return ("if" if kw in ("if", "elif", "else if") else kw), cond
    return None


def first_argument(text: str) -> str:
    """`text` up to the comma or bracket that ends the argument it starts with (outside strings), stripped:
    `cond, "message")` and `cond)` give `cond`."""
    return text[:argument_end(text)].strip()


def argument_end(text: str) -> int:
    """The index of the comma or closing bracket that ends the argument `text` starts with (outside strings
    and inner brackets), or len(text) when the line ends first."""
    depth, quote = 0, ""
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
    return len(text)


def balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c in "([{") - (c in ")]}")
        if depth < 0:
            return False
    return depth == 0


def _scan(text: str) -> Iterator[tuple[int, str, int, bool]]:
    """(index, character, bracket depth, inside a string literal) for each character of a line."""
    depth, quote, escaped = 0, "", False
    for i, c in enumerate(text):
        inside = bool(quote)
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = ""
        elif c in "\"'`":
            quote, inside = c, True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        yield i, c, depth, inside


def _own_condition(value: str) -> bool:
    """Whether an assigned value is a condition by its own operators: not `f(a < b, "<p>")` (the operator is
    an argument's) and not `a if c in s else b` (a conditional expression picks a value)."""
    surface = _surface(value)
    return bool(_BOOL_OPERATOR.search(surface)) and not _CHOICE.search(surface)


def _surface(cond: str) -> str:
    """The condition without string literals and bracketed parts (brackets around all of it taken off
    first): what is left holds its own operators."""
    while cond.startswith("(") and cond.endswith(")") and balanced(cond[1:-1]):
        cond = cond[1:-1].strip()
    return "".join(c for _, c, depth, inside in _scan(cond) if depth == 0 and not inside and c not in ")]}")


def code_parts(lines: Iterable[str], path: str) -> Iterator[str]:
    """Each line of `path` without a comment after its code, by the comment syntax of its language."""
    syntax = comment_syntax(path)
    return (_without_trailing_comment(line, *syntax) for line in lines)


def _without_trailing_comment(line: str, hash_comments: bool, slash_comments: bool) -> str:
    """The line without a comment after its code (outside string literals)."""
    if not ((hash_comments and "#" in line) or (slash_comments and "//" in line)):
        return line  # the common case, without a walk over the line
    for i, c, _, inside in _scan(line):
        if inside or i == 0 or not line[i - 1].isspace():
            continue
        if (hash_comments and c == "#") or (slash_comments and line.startswith("//", i)):
            return line[:i].rstrip()
    return line


# How a call's failure is passed on, not what is asked of its result: Rust's `?`, `.unwrap()`, `.expect("…")`.
_PROPAGATION = re.compile(r"\?(?=\s*(?:[).;,{]|$))|\.unwrap\(\)|\.expect\((?:\"[^\"]*\"|'[^']*')\)")
_TOKEN = re.compile(r"\w+|\S")


def same_question(old: str, new: str) -> bool:
    """The condition asks what it asked before, of a call that now takes more arguments (`Put(job)` ->
    `Put(ctx, job)`) or passes its failure on another way (`.unwrap()` -> `?`): the code under it runs
    in the same cases."""
    a, b = (_TOKEN.findall(_PROPAGATION.sub("", x)) for x in (old, new))
    if a == b:
        return True
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    if any(op not in ("equal", "insert") for op, *_ in ops):
        return False
    # every insertion is whole arguments: it ends with a comma, or starts with one, inside a call's brackets
    for op, _, _, j1, j2 in ops:
        if op == "insert":
            run = b[j1:j2]
            if not (run[-1] == "," or run[0] == ",") or "(" not in b[:j1]:
                return False
    return True
