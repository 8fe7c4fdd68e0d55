"""Shared test setup. Server fixtures live in tests/servers/ (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from servers.github_fixtures import *  # noqa: F401,F403  (github_server fixture)
from servers.openai_fixtures import *  # noqa: F401,F403  (openai_server fixture)

REPO_ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; from a worktree (/work/wt/NAME) it sits one level further up.
VLLM_FIXTURES = next(
    (p / "shared" / "fixtures" / "vllm" for p in REPO_ROOT.parents if (p / "shared" / "fixtures" / "vllm").is_dir()),
    REPO_ROOT.parent / "shared" / "fixtures" / "vllm",
)


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's or CI's GitHub/OpenAI settings."""
    for key in list(os.environ):
        if key.startswith(("GITHUB_", "OPENAI_", "INPUT_", "RUNNER_", "AZURE_OPENAI")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("ACTIONS_STEP_DEBUG", raising=False)


@pytest.fixture
def vllm_fixtures() -> Path:
    """The real vLLM diffs in ../shared/fixtures/vllm, or a clean skip where that folder is absent."""
    if not (VLLM_FIXTURES / "index.json").is_file():
        pytest.skip(f"real vLLM fixtures not present at {VLLM_FIXTURES}")
    return VLLM_FIXTURES
