"""How far the PR's title, text anyone can write, moves the heuristic's verdict.

    .venv/bin/python bench/title_steering.py [--fixtures DIR ...]

Each labelled PR is judged with a neutral title ("Update code") and then with titles a stranger might write
to buy a closer read ("Fix …", "[Security] …", "Bump …") or to get a change waved through ("Revert …"). A
verdict that moves only because of the title is steering: upward costs readers' time and model quota;
downward (to `skip`) hides a change. The diff is the same in every row.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from verdicts import DEFAULT_FIXTURES, load_all_labels, patch_path

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage, PRContext

NEUTRAL = "Update code"
TITLES = ("Fix code", "[Security] Update code", "Bump code", "Revert code",
          "[Perf][Security] Fix critical deadlock regression")
ORDER = ("skip", "skim", "deep-read")


def moved(contexts: dict[int, PRContext], title: str) -> list[tuple[int, str, str]]:
    """(PR, verdict with the neutral title, verdict with `title`) for each PR whose verdict the title moves."""
    out = []
    for number, ctx in contexts.items():
        base = heuristic_digest(ctx.model_copy(update={"title": NEUTRAL}), Coverage(), "en").verdict.value
        given = heuristic_digest(ctx.model_copy(update={"title": title}), Coverage(), "en").verdict.value
        if given != base:
            out.append((number, base, given))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixtures", type=Path, nargs="+", default=DEFAULT_FIXTURES)
    args = parser.parse_args(argv)
    labels = load_all_labels(args.fixtures)
    contexts = {}
    for number in sorted(labels):
        patch = patch_path(args.fixtures, number)
        if patch is not None:
            contexts[number] = context_from_source(LocalSource(patch=str(patch)))
    print(f"{len(contexts)} labelled PRs, each judged with the title {NEUTRAL!r} and with each title below")
    for title in TITLES:
        rows = moved(contexts, title)
        up = sum(1 for _, a, b in rows if ORDER.index(b) > ORDER.index(a))
        down = [f"#{n} {a}->{b}" for n, a, b in rows if ORDER.index(b) < ORDER.index(a)]
        print(f"  {title!r}: {len(rows)} moved ({up} up, {len(down)} down{': ' + ', '.join(down) if down else ''})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
