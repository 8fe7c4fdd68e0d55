"""Approximate a vLLM fixture PR's head files from vLLM's source releases, for benches that need them.

    .venv/bin/python bench/release_heads.py --fetch DIR [--versions 0.23.0 ... 0.29.0]

The fixtures carry diffs, not the files at the PR's head, so what the action's head-file outline
(gather/outline.py) adds cannot be measured on them directly. vLLM's source distributions on PyPI (a
package registry: the only network this fetch uses, and only when asked) hold the whole tree as
released. A release made after a PR merged holds the PR's lines, give or take later edits, so a head
file is rebuilt from it:

- each hunk's new side (context and added lines) is found in the release file: the whole block, else
  the longest run of at least three of its lines found once past the previous hunk's place;
- the head is the hunk's own lines at the hunk header's line numbers, with the release's lines between
  the hunks (cut or padded with blank lines where later edits changed a gap's length, keeping the lines
  nearest the next hunk: the `def` above a hunk is what its outline needs);
- a file is rebuilt from the release holding the most of its hunks whole (a release before the merge
  places them by context alone; earliest on a tie), and only when every hunk is placed; otherwise it
  has no head (as a file the contents API cannot return).

It is an approximation: a method renamed or split after the merge gives the release's outline. The
benches that use it say how many files were rebuilt and how many gaps kept their length.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from readworthy.enclosing import Enclosing  # noqa: E402
from readworthy.gather.outline import python_outline  # noqa: E402
from readworthy.hunk_header import parse_hunk_header  # noqa: E402

DEFAULT_VERSIONS = ("0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.27.0", "0.28.0", "0.29.0")  # June-Sept 2026
MIN_ANCHOR = 3  # lines of a hunk that must appear together, once, in the release


@dataclass
class Rebuilt:
    files: int = 0  # head files asked for
    rebuilt: int = 0  # every hunk placed
    gaps: int = 0
    gaps_kept: int = 0  # a gap between hunks with the same length in the release
    versions: dict[str, int] = field(default_factory=dict)


def _hunks(patch: str) -> list[tuple[int, list[str]]]:
    """(first line at the head, new-side lines) per hunk."""
    out: list[tuple[int, list[str]]] = []
    for raw in patch.split("\n"):
        header = parse_hunk_header(raw) if raw.startswith("@@") else None
        if header is not None:
            out.append((header.new_start, []))
        elif out and raw[:1] in (" ", "+"):
            out[-1][1].append(raw[1:])
        elif out and raw == "":
            out[-1][1].append("")  # a blank context line some tools write without its space
    return out


def _place(release: Sequence[str], index: dict[str, list[int]], block: Sequence[str],
           start: int) -> tuple[int, bool] | None:
    """Where `block`'s first line sits in `release` (0-based), searching at or past `start`, and whether
    the whole block is there."""
    best: tuple[int, int] | None = None  # (run length, position of block[0])
    ambiguous = False
    for j, line in enumerate(block):
        if len(line.strip()) < 8:
            continue  # a blank or a bare `)` anchors nothing
        for r in index.get(line, ()):
            at = r - j
            if at < start:
                continue
            run = 0
            while j + run < len(block) and r + run < len(release) and release[r + run] == block[j + run]:
                run += 1
            if run == len(block) - j and j == 0:
                return at, True
            if best is None or run > best[0]:
                best, ambiguous = (run, at), False
            elif run == best[0] and at != best[1]:
                ambiguous = True
    if best is None or best[0] < min(MIN_ANCHOR, len(block)) or ambiguous:
        return None
    return best[1], False


_OPENER = re.compile(r"^\s*(?:async\s+def|def|class)\s+\w+.*:\s*(?:#.*)?$")


def _shortened(source: Sequence[str], wanted: int) -> list[str]:
    """`wanted` lines of a gap the release made longer: the lines nearest the next hunk, led by the
    one-line `class`/`def` lines of the cut part that enclose them (the class a method is in, which
    the outline needs, may sit far above)."""
    if wanted == 0:
        return []
    openers: list[str] = []
    lowest = min((len(x) - len(x.lstrip()) for x in source[len(source) - wanted:] if x.strip()), default=0)
    for line in reversed(source[: len(source) - wanted]):
        if not line.strip() or line.lstrip().startswith("#"):  # a comment may sit at any column
            continue
        indent = len(line) - len(line.lstrip())
        if indent < lowest:
            lowest = indent
            if _OPENER.match(line):
                openers.insert(0, line)
    openers = openers[:wanted]
    return openers + list(source[len(source) - wanted + len(openers):])


def rebuild(release_text: str, patch: str) -> tuple[str, int, int, int] | None:
    """The head file (text, hunks found whole, gaps, gaps whose length the release kept), or None when a
    hunk is not found."""
    release = release_text.split("\n")
    index: dict[str, list[int]] = {}
    for i, line in enumerate(release):
        index.setdefault(line, []).append(i)
    head: list[str] = []
    cursor = 0
    gaps = kept = whole = 0
    for first, block in _hunks(patch):
        placed = _place(release, index, block, cursor)
        if placed is None:
            return None
        at, entire = placed
        whole += entire
        wanted = first - 1 - len(head)
        if wanted < 0:
            return None
        source = release[cursor:max(cursor, at)]
        gaps += 1
        kept += len(source) == wanted
        fill = _shortened(source, wanted) if len(source) >= wanted else [""] * (wanted - len(source)) + source
        head += fill if wanted else []
        head += block
        cursor = max(cursor, at + len(block))
    head += release[cursor:]
    return "\n".join(head), whole, gaps, kept


class ReleaseHeads:
    """Head files rebuilt from the releases unpacked under `root` (one folder per version)."""

    def __init__(self, root: Path) -> None:
        self.trees = sorted((p for p in root.iterdir() if p.is_dir() and (p / "vllm").is_dir()),
                            key=lambda p: tuple(int(x) for x in re.findall(r"\d+", p.name)))
        self.stats = Rebuilt()

    def __bool__(self) -> bool:
        return bool(self.trees)

    def read(self, path: str, patch: str) -> bytes | None:
        self.stats.files += 1
        best: tuple[int, str, str, int, int] | None = None  # (hunks found whole, version, text, gaps, kept)
        for tree in self.trees:
            file = tree / path
            if not file.is_file():
                continue
            got = rebuild(file.read_text(encoding="utf-8", errors="replace"), patch)
            if got is not None and (best is None or got[1] > best[0]):
                text, whole, gaps, kept = got
                best = (whole, tree.name, text, gaps, kept)  # the earliest release with the most whole hunks
        if best is None:
            return None
        _, version, text, gaps, kept = best
        self.stats.rebuilt += 1
        self.stats.gaps += gaps
        self.stats.gaps_kept += kept
        self.stats.versions[version] = self.stats.versions.get(version, 0) + 1
        return text.encode("utf-8")


def fetch(root: Path, versions: Sequence[str]) -> None:
    """Download the sdists from PyPI and unpack their Python files into root/<version>/."""
    root.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen("https://pypi.org/pypi/vllm/json", timeout=60) as response:
        releases = json.load(response)["releases"]
    for version in versions:
        if (root / version / "vllm").is_dir():
            continue
        sdist = next(f for f in releases[version] if f["packagetype"] == "sdist")
        url = sdist["url"]
        if not url.startswith("https://"):  # a mirror's relative link: the same path on the file host
            url = "https://files.pythonhosted.org/packages/" + url.split("packages/packages/", 1)[1]
        archive = root / f"vllm-{version}.tar.gz"
        if not archive.is_file():
            urllib.request.urlretrieve(url, archive)  # noqa: S310 (a fixed https URL)
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith((".py", ".pyi"))]
            for member in members:
                relative = member.name.split("/", 1)[1] if "/" in member.name else member.name
                target = root / version / relative
                if ".." in Path(relative).parts:
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                extracted = tar.extractfile(member)
                if extracted is not None:
                    target.write_bytes(extracted.read())
        print(f"{version}: {len(members)} Python files", flush=True)


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    return out.stdout.decode("utf-8", errors="replace")


def check(repo: Path, commits: int, later: int) -> None:
    """How true the rebuilt outline is where it matters, on a git history with the real head files: for
    each modified Python file of the last `commits` commits, rebuild the file at the commit from the
    version `later` commits on (a release after the merge) and compare, per hunk, the definitions the
    hunk starts inside of (what definitions.py takes from the outline)."""
    shas = _git(repo, "rev-list", "--no-merges", f"--max-count={commits + later}", "HEAD").split()
    files = rebuilt = hunks = same = 0
    for i in range(later, len(shas)):
        sha, release_sha = shas[i], shas[i - later]
        for path in _git(repo, "diff-tree", "--no-commit-id", "-r", "--name-only", "--diff-filter=M", sha).split():
            if not path.endswith(".py"):
                continue
            release = _git(repo, "show", f"{release_sha}:{path}")
            if not release:
                continue
            patch = _git(repo, "show", "--format=", "-U3", sha, "--", path)
            files += 1
            got = rebuild(release, patch)
            truth = python_outline(_git(repo, "show", f"{sha}:{path}"))
            if got is None or truth is None:
                continue
            rebuilt += 1
            approx = python_outline(got[0]) or ()
            for first, _ in _hunks(patch):
                hunks += 1
                same += [e.qualname for e in Enclosing(truth).above(first)] == \
                    [e.qualname for e in Enclosing(approx).above(first)]
    print(f"{repo.resolve().name}: {files} modified Python files in {len(shas) - later} commits, each rebuilt from "
          f"the version {later} commits later: {rebuilt} rebuilt; hunks whose enclosing definitions match the "
          f"real head's: {same} of {hunks} ({same / max(1, hunks):.2f})")


def main() -> int:
    parser = argparse.ArgumentParser(description="fetch vLLM source releases for the head-file benches")
    parser.add_argument("--fetch", type=Path, help="folder to unpack the releases into")
    parser.add_argument("--versions", nargs="+", default=list(DEFAULT_VERSIONS))
    parser.add_argument("--check", type=Path, metavar="REPO",
                        help="instead: measure the rebuild against real head files on a git history")
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--later", type=int, default=20, help="how many commits on the stand-in release is")
    args = parser.parse_args()
    if args.check:
        check(args.check, args.commits, args.later)
    elif args.fetch:
        fetch(args.fetch, args.versions)
    else:
        parser.error("--fetch DIR or --check REPO")
    return 0


if __name__ == "__main__":
    sys.exit(main())
