"""The heuristic on the 62 real vLLM PRs (both development sets): where to start reading, and who should read.

Design points on every fixture are checked in test_heuristic_design_points.py; description, issue and
review extraction is tested with invented PR material in test_heuristic_authors.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from vllm_sets import fixture_contexts

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Coverage, PRContext, Verdict


def _context(root: Path, number: int) -> PRContext:
    return context_from_source(LocalSource(patch=str(root / str(number) / "diff.patch")))


@pytest.mark.vllm_fixtures
def test_start_reading_begins_at_a_definition_not_a_test(vllm_fixture_sets: list[Path]) -> None:
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        digest = heuristic_digest(ctx, Coverage(), "en")
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
def test_audience_is_code_areas_written_whole_and_tests_only_for_test_only_prs(vllm_fixture_sets: list[Path]) -> None:
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        only_tests = all(re.match(r"tests?/", f.path) for f in ctx.files)
        for entry in heuristic_digest(ctx, Coverage(), "en").audience:
            assert entry.startswith("`") and entry.endswith("`"), (number, entry)  # `.buildkite/` whole
            assert only_tests or not re.match(r"`tests?/", entry), (number, entry)
