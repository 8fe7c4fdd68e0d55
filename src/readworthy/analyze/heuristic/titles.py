"""What a PR's title (and first commit message) says it is: a bump, a fix, a revert.
Title words only tell the heuristic how to read the diff; every claim a reason makes is still checked in it."""

from __future__ import annotations

import re

# "Fix", "fixes", "fixed", "[Bugfix]", "hotfix", "bug"; not "fixture", which only starts alike
_FIX_TITLE = re.compile(r"\bfix(?:e[sd]|ing|up)?\b|\bhotfix(?:es)?\b|\bbug(?:fix(?:es)?|s)?\b", re.IGNORECASE)
# A title that is a bump: "Bump x", "[CI] upgrade x", "chore(deps): pin x" (the verb first, after tags and a
# conventional-commit prefix), or "... update x to v3", "upgrade x from 1.1 to 1.2" anywhere. A title that only
# mentions a bump ("..., a bump that moves a tag is version-only") or "--version" is not one.
_BUMP_TITLE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*(?:\w+(?:\([^)]*\))?!?:\s*)?(?:bump|upgrade|downgrade|(?:un)?pin)\b"
                         r"|\b(?:bump|upgrade|downgrade|update|move|(?:un)?pin)\s+(?:\S+\s+){0,4}?(?:to|from)\s+v?\d",
                         re.IGNORECASE)
_REVERT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*revert\b|this reverts commit", re.IGNORECASE)


def is_bump_title(title: str) -> bool:
    return bool(_BUMP_TITLE.search(title))


def is_fix_title(title: str) -> bool:
    return bool(_FIX_TITLE.search(title))


def is_revert(text: str) -> bool:
    """A revert, by its title's first word (after tags) or git's "This reverts commit" line."""
    return bool(_REVERT.search(text))
