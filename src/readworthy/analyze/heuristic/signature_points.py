"""Changed signatures of public functions as design points: a contract every caller meets.

`pub fn load(dir: &Path) -> LoadedTokenizer {` → `pub fn load(dir: &Path) -> Result<LoadedTokenizer,
TokenizerError> {` means every caller must now handle an error; `def schedule(self, requests):` →
`def schedule(self, requests, budget):` means every caller may (or must) pass a budget. The old and the
new definition line of one name in one file are compared: the return type, and the parameters by name.
A signature over several lines (`def f(`, its parameters one a line, `) -> T:`) is joined; only a public
definition (not `_private`, a Go name that starts with a capital letter, a Rust `pub fn`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ...enclosing import Enclosing
from ...hunk_header import parse_hunk_header
from ...indentation import indentation
from ...languages import C_LIKE, GO, JAVA_LIKE, JS_LIKE, KOTLIN_SCALA, PYTHON, TYPESCRIPT, written_in
from ...models import Decision, FileChange
from ...pack.classify import definition_name, patterns_for
from .code_points import CodePoint, anchor_of, file_label
from .comment_text import comment_syntax
from .names import GO_RECEIVER, TYPE_LINE, callable_elsewhere
from .shapes import closing_bracket, top_level_split
from .signals import CODE_KINDS, Signals
from .wording import code_names, fit, phrase

# What a definition returns, after its parameters: `-> T:` (Python), `-> T {` (Rust), `: T {` (TypeScript),
# `T {` / `(T, error) {` (Go).
_ARROW_RETURN = re.compile(r"^\s*->\s*(?P<type>.+?)\s*(?:\bwhere\b.*)?[:{]?\s*$")
_TS_RETURN = re.compile(r"^\s*:\s*(?P<type>[^=]+?)\s*(?:=>\s*)?\{?\s*$")  # `=>`: an arrow function's
# `: T {`, `: T = expression` (Kotlin, Scala)
_BODY_RETURN = re.compile(r"^\s*:\s*(?P<type>[^={]+?)\s*(?:[={].*)?$")
_GO_RETURN = re.compile(r"^\s*(?P<type>[^{}]*?)\s*\{?\s*$")
# A parameter's name: after a Rust attribute (`#[allow(unused)]`), a star, `&`, `mut` or a spread.
_PARAM_NAME = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*(?:\*{1,2}|&|mut\s+|\.\.\.)?(?P<name>[A-Za-z_]\w*)")
_SELF = frozenset({"self", "cls", "this"})
_ASYNC = re.compile(r"\b(?:async|suspend)\b(?=[^(]*\()")  # before the parameters: a modifier, not a name
_ANNOTATION = re.compile(r"@[\w.]+(?:\((?:[^()]|\([^()]*\))*\))?")
MAX_SIGNATURE_POINTS = 2
SIGNATURE_FILES = 200  # the most important files are read for signatures: a 3,000-file PR stays fast
SIGNATURE_LINES = 40  # a signature is read over at most this many lines
# `public static <T> Optional<T> find(`: what a Java or C# method returns, between its modifiers and its name
_JAVA_RETURN = re.compile(r"\s*(?:(?:public|protected|internal|static|final|abstract|synchronized|native|default"
                          r"|virtual|override|async|sealed|extern|unsafe|partial|new)\s+)*(?:<[^()]+>\s+)?"
                          r"(?P<type>[A-Za-z_][\w.$]*(?:<[^()]*>)?(?:\[\])*\??)\s+[A-Za-z_]\w*\s*\(")
# Java and C# write a parameter's type before its name and the return type before the method's, as C does
_TYPE_FIRST = C_LIKE | JAVA_LIKE
_DEFINITION_WORDS = ("def ", "async def ", "fn ", "pub ", "func ", "function ", "export ")
# Below the authors' own account of a change (a description or commit passage about the same function says
# more than its signature), above a code comment.
SIGNATURE_WEIGHT = 4.5


@dataclass(frozen=True)
class Signature:
    """One definition's old and new signature, and what a caller sees change (return types "" where unwritten)."""

    name: str
    old_line: str
    new_line: str
    old_return: str
    new_return: str
    added_params: tuple[str, ...]
    removed_params: tuple[str, ...]
    now_async: str = ""  # the keyword that makes it asynchronous now (`async`, `suspend`): callers must await it


