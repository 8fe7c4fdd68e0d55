"""Verdict agreement with the labelled vLLM PRs: the heuristic, and replayed model answers.

    .venv/bin/python bench/verdicts.py [--fixtures DIR ...] [--answers FILE ...] [--no-heuristic] [--folds 10]
    .venv/bin/python bench/verdicts.py --memory [--seed 17] [--splits 200]

The labelled PRs are both development sets, ../shared/fixtures/vllm and ../shared/fixtures/vllm2 (62 PRs);
--fixtures (repeatable) names others.

For each source of verdicts: agreement with labels.jsonl (share of PRs whose verdict equals the
label, also on the high-confidence labels alone), a 3x3 confusion matrix (rows: label, columns:
verdict given), the share of each verdict next to the labels' shares, and every disagreement with
the label's reason and the source's reason.

Sources:
  heuristic     readworthy's heuristic on each fixture's diff, built the way `readworthy local --patch`
                builds it (no description, discussion or issues: the fixtures have none). Beside it, the
                heuristic out of sample (bench/verdict_cv.py): cross-validated over the labelled PRs (the
                reading-value model refitted without each fold) and on a held-out split fixed before the
                rules were changed, each with its confusion matrix, verdict shares and skip precision.
  --answers F   recorded answers, so a person with a model key records them once and re-scores them
                for free: JSON Lines (or a JSON array) of {"pr": N, "verdict": "...", "reason": "..."}; or the output of
                `readworthy local --patch <fixture>/diff.patch --format json`, one after another in a
                file (pretty-printed objects are fine); or a directory of such files named <pr>.json.
                The PR number is taken from "pr", else a non-zero "number", else the "(#N)" at the end
                of "title" or the "/pull/N" of "url", else a directory file's name.
Answers for PRs that have no label, and labels with no answer, are counted and named, not scored.

Recording model answers once (costs one model call per fixture), then re-scoring them for free:

    export OPENAI_API_KEY=...            # and OPENAI_BASE_URL for another OpenAI-compatible endpoint
    F=../shared/fixtures/vllm; mkdir -p answers
    for d in "$F"/[0-9]*/; do n=$(basename "$d")
      title=$(.venv/bin/python -c 'import json,sys; print(json.load(open(sys.argv[1]))["title"])' "$d/meta.json")
      .venv/bin/readworthy local --patch "$d/diff.patch" --title "$title" --format json > "answers/$n.json"
    done
    .venv/bin/python bench/verdicts.py --answers answers/      # re-run this as often as you like

Add `--model M` (and `--budget N`) to record another model or budget into another directory, and pass
several `--answers` to compare them. Record again whenever PROMPT_VERSION changes: the answers were
made with the prompt of their day. A run without a usable key writes heuristic answers (their
"analyzer" says so), and the report names them.

--memory: does the team's taste memory help the heuristic on PRs it has not seen? (bench/taste_memory.py)
  The labelled PRs are split in two halves with a seeded shuffle (--seed, stated in the output). The
  training half becomes the memory: for each of its PRs, the heuristic's own verdict as the analysed one
  and the label as the team's (a correction where they differ, a confirmation where they agree), with the
  profile readworthy keeps for a correction. On the held-out half the heuristic is scored three ways:
  without memory, with it, and with a shuffled control (the team verdicts permuted among the training
  PRs, so that the memory holds as many verdicts of each kind, attached to the wrong changes). Then the
  same over --splits seeded splits (mean agreement, and on how many splits the memory helped or hurt),
  with an ablation: a plain nearest-neighbour vote that ignores the analysed verdict. The labels are
  the default taste the heuristic was calibrated on, so a memory has little to teach there; last, the
  same three figures for teams whose taste differs (every PR of one kind of change read one way,
  bench/taste_memory.py's shifted_teams), which is what a taste memory is for.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# readworthy, only through these entry points (one place to re-point when modules move)
from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage

# ../shared beside the checkout, or a level further up from a git worktree (as tests/conftest.py looks)
_SHARED = next((d / "shared" / "fixtures" for d in Path(__file__).resolve().parents[1].parents
                if (d / "shared" / "fixtures" / "vllm").is_dir()),
               Path(__file__).resolve().parents[1].parent / "shared" / "fixtures")
DEFAULT_FIXTURES = [_SHARED / "vllm", _SHARED / "vllm2"]
VERDICTS = ("deep-read", "skim", "skip")


@dataclass(frozen=True)
class Verdict:
    """A verdict with its one-line reason: a label, or an answer to score."""

    verdict: str
    reason: str = ""
    confidence: str = ""
    analyzer: str = ""  # of a recorded `readworthy --format json` answer: "model" or "heuristic"


@dataclass
class Agreement:
    name: str
    scored: list[int]
    agree: list[int]
    matrix: dict[tuple[str, str], int]  # (label, given) -> count
    shares: dict[str, float]  # of the verdicts given, on the scored PRs
    label_shares: dict[str, float]
    high_confidence: tuple[int, int]  # (agreeing, scored) among labels of confidence "high"
    disagreements: list[tuple[int, Verdict, Verdict]] = field(default_factory=list)
    unlabelled: list[int] = field(default_factory=list)  # answered, but no label
    unanswered: list[int] = field(default_factory=list)  # labelled, but no answer
    answers: dict[int, Verdict] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return len(self.agree) / len(self.scored) if self.scored else 0.0


# --------------------------------------------------------------------------- labels and answers


def load_labels(path: Path) -> dict[int, Verdict]:
    labels = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            labels[int(entry["pr"])] = Verdict(entry["verdict"], entry.get("reason", ""), entry.get("confidence", ""))
    return labels


def load_all_labels(roots: Path | Sequence[Path]) -> dict[int, Verdict]:
    """The labels of every fixture folder that has them (PR numbers are unique across them)."""
    labels: dict[int, Verdict] = {}
    for root in [roots] if isinstance(roots, Path) else roots:
        if (root / "labels.jsonl").is_file():
            labels.update(load_labels(root / "labels.jsonl"))
    return labels


def patch_path(roots: Path | Sequence[Path], number: int) -> Path | None:
    """The fixture's diff, in the first folder that has it."""
    for root in [roots] if isinstance(roots, Path) else roots:
        if (root / str(number) / "diff.patch").is_file():
            return root / str(number) / "diff.patch"
    return None


