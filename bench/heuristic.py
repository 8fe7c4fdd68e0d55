"""The heuristic analyzer on the real vLLM diffs: verdict, reason and time per PR, in en or zh-CN.

    .venv/bin/python bench/heuristic.py [--language zh-CN] [--fixtures DIR ...] [--guide]

Prints one line per fixture of both development sets (../shared/fixtures/vllm and vllm2; --fixtures,
repeatable, names others) and the verdict counts, with the triage confidence; with --guide also where
to start reading and the design points. A reading aid for judging the rubric on real PRs (only diffs and commit messages are
real: no descriptions, discussion or issues).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from collections import Counter
from pathlib import Path

from readworthy.analyze.ground import ground_digest
from readworthy.analyze.heuristic import heuristic_digest, triage
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage

_SHARED = next((d / "shared" / "fixtures" for d in Path(__file__).resolve().parents[1].parents
                if (d / "shared" / "fixtures" / "vllm").is_dir()),
               Path(__file__).resolve().parents[1].parent / "shared" / "fixtures")
DEFAULT_FIXTURES = [_SHARED / "vllm", _SHARED / "vllm2"]


def _entries(roots: list[Path]) -> Iterator[tuple[Path, dict[str, object]]]:
    """Each fixture's folder and its number, title, file and line counts (from meta.json)."""
    for root in roots:
        for d in sorted((d for d in root.iterdir() if d.name.isdigit()), key=lambda d: int(d.name)):
            meta = json.loads((d / "meta.json").read_text())
            yield root, meta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="en", choices=("en", "zh-CN"))
    parser.add_argument("--fixtures", type=Path, action="append", default=[])
    parser.add_argument("--guide", action="store_true", help="also print the start and the design points")
    args = parser.parse_args()
    index = list(_entries(args.fixtures or DEFAULT_FIXTURES))
    counts: Counter[str] = Counter()
    total_ms = 0.0
    print(f"{'PR':>6}  {'files':>5}  {'+lines':>6}  {'verdict':9}  {'conf':>4}  {'ms':>5}  title / reason")
    for root, entry in index:
        ctx = context_from_source(LocalSource(patch=str(root / str(entry["number"]) / "diff.patch")))
        started = time.perf_counter()
        digest = heuristic_digest(ctx, Coverage(), args.language)
        elapsed = (time.perf_counter() - started) * 1000
        sure = triage(ctx).confidence
        _, dropped = ground_digest(digest, ctx)
        total_ms += elapsed
        counts[digest.verdict.value] += 1
        print(f"{entry['number']:>6}  {entry['files_changed']:>5}  {entry['insertions']:>6}  "
              f"{digest.verdict.value:9}  {sure:4.2f}  {elapsed:5.0f}  {str(entry['title'])[:70]}")
        print(f"{'':>46}{digest.reason}" + (f"  [ungrounded: {dropped}]" if dropped else ""))
        if args.guide:
            print(f"{'':>46}start: {', then '.join(digest.start_reading[:3]) or '-'}")
            for d in digest.decisions:
                print(f"{'':>46}* {d.title} — {d.explanation}")
    print(f"\n{len(index)} PRs: " + ", ".join(f"{v} {counts[v]}" for v in ("deep-read", "skim", "skip"))
          + f"; {total_ms:.0f} ms in all, {total_ms / max(1, len(index)):.1f} ms per PR")


if __name__ == "__main__":
    main()
