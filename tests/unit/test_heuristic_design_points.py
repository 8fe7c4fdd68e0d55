"""Every design point the heuristic writes on the 62 real vLLM PRs (and the demo's sample PR) is a decision:

- it names a definition present in the diff (a function, class, kernel, test or stage whose defining
  line is on the new side of its file's patch), or, for a docs page, a heading the page adds;
- it is not the title restated;
- it is not a measured result (numbers before and after, a benchmark line);
- no line it quotes is contradicted by the diff: a quoted piece of code the diff removes and does not
  add back is not what the code says any more (unless it is shown struck through, as what was removed);
- what it quotes is the PR's own words, and it says something in words (not a list of names).

The checks are written here, apart from the product's own filters, so that they judge the output.
The fixtures carry only the diff and the commit message; they skip cleanly where ../shared is absent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.gather.sample import load_sample
from readworthy.models import Coverage, Decision, PRContext

_WORD = re.compile(r"\w+")
_SPAN = re.compile(r"`([^`\n]+)`")
_QUOTE = re.compile(r"“([^”]+)”")
# A definition's own line, in the languages the fixtures hold (Python, C/C++/CUDA, Rust, shell, Docker, HCL).
_DEFINES = (r"(?:def|class|struct|enum|union|trait|interface|fn|func|function|impl|type)\s+{name}\b",
            r"^\s*(?:[\w:<>,*&]+\s+)+[*&]?{name}\s*\((?!.*\)\s*;\s*$)",  # C-like function or kernel
            r"^\s*(?:function\s+)?{name}\s*\(\)",  # shell function
            r"\bAS\s+{name}\s*$", r"^\s*\w+\s+\"{name}\"",  # Dockerfile stage, HCL block
            r"^\s*{name}\s*(?::[^=]+)?=")  # a module-level constant or attribute
_MEASURED = re.compile(r"\d[\d,.]*\s?[%a-zA-Z/]{0,6}\s?(?:->|→)\s?\d|\b(?:benchmark|speed-?up|throughput|TTFT|TPOT|"
                       r"hit rate|tok/s|req/s)\b.*\d|\d.*\b(?:benchmark|speed-?up|throughput|TTFT|TPOT|hit rate)\b",
                       re.IGNORECASE)


def _fixtures(vllm: Path) -> list[tuple[str, PRContext]]:
    """Both development folders: ../shared/fixtures/vllm (the `vllm_fixtures` fixture) and vllm2 beside it."""
    out = []
    for folder in (vllm, vllm.parent / "vllm2"):
        for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                number = json.loads(line)["pr"]
                out.append((f"#{number}", context_from_source(LocalSource(patch=str(folder / str(number) /
                                                                                   "diff.patch")))))
    return out


def _sides(ctx: PRContext) -> tuple[dict[str, list[str]], str, str]:
    """New-side lines per file, and all removed and all new-side text (whitespace collapsed)."""
    new: dict[str, list[str]] = {}
    removed: list[str] = []
    for f in ctx.files:
        lines = new.setdefault(f.path, [])
        for raw in (f.patch or "").split("\n"):
            if raw.startswith(("+++", "---")):
                continue
            if raw.startswith("@@"):  # the definition git names for the hunk is part of the diff
                lines.append(raw.split("@@", 2)[-1].lstrip(" "))
            elif raw[:1] in ("+", " "):
                lines.append(raw[1:])
            elif raw[:1] == "-":
                removed.append(" ".join(raw[1:].split()))
    kept = "\n".join(" ".join(x.split()) for lines in new.values() for x in lines)
    return new, "\n".join(removed), kept


def _defined(name: str, lines: list[str]) -> bool:
    patterns = [re.compile(p.format(name=re.escape(name))) for p in _DEFINES]
    return any(p.search(line) for line in lines for p in patterns)


def _names_a_definition(d: Decision, new: dict[str, list[str]]) -> bool:
    for ref in d.references:
        path, _, symbol = ref.partition("::")
        if symbol and path in new and _defined(re.split(r"[.:]", symbol)[-1], new[path]):
            return True
    # a definition named in backticks (a build stage `test-deps`), in a file the point references
    spans = _SPAN.findall(d.title + " " + d.explanation)
    if any(_defined(span, new[p]) for p in d.references if p in new for span in spans
           if re.fullmatch(r"[\w.-]+", span)):
        return True
    # a docs page: a heading it adds, quoted
    docs = [p for p in d.references if p in new and p.endswith((".md", ".rst"))]
    quoted = _QUOTE.findall(d.title + " " + d.explanation)
    return any(q.strip() and any(line.lstrip("#= ").strip() == q.strip() or line.strip().endswith(q.strip())
                                 for p in docs for line in new[p]) for q in quoted)


def _restates_title(d: Decision, title: str) -> bool:
    words = set(_WORD.findall(_SPAN.sub(" ", d.title).lower()))
    told = set(_WORD.findall(title.lower()))
    return "title announces" in d.title or "标题所说" in d.title or (
        len(words) >= 2 and len(words & told) >= 0.8 * len(words))


def _contradicted(d: Decision, removed: str, kept: str) -> list[str]:
    """Quoted lines of code (not a bare name: an issue may well name the old code it diagnoses)."""
    text = re.sub(r"~~`[^`\n]*`~~", " ", d.title + " " + d.explanation)  # struck through: shown as removed
    pieces = [p for p in [*_SPAN.findall(text), *_QUOTE.findall(text)] if re.search(r"[\s(=<>!]", p.strip())]
    return [p for p in pieces if len(p.rstrip("…")) >= 8 and " ".join(p.rstrip("…").split()) in removed
            and " ".join(p.rstrip("…").split()) not in kept]


_COMMENT_MARK = re.compile(r"^\s*(?:#+|//+!?|/\*+|\*+/?|\"\"\"|''')\s*")


def _source_words(ctx: PRContext) -> str:
    """Every word of the PR's own text and of its code, comment markers removed, as one spaced string."""
    lines = [ctx.title, ctx.body, *(c.message for c in ctx.commits), *(i.body for i in ctx.linked_issues),
             *(c.body for c in ctx.comments), *(r.body for r in ctx.reviews),
             *(c.body for t in ctx.threads for c in t.comments)]
    for f in ctx.files:
        for raw in (f.patch or "").split("\n"):
            if raw[:1] in ("+", "-", " "):
                lines.append(_COMMENT_MARK.sub("", raw[1:]))
    return " " + " ".join(w for line in lines for w in _WORD.findall(line.lower())) + " "


