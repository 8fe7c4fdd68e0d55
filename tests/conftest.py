"""Shared test setup. Server fixtures live in tests/servers/ (real HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import real_model_background
from servers.github_fixtures import *  # noqa: F401,F403  (github_server fixture)
from servers.openai_fixtures import *  # noqa: F401,F403  (openai_server fixture)

from readworthy.analyze.attempts import forget_endpoints

REPO_ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout (from a worktree such as /work/wt/NAME it sits one level further up);
# READWORTHY_VLLM_FIXTURES points anywhere else.
VLLM_FIXTURES = Path(os.environ["READWORTHY_VLLM_FIXTURES"]) if os.environ.get("READWORTHY_VLLM_FIXTURES") else next(
    (p / "shared" / "fixtures" / "vllm" for p in REPO_ROOT.parents if (p / "shared" / "fixtures" / "vllm").is_dir()),
    REPO_ROOT.parent / "shared" / "fixtures" / "vllm",
)
# The second development set (32 more PRs, same layout; READWORTHY_VLLM2_FIXTURES points anywhere else).
VLLM2_FIXTURES = Path(os.environ["READWORTHY_VLLM2_FIXTURES"]) if os.environ.get("READWORTHY_VLLM2_FIXTURES") \
    else VLLM_FIXTURES.parent / "vllm2"


# Where GitHub Models "is" in tests that do not point it at the test server: a closed loopback port, so
# a test that turns GitHub Models on by mistake fails fast instead of reaching the internet.
UNREACHABLE_MODELS_URL = "http://127.0.0.1:9/inference"


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's or CI's GitHub/OpenAI settings, and none calls GitHub Models unless it
    asks for it: READWORTHY_GITHUB_MODELS=false here; tests of GitHub Models delete it and set
    READWORTHY_GITHUB_MODELS_URL to the test OpenAI server."""
    for key in list(os.environ):
        if key.startswith(("GITHUB_", "OPENAI_", "INPUT_", "RUNNER_", "AZURE_OPENAI", "READWORTHY_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.delenv("ACTIONS_STEP_DEBUG", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS", "false")
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS_URL", UNREACHABLE_MODELS_URL)


@pytest.fixture(autouse=True)
def _fresh_endpoint_memory() -> None:
    """Each test's run starts like a new process: no spent quota or silent endpoint remembered from another
    test (test servers come and go, and a later one may get an earlier one's port)."""
    forget_endpoints()


@pytest.fixture
def vllm_fixtures() -> Path:
    """The real vLLM diffs in ../shared/fixtures/vllm, or a clean skip where that folder is absent."""
    if not (VLLM_FIXTURES / "index.json").is_file():
        pytest.skip(f"real vLLM fixtures not present at {VLLM_FIXTURES}")
    return VLLM_FIXTURES


@pytest.fixture
def vllm_fixture_sets() -> list[Path]:
    """Both development sets (../shared/fixtures/vllm and vllm2, 62 PRs) that are present, or a clean skip
    where neither is. Read them with tests/vllm_sets.py."""
    present = [d for d in (VLLM_FIXTURES, VLLM2_FIXTURES) if (d / "labels.jsonl").is_file()]
    if not present:
        pytest.skip(f"real vLLM fixtures not present at {VLLM_FIXTURES} or {VLLM2_FIXTURES}")
    return present


@pytest.hookimpl(trylast=True)  # after `-m`/`-k` deselection: only tests that will run count
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The real-model tests run last, and their model run starts now in its own process, so that it
    works on one core while the rest of the suite runs on the other (tests/real_model_background.py).
    Under pytest-xdist a worker only reorders: the controller runs the model, once for all workers."""
    real = [item for item in items if item.get_closest_marker("e2e_model")]
    if not real:
        return
    items[:] = [item for item in items if not item.get_closest_marker("e2e_model")] + real
    if not hasattr(config, "workerinput"):
        real_model_background.start(config, VLLM_FIXTURES)


# --------------------------------------------------------------------------- pytest-xdist (scripts/test -n 2)

@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Tell each worker where the controller's model run will write its result."""
    config = node.config
    if not hasattr(config, "_readworthy_model_dir"):
        config._readworthy_model_dir = Path(tempfile.mkdtemp(prefix="readworthy-real-model-"))
    node.workerinput[real_model_background.WORKER_KEY] = str(config._readworthy_model_dir)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """A worker collected the real-model tests: start the one model run beside the suite."""
    if any("test_real_model.py" in test_id for test_id in ids):
        config = node.config
        real_model_background.start(config, VLLM_FIXTURES, getattr(config, "_readworthy_model_dir", None))


def pytest_unconfigure(config: pytest.Config) -> None:
    real_model_background.stop(config)
    shared = getattr(config, "_readworthy_model_dir", None)
    if shared is not None:
        shutil.rmtree(shared, ignore_errors=True)
