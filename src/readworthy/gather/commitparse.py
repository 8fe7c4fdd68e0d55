"""Commit headers inside patch text: `git show` / `git log -p` blocks and `git format-patch` mails.

Each parser takes the lines and the index of the header line, and returns the Commit and the index
of the first line after what it consumed.
"""

from __future__ import annotations

import re
from email.header import decode_header, make_header

from ..models import Commit

MBOX_FROM_RE = re.compile(r"^From ([0-9a-f]{7,64}) ")
_SUBJECT_PREFIX_RE = re.compile(r"^(?:\[[^\]]*\]\s*)+")
_AUTHOR_RE = re.compile(r"^(.*?)\s*<[^>]*>\s*$")


def looks_like_sha(token: str) -> bool:
    return 7 <= len(token) <= 64 and all(c in "0123456789abcdef" for c in token)


def parse_show_commit(lines: list[str], i: int) -> tuple[Commit, int]:
    """`commit SHA`, header lines (Author: ...), a blank line, then the message indented by 4 spaces."""
    n = len(lines)
    sha = lines[i][7:].split(" ", 1)[0].strip()
    author = ""
    i += 1
    while i < n and lines[i].strip():
        line = lines[i]
        if line.startswith("Author:"):
            author = _author_name(line[len("Author:") :].strip())
        i += 1
    message: list[str] = []
    while i < n:
        line = lines[i]
        if line.startswith("    "):
            message.append(line[4:])
        elif line.strip() == "":
            message.append("")
        else:
            break
        i += 1
    return Commit(sha=sha, author=author, message="\n".join(message).strip()), i


def parse_mbox_commit(lines: list[str], i: int) -> tuple[Commit, int]:
    """`From SHA date`, mail headers (Subject, From), the body up to `---`, then the diffstat (skipped)."""
    n = len(lines)
    match = MBOX_FROM_RE.match(lines[i])
    sha = match.group(1) if match else ""
    i += 1
    headers: dict[str, str] = {}
    last = ""
    while i < n and lines[i].strip():
        line = lines[i].rstrip("\r")
        if line[:1] in (" ", "\t") and last:
            headers[last] += " " + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            last = key.strip().lower()
            headers[last] = value.strip()
        i += 1
    body: list[str] = []
    while i < n:
        line = lines[i]
        if line.rstrip("\r") == "---" or line.startswith("diff --git ") or MBOX_FROM_RE.match(line):
            break
        body.append(line.rstrip("\r"))
        i += 1
    # skip the diffstat between "---" and the first file
    while i < n and not lines[i].startswith(("diff --git ", "From ", "--- ")):
        i += 1
    subject = _SUBJECT_PREFIX_RE.sub("", _decode_mime(headers.get("subject", ""))).strip()
    text = "\n".join(body).strip()
    message = subject + ("\n\n" + text if text else "")
    author = _author_name(_decode_mime(headers.get("from", "")))
    return Commit(sha=sha, author=author, message=message), i


def _author_name(value: str) -> str:
    match = _AUTHOR_RE.match(value)
    return (match.group(1) if match else value).strip().strip('"')


def _decode_mime(value: str) -> str:
    """RFC 2047 headers (=?UTF-8?q?...?=) as format-patch writes non-ASCII names and subjects."""
    if "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except (ValueError, LookupError, UnicodeDecodeError):
        return value