def heuristic_answers(fixtures: Path | Sequence[Path], numbers: Sequence[int], language: str = "en"
                      ) -> dict[int, Verdict]:
    """The heuristic's verdict for each fixture, from its diff as `readworthy local --patch` reads it."""
    out = {}
    for number in numbers:
        patch = patch_path(fixtures, number)
        if patch is None:
            continue
        ctx = context_from_source(LocalSource(patch=str(patch)))
        digest = heuristic_digest(ctx, Coverage(), language)
        out[number] = Verdict(digest.verdict.value, digest.reason)
    return out


def _json_objects(text: str) -> Iterator[dict[str, object]]:
    """Every top-level JSON object in `text`: JSON Lines and concatenated pretty-printed objects alike."""
    decoder = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        obj, i = decoder.raw_decode(text, i)
        for item in obj if isinstance(obj, list) else [obj]:  # a JSON array of answers is fine too
            if not isinstance(item, dict):
                raise TypeError(f"expected a JSON object, got {type(item).__name__}")
            yield item


def _number_of(record: Mapping[str, object], fallback: str = "") -> int | None:
    for key in ("pr", "number"):
        value = record.get(key)
        if isinstance(value, int) and value > 0 or isinstance(value, str) and value.isdigit():
            return int(value)
    title = record.get("title")
    if isinstance(title, str) and (m := re.search(r"\(#(\d+)\)\s*$", title)):
        return int(m.group(1))
    url = record.get("url")
    if isinstance(url, str) and (m := re.search(r"/pull/(\d+)", url)):
        return int(m.group(1))
    return int(fallback) if fallback.isdigit() else None


