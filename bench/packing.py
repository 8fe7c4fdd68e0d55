"""Packing bench: does the prompt SHOW the code a reader needs, next to the baselines, and at what cost?

    .venv/bin/python bench/packing.py [--fixtures ../shared/fixtures/vllm] [--quick] [--budgets 2910,6910]
                                      [--skip-timing]

1. Code recall per fixture and budget (4k, 8k, 16k, 32k, and the two budgets GitHub Models' limits leave:
   a 4,000-input model's (o4-mini, gpt-5, DeepSeek-R1) and an 8,000-input model's, from
   readworthy.analyze.limits, marked "gm-4k" / "gm-8k"). The names a reader needs come from outside
   the packer: the `key_points` of each PR in labels.jsonl. A target counts as recalled only when the
   prompt's diff section shows, verbatim and under that file's header, an added ("+") line of the PR
   that carries the name (path-only targets: any added line of that file); the file index never
   counts. Targets no prompt could show (only removed, binary, name never on an added line) are
   listed and left out. Exact rules: bench/code_recall.py's docstring.
2. Breadth: the share of the PR's added source lines (code, tests, kernels) shown the same way, and
   whether every changed file is at least named somewhere in the prompt.
   Both measured on each fixture alone and merged with three noise PRs (#48472 license headers on 253
   files, #46799 Cargo.lock, #52672 a generated requirements file), files in path order as git prints
   them. Strategies, same budget, same prompt template, same token counter (readworthy's):
     readworthy       readworthy's pack_prompt
     naive            the diff in git order, cut at the budget
     pr-agent         a port of qodo-ai/pr-agent 0.49.0's diff compression (bench/pr_agent_port.py):
                      main-language groups (vLLM's languages, largest first), lock/binary/extension
                      filters, deletion-only hunks dropped, deleted files named, whole patches largest
                      first within a group while they fit, then names of what did not fit
     pr-agent-nolang  the same without the language grouping: largest files first over the whole PR
3. Tokens used vs budget: every prompt is recounted exactly; a prompt over its budget is reported.
4. Time and peak memory, end to end through `readworthy local --patch F --budget N --show-prompt`
   (subprocesses; peak RSS from wait4): a synthetic 3,000-file / 150,000-line PR vs a one-file PR.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# readworthy, only through these entry points (one place to re-point when modules move)
from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.limits import limits_for
from readworthy.config import build_settings
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.pack.prompt import messages_tokens, pack_prompt
from readworthy.pack.tokens import get_token_counter, truncate_to_tokens
from readworthy.prompts.messages import build_messages

sys.path.insert(0, str(Path(__file__).resolve().parent))
import code_recall as cr  # bench/ siblings
import pr_agent_port as pa

REPO = Path(__file__).resolve().parent.parent
# ../shared beside the checkout, or a level further up from a git worktree (as tests/conftest.py looks)
DEFAULT_FIXTURES = next(
    (d / "shared" / "fixtures" / "vllm" for d in Path(__file__).resolve().parents[1].parents
     if (d / "shared" / "fixtures" / "vllm").is_dir()),
    Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "vllm",
)
# What a whole request leaves for the prompt on GitHub Models: a 4,000-input model, an 8,000-input one
GM_BUDGETS = {limits_for("openai/o4-mini", "pro").budget: "gm-4k", limits_for("openai/gpt-4.1-mini").budget: "gm-8k"}
BUDGETS = tuple(sorted({4_000, 8_000, 16_000, 32_000, *GM_BUDGETS}))
NOISE = (48472, 46799, 52672)
MODES = ("alone", "noise")
PER_MESSAGE_SLACK = 16  # baselines: room for the fences around their two sections
# vllm-project/vllm as GitHub's languages API ranks it (bytes, rounded; only the order matters to pr-agent)
VLLM_LANGUAGES = {"Python": 30_000_000, "Cuda": 2_000_000, "C++": 1_700_000, "Rust": 600_000,
                  "Shell": 250_000, "C": 180_000, "CMake": 110_000, "Dockerfile": 40_000}


@dataclass
class Fixture:
    number: int
    ctx: Any  # readworthy PRContext
    key_points: list[str]
    patches: dict[str, str | None]
    targets: cr.TargetSet


@dataclass
class Case:
    """One fixture in one mode: the context every strategy packs, and their per-case caches."""

    fixture: Fixture
    mode: str
    ctx: Any
    cache: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    prompt: str  # the user message
    tokens: int  # the whole request, counted as readworthy bills it


@dataclass
class Counter:
    """readworthy's token counter, for the model readworthy defaults to."""

    impl: Any

    def count(self, text: str) -> int:
        return int(self.impl.count(text))