def _parts(line: str, c_family: bool = False) -> tuple[list[str], str] | None:
    """The parameter names of a one-line definition and the text after them, or None when its parameters
    go on below it. In C-family code a parameter's name comes last (`const torch::Tensor& weight`)."""
    start = line.find("(")
    if GO_RECEIVER.match(line.lstrip()):  # a Go method, `func (m *Mem) Get(key string)`: the receiver is no parameter
        start = line.find("(", line.find(")") + 1)
    if start < 0:
        return None
    depth, end = 0, -1
    for i in range(start, len(line)):
        depth += (line[i] == "(") - (line[i] == ")")
        if depth == 0:
            end = i
            break
    if end < 0:
        return None
    names, part, level = [], "", 0
    for i, c in enumerate(line[start + 1:end] + ",", start + 1):
        arrow = c == ">" and line[i - 1] in "-="  # `->`, `=>` inside a parameter's type close nothing
        level += (c in "([{<") - (c in ")]}>" and not arrow)
        if c == "," and level == 0:
            name = _parameter_name(part, c_family)
            if name:
                names.append(name)
            part = ""
        else:
            part += c
    return names, line[end + 1:]


def _parameter_name(part: str, c_family: bool) -> str:
    """The name one parameter declares, or "" for none a caller is told to pass."""
    if c_family:
        # its annotations first (`@RequestParam(defaultValue = "50") int limit`): what they set is no parameter
        part = _ANNOTATION.sub(" ", part)
        words = re.findall(r"[A-Za-z_]\w*", part.split("=")[0])
        return words[-1] if len(words) >= 2 else ""  # a type and a name; `void` alone, `...` and a bare type name none
    m = _PARAM_NAME.match(part)
    if m is None or m.group("name") in _SELF or part.lstrip().startswith(("*", "...")):
        return ""  # `*args`, `**kwargs`, `...rest` take anything: not a parameter a caller is told to pass
    return m.group("name")


def _returns(path: str, tail: str, line: str = "") -> str:
    """The return type written after the parameters (`tail`); Java's and C#'s, before the name (`line`); or ""
    (C-family code writes it before the name too, among qualifiers and macros that make it unreliable)."""
    if written_in(path, JAVA_LIKE):
        m = _JAVA_RETURN.match(line)
        return " ".join(m.group("type").split()) if m else ""
    if written_in(path, _TYPE_FIRST):
        return ""
    pattern = _GO_RETURN if written_in(path, GO) else _TS_RETURN if written_in(path, TYPESCRIPT) \
        else _BODY_RETURN if written_in(path, KOTLIN_SCALA) else _ARROW_RETURN
    m = pattern.match(tail)
    return " ".join((m.group("type") or "").split()) if m else ""


def _base(type_text: str) -> str:
    """A type without its type arguments: `list` of `list[T]`, `Result` of `Result<T, E>`."""
    return re.split(r"[\[<]", type_text, maxsplit=1)[0].strip()


# Python's typing spellings of built-in types (PEP 585, PEP 604): `Dict[K, V]` is `dict[K, V]`
_TYPING_ALIAS = re.compile(r"\b(?:typing\.)?(Dict|List|Tuple|Set|FrozenSet|Type)\[")
_WRAPPER = re.compile(r"\b(?:typing\.)?(Optional|Union)\[")


def _spelled_alike(type_text: str) -> str:
    """One spelling of a Python annotation: `Optional[Dict[str, int]]` and `dict[str, int] | None` read alike."""
    text = _TYPING_ALIAS.sub(lambda m: m.group(1).lower() + "[", type_text)
    while m := _WRAPPER.search(text):
        end = closing_bracket(text, m.end() - 1, ("[", "]"))
        if end < 0:
            break
        inner = " | ".join(part.strip() for part in top_level_split(text[m.end():end]))
        text = text[:m.start()] + inner + (" | None" if m.group(1) == "Optional" else "") + text[end + 1:]
    return "".join(text.split())


def _trailing_comment(path: str) -> re.Pattern[str] | None:
    """A comment after a parameter (`x: int,  # type: ignore`, `// the budget`) in this file's syntax: it is
    not part of the next parameter. `//` in Python is floor division, `#[attr]` in Rust an attribute."""
    hash_comments, slash_comments = comment_syntax(path)
    marks = [m for m, used in (("#", hash_comments), ("//", slash_comments)) if used]
    return re.compile(rf"\s(?:{'|'.join(marks)})[^\"']*$") if marks else None


