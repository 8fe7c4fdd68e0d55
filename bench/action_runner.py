"""Running `readworthy action` in-process for the benches, the way a runner does: env vars, an event
file, the tests' GitHub and OpenAI servers over real HTTP; stdout, the job summary and the log captured.

    run_action_once(gh, workdir, payload, ai=..., inputs={...}, event=...) -> RunResult
    with servers() as (gh, ai): ...
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT / "src", ROOT / "tests", ROOT / "tests" / "e2e"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from action_run import KEY, REPO  # noqa: E402
from servers.github_server import GitHubServer  # noqa: E402
from servers.github_state import WORKFLOW_TOKEN  # noqa: E402
from servers.openai_server import OpenAIServer  # noqa: E402
from test_faults_model import MODEL_TIMEOUT_S  # noqa: E402

from readworthy.action import run_action  # noqa: E402
from readworthy.analyze.attempts import forget_endpoints  # noqa: E402


@dataclass
class RunResult:
    code: int
    stdout: str
    summary: str
    logs: str
    seconds: float


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    for key in [k for k in os.environ
                if k.startswith(("GITHUB_", "INPUT_", "OPENAI_", "RUNNER_", "ACTIONS_", "READWORTHY_", "GH_TOKEN"))]:
        del os.environ[key]
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# No key means the heuristic in these rows, unless a row points GitHub Models at the test server; a
# closed loopback port stands in for GitHub Models otherwise, so nothing can reach the internet.
NO_GITHUB_MODELS = {"READWORTHY_GITHUB_MODELS": "false", "READWORTHY_GITHUB_MODELS_URL": "http://127.0.0.1:9/inference"}


def run_action_once(gh: GitHubServer, workdir: Path, payload: Any, *, ai: OpenAIServer | None = None,
                    inputs: dict[str, str] | None = None, event: str = "pull_request_target",
                    env_extra: dict[str, str] | None = None, loopback: bool = True) -> RunResult:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "event.json").write_text(json.dumps(payload))
    (workdir / "out").write_text("")
    (workdir / "summary.md").write_text("")
    env = {
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(workdir / "event.json"),
        "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": gh.api_url, "GITHUB_GRAPHQL_URL": gh.graphql_url,
        "GITHUB_OUTPUT": str(workdir / "out"), "GITHUB_STEP_SUMMARY": str(workdir / "summary.md"),
        "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN, "INPUT_FAIL-ON-ERROR": "false", **NO_GITHUB_MODELS,
    }
    if ai is not None:
        env.update({"INPUT_OPENAI-API-KEY": KEY, "INPUT_OPENAI-BASE-URL": ai.url, "INPUT_MODEL": "gpt-4.1-mini",
                    "INPUT_MODEL-TIMEOUT": str(MODEL_TIMEOUT_S)})
    env.update({f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()})
    env.update(env_extra or {})
    forget_endpoints()  # each run is a new process: no quota or silent endpoint remembered from the last row
    handler = _Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    out = io.StringIO()
    started = time.monotonic()
    try:
        with _environ(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            # loopback: GitHub Models may be the test server (the tests' runner; the image never allows it)
            code = run_action(os.environ, loopback_models=loopback)
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    return RunResult(code, out.getvalue(), (workdir / "summary.md").read_text(), "\n".join(handler.lines),
                     time.monotonic() - started)


@contextlib.contextmanager
def servers() -> Iterator[tuple[GitHubServer, OpenAIServer]]:
    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        yield gh, ai
    finally:
        gh.stop()
        ai.stop()