def default_counter() -> Counter:
    settings = build_settings({})
    return Counter(get_token_counter(settings.model, settings.openai_base_url))


# --------------------------------------------------------------------------- fixtures


def load_fixtures(root: Path) -> list[Fixture]:
    labels = {}
    for line in (root / "labels.jsonl").read_text().splitlines():
        if line.strip():
            entry = json.loads(line)
            labels[entry["pr"]] = entry.get("key_points") or []
    out = []
    for entry in json.loads((root / "index.json").read_text()):
        number = entry["number"]
        ctx = context_from_source(LocalSource(patch=str(root / str(number) / "diff.patch")))
        patches = {f.path: f.patch for f in ctx.files}
        points = labels.get(number, [])
        out.append(Fixture(number, ctx, points, patches, cr.build_targets(points, patches)))
    return out


def merged(target: Fixture, noise: Sequence[Fixture]) -> Any:
    files = {f.path: f for f in target.ctx.files}
    for other in noise:
        for f in other.ctx.files:
            files.setdefault(f.path, f)
    ordered = sorted(files.values(), key=lambda f: f.path)  # git prints files in path order
    return target.ctx.model_copy(update={
        "files": ordered, "changed_files": len(ordered),
        "additions": sum(f.additions for f in ordered), "deletions": sum(f.deletions for f in ordered),
    })


def cases_of(fixtures: Sequence[Fixture]) -> list[Case]:
    noise = [f for f in fixtures if f.number in NOISE]
    out = []
    for fx in fixtures:
        out.append(Case(fx, "alone", fx.ctx))
        out.append(Case(fx, "noise", merged(fx, [n for n in noise if n.number != fx.number])))
    return out


# --------------------------------------------------------------------------- strategies


def readworthy(case: Case, budget: int, counter: Counter) -> Outcome:
    prompt = pack_prompt(case.ctx, build_settings({"budget": budget}), counter=counter.impl)
    return Outcome(prompt.messages[-1].content, messages_tokens(prompt.messages, counter.impl))


def _in_template(title: str, diff_for_room: Callable[[int], str], budget: int, counter: Counter) -> Outcome:
    """A baseline's diff in readworthy's prompt template, shrunk until the whole request fits."""
    sections = {"pr": f"Title: {title}", "diff": "x"}
    room = budget - messages_tokens(build_messages(sections, "en"), counter.impl) - PER_MESSAGE_SLACK
    for _ in range(20):
        messages = build_messages({**sections, "diff": diff_for_room(max(0, room))}, "en")
        total = messages_tokens(messages, counter.impl)
        if total <= budget:
            return Outcome(messages[-1].content, total)
        room -= total - budget
    return Outcome(messages[-1].content, total)


def naive(case: Case, budget: int, counter: Counter) -> Outcome:
    if "naive" not in case.cache:
        case.cache["naive"] = "\n".join(
            f"diff --git a/{f.previous_path or f.path} b/{f.path}\n{f.patch or '(binary or no patch)'}"
            for f in case.ctx.files
        )
    diff = case.cache["naive"]
    return _in_template(case.ctx.title, lambda room: truncate_to_tokens(counter.impl, diff, room, ""), budget,
                        counter)


