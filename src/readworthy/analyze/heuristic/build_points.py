"""Design points of a build-only PR: the options it adds to the build, each with its default and help text.

CMake's `option(FASTLIB_ENABLE_NVTX "Annotate kernels with NVTX ranges" OFF)` and a cached `set(NAME value
CACHE TYPE "help")` are knobs everyone who builds the project can now turn; what they default to decides
every build that does not. Everything quoted is added text of the PR.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...models import Decision, FileChange
from .wording import fit, phrase

_OPTION = re.compile(r"""^\s*option\s*\(\s*(?P<name>\w+)\s+"(?P<help>[^"]*)"\s*(?P<default>[^)\s]*)\s*\)""",
                     re.IGNORECASE)
_CACHED = re.compile(r"""^\s*set\s*\(\s*(?P<name>\w+)\s+(?P<default>"[^"]*"|\S+)\s+CACHE\s+\w+\s+"(?P<help>[^"]*)\"""",
                     re.IGNORECASE)
MAX_BUILD_POINTS = 3


def is_cmake(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name == "CMakeLists.txt" or name.endswith(".cmake")


def build_points(changes: Sequence[FileChange], language: str) -> list[Decision]:
    """The build options the PR adds, with their defaults and help texts; an option it also removes is
    reworded or moved, not new."""
    out: list[Decision] = []
    for change in changes:
        lines = (change.patch or "").split("\n")
        removed = {m.group("name") for x in lines if x.startswith("-") for m in [_match(x[1:])] if m}
        for raw in lines:
            if not raw.startswith("+") or raw.startswith("+++"):
                continue
            m = _match(raw[1:])
            if m is None or m.group("name") in removed:
                continue
            values = {"name": m.group("name"), "default": m.group("default").strip('"') or "OFF",
                      "help": m.group("help").strip(), "file": change.path.rsplit("/", 1)[-1]}
            key = "b_option" if values["help"] else "b_option_bare"
            out.append(Decision(title=fit(phrase(language, "b_option_title", **values), 160),
                                explanation=fit(phrase(language, key, **values), 900), references=[change.path]))
    return out[:MAX_BUILD_POINTS]


def _match(line: str) -> re.Match[str] | None:
    return _OPTION.match(line) or _CACHED.match(line)
