"""Ranking: every changed file with its kind, reading value, the names it defines, and whether its
edit repeats one made in other files (license headers, an import rename). Pure."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import FileChange
from .classify import NAME_ONLY_KINDS, Classifier, FileKind, defined_names, touched_definitions, value_of

REPEAT_MIN_FILES = 4  # the same edit in this many files is "repeated"
REPEAT_MAX_LINES = 40  # only small edits count as repeated (a big identical change is unusual)
MAX_TOUCHED_NAMES = 8  # functions touched by hunks listed per file in the index


@dataclass(frozen=True)
class RankedFile:
    change: FileChange
    kind: FileKind
    features: frozenset[str]
    value: float
    names: tuple[str, ...]  # defined in added lines
    touched: tuple[str, ...] = ()  # existing functions/classes the hunks change (hunk headers)
    repeat_of: str | None = None  # the first file carrying the same edit, if repeated


def rank_files(files: Sequence[FileChange], classifier: Classifier) -> list[RankedFile]:
    """Files sorted by reading value (ties: more new definitions first, then path)."""
    signatures = {f.path: _edit_signature(f) for f in files}
    groups: dict[str, list[str]] = defaultdict(list)
    for path, sig in signatures.items():
        if sig:
            groups[sig].append(path)
    first_of: dict[str, str | None] = {}
    for paths in groups.values():
        if len(paths) >= REPEAT_MIN_FILES:
            for path in paths[1:]:
                first_of[path] = paths[0]
            first_of[paths[0]] = None
    ranked: list[RankedFile] = []
    for change in files:
        kind = classifier.kind_of(change)
        names = tuple(defined_names(change.patch, change.path)) if kind not in NAME_ONLY_KINDS else ()
        touched = (
            tuple(n for n in touched_definitions(change.patch, change.path) if n not in names)[:MAX_TOUCHED_NAMES]
            if kind not in NAME_ONLY_KINDS
            else ()
        )
        features = set()
        if names:
            features.add("new_definitions")
        if change.path in first_of:
            features.add("repeated_change")
        if change.additions == 0 and change.deletions > 0:
            features.add("deletion_only")
        elif change.additions + change.deletions <= 2 and not names:
            features.add("tiny_change")
        frozen = frozenset(features)
        ranked.append(
            RankedFile(change, kind, frozen, value_of(kind, frozen), names, touched, first_of.get(change.path))
        )
    ranked.sort(key=lambda r: (-r.value, -len(r.names), r.change.path))
    return ranked


def _edit_signature(change: FileChange) -> str:
    """Hash of the changed lines (not their position) of a small edit; '' for big or empty ones."""
    if not change.patch or change.additions + change.deletions > REPEAT_MAX_LINES or change.binary:
        return ""
    lines = [line.strip() for line in change.patch.split("\n") if line[:1] in ("+", "-")]
    if not lines:
        return ""
    return hashlib.sha1("\n".join(sorted(set(lines))).encode("utf-8", "replace")).hexdigest()