def pr_agent_strategy(languages: Mapping[str, int] | None, key: str) -> Callable[[Case, int, Counter], Outcome]:
    def strategy(case: Case, budget: int, counter: Counter) -> Outcome:
        if key not in case.cache:
            files = [pa.DiffFile(f.path, f.status.value, f.patch) for f in case.ctx.files]
            case.cache[key] = pa.prepare(files, languages, counter.count)
        prep = case.cache[key]
        return _in_template(case.ctx.title, lambda room: pa.pack(prep, room, room, counter.count), budget,
                            counter)

    return strategy


STRATEGIES: dict[str, Callable[[Case, int, Counter], Outcome]] = {
    "readworthy": readworthy,
    "naive": naive,
    "pr-agent": pr_agent_strategy(VLLM_LANGUAGES, "pr-agent"),
    "pr-agent-nolang": pr_agent_strategy(None, "pr-agent-nolang"),
}


# --------------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Score:
    recall: float | None  # None: the fixture has no measurable target
    recalled: tuple[bool, ...]
    breadth: float | None  # None: no added source line
    named: tuple[int, int]
    tokens: int


def score(case: Case, outcome: Outcome) -> Score:
    fx = case.fixture
    shown = cr.shown_added_lines(cr.diff_section(outcome.prompt), [f.path for f in case.ctx.files])
    hits = tuple(cr.recalled(fx.targets, shown))
    seen, total = cr.breadth(fx.patches, shown)
    return Score(
        sum(hits) / len(hits) if hits else None,
        hits,
        seen / total if total else None,
        cr.named_files(fx.patches, outcome.prompt),
        outcome.tokens,
    )


Results = dict[tuple[str, str, int, int], Score]  # (strategy, mode, budget, PR) -> Score


def run_all(cases: Sequence[Case], budgets: Sequence[int], counter: Counter) -> Results:
    results: Results = {}
    for case in cases:
        for budget in budgets:
            for name, strategy in STRATEGIES.items():
                results[(name, case.mode, budget, case.fixture.number)] = score(case, strategy(case, budget, counter))
    return results


# --------------------------------------------------------------------------- reports


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.mean(kept) if kept else None


def _b(budget: int) -> str:
    """A budget, and which GitHub Models limit leaves it."""
    return f"{budget} {GM_BUDGETS[budget]}" if budget in GM_BUDGETS else str(budget)


def _f(value: float | None, width: int = 4) -> str:
    return f"{value:.2f}".rjust(width) if value is not None else "-".rjust(width)


def print_targets(fixtures: Sequence[Fixture]) -> None:
    measurable = sum(len(f.targets.measurable) for f in fixtures)
    lost = [(f.number, t.label) for f in fixtures for t in f.targets.unmeasurable]
    print(f"Targets from labels.jsonl key_points: {measurable} measurable in "
          f"{sum(1 for f in fixtures if f.targets.measurable)} PRs; {len(lost)} unmeasurable (no added line "
          "carries them: removed, deleted, binary, or the change is inside a body that never spells the name):")
    for number, label in lost:
        print(f"  {number}  {label}")
    unresolved = [(f.number, w) for f in fixtures for w in f.targets.unresolved]
    if unresolved:
        print("Path-like words that name no changed file (ignored): "
              + ", ".join(f"{n}:{w}" for n, w in unresolved))


