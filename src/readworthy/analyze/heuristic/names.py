"""What a definition's name and first line say beyond the name: who may use it, whether it is a type, and the
type a Go method is declared on. Shared by definitions.py (qualified names, public definitions) and
signature_points.py."""

from __future__ import annotations

import re

from ...languages import GO, written_in

# a type's line in any language: its modifiers (`pub`, `export`, `public final`, `data`, `sealed` ...), then its kind
TYPE_LINE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+|export\s+|default\s+|template\s*<[^>]*>\s*"
                       r"|(?:public|private|protected|internal|static|final|abstract|sealed|partial|open|data|inner"
                       r"|value|case|readonly)\s+)*"
                       r"(?:class|struct|trait|interface|enum|union|type\s+\w+\s+(?:struct|interface)|message|service"
                       r"|record|object|protocol|actor|module)\b")
# `func (m *Mem[K, V]) Get(`: the type a Go method is declared on.
GO_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*(?P<type>[A-Za-z_]\w*)")


def exported(path: str, name: str) -> bool:
    """Whether other code may use this name: Go exports exactly the names that start with a capital letter;
    elsewhere a leading `_` marks a name private."""
    if written_in(path, GO):
        return name[:1].isupper()
    return not name.startswith("_")
