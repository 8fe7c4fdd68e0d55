"""Bench: how many of the references a comment cites become links to the right lines, on the real vLLM diffs.

    .venv/bin/python bench/links.py [--fixtures DIR ...]

For every fixture PR (../shared/fixtures/vllm and vllm2): the heuristic's guide, the locator, the rendered
comment. Per PR it counts the references the comment cites (decisions and "start reading"), how many are
links, and checks each link against the diff itself, independently of the locator: a symbol's link must
start on a new-side line of the patch that defines that name, a file's on an added line. Also the comment's
size with and without the links, the check run's start-here marks, and the locator's time. Skips cleanly
where the fixtures are absent.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.locate import cited_references, locate
from readworthy.models import Coverage, Report
from readworthy.pack.classify import definition_name, patterns_for
from readworthy.render.check import start_here_marks
from readworthy.render.comment import render_comment


def _fixture_dirs(given: list[Path]) -> list[Path]:
    if given:
        return [d for d in given if d.is_dir()]
    for parent in Path(__file__).resolve().parents:
        shared = parent / "shared" / "fixtures"
        if shared.is_dir():
            return [d for d in (shared / "vllm", shared / "vllm2") if d.is_dir()]
    return []


def _numbers(folder: Path) -> list[int]:
    return sorted(int(d.name) for d in folder.iterdir() if d.name.isdigit() and (d / "diff.patch").is_file())


def _new_side(patch: str) -> dict[int, tuple[str, str, str]]:
    """line number at head -> (marker, code, its hunk's header) for the lines the patch shows on its new side."""
    out: dict[int, tuple[str, str, str]] = {}
    line = 0
    header = ""
    for raw in patch.split("\n"):
        hunk = re.match(r"@@ -\S+ \+(\d+)(?:,\d+)? @@(.*)", raw)
        if hunk:
            line, header = int(hunk.group(1)), hunk.group(2)
        elif raw[:1] in ("+", " "):
            out[line] = (raw[0], raw[1:], header)
            line += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, action="append", default=[])
    args = parser.parse_args()
    dirs = _fixture_dirs(args.fixtures)
    if not dirs:
        print("skipped: the real vLLM fixtures are not present (../shared/fixtures/vllm)")
        return 0
    totals = {"prs": 0, "cited": 0, "linked": 0, "to_line": 0, "symbols": 0, "symbol_on_def": 0, "symbol_in_hunk": 0,
              "files": 0,
              "file_on_added": 0, "wrong": 0, "marks": 0, "marks_in_diff": 0}
    sizes: list[tuple[int, int]] = []
    seconds = 0.0
    for folder in dirs:
        for number in _numbers(folder):
            ctx = context_from_source(LocalSource(patch=str(folder / str(number) / "diff.patch")))
            ctx = ctx.model_copy(update={"repo": "vllm-project/vllm", "number": number,
                                         "url": f"https://github.com/vllm-project/vllm/pull/{number}",
                                         "head_sha": "0123456789abcdef" * 2 + "01234567"})
            digest = heuristic_digest(ctx, Coverage(), "en")
            started = time.perf_counter()
            locations = locate(digest, ctx)
            seconds += time.perf_counter() - started
            report = Report(digest=digest, analyzer="heuristic", repo=ctx.repo, number=ctx.number, url=ctx.url,
                            head_sha=ctx.head_sha, locations=locations)
            with_links = len(render_comment(report))
            without = len(render_comment(report.model_copy(update={"locations": []})))
            sizes.append((without, with_links))
            by_ref = {loc.ref: loc for loc in locations}
            patches = {f.path: _new_side(f.patch or "") for f in ctx.files}
            totals["prs"] += 1
            for ref in dict.fromkeys(cited_references(digest)):
                totals["cited"] += 1
                loc = by_ref.get(ref)
                if loc is None:
                    continue
                totals["linked"] += 1
                if not loc.start:
                    continue
                totals["to_line"] += 1
                shown = patches.get(loc.path, {}).get(loc.start)
                symbol = ref.partition("::")[2] if "::" in ref else ("" if ref == loc.path or "/" in ref else ref)
                if symbol:
                    totals["symbols"] += 1
                    parts = re.split(r"[.:]+", re.sub(r"\[.*\]$", "", symbol))
                    defined = shown is not None and definition_name(shown[1], patterns_for(loc.path)) == parts[-1]
                    totals["symbol_on_def"] += defined
                    # else: inside a hunk whose header names it (or its class): its definition is above the diff
                    totals["symbol_in_hunk"] += (not defined and shown is not None
                                                 and any(p and p in shown[2] for p in parts))
                    # A symbol whose definition line the diff does not show lands on the hunk that changes it.
                    totals["wrong"] += shown is None
                else:
                    totals["files"] += 1
                    totals["file_on_added"] += shown is not None and shown[0] == "+"
                    totals["wrong"] += shown is None
            marks = start_here_marks(report, 5)
            totals["marks"] += len(marks)
            totals["marks_in_diff"] += sum(1 for m in marks if m.line in patches.get(m.path, {}))

    def share(a: str, b: str) -> str:
        return f"{totals[a]}/{totals[b]} ({100 * totals[a] / max(1, totals[b]):.0f}%)"

    print(f"fixture PRs: {totals['prs']} ({', '.join(d.name for d in dirs)})")
    print(f"cited references linked:                  {share('linked', 'cited')}")
    print(f"  linked to a line:                       {share('to_line', 'cited')}")
    print(f"  symbols on their definition line:       {share('symbol_on_def', 'symbols')}")
    print(f"  symbols in the hunk that changes them:  {share('symbol_in_hunk', 'symbols')} (definition line outside "
          "the diff; the first changed line of the hunk its header names)")
    other = totals["symbols"] - totals["symbol_on_def"] - totals["symbol_in_hunk"]
    print(f"  other symbols (their file's first change): {other}")
    print(f"  files on an added line:                 {share('file_on_added', 'files')}")
    print(f"  links to a line the diff does not show: {totals['wrong']}")
    print(f"start-here marks (at most 5 a PR):        {totals['marks']}, on a line of the diff: "
          f"{share('marks_in_diff', 'marks')}")
    grown = [b - a for a, b in sizes]
    print(f"comment size without -> with links:       median {sorted(a for a, _ in sizes)[len(sizes) // 2]:,} -> "
          f"{sorted(b for _, b in sizes)[len(sizes) // 2]:,} chars; largest growth {max(grown):,}; "
          f"largest comment {max(b for _, b in sizes):,} (limit 65,536)")
    print(f"locator time: {1000 * seconds:.0f} ms for {totals['prs']} PRs ({1000 * seconds / totals['prs']:.1f} ms "
          "per PR)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
