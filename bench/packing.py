"""Packing bench: does the packer keep what a reader needs, next to the baselines, and at what cost?

    .venv/bin/python bench/packing.py [--fixtures ../shared/fixtures/vllm] [--quick]

1. Recall per fixture and budget (4k, 8k, 16k, 32k). "What a reader needs" = the names defined in
   added lines of the fixture's source/test/kernel files (classify.defined_names) plus those files'
   paths; recall = the share found (whole-word) in the packed user message. Measured on the fixture
   alone and merged with three noise PRs (#48472 license headers on 253 files, #46799 Cargo.lock,
   #52672 a generated requirements file), files in path order as git prints them.
   Three strategies, same budget, same prompt template:
     ours      readworthy.pack.prompt.pack_prompt
     naive     the diff in git order, cut at the budget
     pr-agent  largest-first (qodo-ai/pr-agent's compressed diff): drop deleted files and
               deletion-only hunks, add whole file patches largest first while they fit, then
               list the files that did not fit by name while room lasts
2. Time and peak memory, end to end through `readworthy local --patch F --budget N --show-prompt`
   (subprocesses; peak RSS from wait4): a synthetic 3,000-file / 150,000-line PR vs a one-file PR.
3. Tokens used vs budget (every prompt is recounted exactly; a prompt over budget is reported).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from readworthy.config import Settings
from readworthy.gather.diffparse import parse_patch_bytes
from readworthy.models import Commit, FileChange, FileStatus, PRContext
from readworthy.pack.classify import Classifier, FileKind, defined_names
from readworthy.pack.prompt import messages_tokens, pack_prompt
from readworthy.pack.tokens import TokenCounter, get_token_counter, truncate_to_tokens
from readworthy.prompts.messages import build_messages

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FIXTURES = REPO.parent / "shared" / "fixtures" / "vllm"
BUDGETS = (4_000, 8_000, 16_000, 32_000)
NOISE = (48472, 46799, 52672)
NEEDED_KINDS = {FileKind.SOURCE, FileKind.TEST, FileKind.KERNEL}
GOAL_MIN_8K, GOAL_MEAN_8K = 0.9, 0.95
PER_MESSAGE_SLACK = 16  # baselines: room for the fences around their two sections


@dataclass(frozen=True)
class Fixture:
    number: int
    title: str
    files: list[FileChange]
    commits: list[Commit]


def load_fixture(root: Path, number: int) -> Fixture:
    meta = json.loads((root / str(number) / "meta.json").read_text())
    parsed = parse_patch_bytes((root / str(number) / "diff.patch").read_bytes())
    return Fixture(number, meta.get("commit_subject") or meta["title"], parsed.files, parsed.commits)


def needs_of(fixture: Fixture) -> set[str]:
    classifier = Classifier()
    needs: set[str] = set()
    for change in fixture.files:
        if classifier.kind_of(change) in NEEDED_KINDS and change.status != FileStatus.REMOVED:
            needs.add(change.path)
            needs.update(defined_names(change.patch, change.path))
    return needs


def recall(needs: set[str], text: str) -> float:
    found = sum(1 for name in needs if re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", text))
    return found / len(needs)


def context(target: Fixture, noise: Sequence[Fixture]) -> PRContext:
    files = {f.path: f for f in target.files}
    for other in noise:
        for f in other.files:
            files.setdefault(f.path, f)
    ordered = sorted(files.values(), key=lambda f: f.path)  # git prints files in path order
    return PRContext(title=target.title, files=ordered, changed_files=len(ordered), commits=target.commits)


# --------------------------------------------------------------------------- strategies


def ours(ctx: PRContext, budget: int, counter: TokenCounter) -> str:
    prompt = pack_prompt(ctx, Settings(budget=budget), counter=counter)
    return _checked(prompt.messages, budget, counter)


def _file_block(change: FileChange, patch: str | None) -> str:
    return f"diff --git a/{change.previous_path or change.path} b/{change.path}\n{patch or '(binary or no patch)'}"


def _baseline_messages(ctx: PRContext, diff: str, budget: int, counter: TokenCounter) -> str:
    sections = {"pr": f"Title: {ctx.title}", "diff": "x"}
    room = budget - messages_tokens(build_messages(sections, "en"), counter) - PER_MESSAGE_SLACK
    while True:  # the cut is counted on its own; shave until the assembled messages fit too
        sections["diff"] = truncate_to_tokens(counter, diff, max(0, room), "")
        messages = build_messages(sections, "en")
        over = messages_tokens(messages, counter) - budget
        if over <= 0:
            return _checked(messages, budget, counter)
        room -= over


def naive(ctx: PRContext, budget: int, counter: TokenCounter) -> str:
    diff = "\n".join(_file_block(f, f.patch) for f in ctx.files)
    return _baseline_messages(ctx, diff, budget, counter)


_DELETION_ONLY_HUNK = re.compile(r"^@@[^\n]*\n(?:-[^\n]*(?:\n|$)|\\[^\n]*(?:\n|$))+", re.MULTILINE)


def pr_agent(ctx: PRContext, budget: int, counter: TokenCounter) -> str:
    sections = {"pr": f"Title: {ctx.title}", "diff": "x"}
    room = budget - messages_tokens(build_messages(sections, "en"), counter) - PER_MESSAGE_SLACK
    kept = [f for f in ctx.files if f.status != FileStatus.REMOVED]
    blocks = []
    for change in kept:
        patch = _DELETION_ONLY_HUNK.sub("", (change.patch or "") + "\n").strip("\n") if change.patch else None
        block = _file_block(change, patch)
        blocks.append((counter.count(block), change.path, block))
    blocks.sort(key=lambda b: -b[0])  # largest first
    out, used, skipped = [], 0, []
    for tokens, path, block in blocks:
        if used + tokens + 1 <= room:
            out.append(block)
            used += tokens + 1
        else:
            skipped.append(path)
    if skipped:
        out.append("Additional modified files (insufficient token budget to process):\n" + "\n".join(skipped))
    deleted = [f.path for f in ctx.files if f.status == FileStatus.REMOVED]
    if deleted:
        out.append("Deleted files:\n" + "\n".join(deleted))
    return _baseline_messages(ctx, "\n".join(out), budget, counter)


def _checked(messages: list, budget: int, counter: TokenCounter) -> str:  # type: ignore[type-arg]
    tokens = messages_tokens(messages, counter)
    if tokens > budget:
        print(f"!! prompt of {tokens} tokens exceeds the budget of {budget}", file=sys.stderr)
    return messages[-1].content + f"\n\x00{tokens}"


def tokens_of(result: str) -> int:
    return int(result.rsplit("\x00", 1)[1])


STRATEGIES: dict[str, Callable[[PRContext, int, TokenCounter], str]] = {
    "ours": ours, "naive": naive, "pr-agent": pr_agent,
}


# --------------------------------------------------------------------------- recall table


def recall_table(root: Path, budgets: Sequence[int]) -> dict[tuple[str, str, int], list[float]]:
    counter = get_token_counter("gpt-4.1-mini")
    numbers = [e["number"] for e in json.loads((root / "index.json").read_text())]
    fixtures = {n: load_fixture(root, n) for n in numbers}
    noise = [fixtures[n] for n in NOISE]
    results: dict[tuple[str, str, int], list[float]] = {}
    header = f"{'PR':>6} {'needs':>5} {'budget':>6} | " + " | ".join(
        f"{name:>8} alone/noisy" for name in STRATEGIES
    ) + " | ours tokens noisy/budget"
    print(header)
    print("-" * len(header))
    for number in numbers:
        target = fixtures[number]
        needs = needs_of(target)
        if not needs:
            print(f"{number:>6} {0:>5}   (no source/test/kernel additions: nothing to recall)")
            continue
        alone = context(target, [])
        noisy = context(target, [f for f in noise if f.number != number])
        for budget in budgets:
            cells = []
            used = 0
            for name, strategy in STRATEGIES.items():
                a = strategy(alone, budget, counter)
                n = strategy(noisy, budget, counter)
                ra, rn = recall(needs, a), recall(needs, n)
                results.setdefault((name, "alone", budget), []).append(ra)
                results.setdefault((name, "noisy", budget), []).append(rn)
                cells.append(f"{ra:>8.2f} / {rn:<4.2f}")
                if name == "ours":
                    used = tokens_of(n)
            print(f"{number:>6} {len(needs):>5} {budget:>6} | " + " | ".join(cells) + f" | {used:>6}/{budget}")
    return results


def summary(results: dict[tuple[str, str, int], list[float]], budgets: Sequence[int]) -> None:
    print("\nMean recall (min) per budget")
    print(f"{'budget':>6} | " + " | ".join(f"{n:>8} alone       noisy      " for n in STRATEGIES))
    for budget in budgets:
        cells = []
        for name in STRATEGIES:
            a, n = results[(name, "alone", budget)], results[(name, "noisy", budget)]
            cells.append(f"{statistics.mean(a):.3f} ({min(a):.2f})  {statistics.mean(n):.3f} ({min(n):.2f})")
        print(f"{budget:>6} | " + " | ".join(cells))
    if 8_000 in budgets:
        noisy8 = results[("ours", "noisy", 8_000)]
        ok = min(noisy8) >= GOAL_MIN_8K and statistics.mean(noisy8) >= GOAL_MEAN_8K
        print(
            f"\nGoal at 8k on noisy composites: min >= {GOAL_MIN_8K}, mean >= {GOAL_MEAN_8K}: "
            f"min {min(noisy8):.3f}, mean {statistics.mean(noisy8):.3f} -> {'MET' if ok else 'NOT MET'}"
        )


# --------------------------------------------------------------------------- time and memory


def synthetic_patch(files: int, lines_per_file: int) -> str:
    """A PR of `files` new files: Python modules, tests, docs, YAML, one lock file."""
    out = []
    for i in range(files):
        kind = i % 10
        if kind < 6:
            path = f"pkg{i % 40}/sub{i % 9}/module_{i}.py"
            body = []
            for j in range(lines_per_file):
                body.append(f"def function_{i}_{j}(x):" if j % 10 == 0 else f"    x = x * {j} + {i}  # step {j}")
        elif kind < 8:
            path = f"tests/pkg{i % 40}/test_module_{i}.py"
            body = [f"def test_case_{i}_{j}():" if j % 5 == 0 else f"    assert {j} + {i} == {i + j}"
                    for j in range(lines_per_file)]
        elif kind == 8:
            path = f"docs/section{i % 20}/page_{i}.md"
            body = [f"Paragraph {j} of page {i}: prose about the change." for j in range(lines_per_file)]
        else:
            path = f"configs/c{i % 30}/conf_{i}.yaml"
            body = [f"key_{j}: value_{i}_{j}" for j in range(lines_per_file)]
        out.append(
            f"diff --git a/{path} b/{path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1,{lines_per_file} @@\n" + "\n".join("+" + line for line in body)
        )
    return "\n".join(out) + "\n"


def run_cli(patch: Path, budget: int) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (MB) and prompt tokens of one `readworthy local --show-prompt` run."""
    exe = Path(sys.executable).with_name("readworthy")
    cmd = [str(exe), "local", "--patch", str(patch), "--budget", str(budget), "--show-prompt"]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env={**os.environ, "OPENAI_API_KEY": ""})
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    counter = get_token_counter("gpt-4.1-mini")
    tokens = counter.count(text)
    return elapsed, usage.ru_maxrss // 1024, tokens


