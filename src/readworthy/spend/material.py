"""Whether a push is worth a new model analysis: the material-change rule (issue 21), pure.

A push whose packed inputs hash the same as the analysed ones (a rebase with the same patch) is reused as
it is (rules.cache_hit). Any other push is compared with what the analysis saw, file by file, in changed
lines (additions + deletions): the lines of files that entered or left the change, plus how far each
common file's count moved. It is **material** when that reaches

    max(MIN_LINES, min(MAX_LINES, SHARE x the analysed lines))

— 20 lines for a small PR, a tenth of a medium one, at most 200 for a large one. A review fix or a typo
fix that rewrites lines in place moves no count and is not material; new files, new tests and a change
of approach are. The blind spot is deliberate: a push that rewrites code without changing how many lines
each file changes keeps its analysis (`/readworthy refresh` asks anyway). Pushes accumulate: each is
compared with the analysed content, not with the previous push.
"""

from __future__ import annotations

import hashlib

from ..models import ContentSketch, FileChange

MIN_LINES = 20
MAX_LINES = 200
SHARE = 0.10
KEPT_FILES = 300  # the largest files kept by name in the hidden state; the rest are one count


def _key(path: str) -> str:
    return hashlib.sha1(path.encode("utf-8", "replace")).hexdigest()[:10]


def sketch(files: list[FileChange]) -> ContentSketch:
    lines = sorted(((f.additions + f.deletions, f.path) for f in files), reverse=True)
    kept = {_key(path): n for n, path in lines[:KEPT_FILES]}
    return ContentSketch(files=kept, other=sum(n for n, _ in lines[KEPT_FILES:]))


def total(s: ContentSketch) -> int:
    return sum(s.files.values()) + s.other


def moved_lines(then: ContentSketch, now: ContentSketch) -> int:
    """Changed lines moved between two sketches: files in one only count whole, common files their difference."""
    keys = then.files.keys() | now.files.keys()
    return sum(abs(now.files.get(k, 0) - then.files.get(k, 0)) for k in keys) + abs(now.other - then.other)


def threshold(then: ContentSketch) -> int:
    return max(MIN_LINES, min(MAX_LINES, round(SHARE * total(then))))


def is_material(then: ContentSketch, now: ContentSketch) -> bool:
    return moved_lines(then, now) >= threshold(then)
