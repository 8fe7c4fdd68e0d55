"""Who should read a PR: CODEOWNERS owners and the config's human area names, per changed path.

CODEOWNERS is matched with the `codeowners` library, which implements GitHub's rules (they differ
from gitignore: `docs/*` is not recursive, the last matching line wins, a line with no owners
un-owns). The file is read from the PR's *base* branch, in GitHub's lookup order (.github/, root,
docs/): a PR must not be able to pick its own audience. Areas (`areas:` in .github/readworthy.yml)
are gitignore-style globs matched with `pathspec`; like CODEOWNERS, the last matching glob wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pathspec
from codeowners import CodeOwners

CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")  # GitHub's lookup order


def first_codeowners(candidates: Mapping[str, str | None]) -> tuple[str, str] | None:
    """(path, text) of the CODEOWNERS file GitHub would use, given the texts found at each location."""
    for path in CODEOWNERS_PATHS:
        text = candidates.get(path)
        if text is not None:
            return path, text
    return None


def match_owners(codeowners_text: str, paths: Iterable[str]) -> dict[str, list[str]]:
    """owner (team, user or e-mail, as written) -> the changed paths it owns, in input order."""
    rules = CodeOwners(codeowners_text)
    owned: dict[str, list[str]] = {}
    for path in paths:
        for _kind, owner in rules.of(path):
            owned.setdefault(owner, []).append(path)
    return owned


def match_areas(areas: Mapping[str, str], paths: Iterable[str]) -> dict[str, list[str]]:
    """area name -> the changed paths in it. `areas` maps glob -> name, in file order."""
    specs = [(pathspec.GitIgnoreSpec.from_lines([glob]), name) for glob, name in areas.items()]
    found: dict[str, list[str]] = {}
    for path in paths:
        winner = None
        for spec, name in specs:
            if spec.match_file(path):
                winner = name
        if winner is not None:
            found.setdefault(winner, []).append(path)
    return found
