"""Bench: every step that reads a stranger's text, fed adversarial text, timed against benign text.

    .venv/bin/python bench/adversarial_text.py [--size 256k] [--timeout 10] [--only STEP]

Each step (secret redaction, prose cleaning, mention unlinking, issue links, diff parsing, hunks,
definitions, a head file's outline, noise, steering, safe Markdown, and the whole local review with no
model) gets the same inputs: the issue-23 case ("İzmir" and `1.2-` repeated), long single-line runs of
the characters its regexes are ambiguous about, a 1 MB-class single line of code, deep Markdown and HTML nesting, and
a benign input of the same size (prose, or a patch of ordinary code). Each (step, input) runs in a
forked child cut off at --timeout seconds, so a step that never finishes shows as "> 10 s" rather
than stalling the bench. Printed: per step the slowest input, its time and how many times the benign
input's time it took; then every input slower than 20x a like benign run (the step's own, or the whole
material step's where that is larger: the cheapest steps take too little time to compare with).

bench/robustness_inputs.py (and so bench/robustness.py) prints the summary line at 64 KB beside its rows.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from readworthy.analyze.heuristic import authors, defaults, heuristic_digest, shapes
from readworthy.analyze.heuristic.definitions import file_definitions
from readworthy.config import terminal_settings
from readworthy.gather.diffparse import parse_patch
from readworthy.gather.links import find_issue_refs
from readworthy.gather.noise import noise_kind
from readworthy.gather.outline import needs_outline, python_outline
from readworthy.memory.record import steering
from readworthy.models import FileChange, FileStatus, PRContext
from readworthy.pack.classify import defined_names
from readworthy.pack.hunks import file_hunks
from readworthy.pack.material import prepare_material
from readworthy.pack.prompt import pack_prompt
from readworthy.pack.redact import redact_secrets
from readworthy.pack.sanitize import clean_prose
from readworthy.render.safe_markdown import inline

WORDS = ("the cache keeps one entry per model revision so two revisions never share a tokenizer; "
         "see #812 and the benchmark below (p50 412 ms -> 138 ms). `BlockPool.insert` now calls "
         "`LastAccessEvictor.touch` on a hit. Fixes #851. cc @mira-chen").split(" ")


def benign_prose(size: int) -> str:
    rng = random.Random(23)
    out: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 18)))
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)[:size]


def benign_code_lines(size: int) -> str:
    rng = random.Random(23)
    out: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        line = rng.choice((f"def helper_{n}(x, y=None):", f"    value_{n} = compute(x, {n}) + y",
                           f"class Thing{n}(Base):", f"    return self.cache.get(key_{n}, default)",
                           f"    # keep entry {n} until the next eviction", ""))
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)[:size]


def run(token: str, size: int, prefix: str = "", suffix: str = "\x01") -> str:
    """`token` repeated to `size` characters on one line, after `prefix` (what makes a regex start)."""
    return prefix + token * max(1, (size - len(prefix)) // len(token)) + suffix


def nested(opening: str, closing: str, size: int, middle: str = "x") -> str:
    depth = max(1, size // (len(opening) + len(closing)))
    return opening * depth + middle + closing * depth


# name -> (text of about `size` characters); "benign" is the yardstick.
INPUTS: dict[str, Callable[[int], str]] = {
    "benign prose": benign_prose,
    "benign code lines": benign_code_lines,
    "İzmir + `1.2-` run (issue 23)": lambda n: "Deployed to İzmir.\n" + run("1.2-", n),
    "İzmir + key + `1.2-` run": lambda n: "İzmir api_key " + run("1.2-", n),
    "key + `a.` run": lambda n: run("a.", n, "secret_token="),
    "`sk-` run": lambda n: run("sk-", n),
    "`eyJ-` run": lambda n: run("eyJ-", n),
    "`ya29.` run": lambda n: run("ya29.-", n),
    "`-----BEGIN PRIVATE KEY-----` run": lambda n: run("-----BEGIN PRIVATE KEY-----\n", n),
    "`-----BEGIN A PRIVATE KEY-----` labels": lambda n: "".join(
        f"-----BEGIN {i} PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n" for i in range(n // 64)),
    "spaces": lambda n: run(" ", n, "x"),
    "spaces after `fix`": lambda n: run(" ", n, "fix"),
    "spaces after a link": lambda n: run(" ", n, "[a]("),
    "spaces after a reference definition": lambda n: run(" ", n, "[a]: b"),
    "tabs after `default=`": lambda n: run("\t", n, "x = y(default= 1"),
    "dots": lambda n: run(".", n, "x"),
    "dashes": lambda n: run("-", n, "x"),
    "`a.` run": lambda n: run("a.", n),
    "`a/` run": lambda n: run("a/", n),
    "`a-` run": lambda n: run("a-", n),
    "`<` run": lambda n: run("<", n),
    "`<svg ` run": lambda n: run("<svg ", n),
    "`<img ` run": lambda n: run("<img ", n),
    "`<details ` run": lambda n: run("<details ", n),
    "`<!--` run": lambda n: run("<!--", n),
    "`<!-- readworthy:` + `</details>` run": lambda n: run("<!-- readworthy:</details>", n),
    "`![` run": lambda n: run("![", n),
    "`![a](` run": lambda n: run("![a](", n),
    "`[a](b \"` run": lambda n: run('[a](b "', n),
    "`[` run": lambda n: run("[", n),
    "backticks": lambda n: run("`", n),
    "`@` run": lambda n: run("@", n),
    "`#1 ` run": lambda n: run("#1 ", n),
    "`(` run": lambda n: run("(", n, "+void f"),
    "`(` run, then `;`": lambda n: run("(", n, "+void f", ";"),
    "`Binary files` with ` and ` run": lambda n: "Binary files a" + run(" and", n, "", " x"),
    "spaces before `;` after `if`": lambda n: run(" ", n, "if", ";"),
    "tabs after `default=`, then `x`": lambda n: run("\t", n, "x = y(default= 1", "x"),
    "`uses: ` and an `a@` run": lambda n: run("a@", n, "uses: ", " x"),
    "`version=` run in a toml table": lambda n: run("version=", n, "x = {", "x"),
    "`x: ` and spaces": lambda n: run(" ", n, "x: a", "b"),
    "`( ` run": lambda n: run("( ", n, "+"),
    "`İ` run": lambda n: run("İ", n),
    "1 MB-class single line of code": lambda n: "+" + " ".join(
        f"x{i} = f(x{i - 1}, key_{i});" for i in range(n // 24)),
    "deep `>` quotes": lambda n: run("> ", n),
    "deep `- ` lists": lambda n: "\n".join("  " * i + "- item" for i in range(int((n / 2) ** 0.5))),
    "deep `**` emphasis": lambda n: nested("**", "**", n),
    "deep `[` links": lambda n: nested("[", "](x)", n),
    "deep `<div>`": lambda n: nested("<div>", "</div>", n),
    "deep `<div hidden>`": lambda n: nested("<div hidden>", "</div>", n),
    "deep `<details>`": lambda n: nested("<details><summary>s</summary>", "</details>", n),
    "unclosed `<div hidden>` run": lambda n: run('<div hidden class="', n),
}


def as_patch(text: str, path: str = "src/cache.py") -> str:
    """The text as the added lines of one file's patch (what a PR's diff would carry)."""
    lines = [line if line.startswith("+") else "+" + line for line in text.split("\n")]
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join(lines)


def as_git_diff(text: str) -> str:
    return f"diff --git a/src/cache.py b/src/cache.py\n--- a/src/cache.py\n+++ b/src/cache.py\n{as_patch(text)}\n"


def _review(text: str) -> None:
    """What `readworthy local` does with no model: pack, then the heuristic."""
    files = [FileChange(path="src/cache.cpp", status=FileStatus.MODIFIED, additions=1, patch=as_patch(text))]
    ctx = PRContext(title="Cache", body=text, files=files, changed_files=1)
    settings = terminal_settings({"github_models": False})
    prompt = pack_prompt(ctx, settings)
    heuristic_digest(prompt.material, prompt.coverage, "en")


def _line_detectors(text: str) -> None:
    """The heuristic's per-line detectors (shapes.py, the authors' `name: text` labels) on every line,
    as added and as removed lines."""
    lines = text.split("\n")
    shapes.is_version_change(lines, lines)
    shapes.logic_lines(lines, lines)
    defaults.changed_defaults(lines, lines)
    shapes.guard_lines(lines)
    shapes.is_import_or_path_edit(lines, lines)
    shapes.moved_lines(lines, lines)
    shapes.build_stages(lines, lines)
    shapes.security_words(text, [text], lines)
    for line in lines:
        authors._LABEL.match(authors.clean(line))  # what description_passages asks of each sentence


def _outlined(text: str) -> None:
    """A head file's outline (gather/outline.py), then the definitions of a patch of it read with it."""
    change = FileChange(path="src/cache.py", additions=1, patch=as_patch(text), outline=python_outline(text))
    needs_outline(change)
    file_definitions(change)