def print_recall(results: Results, fixtures: Sequence[Fixture], budgets: Sequence[int]) -> None:
    names = list(STRATEGIES)
    print("\n== 1. Code recall (targets recalled / measurable), alone / in noise")
    header = f"{'PR':>6} {'tgt':>3} {'budget':>6} | " + " | ".join(f"{n:>15}" for n in names)
    print(header)
    print("-" * len(header))
    for fx in fixtures:
        if not fx.targets.measurable:
            continue
        for budget in budgets:
            cells = [f"{_f(results[(n, 'alone', budget, fx.number)].recall)} / "
                     f"{_f(results[(n, 'noise', budget, fx.number)].recall)}".rjust(15) for n in names]
            print(f"{fx.number:>6} {len(fx.targets.measurable):>3} {budget:>6} | " + " | ".join(cells))
    counted = sum(1 for f in fixtures if f.targets.measurable)
    print(f"\nMean code recall over the {counted} PRs with measurable targets: alone / noise / both")
    print(f"{'budget':>12} | " + " | ".join(f"{n:>20}" for n in names))
    for budget in budgets:
        cells = []
        for n in names:
            a = _mean([results[(n, "alone", budget, f.number)].recall for f in fixtures])
            b = _mean([results[(n, "noise", budget, f.number)].recall for f in fixtures])
            both = (a + b) / 2 if a is not None and b is not None else None
            cells.append(f"{_f(a)} / {_f(b)} / {_f(both)}".rjust(20))
        print(f"{_b(budget):>12} | " + " | ".join(cells))
    print("\nGoal (issue 13): readworthy's recall >= the better pr-agent variant at every budget, alone, in noise "
          "and both")
    for budget in budgets:
        cells = []
        for label, modes in (("alone", ("alone",)), ("noise", ("noise",)), ("both", MODES)):
            mean = {n: _mean([results[(n, m, budget, f.number)].recall for f in fixtures for m in modes])
                    for n in names}
            best = max(mean["pr-agent"] or 0.0, mean["pr-agent-nolang"] or 0.0)
            ours = mean["readworthy"] or 0.0
            cells.append(f"{label} {ours:.3f} vs {best:.3f} {'MET' if ours >= best else 'NOT MET'}")
        print(f"  {_b(budget):>12}: " + "; ".join(cells))


def print_breadth(results: Results, fixtures: Sequence[Fixture], budgets: Sequence[int]) -> None:
    names = list(STRATEGIES)
    print("\n== 2. Breadth: share of added source lines shown, alone / in noise; "
          "* = some changed file of the PR not even named (alone, noise)")
    header = f"{'PR':>6} {'lines':>6} {'budget':>6} | " + " | ".join(f"{n:>17}" for n in names)
    print(header)
    print("-" * len(header))
    for fx in fixtures:
        total = cr.breadth(fx.patches, {})[1]
        for budget in budgets:
            cells = []
            for n in names:
                a, b = results[(n, "alone", budget, fx.number)], results[(n, "noise", budget, fx.number)]
                flags = "".join("*" if s.named[0] < s.named[1] else "." for s in (a, b))
                cells.append(f"{_f(a.breadth)} / {_f(b.breadth)} {flags}".rjust(17))
            print(f"{fx.number:>6} {total:>6} {budget:>6} | " + " | ".join(cells))
    print("\nMean breadth (PRs with added source lines) alone / noise; share of PRs with every file named "
          "alone / noise")
    print(f"{'budget':>12} | " + " | ".join(f"{n:>27}" for n in names))
    for budget in budgets:
        cells = []
        for n in names:
            got = {m: [results[(n, m, budget, f.number)] for f in fixtures] for m in MODES}
            share = {m: sum(1 for s in got[m] if s.named[0] == s.named[1]) / len(got[m]) for m in MODES}
            cells.append(f"{_f(_mean([s.breadth for s in got['alone']]))} / "
                         f"{_f(_mean([s.breadth for s in got['noise']]))}  named {share['alone']:.2f} / "
                         f"{share['noise']:.2f}".rjust(27))
        print(f"{_b(budget):>12} | " + " | ".join(cells))


def print_tokens(results: Results, budgets: Sequence[int]) -> None:
    print("\n== 3. Tokens used vs budget (whole request, recounted): mean / max, prompts over budget")
    for budget in budgets:
        cells = []
        for n in STRATEGIES:
            used = [s.tokens for (name, _, b, _), s in results.items() if name == n and b == budget]
            over = sum(1 for t in used if t > budget)
            cells.append(f"{n} {statistics.mean(used):.0f} / {max(used)}" + (f" ({over} OVER)" if over else ""))
        print(f"  {_b(budget):>12}: " + "; ".join(cells))


# --------------------------------------------------------------------------- time and memory


