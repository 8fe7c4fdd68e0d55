"""How a changed file's added lines use names, for telling which definitions other changed files call: code as
written, a comment's names written as code, a string's text only when it is one name, an import's names
without the modules it walks through."""

from __future__ import annotations

import re

from .shapes import code_names_in, comment_pattern


def as_code(path: str, added: list[str]) -> list[str]:
    """A file's added lines as code uses names: a comment line keeps only the names it writes as code, a
    string keeps its text only when it has no blank (`"StellarForCausalLM"` in a registry refers to the
    class, and so does `"pkg.mod.Class"`; the words of "Unknown offload backend" name nothing), and an
    import keeps the names it imports, not the modules it walks through (`from engine.offload.base import
    KVOffloader` uses no `offload`)."""
    comment = comment_pattern(path)
    return [code_names_in(x) if comment.match(x) else _imported_names(_STRING.sub(_unless_name, x))
            for x in added]


_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")


def _unless_name(m: re.Match[str]) -> str:
    return '""' if any(c.isspace() for c in m.group(0)) else m.group(0)


_FROM_IMPORT = re.compile(r"^\s*from\s+[\w.]+\s+import\b")


def _imported_names(line: str) -> str:
    return _FROM_IMPORT.sub("", line) if "import" in line else line
