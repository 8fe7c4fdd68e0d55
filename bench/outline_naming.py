"""Bench: does the heuristic name the method a change sits in, with and without the head file's outline?

    .venv/bin/python bench/outline_naming.py [--repo PATH] [--commits 300] [--misses]

The vLLM fixtures have diffs but no head files, so this measures on a real git history instead (by
default this repository's own, which no outline rule was written against). For each commit's modified
Python files it takes GitHub's kind of patch (git's default hunk headers: the nearest column-0 line,
`class Foo:`) and git's own answer for where each hunk is: the same patch with git's built-in `python`
diff driver, whose hunk header is the nearest `def` line above the hunk. A hunk counts when that answer
is a `def` the default header does not name, no `def`/`class` line of the hunk comes before or at its
first change, and the change lies inside that function's body at the head (git's driver also names the
nearest `def` above module-level data past a function's end): a method under a `class Foo:` header,
which the diff alone cannot name. A function defined inside another function is left out (both sides
count it as part of the outer one). "Named" means the heuristic's definitions for the file
(analyze/heuristic/definitions.py, what its design points and start-reading cite) include that method:
without the outline, and with the outline of the commit's own version of the file (what the action
reads through the contents API).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from readworthy.analyze.heuristic.definitions import file_definitions  # noqa: E402
from readworthy.gather.outline import decode_source, python_outline  # noqa: E402
from readworthy.hunk_header import parse_hunk_header  # noqa: E402
from readworthy.models import FileChange  # noqa: E402

_DEF_OR_CLASS = re.compile(r"^\s*(?:async\s+def|def|class)\s")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)")


def _git(repo: Path, *args: str, attributes: Path | None = None) -> str:
    cmd = ["git", "-C", str(repo)]
    if attributes is not None:
        cmd += ["-c", f"core.attributesFile={attributes}"]
    out = subprocess.run([*cmd, *args], capture_output=True, check=False)
    return out.stdout.decode("utf-8", errors="replace")


def _hunks(patch: str) -> list[tuple[str, list[str], int]]:
    """(header context, body lines, first line at the head) per hunk."""
    out: list[tuple[str, list[str], int]] = []
    for line in patch.split("\n"):
        header = parse_hunk_header(line) if line.startswith("@@") else None
        if header is not None:
            out.append((header.context, [], header.new_start))
        elif out:
            out[-1][1].append(line)
    return out


def _same(full: str, seen: str) -> bool:
    """git cuts a long header at 80 columns: a cut name matches the full name it begins."""
    return full == seen or (len(seen) >= 40 and full.startswith(seen))


def _names(header: str, name: str) -> bool:
    return any(_same(n, name) for n in re.findall(r"def\s+([A-Za-z_]\w*)", header))


def _nested(text: str, name: str) -> bool:
    """`name` is defined inside a function at the head (the outline counts it as part of that function, so
    git's nearest `def` is not the unit either side should name): a less-indented code line above its
    `def`, at any level out, is itself a `def`."""
    lines = text.split("\n")
    at = next((i for i, line in enumerate(lines) if (d := _DEF.match(line)) and _same(d.group(1), name)), None)
    if at is None:
        return False
    indent = len(lines[at]) - len(lines[at].lstrip())
    for line in reversed(lines[:at]):
        if line.strip() and not line.lstrip().startswith(("#", "@")) and len(line) - len(line.lstrip()) < indent:
            code = line.strip()
            if _DEF.match(line):
                return True
            if code.startswith("class "):
                indent = len(line) - len(line.lstrip())  # look further out (a class in a function)
            elif not (code.startswith(")") or code.endswith((",", "("))):
                return False  # module-level code, not a multi-line signature
    return False


def _inside(text: str, name: str, line_no: int) -> bool:
    """The head's line `line_no` lies in the body of `def name` above it (git's driver names the nearest
    `def` above a hunk even when the change is past that function's end, in module-level data)."""
    lines = text.split("\n")
    at = max((i for i, line in enumerate(lines[:line_no]) if (d := _DEF.match(line)) and _same(d.group(1), name)),
             default=None)
    if at is None:
        return False
    indent = len(lines[at]) - len(lines[at].lstrip())
    for line in lines[at + 1:line_no - 1]:
        code = line.strip()
        if code and not code.startswith(("#", ")", "]", "}")) and len(line) - len(line.lstrip()) <= indent:
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description="methods named with and without the head outline")
    parser.add_argument("--repo", type=Path, default=ROOT)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--misses", action="store_true", help="list the hunks' methods not named with the outline")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        python_driver = Path(tmp) / "attributes"
        python_driver.write_text("*.py diff=python\n", encoding="utf-8")
        plain_driver = Path(tmp) / "none"
        plain_driver.write_text("", encoding="utf-8")
        shas = _git(args.repo, "rev-list", "--no-merges", f"--max-count={args.commits}", "HEAD").split()
        hunks = named_before = named_after = files = 0
        for sha in shas:
            paths = [p for p in _git(args.repo, "diff-tree", "--no-commit-id", "-r", "--name-only",
                                      "--diff-filter=M", sha).split() if p.endswith(".py")]
            for path in paths:
                plain = _git(args.repo, "show", "--format=", "-U3", sha, "--", path, attributes=plain_driver)
                truth = _git(args.repo, "show", "--format=", "-U3", sha, "--", path, attributes=python_driver)
                patch = plain[plain.find("@@ "):] if "@@ " in plain else ""
                pairs = list(zip(_hunks(plain), _hunks(truth), strict=False))
                text = decode_source(_git(args.repo, "show", f"{sha}:{path}").encode("utf-8")) or ""
                wanted = []
                for (header, body, start), (where, _, _) in pairs:
                    m = _DEF.match(where)
                    if m is None or _names(header, m.group(1)) or _nested(text, m.group(1)):
                        continue  # not in a function, git's default header names it, or a function in one
                    first = next((i for i, line in enumerate(body) if line[:1] in "+-" and line[:1]), None)
                    # a `def` or `class` line up to the first change: the diff names where it is itself
                    shown = first is None or any(_DEF_OR_CLASS.match(line[1:]) for line in body[:first + 1])
                    at = start + sum(1 for line in body[:first or 0] if line[:1] in (" ", "+", ""))
                    if not shown and _inside(text, m.group(1), at):
                        wanted.append(m.group(1))
                if not wanted:
                    continue
                files += 1
                change = FileChange(path=path, patch=patch)
                outline = python_outline(text)
                before = {d.name for d in file_definitions(change).definitions}
                after = {d.name for d in file_definitions(change.model_copy(update={"outline": outline})).definitions}
                hunks += len(wanted)
                named_before += sum(1 for name in wanted if any(_same(n, name) for n in before))
                named_after += sum(1 for name in wanted if any(_same(n, name) for n in after))
                if args.misses:
                    for name in wanted:
                        if not any(_same(n, name) for n in after):
                            print(f"missed {sha[:8]} {path} {name}; named: {sorted(after)[:6]}")
    if not hunks:
        print("no hunks inside a method whose def line lies outside them", file=sys.stderr)
        return 1
    print(f"{len(shas)} commits of {args.repo.resolve().name}; {files} modified Python files with hunks inside "
          f"a method whose def line the hunk does not show: {hunks} such hunks")
    print(f"method named by the heuristic, diff alone      : {named_before}/{hunks} = {named_before / hunks:.2f}")
    print(f"method named by the heuristic, with the outline: {named_after}/{hunks} = {named_after / hunks:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
