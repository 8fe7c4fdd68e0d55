"""What a definition's name and first line say beyond the name: who may use it (`exported` by the name alone,
`callable_elsewhere` by its line too), whether it is a type, and the type a Go method is declared on. Shared by
definitions.py (qualified names, public definitions) and signature_points.py."""

from __future__ import annotations

import re

from ...languages import C_LIKE, GO, JAVA_LIKE, JS_LIKE, KOTLIN_SCALA, RUST, written_in

# a type's line in any language: its modifiers (`pub`, `export`, `public final`, `data`, `sealed` ...), then its kind
TYPE_LINE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+|export\s+|default\s+|template\s*<[^>]*>\s*"
                       r"|(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|data|inner"
                       r"|value|case|readonly)\s+)*"
                       r"(?:class|struct|trait|interface|enum|union|type\s+\w+\s+(?:struct|interface)|message|service"
                       r"|record|object|protocol|actor|module)\b")
# A member other code may not call: `private`, `protected` (TypeScript, Java, C#, Kotlin, Scala)
_HIDDEN_MEMBER = re.compile(r"\s*(?:(?:static|async|readonly|override|abstract|final|synchronized)\s+)*"
                            r"(?:private|protected)\b")
_FILE_STATIC = re.compile(r"\s*(?:template\s*<[^>]*>\s*)?(?:inline\s+)?static\b")
# `func (m *Mem[K, V]) Get(`: the type a Go method is declared on.
GO_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*(?P<type>[A-Za-z_]\w*)")
# C++'s `Tensor Tensor::Slice(int begin) {`: a member defined outside its class
_CPP_OWNER = re.compile(r"\b(?P<owner>[A-Za-z_]\w*)(?:<[^<>]*>)?::(?P<name>~?[A-Za-z_]\w*)\s*\(")


def declared_on(line: str, name: str) -> str:
    """The type a method defined on this line belongs to when the line itself says (a Go method's receiver,
    a C++ member defined outside its class), else ""."""
    if receiver := GO_RECEIVER.match(line.lstrip()):
        return receiver.group("type")
    outside = _CPP_OWNER.search(line)
    return outside.group("owner") if outside and outside.group("name") == name else ""


def exported(path: str, name: str) -> bool:
    """Whether other code may use this name: Go exports exactly the names that start with a capital letter;
    elsewhere a leading `_` marks a name private."""
    if written_in(path, GO):
        return name[:1].isupper()
    return not name.startswith("_")


def callable_elsewhere(path: str, name: str, line: str) -> bool:
    """Whether other code may call the definition on `line` (a contract a signature change breaks): Rust says
    `pub`, C-family code keeps a `static` function to its file, `private` and `protected` members are the
    class's own; elsewhere the name says (`exported`)."""
    if written_in(path, RUST):
        return bool(re.match(r"\s*pub\b", line))
    if written_in(path, C_LIKE) and _FILE_STATIC.match(line):
        return False
    if written_in(path, JS_LIKE, JAVA_LIKE, KOTLIN_SCALA) and _HIDDEN_MEMBER.match(line):
        return False
    return exported(path, name)
