"""The definitions a diff adds or changes, each with its size, its kernel role and its authors' comments.

One pass over each file's hunks, on the new side of the diff (context and added lines), keeps a stack of open
definitions by indentation (Python, and brace languages as they are formatted in practice). Every added or
removed line belongs to the innermost open definition; a hunk whose first lines sit inside a definition above
it starts with the definition git names in the hunk header.

Git names in a hunk header the nearest line above the hunk, in the *old* file, that starts a definition (by
default: any line starting at column 0 with a letter, `_` or `$`). When that line is the last such line the
file's previous hunk showed, nothing between the two hunks starts a definition, so the top-level definitions
open at the end of the previous hunk (new side) are still open: a function the previous hunk renamed
(`-old() {` / `+new() {`) is the one the header names by its old name.

What a definition's authors wrote about it is kept verbatim: the docstring, the comment block just
above it, and the comments added inside its body. Nothing is judged here (see centre.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ...enclosing import Enclosing
from ...hunk_header import parse_hunk_header
from ...indentation import indentation
from ...languages import PYTHON, written_in
from ...models import FileChange
from ...pack.classify import definition_name, patterns_for
from .comment_text import comment_syntax, join_comment, whole_sentences
from .docstrings import docstring_tail
from .names import TYPE_LINE, declared_on, exported

# Decorators of jitted GPU functions; one whose name ends in "kernel" is what a launch starts at.
_KERNEL_DECORATOR = re.compile(r"^@(?:triton\.(?:jit|autotune|heuristics)|(?:numba\.)?cuda\.jit|tilelang\.jit"
                               r"|(?:cute|tl|tilelang)\.kernel)\b")
_GLOBAL = re.compile(r"\b__global__\b")
_DOCSTRING_OPEN = re.compile(r"^\s*[rRbBuU]{0,2}(\"\"\"|''')")
_CLOSING = re.compile(r"^\s*[)\]}]")
_BRACKETS_ONLY = re.compile(r"^\s*[)\]}]+[;,]?\s*$")
_DOC_SECTION = re.compile(r"^(?:Args|Arguments|Returns?|Raises|Yields|Parameters|Examples?|Attributes|Shape)\s*:?\s*$"
                          r"|^:(?:param|return|raises|type)\b|^-{3,}$|^>>>")
# Comments that carry no words of the author: tool directives, licence headers, separators.
_NOT_PROSE = re.compile(r"SPDX-|Copyright|noqa|type:\s*ignore|pragma|fmt:\s*(?:on|off|skip)|pylint:|eslint-|NOLINT"
                        r"|clang-format|mypy:|isort:|^[-=*#/~+_ ]*$"
                        r"|^[A-Za-z_][\w.\[\]]*\s*(?::\s*[\w.\[\], |]+)?\s*=[^=]", re.IGNORECASE)  # `x = 512`: code


@dataclass
class Definition:
    """One function, class, kernel, build stage or shell function that the diff adds or changes."""

    path: str
    name: str  # as defined: `pop_oldest`
    qualname: str  # with its enclosing types: `LastAccessEvictor.pop_oldest`
    line: int  # where it starts in the new file (0: known only from a hunk header)
    new: bool  # its definition line is an added line
    is_type: bool  # class, struct, trait, interface ...
    kernel_entry: bool = False  # `__global__`, or a jitted kernel
    kernel_helper: bool = False  # `__device__`, or a jitted function kernels call
    added: int = 0  # added lines inside it, nested definitions included
    removed: int = 0
    doc: str = ""  # its docstring, or the comment block just above it
    doc_added: bool = False  # the doc is (partly) in added lines: this PR's authors wrote it
    doc_kind: str = ""  # "docstring", or "comment" for the comment block above the definition
    doc_new: str = ""  # the added lines of a docstring this PR edits (not wholly new)
    notes: list[str] = field(default_factory=list)  # comment blocks added inside its body
    added_code: list[str] = field(default_factory=list)  # its own added lines that are code
    removed_code: list[str] = field(default_factory=list)
    parent: str = ""  # qualname of the enclosing definition

    @property
    def changed(self) -> bool:
        return self.added > 0 or self.removed > 0

    @property
    def public(self) -> bool:
        return exported(self.path, self.name)

    @property
    def dunder(self) -> bool:
        return self.name.startswith("__") and self.name.endswith("__")


@dataclass(frozen=True)
class FileDefinitions:
    path: str
    definitions: tuple[Definition, ...]
    module_doc: str = ""  # a new file's module docstring or opening comment
    removed_names: frozenset[str] = frozenset()  # definitions whose definition line the diff removes


@dataclass
class _Frame:
    definition: Definition
    indent: int
    signature_depth: int  # Python: open brackets of a signature that spans lines; -1 once the body began
    awaiting_docstring: bool


def is_prose(text: str) -> bool:
    """A comment that says something in words (not commented-out code, a directive or a separator)."""
    words = re.findall(r"[A-Za-z]{3,}", text)
    code_chars = sum(text.count(c) for c in "(){}[]=;<>")
    return len(words) >= 3 and not _NOT_PROSE.search(text) and code_chars * 12 <= len(text)


def _brackets(text: str) -> int:
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


class _FileReader:
    """Walks one file's hunks and collects its definitions."""

    def __init__(self, change: FileChange) -> None:
        self.path = change.path
        self.patterns = patterns_for(change.path)
        self.hash_comments, self.slash_comments = comment_syntax(change.path)
        self.python = written_in(change.path, PYTHON)
        # a decorator above a hunk is unseen: in a file of jitted kernels, `*_kernel` names are kernels
        self.gpu_file = "@triton.jit" in (change.patch or "") or "tl.program_id" in (change.patch or "")
        self.found: dict[str, Definition] = {}
        self.stack: list[_Frame] = []
        self.pending_comment: list[str] = []
        self.pending_comment_added = False
        self.pending_marks: list[str] = []  # decorators and qualifier lines above a definition
        self.in_block_comment = False
        self.doc_comment = False  # the last comment line was a `///` or `/**` doc comment
        self.docstring: list[str] | None = None  # a Python docstring being read
        self.docstring_quote = ""
        self.docstring_added = False
        self.docstring_new: list[str] = []  # its added lines
        self.docstring_headless = False  # one the hunk starts inside of in a class body, its opening unseen
        self.replaced_line = ""  # a removed definition line no open definition holds, for the next one opened
        self.note: list[str] = []  # the added lines of a comment block being read inside a body
        self.note_block: list[str] = []  # all its lines, unchanged ones too: an edit is quoted in whole sentences
        self.module_doc = ""
        self.at_top = False  # the hunk starts at line 1 and nothing but comments came yet
        self.removed_names: set[str] = set()  # definitions whose old line was removed (a changed signature)
        # definition lines with their name blanked out: a removed one that an added one matches was renamed
        self.removed_shapes: Counter[str] = Counter()
        self.added_shapes: dict[str, str] = {}  # qualname -> the shape of its added definition line
        # the last line shown so far on the old side that git's default hunk-header rule could name
        # (column 0, starting with a letter, `_` or `$`): the header of the next hunk, if nothing between
        # the two hunks starts a definition
        self.last_header_line = ""
        self.top_closed = False  # the open top-level definition's closing brace was seen
        self.block_comment_indent = 0  # where the open `/* ... */` comment started
        self.outline = Enclosing(change.outline) if change.outline else None  # when gather read the head file

    # ----------------------------------------------------------------- per hunk

    def hunk(self, header_context: str, first_line: int, tail: str) -> None:
        self._flush_note()
        unfinished = self.docstring if self.docstring is not None and self.stack else None
        unfinished_owner = self.stack[-1].definition.qualname if unfinished is not None else ""
        if unfinished is not None:  # the docstring goes on past this hunk: keep what was seen
            self._finish_docstring(list(unfinished))
        carried = self._still_open(header_context)
        self.last_header_line, self.top_closed = header_context.rstrip(), False
        self.stack = []
        self.pending_comment, self.pending_marks, self.replaced_line = [], [], ""
        self.docstring, self.in_block_comment = None, False
        self.at_top = first_line <= 1
        name = definition_name(header_context, self.patterns) if header_context.strip() else None
        if carried:
            self.stack = carried
        elif name:
            self._open(name, header_context, line=0, new=False, indent=indentation(header_context), from_header=True)
            if tail:  # the hunk starts inside the docstring of the definition above it
                head = unfinished if unfinished is not None and unfinished_owner == self.stack[-1].definition.qualname \
                    else []
                self.docstring, self.docstring_quote = list(head), tail
                self.docstring_headless = not head and self.stack[-1].definition.is_type  # maybe a field's
                if head:
                    self.stack[-1].definition.doc = ""  # the whole docstring is read again below
        if self.outline is not None:
            self._enter_outline(first_line)

    def _enter_outline(self, first_line: int) -> None:
        """The head file's definitions the hunk starts inside of (their first lines lie above it) become
        the open ones: git's header names only the nearest column-0 line, a class and not its method."""
        chain = self.outline.above(first_line) if self.outline is not None else []
        if not chain:
            return
        kept = {f.definition.qualname: f for f in self.stack}
        self.stack = []
        for entry in chain:
            qualname = ".".join(entry.qualname.split(".")[-3:])  # as _open names it: two enclosing types
            frame = kept.get(qualname)
            if frame is None:
                definition = self.found.get(qualname) or Definition(
                    path=self.path, name=qualname.rsplit(".", 1)[-1], qualname=qualname, line=entry.first,
                    new=False, is_type=entry.kind == "class",
                    parent=self.stack[-1].definition.qualname if self.stack else "")
                self.found.setdefault(qualname, definition)
                frame = _Frame(definition, entry.indent, signature_depth=-1, awaiting_docstring=False)
            self.stack.append(frame)

    def _still_open(self, header_context: str) -> list[_Frame]:
        """The top-level definitions open at the end of the previous hunk, when the new hunk's header is
        the last line the previous hunk showed that git could name (none starts between the hunks);
        else [] (the header's definition opens the hunk)."""
        header = header_context.rstrip()
        if not header or not self.last_header_line.startswith(header) or not self.stack or self.top_closed:
            return []
        top = self.stack[0]
        if top.indent != 0:
            return []
        top.signature_depth, top.awaiting_docstring = -1, False
        return [top]

    def line(self, kind: str, text: str, number: int) -> None:
        added = kind == "+"
        if not added and (text[:1].isalpha() or text[:1] in ("_", "$")):
            self.last_header_line = text.rstrip()
        if self.docstring is not None and kind != "-":
            self._docstring_line(text, added)
            return
        if not text.strip():
            self._flush_note()
            self.pending_comment = []
            return
        indent = indentation(text)
        continued = self.in_block_comment
        comment = self._comment_words(text)
        if comment is not None and continued:  # ` * more` under `/**` is as deep as the `/**` itself
            indent = self.block_comment_indent
        elif comment is not None:
            self.block_comment_indent = indent
        if kind == "-":
            removed_name = definition_name(text, self.patterns) if comment is None else None
            if removed_name:
                self.removed_names.add(removed_name)
                self.removed_shapes[_shape(text, removed_name)] += 1
            frame = self._innermost(indent)
            if removed_name and frame is not None and indent <= frame.indent:
                # a definition line removed beside the one the hunk header names, not in it: it is the
                # replaced line of the definition the next added line opens (a rename), if one does
                self.replaced_line, frame = text, None
            if frame is not None:
                for f in self._enclosing(frame):
                    f.definition.removed += 1
                if comment is None:
                    frame.definition.removed_code.append(text)
            return
        if comment is not None:
            self._comment(comment, added, indent)
            return
        self._flush_note()
        frame = self.stack[-1] if self.stack else None
        if frame is not None and frame.signature_depth >= 0 and self._continues_signature(frame, text):
            self._count(added, frame, text)
            return
        stripped = text.strip()
        if stripped.startswith(("@", "template")) \
                or (_GLOBAL.search(stripped) and definition_name(text, self.patterns) is None):
            self.pending_marks.append(stripped)
            return
        if not _CLOSING.match(text):
            while self.stack and self.stack[-1].indent >= indent:
                self.stack.pop()
        elif indent == 0 and self.stack and self.stack[0].indent == 0:
            self.top_closed = True  # `}` at column 0: the top-level definition ends here
        name = definition_name(text, self.patterns)
        if name:
            self._open(name, text, line=number, new=added, indent=indent, from_header=False)
            self._count(added, self.stack[-1], text)
            return
        self._python_body_start(text, added)
        if self.docstring is not None:
            return
        if self.at_top and self.python and not self.stack:
            opened = _DOCSTRING_OPEN.match(text)
            if opened and indent == 0:
                self._start_docstring(text, opened.group(1), added)
                return
        self.at_top = False
        self.pending_comment, self.pending_marks = [], []
        target = self._innermost(indent)
        if target is not None:
            self._count(added, target, text)

    # ----------------------------------------------------------------- comments and docstrings

    def _comment_words(self, text: str) -> str | None:
        s = text.strip()
        if self.slash_comments:
            if self.in_block_comment:
                self.in_block_comment = "*/" not in s
                return s.removesuffix("*/").lstrip("*").strip()
            if s.startswith("/*"):
                self.in_block_comment = "*/" not in s
                self.doc_comment = s.startswith("/**")
                return s[2:].lstrip("*!").removesuffix("*/").strip()
            if s.startswith("//"):
                self.doc_comment = s.startswith("///")
                return s.lstrip("/!").strip()
        if self.hash_comments and s.startswith("#") and not s.startswith("#!"):
            return s.lstrip("#").strip()
        return None

    def _comment(self, words: str, added: bool, indent: int) -> None:
        frame = self._innermost(indent)
        # past the `}` that closed the top-level definition, a comment is about what comes next
        inside = frame is not None and not self.top_closed and (indent > frame.indent or frame.definition.line == 0)
        if inside:
            self.note_block.append(words)
            if added:
                self.note.append(words)
        else:
            self._flush_note()
        if not self.pending_comment:
            self.pending_comment_added = added
        self.pending_comment.append(words)

    def _flush_note(self) -> None:
        block, self.note_block = self.note_block, []
        if not self.note:
            return
        # an edit often starts or stops inside a sentence whose other half is an unchanged line
        text = whole_sentences(join_comment(block), join_comment(self.note))
        self.note = []
        frame = self.stack[-1] if self.stack else None
        if frame is not None and is_prose(text):
            frame.definition.notes.append(text)
        elif frame is None and self.at_top and is_prose(text) and not self.module_doc:
            self.module_doc = text

    def _python_body_start(self, text: str, added: bool) -> None:
        frame = self.stack[-1] if self.stack else None
        if frame is None or not frame.awaiting_docstring:
            return
        frame.awaiting_docstring = False
        opened = _DOCSTRING_OPEN.match(text)
        if opened:
            self._start_docstring(text, opened.group(1), added)
            self._count(added, frame, text)

    def _start_docstring(self, text: str, quote: str, added: bool) -> None:
        body = text.strip().lstrip("rRbBuU")[len(quote):]
        self.docstring_added = added
        self.docstring_new = [body.split(quote)[0]] if added else []
        if quote in body:
            self._finish_docstring([body[: body.index(quote)]])
            return
        self.docstring, self.docstring_quote = [body], quote

    def _docstring_line(self, text: str, added: bool) -> None:
        assert self.docstring is not None
        self.docstring_added = self.docstring_added or added
        if added:
            self.docstring_new.append(text.split(self.docstring_quote)[0])
        if self.stack:
            self._count(added, self.stack[-1], "")
        if self.docstring_quote in text:
            self.docstring.append(text[: text.index(self.docstring_quote)])
            lines, self.docstring = self.docstring, None
            self._finish_docstring(lines)
        else:
            self.docstring.append(text)

    def _finish_docstring(self, lines: list[str]) -> None:
        kept: list[str] = []
        for line in lines:
            s = line.strip()
            if _DOC_SECTION.match(s):
                break
            kept.append(s)
        text = " ".join(x for x in kept if x)
        if text[:1].islower() or text[:1] in ",;:)":  # the start of the docstring is above the hunk
            starts = [m.end() for m in re.finditer(r"[.!?]\s+(?=[A-Z`])", text)]
            text = text[starts[0]:] if starts else ""
        if self.docstring_headless and not self.docstring_added:  # unchanged words whose owner is unseen
            text = ""
        self.docstring_headless = False
        frame = self.stack[-1] if self.stack else None
        if frame is None:
            if self.at_top and is_prose(text):
                self.module_doc = text
            return
        d = frame.definition
        if text and (not d.doc or (self.docstring_added and not d.doc_added)):
            d.doc, d.doc_added, d.doc_kind = text, self.docstring_added, "docstring"
            new = " ".join(x.strip() for x in self.docstring_new if x.strip())
            new = whole_sentences(text, new)
            d.doc_new = new if self.docstring_added and new != text else ""
        self.docstring_new = []

    # ----------------------------------------------------------------- definitions

    def _continues_signature(self, frame: _Frame, text: str) -> bool:
        """Python: the lines of a signature spanning lines are neither its body nor new definitions."""
        if indentation(text) <= frame.indent and not _CLOSING.match(text):
            frame.signature_depth = -1  # not a signature after all
            return False
        frame.signature_depth += _brackets(text)
        if frame.signature_depth <= 0 and text.rstrip().endswith(":"):
            frame.signature_depth = -1
        return True

    def _innermost(self, indent: int) -> _Frame | None:
        for frame in reversed(self.stack):
            if frame.indent < indent or frame.definition.line == 0:
                return frame
        return None

    def _enclosing(self, frame: _Frame) -> list[_Frame]:
        return self.stack[: self.stack.index(frame) + 1]

    def _count(self, added: bool, frame: _Frame, text: str) -> None:
        if not added:
            return
        for f in self._enclosing(frame):
            f.definition.added += 1
        if text and not _BRACKETS_ONLY.match(text):  # `}` closing a method is no code of the class around it
            frame.definition.added_code.append(text)

    def _open(self, name: str, text: str, line: int, new: bool, indent: int, from_header: bool) -> None:
        owners = [f.definition.name for f in self.stack if f.definition.is_type][-2:]
        if not owners and (owner := declared_on(text, name)):  # a Go receiver, a C++ `Tensor::Slice`
            owners = [owner]
        qualname = ".".join([*owners, name])
        marks = " ".join(self.pending_marks) + " " + text
        jitted = any(_KERNEL_DECORATOR.match(m) for m in self.pending_marks)
        definition = self.found.get(qualname)
        if definition is None:
            definition = Definition(
                path=self.path, name=name, qualname=qualname, line=line, new=new, is_type=bool(TYPE_LINE.match(text)),
                parent=self.stack[-1].definition.qualname if self.stack else "",
            )
            self.found[qualname] = definition
        elif line and not definition.line:
            definition.line, definition.new = line, new
        if new and not from_header:
            self.added_shapes[qualname] = _shape(text, name)
        if self.replaced_line and not from_header:
            definition.removed += 1
            definition.removed_code.append(self.replaced_line)
        self.replaced_line = ""
        kernel_named = name.lower().endswith("kernel") and (jitted or (from_header and self.gpu_file))
        definition.kernel_entry = definition.kernel_entry or bool(_GLOBAL.search(marks)) or kernel_named
        definition.kernel_helper = not definition.kernel_entry and (jitted or "__device__" in marks)
        if self.pending_comment and not from_header:
            doc = join_comment(self.pending_comment)
            if is_prose(doc) and (not definition.doc or (self.pending_comment_added and not definition.doc_added)):
                definition.doc, definition.doc_added = doc, self.pending_comment_added
                definition.doc_kind = "docstring" if self.doc_comment else "comment"
        self.pending_comment, self.pending_marks = [], []
        self.at_top = False
        depth = -1
        if self.python and not from_header:
            depth = _brackets(text)
            if depth <= 0 and text.rstrip().endswith(":"):
                depth = -1
            elif depth <= 0:
                depth = 0  # `def f(x) -> int` continued on the next line without brackets
        self.top_closed = self.top_closed and indent > 0
        self.stack.append(_Frame(definition, indent, depth, awaiting_docstring=self.python and not from_header))