@dataclass
class _Open:
    """A signature being read: its name, its text so far, its bracket depth. `indent` is set when the hunk
    starts inside it (its first line above the hunk): it counts only if it closes at that indentation."""

    name: str
    text: str
    depth: int
    indent: int = -1
    taken: int = 0


def _started_above(raw: str, patterns: tuple[re.Pattern[str], ...], outline: Enclosing | None) -> _Open | None:
    """The signature a hunk may start inside of: git's header line when it is a definition whose parameters
    go on below it (`def evaluate(`), else the head file's innermost function around the hunk's first line."""
    header = parse_hunk_header(raw)
    if header is None:
        return None
    context = header.context.rstrip()
    name = definition_name(context, patterns) if context.strip() else None
    depth = context.count("(") - context.count(")")  # parameters, not a body's `{`
    if name and depth > 0:
        return _Open(name, context.strip(), depth, indentation(context))
    entry = outline.innermost(header.new_start) if outline is not None else None
    if entry is not None and entry.kind == "function" and entry.first < header.new_start:
        # named with its class (as definitions.py names it): two classes' `forward` are two signatures
        qualname = ".".join(entry.qualname.split(".")[-3:])
        return _Open(qualname, qualname.rsplit(".", 1)[-1] + "(", 1, entry.indent)
    return None


def _closes_at(text: str, indent: int, python: bool) -> bool:
    """Whether `text` ends a signature whose first line is indented `indent`: its closing bracket starts a
    line at that indentation (a body is indented deeper), and in Python the line ends with `:`."""
    return text.lstrip().startswith(")") and indentation(text) == indent and (not python or text.rstrip().endswith(":"))


def _signatures(patch: str, side: str, patterns: tuple[re.Pattern[str], ...], path: str,
                outline: Enclosing | None = None) -> tuple[dict[str, str], Counter[str]]:
    """Each definition's signature on one side of the patch ("-" old, "+" new), its lines joined until its
    parameters close, and how often each name is defined there. A hunk that starts inside a signature (its
    first line above the hunk: git's header line, or the head file's outline, says which) is read from
    there: the parameters no hunk shows are missing on both sides alike."""
    found: dict[str, str] = {}
    counts: Counter[str] = Counter()
    c_family = written_in(path, _TYPE_FIRST)
    js_family = written_in(path, JS_LIKE)  # a method line starts with its name or a modifier
    modifiers_first = js_family or written_in(path, KOTLIN_SCALA)  # `override suspend fun`, `private def`
    python = written_in(path, PYTHON)
    go = written_in(path, GO)  # an interface's method line starts with its name: `Put(ctx context.Context) error`
    comment = _trailing_comment(path)
    current: _Open | None = None
    for raw in patch.split("\n"):
        if raw.startswith("@@"):
            # a signature cut by the end of a hunk is not read; one the next hunk starts inside of may be
            current = _started_above(raw, patterns, outline)
            continue
        if raw[:1] not in (" ", side) or raw.startswith(("---", "+++")):
            continue
        text = comment.sub("", raw[1:]) if comment else raw[1:]
        if current is not None and current.indent >= 0 and text.strip() and indentation(text) <= current.indent \
                and not text.lstrip().startswith(")"):
            current = None  # a line as shallow as the definition: its body ended above; the line is read afresh
        elif current is not None and definition_name(text, patterns):
            current = None  # a definition of its own: the hunk was in the body the header's signature opens
        if current is not None:
            current.text += " " + text.strip()
            current.depth += text.count("(") - text.count(")")
            current.taken += 1
            if current.depth <= 0:
                if current.indent < 0 or _closes_at(text, current.indent, python):
                    counts[current.name] += current.indent >= 0  # begun above the hunk: counted here
                    found.setdefault(current.name, current.text)
                current = None
            elif current.taken > SIGNATURE_LINES:
                current = None
            continue
        defined = definition_name(text, patterns)
        if defined and (c_family or modifiers_first or go or text.lstrip().startswith(_DEFINITION_WORDS)) \
                and not (modifiers_first and TYPE_LINE.match(text)):  # `class Pool extends mixin(Base) {`
            counts[defined] += 1
            depth = text.count("(") - text.count(")")
            if "(" not in text:
                continue  # a struct, a trait: no parameters
            if depth <= 0:
                found.setdefault(defined, text.strip())
            else:
                current = _Open(defined, text.strip(), depth)
    return found, counts