STEPS: dict[str, Callable[[str], object]] = {
    "redact_secrets (prose)": redact_secrets,
    "redact_secrets (patch)": lambda t: redact_secrets(as_patch(t)),
    "clean_prose": clean_prose,
    "material (clean + unlink + redact)": lambda t: prepare_material(PRContext(title="t", body=t)),
    "find_issue_refs": lambda t: find_issue_refs(t, "o/r"),
    "parse_patch": lambda t: (parse_patch(as_git_diff(t)), parse_patch(f"diff --git a/x b/x\n{t}\n")),
    "file_hunks (.py)": lambda t: file_hunks(as_patch(t), "src/cache.py"),
    "file_hunks (.cpp)": lambda t: file_hunks(as_patch(t), "src/cache.cpp"),
    "defined_names (any language)": lambda t: defined_names(as_patch(t), "src/cache"),
    "defined_names (.cpp)": lambda t: defined_names(as_patch(t), "src/cache.cpp"),
    "outline + definitions (.py)": _outlined,
    "heuristic line detectors": _line_detectors,
    "noise_kind": lambda t: noise_kind("someone", t, author_is_bot=False),
    "steering": steering,
    "safe_markdown.inline": lambda t: inline(t, 900),
    "local review, no model": _review,
}


MATERIAL = "material (clean + unlink + redact)"
BOUND_FACTOR = 20.0  # tests/unit/test_text_linear_time.py holds every step to this


