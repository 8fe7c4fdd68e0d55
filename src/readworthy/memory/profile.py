"""A PR's files -> ChangeProfile: which directories it changes and which kinds of file, by changed lines.

The profile is what the taste memory compares (memory/similar.py) and keeps for each correction, so
it is small and made only of paths and counts: the directories a PR changes most (at most
MAX_PROFILE_AREAS, each cut to AREA_DEPTH levels) and the lines per file kind (pack/classify.py's kinds,
the same ones the packer and the heuristic use).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from ..models import MAX_PROFILE_AREAS, ChangeProfile, FileChange
from ..pack.classify import Classifier

AREA_DEPTH = 3  # vllm/model_executor/models: deep enough to tell a model drop from a layer change
ROOT_AREA = "."  # files at the repository root
_UNSAFE = re.compile(r"[^A-Za-z0-9._+/-]")  # paths are PR text: anything else (bidi, @, markup) becomes _


def area_of(path: str, depth: int = AREA_DEPTH) -> str:
    """The directory a file lives in, cut to `depth` levels ("." for a file at the root)."""
    parts = [p for p in path.split("/")[:-1] if p]
    area = "/".join(parts[:depth]) if parts else ROOT_AREA
    return _UNSAFE.sub("_", area)[:120] or ROOT_AREA


def change_profile(files: Iterable[FileChange], file_kinds: Mapping[str, str] | None = None) -> ChangeProfile:
    """The profile of a change. Every file counts at least one line (a binary or a pure rename has none)."""
    classifier = Classifier(file_kinds)
    areas: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    total = 0
    for change in files:
        lines = max(1, change.additions + change.deletions)
        total += change.additions + change.deletions
        areas[area_of(change.path)] += lines
        kinds[classifier.kind_of(change).value] += lines
    top = sorted(areas.items(), key=lambda item: (-item[1], item[0]))[:MAX_PROFILE_AREAS]
    return ChangeProfile(areas=dict(top), kinds=dict(sorted(kinds.items())), lines=total)