def changed_signatures(change: FileChange) -> list[Signature]:
    """Public definitions of this file whose signature the diff rewrites, on one line or over several: the
    old and the new signature of one name differ (a name defined twice on a side, an overload, is left
    alone; so is a definition whose first line no hunk shows)."""
    patterns = patterns_for(change.path)
    if not change.patch or not patterns:
        return []
    c_family = written_in(change.path, _TYPE_FIRST)
    outline = Enclosing(change.outline) if change.outline else None
    (old_side, old_counts), (new_side, new_counts) = (_signatures(change.patch, s, patterns, change.path, outline)
                                                      for s in "-+")
    out = []
    for name, new in new_side.items():
        old = old_side.get(name)
        if old is None or old == new or new_counts[name] > 1 or old_counts[name] > 1 \
                or not callable_elsewhere(change.path, name.rsplit(".", 1)[-1], new):
            continue
        old_parts, new_parts = _parts(old, c_family), _parts(new, c_family)
        if old_parts is None or new_parts is None:
            continue
        (old_params, old_tail), (new_params, new_tail) = old_parts, new_parts
        old_return, new_return = _returns(change.path, old_tail, old), _returns(change.path, new_tail, new)
        # `_prompt` -> `prompt`: the same parameter, now used
        old_names, new_names = {p.lstrip("_") for p in old_params}, {p.lstrip("_") for p in new_params}
        added = tuple(p for p in new_params if p.lstrip("_") not in old_names)
        removed = tuple(p for p in old_params if p.lstrip("_") not in new_names)
        if _spelled_alike(old_return) == _spelled_alike(new_return) or (
                _base(old_return) == _base(new_return) and _base(old_return) in (old_return, new_return)):
            old_return = new_return  # `Dict[K, V]` -> `dict[K, V]`, `list` -> `list[T]`: the same type, spelled anew
        became = _ASYNC.search(new)
        now_async = became.group(0) if became and not _ASYNC.search(old) else ""
        if old_return != new_return or added or removed or now_async:
            out.append(Signature(name, old, new, old_return, new_return, added, removed, now_async))
    return out


def signature_points(sig: Signals, language: str) -> list[CodePoint]:
    """A public definition's changed contract: what it now returns, the parameters it now takes or drops."""
    out: list[CodePoint] = []
    for facts in sig.ranked[:SIGNATURE_FILES]:
        if facts.kind not in CODE_KINDS:  # a test's parameters are its fixtures, not a contract
            continue
        for s in changed_signatures(facts.change):
            anchor = anchor_of(s.new_line, facts.change.path, sig.centre) or next(
                (r for r in sig.centre if r.definition.path == facts.change.path
                 and s.name in (r.definition.name, r.definition.qualname)),
                None)
            if anchor is None:
                continue
            values = {"name": anchor.definition.qualname, "file": file_label(facts.change.path, sig),
                      "old": s.old_return or "—", "new": s.new_return or "—", "n": len(anchor.caller_files),
                      "added": code_names(list(s.added_params), 3, language),
                      "removed": code_names(list(s.removed_params), 3, language)}
            if s.now_async:
                title, values["keyword"] = "c_signature_async_title", s.now_async
            elif s.old_return != s.new_return and s.old_return and s.new_return:
                title = "c_signature_returns_title"
            elif s.added_params:
                title = "c_signature_takes_title"
            elif s.removed_params:
                title = "c_signature_drops_title"
            else:
                continue  # a return type added or dropped where none was written: an annotation, not a contract
            key = "c_signature_used" if anchor.caller_files else "c_signature"
            key = "c_signature_async" if s.now_async else key
            out.append(CodePoint(Decision(title=fit(phrase(language, title, **values), 160),
                                          explanation=fit(phrase(language, key, **values), 900),
                                          references=list(dict.fromkeys([facts.change.path, anchor.reference]))),
                                 anchor, weight=SIGNATURE_WEIGHT + 0.5 * bool(anchor.caller_files), kind="signature"))
    # the signatures other changed code calls first (a stable sort keeps the files' order among equals)
    out.sort(key=lambda p: -len(p.anchor.caller_files))
    return out[:MAX_SIGNATURE_POINTS]