def _verdict_of(record: Mapping[str, object]) -> Verdict:
    digest = record.get("digest")
    inner = digest if isinstance(digest, dict) else {}
    verdict = record.get("verdict") or inner.get("verdict")
    reason = record.get("reason") or inner.get("reason") or ""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    analyzer = record.get("analyzer")
    return Verdict(str(verdict), str(reason), analyzer=analyzer if isinstance(analyzer, str) else "")


def read_answers(path: Path) -> dict[int, Verdict]:
    """Recorded answers by PR number (see the module docstring for the accepted shapes)."""
    files = sorted(path.glob("*.json*")) if path.is_dir() else [path]
    answers: dict[int, Verdict] = {}
    for file in files:
        for k, record in enumerate(_json_objects(file.read_text(encoding="utf-8"))):
            number = _number_of(record, file.stem if path.is_dir() else "")
            if number is None:
                raise ValueError(f"{file}: answer #{k + 1} names no PR (no pr, number, '(#N)' title or url)")
            try:
                answer = _verdict_of(record)
            except ValueError as exc:
                raise ValueError(f"{file}: answer for #{number}: {exc}") from None
            if number in answers and answers[number] != answer:
                print(f"note: {file}: a later answer for #{number} replaces an earlier one", file=sys.stderr)
            answers[number] = answer
    return answers


# --------------------------------------------------------------------------- scoring


def agreement(name: str, labels: Mapping[int, Verdict], answers: Mapping[int, Verdict]) -> Agreement:
    """Pure scoring of answers against labels, on the PRs that have both. A later `--memory` mode (issue
    17) calls this on one half of the labels, with answers made with and without corrections learned
    from the other half, and on a shuffled control."""
    scored = sorted(n for n in answers if n in labels)
    matrix = {(a, b): 0 for a in VERDICTS for b in VERDICTS}
    for n in scored:
        matrix[(labels[n].verdict, answers[n].verdict)] += 1
    given = Counter(answers[n].verdict for n in scored)
    wanted = Counter(labels[n].verdict for n in scored)
    high = [n for n in scored if labels[n].confidence == "high"]
    agree = [n for n in scored if labels[n].verdict == answers[n].verdict]
    return Agreement(
        name=name,
        scored=scored,
        agree=agree,
        matrix=matrix,
        shares={v: given[v] / len(scored) if scored else 0.0 for v in VERDICTS},
        label_shares={v: wanted[v] / len(scored) if scored else 0.0 for v in VERDICTS},
        high_confidence=(sum(1 for n in high if n in agree), len(high)),
        disagreements=[(n, labels[n], answers[n]) for n in scored if n not in agree],
        unlabelled=sorted(n for n in answers if n not in labels),
        unanswered=sorted(n for n in labels if n not in answers),
        answers=dict(answers),
    )


