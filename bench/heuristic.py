"""The heuristic analyzer on the real vLLM diffs: verdict, reason and time per PR, in en or zh-CN.

    .venv/bin/python bench/heuristic.py [--language zh-CN] [--fixtures ../shared/fixtures/vllm] [--guide]

Prints one line per fixture and the verdict counts; with --guide also where to start reading and the
design points. A reading aid for judging the rubric on real PRs (only diffs and commit messages are
real: no descriptions, discussion or issues).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from readworthy.analyze.ground import ground_digest
from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage

DEFAULT_FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "vllm"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="en", choices=("en", "zh-CN"))
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--guide", action="store_true", help="also print the start and the design points")
    args = parser.parse_args()
    index = json.loads((args.fixtures / "index.json").read_text())
    counts: Counter[str] = Counter()
    total_ms = 0.0
    print(f"{'PR':>6}  {'files':>5}  {'+lines':>6}  {'verdict':9}  {'ms':>5}  title / reason")
    for entry in index:
        ctx = context_from_source(LocalSource(patch=str(args.fixtures / str(entry["number"]) / "diff.patch")))
        started = time.perf_counter()
        digest = heuristic_digest(ctx, Coverage(), args.language)
        elapsed = (time.perf_counter() - started) * 1000
        _, dropped = ground_digest(digest, ctx)
        total_ms += elapsed
        counts[digest.verdict.value] += 1
        print(f"{entry['number']:>6}  {entry['files_changed']:>5}  {entry['insertions']:>6}  "
              f"{digest.verdict.value:9}  {elapsed:5.0f}  {entry['title'][:70]}")
        print(f"{'':>40}{digest.reason}" + (f"  [ungrounded: {dropped}]" if dropped else ""))
        if args.guide:
            print(f"{'':>40}start: {', then '.join(digest.start_reading[:3]) or '-'}")
            for d in digest.decisions:
                print(f"{'':>40}* {d.title} — {d.explanation}")
    print(f"\n{len(index)} PRs: " + ", ".join(f"{v} {counts[v]}" for v in ("deep-read", "skim", "skip"))
          + f"; {total_ms:.0f} ms in all, {total_ms / max(1, len(index)):.1f} ms per PR")


if __name__ == "__main__":
    main()
