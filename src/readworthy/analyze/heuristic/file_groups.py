"""Changed files grouped by where they sit: tiny added files by the hundred in one directory (data, however
it is named) and new directories that hold a package of their own."""

from __future__ import annotations

from collections import defaultdict

from ...models import FileChange, FileStatus

BULK_FILES = 50  # this many tiny added files of one type in one directory are data, not code
BULK_MAX_LINES = 5
NEW_PACKAGE_FILES = 5  # a new directory with this many added files is a package of its own


def bulk_paths(changes: list[FileChange]) -> set[str]:
    """Added files that come in the hundreds, tiny and alike: generated data however it is named."""
    groups: defaultdict[tuple[str, str], list[FileChange]] = defaultdict(list)
    for c in changes:
        if c.status is FileStatus.ADDED:
            directory, _, name = c.path.rpartition("/")
            groups[(directory, name.rsplit(".", 1)[-1] if "." in name else "")].append(c)
    bulk: set[str] = set()
    for members in groups.values():
        sizes = sorted(c.additions for c in members)
        if len(members) >= BULK_FILES and sizes[len(sizes) // 2] <= BULK_MAX_LINES:
            bulk.update(c.path for c in members)
    return bulk


def new_packages(changes: list[FileChange], code_paths: set[str]) -> tuple[tuple[str, ...], float]:
    """Top directories whose every changed file is new, holding NEW_PACKAGE_FILES or more files,
    and the share of the added code lines (of the files in `code_paths`) that sit in them."""
    status_under: defaultdict[str, set[FileStatus]] = defaultdict(set)
    for c in changes:
        parts = c.path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            status_under["/".join(parts[:i])].add(c.status)
    members: defaultdict[str, list[list[str]]] = defaultdict(list)
    for c in changes:
        if c.status is not FileStatus.ADDED:
            continue
        parts = c.path.split("/")[:-1]
        top = next(("/".join(parts[:i]) for i in range(1, len(parts) + 1)
                    if status_under["/".join(parts[:i])] == {FileStatus.ADDED}), None)
        if top is not None:
            members[top].append(parts)
    packages = tuple(sorted("/".join(_common_prefix(dirs)) for dirs in members.values()
                            if len(dirs) >= NEW_PACKAGE_FILES))
    code = [c for c in changes if c.path in code_paths]
    total = sum(c.additions for c in code)
    inside = sum(c.additions for c in code if any(c.path.startswith(p + "/") for p in packages))
    return packages, (inside / total if total else 0.0)


def _common_prefix(dirs: list[list[str]]) -> list[str]:
    """The deepest directory all of them are in: what is new may be a level below what only looks new."""
    prefix = dirs[0]
    for parts in dirs[1:]:
        n = 0
        while n < min(len(prefix), len(parts)) and prefix[n] == parts[n]:
            n += 1
        prefix = prefix[:n]
    return prefix
