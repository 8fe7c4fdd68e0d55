"""The heuristic on the 30 real vLLM PRs: design points are the authors' words, tied to a definition.

The fixtures carry the diff and the commit message only, so here the authors' words are the title
and the code's own comments, docstrings and messages; description, issue and review extraction is
tested with invented PR material in test_heuristic_authors.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.definitions import file_definitions
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage, Decision, PRContext, Verdict

_WORD = re.compile(r"[a-z0-9]+")
_SPAN = re.compile(r"`([^`]+)`")
_COMMENT_MARK = re.compile(r"^\s*(?:#+|//+!?|/\*+|\*+/?|\"\"\"|''')\s*")


def _context(root: Path, number: int) -> PRContext:
    return context_from_source(LocalSource(patch=str(root / str(number) / "diff.patch")))


def _numbers(root: Path) -> list[int]:
    return [e["number"] for e in json.loads((root / "index.json").read_text())]


def _source_words(ctx: PRContext) -> str:
    """Every word of the PR material and of the code, comment markers removed, as one spaced string."""
    lines = [ctx.title, *(c.message for c in ctx.commits)]
    for f in ctx.files:
        for raw in (f.patch or "").split("\n"):
            if raw[:1] in ("+", "-", " "):
                lines.append(_COMMENT_MARK.sub("", raw[1:]))
    return " " + " ".join(w for line in lines for w in _WORD.findall(line.lower())) + " "


def _quoted_run(text: str, source: str) -> int:
    """The longest run of consecutive words of `text` found, in order, in the source."""
    words = _WORD.findall(text.lower())
    best = 0
    for start in range(len(words)):
        for end in range(len(words), start + best, -1):
            if " " + " ".join(words[start:end]) + " " in source:
                best = end - start
                break
    return best


def _prose_words(decision: Decision) -> int:
    text = _SPAN.sub(" ", decision.title + " " + decision.explanation)
    return len(re.findall(r"[A-Za-z\u4e00-\u9fff]{2,}", text))


@pytest.mark.vllm_fixtures
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_every_design_point_quotes_the_authors_and_names_its_definition(vllm_fixtures: Path,
                                                                        language: str) -> None:
    points = 0
    for number in _numbers(vllm_fixtures):
        ctx = _context(vllm_fixtures, number)
        digest = heuristic_digest(ctx, Coverage(), language)
        if not digest.decisions:
            continue
        source = _source_words(ctx)
        defined = {d.qualname for f in ctx.files for d in file_definitions(f).definitions}
        defined |= {name.rsplit(".", 1)[-1] for name in defined}
        for d in digest.decisions:
            points += 1
            where = (number, language, d.title, d.explanation)
            # the quote: the title, or the words in quotation marks after the attribution
            quotes = [d.title, *re.findall(r"“([^”]+)”", d.explanation)]
            longest = max(_quoted_run(q.rstrip("…"), source) for q in quotes)
            assert longest >= 5 or longest == len(_WORD.findall(d.title.lower())) >= 3, where
            spans = _SPAN.findall(d.title + " " + d.explanation)
            assert any(s in defined or s.rsplit(".", 1)[-1] in defined for s in spans), where
            assert _prose_words(d) >= 6, where  # words around the names, not a list of them
    assert points >= 30  # the fixtures do carry comments: most PRs get design points


@pytest.mark.vllm_fixtures
def test_start_reading_begins_at_a_definition_not_a_test(vllm_fixtures: Path) -> None:
    for number in _numbers(vllm_fixtures):
        digest = heuristic_digest(_context(vllm_fixtures, number), Coverage(), "en")
        if digest.verdict is Verdict.SKIP or not digest.start_reading:
            continue
        first = digest.start_reading[0].split("::")[0]
        assert not re.search(r"(?:^|/)tests?/|(?:^|/)test_[^/]*$", first), (number, digest.start_reading)


@pytest.mark.vllm_fixtures
def test_a_new_cuda_kernel_is_named_where_to_start(vllm_fixtures: Path) -> None:
    """#51674 adds `__global__` kernel next to small `__device__` PTX wrappers: the kernel comes first."""
    ctx = _context(vllm_fixtures, 51674)
    digest = heuristic_digest(ctx, Coverage(), "en")
    first = digest.start_reading[0]
    patch = next(f.patch for f in ctx.files if f.path == first.split("::")[0]) or ""
    name = first.split("::")[1]
    assert re.search(r"__global__[^;{]*\b" + re.escape(name) + r"\s*\(", patch), first


@pytest.mark.vllm_fixtures
def test_audience_is_code_areas_written_whole_and_tests_only_for_test_only_prs(vllm_fixtures: Path) -> None:
    for number in _numbers(vllm_fixtures):
        ctx = _context(vllm_fixtures, number)
        only_tests = all(re.match(r"tests?/", f.path) for f in ctx.files)
        for entry in heuristic_digest(ctx, Coverage(), "en").audience:
            assert entry.startswith("`") and entry.endswith("`"), (number, entry)  # `.buildkite/` whole
            assert only_tests or not re.match(r"`tests?/", entry), (number, entry)
