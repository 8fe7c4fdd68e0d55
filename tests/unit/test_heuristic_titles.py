"""Which titles are bumps: the verb first (after tags or a conventional-commit prefix), or `... to v3`."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic.titles import is_bump_title, is_fix_title


@pytest.mark.parametrize("title", [
    "Bump transformers to 4.57", "[CI] upgrade requirements/test/xpu.txt", "upgrade tpu-inference to v0.27.0",
    "chore(deps): bump torch from 2.8 to 2.9", "[Build] Update nixl to v0.7.1", "Pin numpy<2",
    "[Misc] Update flashinfer version to 0.5.2", "Upgrade to torch 2.9",
])
def test_a_bump(title: str) -> None:
    assert is_bump_title(title)


@pytest.mark.parametrize("title", [
    "Heuristic verdict: a bump that only moves a tag in code is version-only", "Fix --version output",
    "Update README", "Reduce latency to 1.5ms", "[Core] Pinned memory for the KV offload path",
])
def test_not_a_bump(title: str) -> None:
    assert not is_bump_title(title)


@pytest.mark.parametrize(("title", "fix"), [
    ("[Bugfix] Bound KV block zeroing", True), ("Fix int32 overflow", True), ("fixes #12: a race", True),
    ("Hotfix the loader", True), ("[Bug] crash on start", True), ("Fixed the race", True),
    ("Add a module-scoped fixture for the runner", False), ("Share fixtures across pooling tests", False),
    ("Prefix caching for encoders", False), ("Debug logs for the scheduler", False)])
def test_a_fix_title(title: str, fix: bool) -> None:
    # a fixture is not a fix: "fixture" only starts like one
    assert is_fix_title(title) is fix
