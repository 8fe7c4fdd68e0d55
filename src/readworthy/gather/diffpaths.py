"""Paths in unified diff headers: git's C-style quoting, `a/` `b/` prefixes, names with spaces."""

from __future__ import annotations

import re

_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote_path(raw: str) -> str:
    """Undo git's C-style quoting ("a/t\\303\\251st" -> a/tést); unquoted paths pass through."""
    raw = raw.rstrip("\t")
    if len(raw) < 2 or not (raw.startswith('"') and raw.endswith('"')):
        return raw
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            if nxt in _C_ESCAPES:
                out.append(_C_ESCAPES[nxt])
                i += 2
                continue
        out.extend(ch.encode("utf-8", errors="replace"))
        i += 1
    return out.decode("utf-8", errors="replace")


def strip_prefix(path: str) -> str | None:
    """`a/x` -> x, `/dev/null` -> None. Other prefixes (--no-prefix, mnemonic c/ i/ w/) are kept as-is."""
    if path == "/dev/null":
        return None
    if len(path) > 2 and path[1] == "/" and path[0] in "abciwo12":
        return path[2:]
    return path


def split_git_header(rest: str) -> tuple[str | None, str | None]:
    """Split `a/X b/Y` from a `diff --git` line. Unquoted paths may contain spaces, so try the
    symmetric split first (same path on both sides, the common case)."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        end = _closing_quote(rest)
        if end > 0:
            return unquote_path(rest[: end + 1]), unquote_path(rest[end + 1 :].lstrip(" "))
    n = len(rest)
    if n % 2 == 1:
        half = (n - 1) // 2
        left, right = rest[:half], rest[half + 1 :]
        if left[2:] == right[2:] and rest[half] == " ":
            return left, right
    if rest.endswith('"'):
        start = rest.rfind(' "')
        if start > 0:
            return rest[:start], unquote_path(rest[start + 1 :])
    idx = rest.find(" b/")
    if idx > 0:
        return rest[:idx], rest[idx + 1 :]
    parts = rest.split(" ", 1)
    return (parts[0], parts[1]) if len(parts) == 2 else (rest, rest)


def _closing_quote(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def file_line_path(rest: str) -> str:
    """Path from a `--- a/x` / `+++ b/x` line: git adds a TAB after names with spaces; diff -u adds a date."""
    rest = rest.rstrip("\r")
    if rest.startswith('"'):
        end = _closing_quote(rest)
        if end > 0:
            return unquote_path(rest[: end + 1])
    tab = rest.find("\t")
    return rest[:tab] if tab >= 0 else rest
