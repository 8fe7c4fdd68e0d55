"""Bench: what reading head files for outlines (gather/outline.py) costs per PR, on the real vLLM diffs.

    .venv/bin/python bench/outline_requests.py [--fixtures DIR ...]

For each PR: how many changed Python files have hunks whose changed lines the diff alone cannot place
in a definition (a change in a method under a `class Foo:` hunk header), and so how many extra REST
requests the action makes (one contents API request per file, at most MAX_OUTLINE_FILES). The fixtures
have no head files, so this counts requests only; what the outlines would name cannot be measured here.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from readworthy.gather.diffparse import parse_patch  # noqa: E402
from readworthy.gather.outline import MAX_OUTLINE_FILES, needs_outline  # noqa: E402

_SHARED = next((d / "shared" / "fixtures" for d in ROOT.parents if (d / "shared" / "fixtures" / "vllm").is_dir()),
               ROOT.parent / "shared" / "fixtures")


def main() -> int:
    parser = argparse.ArgumentParser(description="extra REST requests per PR for head-file outlines")
    parser.add_argument("--fixtures", type=Path, action="append")
    args = parser.parse_args()
    roots = args.fixtures or [_SHARED / "vllm", _SHARED / "vllm2"]
    counts: list[tuple[str, int, int, int]] = []
    for root in roots:
        for pr in sorted(p for p in root.iterdir() if (p / "diff.patch").is_file()):
            files = parse_patch((pr / "diff.patch").read_text(encoding="utf-8", errors="replace")).files
            wanted = sum(1 for f in files if needs_outline(f))
            counts.append((pr.name, len(files), wanted, min(wanted, MAX_OUTLINE_FILES)))
    if not counts:
        print(f"no fixtures under {', '.join(map(str, roots))}", file=sys.stderr)
        return 1
    extra = [c[3] for c in counts]
    print(f"{len(counts)} PRs; extra REST requests per PR (cap {MAX_OUTLINE_FILES}): "
          f"mean {statistics.mean(extra):.1f}, median {statistics.median(extra):g}, max {max(extra)}; "
          f"PRs with none: {extra.count(0)}; "
          f"at the cap: {sum(1 for c in counts if c[2] >= MAX_OUTLINE_FILES)}")
    print(f"{'PR':>8} {'files':>6} {'need':>5} {'reqs':>5}")
    for name, files, wanted, requests in counts:
        print(f"{name:>8} {files:>6} {wanted:>5} {requests:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