def report(result: Agreement) -> str:
    lines = [f"== {result.name}"]
    if not result.scored:
        return "\n".join(lines + ["  nothing to score: no answer has a label"])
    hi_agree, hi_total = result.high_confidence
    lines.append(f"  agreement: {len(result.agree)}/{len(result.scored)} = {result.rate:.2f}"
                 + (f"; on high-confidence labels {hi_agree}/{hi_total} = {hi_agree / hi_total:.2f}" if hi_total else ""))
    lines.append("  confusion (rows: label, columns: given)")
    lines.append(f"  {'':>11}" + "".join(f"{v:>11}" for v in VERDICTS) + f"{'total':>8}")
    for wanted in VERDICTS:
        row = [result.matrix[(wanted, given)] for given in VERDICTS]
        lines.append(f"  {wanted:>11}" + "".join(f"{x:>11}" for x in row) + f"{sum(row):>8}")
    column = [sum(result.matrix[(wanted, given)] for wanted in VERDICTS) for given in VERDICTS]
    lines.append(f"  {'total':>11}" + "".join(f"{x:>11}" for x in column) + f"{len(result.scored):>8}")
    lines.append("  share of each verdict (given vs labels): " + ", ".join(
        f"{v} {result.shares[v]:.2f} vs {result.label_shares[v]:.2f}" for v in VERDICTS))
    fallback = [n for n, a in result.answers.items() if a.analyzer == "heuristic"]
    if fallback:
        lines.append(f"  note: {len(fallback)} answers were written by the heuristic, not a model (no key?): "
                     + ", ".join(map(str, sorted(fallback))))
    if result.unanswered:
        lines.append(f"  labelled but not answered ({len(result.unanswered)}): "
                     + ", ".join(map(str, result.unanswered)))
    if result.unlabelled:
        lines.append(f"  answered but not labelled ({len(result.unlabelled)}): "
                     + ", ".join(map(str, result.unlabelled)))
    lines.append(f"  disagreements ({len(result.disagreements)}):")
    for number, label, given in result.disagreements:
        lines.append(f"    #{number}: label {label.verdict} ({label.confidence or '?'}), {result.name} {given.verdict}")
        lines.append(f"      label:  {label.reason}")
        lines.append(f"      {result.name}: {given.reason or '(no reason given)'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixtures", type=Path, action="append", default=[], metavar="DIR",
                        help="a folder of labelled fixtures (repeatable; default: both development sets)")
    parser.add_argument("--folds", type=int, default=10, help="cross-validation folds for the out-of-sample figure")
    parser.add_argument("--cv-seed", type=int, default=24, help="the seed dealing PRs into folds")
    parser.add_argument("--no-cv", action="store_true", help="skip the out-of-sample figures")
    parser.add_argument("--memory", action="store_true", help="measure the taste memory on held-out PRs")
    parser.add_argument("--seed", type=int, default=17, help="--memory: the seed of the reported split")
    parser.add_argument("--splits", type=int, default=200, help="--memory: how many seeded splits to average")
    parser.add_argument("--answers", type=Path, action="append", default=[], metavar="FILE",
                        help="recorded answers to score (repeatable)")
    parser.add_argument("--no-heuristic", action="store_true", help="score only the --answers files")
    parser.add_argument("--language", default="en", choices=("en", "zh-CN"))
    args = parser.parse_args(argv)
    roots = args.fixtures or DEFAULT_FIXTURES
    labels = load_all_labels(roots)
    if not labels:
        print("labels not found in " + ", ".join(str(r / "labels.jsonl") for r in roots), file=sys.stderr)
        return 2
    print(f"{len(labels)} labelled PRs in " + ", ".join(str(r) for r in roots if (r / "labels.jsonl").is_file())
          + ": " + ", ".join(
        f"{v} {sum(1 for x in labels.values() if x.verdict == v)}" for v in VERDICTS))
    if args.memory:  # taste_memory.py builds on this module: run it rather than import it (no circle)
        return subprocess.call([sys.executable, str(Path(__file__).with_name("taste_memory.py")),
                                *(f"--fixtures={root}" for root in roots), "--seed", str(args.seed),
                                "--splits", str(args.splits), "--language", args.language])
    results = []
    if not args.no_heuristic:
        results.append(agreement("heuristic", labels, heuristic_answers(roots, sorted(labels), args.language)))
    for path in args.answers:
        try:
            results.append(agreement(path.name, labels, read_answers(path)))
        except (OSError, TypeError, ValueError) as exc:
            print(f"cannot read answers {path}: {exc}", file=sys.stderr)
            return 2
    for result in results:
        print()
        print(report(result))
    if not args.no_heuristic and not args.no_cv:
        from verdict_cv import out_of_sample

        for measured in out_of_sample(roots, labels, args.folds, args.cv_seed):
            print()
            print("\n".join(measured.lines()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