@dataclass
class Timing:
    step: str
    case: str
    seconds: float | None  # None: cut off at the timeout


def _child(step: str, case: str, size: int, conn: object) -> None:
    text = INPUTS[case](size)
    start = time.perf_counter()
    STEPS[step](text)
    conn.send(time.perf_counter() - start)  # type: ignore[attr-defined]


def time_case(step: str, case: str, size: int, timeout: float) -> float | None:
    """Seconds `step` takes on `case` at `size` characters, in a forked child; None past `timeout`."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(step, case, size, child))
    proc.start()
    child.close()
    seconds = parent.recv() if parent.poll(timeout) else None
    if proc.is_alive():
        proc.kill()
    proc.join()
    return seconds


def measure(steps: list[str], size: int, timeout: float) -> list[Timing]:
    for step in steps:  # warm up here (the tokenizer loads once), so the forked children time only the step
        STEPS[step](benign_prose(2_000))
    return [Timing(step, case, time_case(step, case, size, timeout)) for step in steps for case in INPUTS]


def _fmt(seconds: float | None, timeout: float) -> str:
    return f"> {timeout:.0f} s" if seconds is None else f"{seconds:.3f} s"


def _benign(timings: list[Timing], step: str) -> float:
    return max(t.seconds or 0.0 for t in timings if t.step == step and t.case.startswith("benign"))


def yardstick(timings: list[Timing], step: str) -> float:
    """A like run: the step on benign text of the same size, or the whole material step when that is
    larger (the cheapest steps take too little time to compare with)."""
    material = [t for t in timings if t.step == MATERIAL]
    return max(_benign(timings, step), _benign(material, MATERIAL) if material else 0.0, 1e-4)


def over_bound(timings: list[Timing]) -> list[Timing]:
    """The (step, input) pairs cut off or slower than BOUND_FACTOR x their yardstick."""
    return [t for t in timings
            if t.seconds is None or t.seconds > BOUND_FACTOR * yardstick(timings, t.step)]


def slowest_rows(timings: list[Timing], timeout: float) -> list[tuple[str, str]]:
    """(step, 'slowest: CASE, T (Nx benign)') for each step."""
    rows = []
    for step in dict.fromkeys(t.step for t in timings):
        mine = [t for t in timings if t.step == step]
        worst = max(mine, key=lambda t: float("inf") if t.seconds is None else t.seconds)
        base = _benign(timings, step)
        ratio = "never finished" if worst.seconds is None else f"{worst.seconds / max(base, 1e-4):.1f}x benign"
        rows.append((step, f"slowest {_fmt(worst.seconds, timeout)} ({ratio}, benign {base:.3f} s) on "
                           f"{worst.case}"))
    return rows


def summary(timings: list[Timing], timeout: float) -> str:
    """One line: the slowest (step, input) of all, and how many went over the bound."""
    worst = max(timings, key=lambda t: float("inf") if t.seconds is None else t.seconds)
    return (f"slowest {_fmt(worst.seconds, timeout)}: {worst.step} on {worst.case}; "
            f"{len(over_bound(timings))} of {len(timings)} (step, input) pairs over {BOUND_FACTOR:.0f}x a like "
            "benign run")


def parse_size(text: str) -> int:
    text = text.lower().strip()
    scale = {"k": 1024, "m": 1024 * 1024}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="256k", help="characters per input (default 256k; 1m for a 1 MB line)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds before a step is cut off")
    parser.add_argument("--only", action="append", help="run only this step (repeatable)")
    args = parser.parse_args(argv)
    size = parse_size(args.size)
    steps = args.only or list(STEPS)
    started = time.monotonic()
    timings = measure(steps, size, args.timeout)
    print(f"readworthy adversarial text ({size:,} characters per input, cut off at {args.timeout:.0f} s)")
    width = max(len(s) for s in steps)
    for step, text in slowest_rows(timings, args.timeout):
        print(f"  {step:<{width}} : {text}")
    print(f"  over {BOUND_FACTOR:.0f}x a like benign run:")
    for t in over_bound(timings):
        print(f"    {t.step} / {t.case}: {_fmt(t.seconds, args.timeout)}")
    print(f"  {summary(timings, args.timeout)}")
    print(f"  wall time: {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
