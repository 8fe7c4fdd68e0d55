"""How far a line of code is indented: columns before its text, a tab counted as 4. Pure.

One measure for every reader that compares indentation: the head file's outline (gather/outline.py), the
locator (locate.py) and the heuristic's readers of definitions, signatures and settings, so that an
outline entry's `indent` and a diff line's indentation can be compared.
"""

from __future__ import annotations


def indentation(text: str) -> int:
    expanded = text.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())
