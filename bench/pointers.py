"""Pointer recall: how many of the code places the labels say a reader must see does the heuristic guide name?

    .venv/bin/python bench/pointers.py [--fixtures-root ../shared/fixtures] [--seed 24] [--misses] [--held-out]
                                       [--releases DIR]

Each label in `vllm/labels.jsonl` and `vllm2/labels.jsonl` lists `key_points`, each "path::Symbol - why"
or a path with a note. A key point is *reached* when what the reader sees in the heuristic's comment
names it: a decision's references or a "Start reading at" entry (after grounding, at most as many as
the comment shows: 4 decisions of 8 references, 6 entries to start at). Named means:

- for `path::Symbol`: an entry `path::Q` for the same file where Q is the symbol (`A.b`), ends with it
  (`A.b` for a key point's bare `b`) or lies inside it (`KVCacheLayout.is_block_outermost` for
  `KVCacheLayout`); symbols the key point lists with " / " are alternatives;
- for a path (a file, a directory, a `*` or `{a,b}` pattern): an entry in that file or under it.

A key point's path may be a bare file name (`utils.py::KVBlockZeroer`): it stands for the one changed
file with that name. Key points with no reference (PR #52939: "(no diff)") are not counted.

Out of sample: the 62 PRs are split in two halves by a seeded shuffle of their numbers (seed 24,
fixed before any failure was looked at). Rules were developed against the development half only;
the held-out half is reported apart and its misses are printed only with --held-out.

Diffs alone, the heuristic cannot name a method whose `def` line no hunk shows (git's hunk header names
the class). In the action, gather reads such files at the head for their outline (gather/outline.py);
`--releases DIR` measures that path: the head files are rebuilt from vLLM's source releases
(bench/release_heads.py, which says how faithful the rebuild is) and passed through the same
`add_outlines` the action uses, its ten-file cap included.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import random
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from release_heads import ReleaseHeads

from readworthy.analyze.ground import ground_digest
from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.gather.outline import add_outlines
from readworthy.models import Coverage, Digest, PRContext

DEFAULT_ROOT = next(
    (d / "shared" / "fixtures" for d in Path(__file__).resolve().parents[1].parents
     if (d / "shared" / "fixtures" / "vllm").is_dir()),
    Path(__file__).resolve().parents[1].parent / "shared" / "fixtures",
)
FOLDERS = ("vllm", "vllm2")
SPLIT_SEED = 24
SHOWN_DECISIONS, SHOWN_REFERENCES, SHOWN_START = 4, 8, 6  # what render/comment.py shows

# A path: a file name with an extension (or a well-known extension-less build file), or a directory.
_PATH = (r"(?:[\w.{}*,$-]+/)*(?:\.?[\w{}*,$-]+(?:\.[\w{}*,$-]+)+|Dockerfile[\w.]*|CMakeLists\.txt|Makefile"
         r"|[\w.{}*,-]+/)")
# A symbol, alternatives after " / ", or an HCL block's quoted name (`target "rust-rocm-ci"`).
_SYMBOL = r"[\w.*$:-]*[\w*$-]"
_REF = re.compile(rf"(?P<path>{_PATH})(?:::(?:\w+\s+\"(?P<block>[^\"]+)\"|(?P<symbols>{_SYMBOL}"
                  rf"(?:\s*/\s*{_SYMBOL}(?=\s|$|,|;))*)))?")


@dataclass(frozen=True)
class KeyPoint:
    pr: int
    text: str
    path: str  # as written: a path, a bare file name, a directory or a pattern
    symbols: tuple[str, ...]  # alternatives; empty for a path-only key point


def parse_key_point(pr: int, text: str) -> KeyPoint | None:
    """The key point's leading reference: the first `path::Symbol` or path it names."""
    match = _REF.search(text)
    if match is None:
        return None
    written = match.group("block") or match.group("symbols") or ""
    symbols = tuple(s.strip().replace("::", ".") for s in written.split(" / " if match.group("block") else "/")
                    if s.strip())
    return KeyPoint(pr, text, match.group("path"), symbols)


def _patterns(path: str) -> list[str]:
    """`a/{b,c}/` -> [`a/b/`, `a/c/`]."""
    brace = re.search(r"\{([^{}]*)\}", path)
    if not brace:
        return [path]
    return [x for alt in brace.group(1).split(",") for x in _patterns(path[: brace.start()] + alt + path[brace.end():])]


def _resolve(path: str, changed: Sequence[str]) -> list[str]:
    """The changed files a key point's path stands for (a bare name: the file of that name)."""
    out: list[str] = []
    for pattern in _patterns(path):
        if pattern.endswith("/"):
            out += [p for p in changed if p.startswith(pattern) or ("/" + pattern) in ("/" + p)]
        elif "*" in pattern:
            out += [p for p in changed if fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(p, "*/" + pattern)]
        else:
            out += [p for p in changed if p == pattern or p.endswith("/" + pattern)]
    return list(dict.fromkeys(out)) or [path]