def cost_bench(budget: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "one.patch", Path(tmp) / "huge.patch"
        small.write_text(synthetic_patch(1, 50))
        big.write_text(synthetic_patch(3_000, 50))
        lines = big.read_text().count("\n+") - 3_000
        print(f"\nEnd to end `readworthy local --patch F --budget {budget} --show-prompt`, median of {repeats}:")
        rows = {}
        for name, path in (("1 file / 50 lines", small), (f"3,000 files / {lines:,} added lines", big)):
            runs = [run_cli(path, budget) for _ in range(repeats)]
            t = statistics.median(r[0] for r in runs)
            mem = max(r[1] for r in runs)
            rows[name] = t
            print(f"  {name:<36} {t:6.2f} s   peak {mem:4d} MB   printed prompt ~{runs[0][2]} tokens"
                  f" (budget {budget}; includes the role headers --show-prompt prints)")
        small_t, big_t = rows.values()
        print(f"  ratio huge/one-file: {big_t / small_t:.2f}x (goal <= 4x); peak goal < 400 MB")
        # in-process stage times for the huge PR (the subprocess numbers include interpreter start-up)
        counter = get_token_counter("gpt-4.1-mini")
        start = time.perf_counter()
        parsed = parse_patch_bytes(big.read_bytes())
        parsed_at = time.perf_counter()
        ctx = PRContext(title="synthetic", files=parsed.files, changed_files=len(parsed.files))
        prompt = pack_prompt(ctx, Settings(budget=budget), counter=counter)
        packed_at = time.perf_counter()
        print(f"  in process, huge PR: parse {parsed_at - start:.2f} s, pack {packed_at - parsed_at:.2f} s, "
              f"{prompt.tokens}/{budget} tokens, coverage {prompt.coverage.files_full} full / "
              f"{prompt.coverage.files_partial} partial / {prompt.coverage.files_name_only} name-only")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--quick", action="store_true", help="8k only, one timing run")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args(argv)
    budgets = (8_000,) if args.quick else BUDGETS
    if not (args.fixtures / "index.json").is_file():
        print(f"fixtures not found at {args.fixtures}; recall part skipped")
    else:
        summary(recall_table(args.fixtures, budgets), budgets)
    if not args.skip_timing:
        cost_bench(8_000, 1 if args.quick else 3)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