def _found(quote: str, source: str) -> bool:
    """A quote is the PR's own words: its words, in order, are in the PR's text."""
    words = _WORD.findall(quote.rstrip("…").lower())
    return not words or " " + " ".join(words) + " " in source


def _prose_words(decision: Decision) -> int:
    text = _SPAN.sub(" ", decision.title + " " + decision.explanation)
    return len(re.findall(r"[A-Za-z]{2,}", text)) + len(re.findall(r"[\u4e00-\u9fff]", text)) // 2


def _points(vllm: Path, language: str) -> Iterator[tuple[str, PRContext, Decision]]:
    for name, ctx in [*_fixtures(vllm), ("demo", load_sample())]:
        for d in heuristic_digest(ctx, Coverage(), language).decisions:
            yield name, ctx, d


@pytest.mark.vllm_fixtures
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_every_design_point_is_a_decision_in_the_diff(vllm_fixtures: Path, language: str) -> None:
    failures = []
    points = 0
    cache: dict[str, tuple[dict[str, list[str]], str, str]] = {}
    sources: dict[str, str] = {}
    for name, ctx, d in _points(vllm_fixtures, language):
        points += 1
        new, removed, kept = cache.setdefault(name, _sides(ctx))
        title = re.sub(r"^\s*(?:\[[^\]]*\]\s*)*|\s*\(#\d+\)\s*$", "", ctx.title)
        if not _names_a_definition(d, new):
            failures.append((name, "names no definition in the diff", d.title, d.references))
        if _restates_title(d, title):
            failures.append((name, "restates the title", d.title))
        if _MEASURED.search(d.title):
            failures.append((name, "is a measured result", d.title))
        if bad := _contradicted(d, removed, kept):
            failures.append((name, "quotes what the diff removed", d.title, bad))
        source = sources.setdefault(name, _source_words(ctx))
        if invented := [q for q in _QUOTE.findall(d.explanation) if not _found(q, source)]:  # noqa: B023
            failures.append((name, "quotes words that are not the PR's", invented))
        if d.title.count("`") % 2 or d.explanation.count("`") % 2:
            failures.append((name, "leaves a code span open", d.title, d.explanation))
        if _prose_words(d) < 6:
            failures.append((name, "is a list of names, not a sentence", d.title, d.explanation))
    assert not failures, "\n".join(map(str, failures))
    assert points >= 40  # most PRs do get design points