def synthetic_patch(files: int, lines_per_file: int) -> str:
    """A PR of `files` new files: Python modules, tests, docs, YAML."""
    out = []
    for i in range(files):
        kind = i % 10
        if kind < 6:
            path = f"pkg{i % 40}/sub{i % 9}/module_{i}.py"
            body = [f"def function_{i}_{j}(x):" if j % 10 == 0 else f"    x = x * {j} + {i}  # step {j}"
                    for j in range(lines_per_file)]
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


def run_cli(patch: Path, budget: int, counter: Counter) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (MB) and printed-prompt tokens of one `readworthy local --show-prompt` run."""
    exe = Path(sys.executable).with_name("readworthy")
    cmd = [str(exe), "local", "--patch", str(patch), "--budget", str(budget), "--show-prompt"]
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, env={**env, "OPENAI_API_KEY": ""})
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return elapsed, usage.ru_maxrss // 1024, counter.count(text)


def cost_bench(budget: int, repeats: int, counter: Counter) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        small, big = Path(tmp) / "one.patch", Path(tmp) / "huge.patch"
        small.write_text(synthetic_patch(1, 50))
        big.write_text(synthetic_patch(3_000, 50))
        lines = big.read_text().count("\n+") - 3_000
        print(f"\n== 4. End to end `readworthy local --patch F --budget {budget} --show-prompt`, median of {repeats}:")
        rows = {}
        for name, path in (("1 file / 50 lines", small), (f"3,000 files / {lines:,} added lines", big)):
            runs = [run_cli(path, budget, counter) for _ in range(repeats)]
            rows[name] = statistics.median(r[0] for r in runs)
            print(f"  {name:<36} {rows[name]:6.2f} s   peak {max(r[1] for r in runs):4d} MB   printed prompt "
                  f"~{runs[0][2]} tokens (budget {budget}; includes the role headers --show-prompt prints)")
        small_t, big_t = rows.values()
        print(f"  ratio huge/one-file: {big_t / small_t:.2f}x (goal <= 4x); peak goal < 400 MB")
        # in-process stage times for the huge PR (the subprocess numbers include interpreter start-up)
        start = time.perf_counter()
        ctx = context_from_source(LocalSource(patch=str(big), title="synthetic"))
        parsed_at = time.perf_counter()
        prompt = pack_prompt(ctx, build_settings({"budget": budget}), counter=counter.impl)
        packed_at = time.perf_counter()
        cov = prompt.coverage
        heuristic_digest(ctx, cov, "en")  # what a PR gets when no model can be reached
        judged_at = time.perf_counter()
        print(f"  in process, huge PR: parse {parsed_at - start:.2f} s, pack {packed_at - parsed_at:.2f} s, "
              f"heuristic {judged_at - packed_at:.2f} s, "
              f"{prompt.tokens}/{budget} tokens, coverage {cov.files_full} full / {cov.files_partial} partial / "
              f"{cov.files_name_only} name-only")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES)
    parser.add_argument("--quick", action="store_true", help="8k only, one timing run")
    parser.add_argument("--budgets", help="comma-separated budgets instead of the default set, e.g. 2910,6910")
    parser.add_argument("--skip-timing", action="store_true")
    args = parser.parse_args(argv)
    budgets = (8_000,) if args.quick else BUDGETS
    if args.budgets:
        budgets = tuple(int(b) for b in args.budgets.split(","))
    counter = default_counter()
    print(f"token counter: {counter.impl.name} (readworthy's, for its default model); pr-agent port: {pa.VERSION}")
    if not (args.fixtures / "index.json").is_file():
        print(f"fixtures not found at {args.fixtures}; recall and breadth parts skipped")
    else:
        fixtures = load_fixtures(args.fixtures)
        print_targets(fixtures)
        started = time.perf_counter()
        results = run_all(cases_of(fixtures), budgets, counter)
        print_recall(results, fixtures, budgets)
        print_breadth(results, fixtures, budgets)
        print_tokens(results, budgets)
        print(f"\n({len(results)} prompts packed and scored in {time.perf_counter() - started:.0f} s)")
    if not args.skip_timing:
        cost_bench(8_000, 1 if args.quick else 3, counter)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