def shown_entries(digest: Digest) -> list[str]:
    """The references and start-reading entries the comment shows, as the reader sees them."""
    entries = [r for d in digest.decisions[:SHOWN_DECISIONS] for r in d.references[:SHOWN_REFERENCES]]
    return [*entries, *digest.start_reading[:SHOWN_START]]


def reached(point: KeyPoint, entries: Iterable[str], changed: Sequence[str]) -> bool:
    files = set(_resolve(point.path, changed))
    for entry in entries:
        path, _, symbol = entry.partition("::")
        if path not in files and not any(f.endswith("/" + path) for f in files):
            continue
        if not point.symbols:
            return True
        symbol = symbol.replace("::", ".")
        for wanted in point.symbols:
            if "*" in wanted and fnmatch.fnmatch(symbol, wanted):
                return True
            if symbol and (symbol == wanted or symbol.endswith("." + wanted) or symbol.startswith(wanted + ".")):
                return True
    return False


def split(prs: Sequence[int], seed: int = SPLIT_SEED) -> tuple[list[int], list[int]]:
    """(development, held-out): a seeded shuffle of the sorted PR numbers, cut in half."""
    order = sorted(prs)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return sorted(order[:half]), sorted(order[half:])


def load(root: Path) -> list[tuple[Path, dict[str, object]]]:
    out = []
    for folder in FOLDERS:
        for line in (root / folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append((root / folder, json.loads(line)))
    return out


def context(folder: Path, pr: int, heads: ReleaseHeads | None = None) -> PRContext:
    """The fixture as the heuristic sees it; with `heads`, also the head-file outlines the action reads."""
    ctx = context_from_source(LocalSource(patch=str(folder / str(pr) / "diff.patch")))
    if not heads:
        return ctx
    patches = {f.path: f.patch or "" for f in ctx.files}
    return ctx.model_copy(update={"files": add_outlines(list(ctx.files), lambda p: heads.read(p, patches[p]))})


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixtures-root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--seed", type=int, default=SPLIT_SEED, help="the split's seed (24 is the one reported)")
    parser.add_argument("--language", default="en", choices=("en", "zh-CN"))
    parser.add_argument("--misses", action="store_true", help="list the development half's missed key points")
    parser.add_argument("--held-out", action="store_true", help="also list the held-out half's misses")
    parser.add_argument("--releases", type=Path, help="vLLM releases unpacked by bench/release_heads.py: "
                        "measure with the head-file outlines rebuilt from them")
    args = parser.parse_args()
    heads = ReleaseHeads(args.releases) if args.releases else None
    if args.releases and not heads:
        sys.exit(f"no releases under {args.releases} (bench/release_heads.py --fetch {args.releases})")
    if not (args.fixtures_root / "vllm").is_dir():
        sys.exit(f"no fixtures under {args.fixtures_root}")
    labels = load(args.fixtures_root)
    dev, held = split([int(str(label["pr"])) for _, label in labels], args.seed)
    tally = {"development": [0, 0], "held-out": [0, 0]}
    per_pr: list[tuple[str, int, int, int]] = []
    misses: list[tuple[str, KeyPoint, list[str]]] = []
    for folder, label in labels:
        pr = int(str(label["pr"]))
        half = "development" if pr in dev else "held-out"
        ctx = context(folder, pr, heads)
        digest, _ = ground_digest(heuristic_digest(ctx, Coverage(), args.language), ctx)
        entries = shown_entries(digest)
        changed = [f.path for f in ctx.files]
        points = [p for p in (parse_key_point(pr, str(t)) for t in label["key_points"]) if p]  # type: ignore[attr-defined]
        hits = 0
        for point in points:
            if reached(point, entries, changed):
                hits += 1
            else:
                misses.append((half, point, entries))
        tally[half][0] += hits
        tally[half][1] += len(points)
        per_pr.append((half, pr, hits, len(points)))
    print(f"split: seed {args.seed}, {len(dev)} development PRs, {len(held)} held-out PRs")
    if heads:
        st = heads.stats
        print(f"head-file outlines rebuilt from releases: {st.rebuilt} of {st.files} files the action would read "
              f"({', '.join(f'{v}: {n}' for v, n in sorted(st.versions.items()))}); gaps between hunks "
              f"with the head's length: {st.gaps_kept} of {st.gaps}")
    else:
        print("diffs alone (no head files; --releases DIR measures with the outlines the action reads)")
    print(f"held-out PRs: {', '.join(map(str, held))}")
    for half, (hits, total) in tally.items():
        print(f"pointer recall, {half:11}: {hits / max(1, total):.2f} ({hits} of {total} key points)")
    every = sum(h for h, _ in tally.values()), sum(t for _, t in tally.values())
    print(f"pointer recall, all 62     : {every[0] / max(1, every[1]):.2f} ({every[0]} of {every[1]})")
    if args.misses or args.held_out:
        for half, point, entries in misses:
            if half == "development" or args.held_out:
                print(f"\n[{half}] #{point.pr} missed: {point.text[:150]}")
                print(f"    wanted: {point.path} :: {' / '.join(point.symbols) or '(the file)'}")
                print(f"    shown : {', '.join(entries[:12]) or '-'}")


if __name__ == "__main__":
    main()