def _shape(line: str, name: str) -> str:
    """A definition line with its name blanked out and its spacing dropped: what a rename keeps."""
    return "".join(re.sub(rf"\b{re.escape(name)}\b", "\0", line, count=1).split())


def file_definitions(change: FileChange) -> FileDefinitions:
    """The definitions one changed file adds or changes, in file order."""
    if not change.patch or not patterns_for(change.path):
        return FileDefinitions(change.path, ())
    reader = _FileReader(change)
    lines = change.patch.split("\n")
    number = 0
    for i, raw in enumerate(lines):
        if raw.startswith("@@"):
            header = parse_hunk_header(raw)
            if header is not None:
                number = header.new_start
                tail = docstring_tail(lines[i + 1 : i + 40]) if reader.python and header.context.strip() else ""
                reader.hunk(header.context, number, tail)
            continue
        if not raw or raw[0] not in " +-":
            continue
        reader.line(raw[0], raw[1:], number)
        if raw[0] != "-":
            number += 1
    reader._flush_note()
    renames = reader.removed_shapes.copy()  # each removed line is renamed once, to the first that matches it
    for d in reader.found.values():
        # a changed signature, or a rename (the same definition line under another name), is not new
        new = d.new and d.name not in reader.removed_names
        shape = reader.added_shapes.get(d.qualname, "")
        renamed = new and renames[shape] > 0
        renames[shape] -= renamed
        d.new = new and not renamed
    kept = tuple(d for d in reader.found.values() if d.changed or d.new)
    return FileDefinitions(change.path, kept, reader.module_doc if change.status.value == "added" else "",
                           frozenset(reader.removed_names))
