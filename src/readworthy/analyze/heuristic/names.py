"""What a definition's name and first line say beyond the name: who may use it, and the type a Go method is
declared on. Shared by definitions.py (qualified names, public definitions) and signature_points.py."""

from __future__ import annotations

import re

# `func (m *Mem[K, V]) Get(`: the type a Go method is declared on.
GO_RECEIVER = re.compile(r"^func\s*\(\s*(?:\w+\s+)?\*?\s*(?P<type>[A-Za-z_]\w*)")


def exported(path: str, name: str) -> bool:
    """Whether other code may use this name: Go exports exactly the names that start with a capital letter;
    elsewhere a leading `_` marks a name private."""
    if path.endswith(".go"):
        return name[:1].isupper()
    return not name.startswith("_")