@pytest.mark.vllm_fixtures
def test_the_fixtures_cover_both_development_folders(vllm_fixtures: Path) -> None:
    names = [name for name, _ in _fixtures(vllm_fixtures)]
    assert len(names) == 62 and len(set(names)) == 62


def test_the_demo_lists_no_benchmark_result_as_a_decision() -> None:
    ctx = load_sample()
    for language in ("en", "zh-CN"):
        decisions = heuristic_digest(ctx, Coverage(), language).decisions
        assert decisions and not any(_MEASURED.search(d.title) for d in decisions), decisions
        # the measurement is still there, as support for the decision it is about
        assert any("31% -> 88%" in d.explanation for d in decisions)


def test_checks_catch_what_they_look_for() -> None:
    """The checks themselves: a restated title, a benchmark line and a removed quote are caught."""
    ctx = PRContext(title="Fuse the decode kernel", files=[])
    assert _restates_title(Decision(title="`decode_kernel` is what the title announces", explanation="x"), ctx.title)
    assert _restates_title(Decision(title="Fuse the decode kernel", explanation="x"), ctx.title)
    assert not _restates_title(Decision(title="Allocate the buffer whenever the backend can decode", explanation="x"),
                               ctx.title)
    assert _MEASURED.search("hit rate 31% -> 88%, p50 TTFT 412 ms -> 138 ms")
    removed, kept = "STD_TORCH_CHECK(num_value_heads == 8 * num_key_heads)", "STD_TORCH_CHECK(ratio <= 8)"
    bad = Decision(title="Removes a guard", explanation="`STD_TORCH_CHECK(num_value_heads == 8 * num_key_heads)`")
    assert _contradicted(bad, removed, kept)
    shown_as_removed = Decision(title="The check becomes `ratio <= 8`",
                                explanation="It was ~~`STD_TORCH_CHECK(num_value_heads == 8 * num_key_heads)`~~.")
    assert not _contradicted(shown_as_removed, removed, kept)
    new = {"a.py": ["def allocate(x):", "    return x"], "docs/page.md": ["# Reading the metrics"]}
    assert _names_a_definition(Decision(title="t", explanation="e", references=["a.py::allocate"]), new)
    assert not _names_a_definition(Decision(title="t", explanation="e", references=["a.py::other"]), new)
    assert _names_a_definition(Decision(title="t", explanation="“Reading the metrics”", references=["docs/page.md"]),
                               new)



def test_a_title_cut_to_fit_never_leaves_a_code_span_open() -> None:
    from readworthy.analyze.heuristic.wording import fit

    text = "Beside its new files it changes shared code: `rust/src/parser/src/lib.rs`, `rust/src/chat/src/mod.rs`"
    assert fit(text, len(text)) == text
    cut = fit(text, 80)
    assert len(cut) <= 80 and cut.endswith("`rust/src/parser/src/lib.rs`…") and cut.count("`") % 2 == 0
    assert fit("x" * 200, 160) == "x" * 159 + "…"


def test_a_headline_cut_to_fit_never_leaves_a_code_span_open() -> None:
    from readworthy.analyze.heuristic import heuristic_digest
    from readworthy.models import Coverage, FileChange, FileStatus, PRContext

    title = "Route " + "every request " * 13 + "through `SchedulerOutputProcessor.finish_request_batch`"
    change = FileChange(path="engine/sched.py", status=FileStatus.MODIFIED, additions=1, deletions=1,
                        patch="@@ -1,1 +1,1 @@\n-    return a\n+    return b")
    digest = heuristic_digest(PRContext(title=title, files=[change]), Coverage(), "en")
    assert len(title) > 200 and digest.headline.endswith("…")
    assert digest.headline.count("`") % 2 == 0, digest.headline
