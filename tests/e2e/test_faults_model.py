"""The model endpoint failing in ordinary ways, end to end (issue 8, "Faults").

Through `readworthy action` (test GitHub server + test OpenAI server, both real HTTP) and through
`readworthy local` (CLI, test OpenAI server). Every fault is either retried within a bounded time
and the model's analysis published, or ends in a clean, labelled fallback: the heuristic digest
with the reason in the comment, a warning in the log, exit code per `fail-on-error` (0 by default,
so a model outage does not block merges), and, when a model analysis of the same inputs already
exists, that comment kept byte for byte.

analyze.py's own unit tests (tests/unit/test_analyze.py) cover each fallback path at the function;
this file checks what a user sees.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from action_run import GOOD_DIGEST, KEY, action_env, own_comments, pr_payload, run, small_pr
from servers.github_server import GitHubServer
from servers.github_state import PullRequest
from servers.openai_server import OpenAIServer

from readworthy.cli import main as cli_main
from readworthy.render.state import decode_state

SAMPLE_PATCH = Path(__file__).resolve().parents[2] / "src" / "readworthy" / "gather" / "sample" / "diff.patch"
FALLBACK_LABEL = "Heuristic fallback — the model could not be used"
MODEL_TIMEOUT_S = 5  # the action's `model-timeout` input: the bound on the whole model step
SLOW_S = MODEL_TIMEOUT_S + 0.6  # a reply this late outlasts the bound: the step times out
RUN_BOUND_S = 20.0  # the model step's bound + the run itself, with room for a loaded machine

Script = Callable[[OpenAIServer], None]

INVALID_SCHEMA = {**GOOD_DIGEST, "verdict": "must-read-now", "decisions": "all of them"}
TRUNCATED = json.dumps(GOOD_DIGEST)[:120]


def _429(times: int) -> Script:
    return lambda s: s.add_error(429, "Rate limit reached for requests", headers={"Retry-After": "1"}, times=times)


def _500(times: int) -> Script:
    return lambda s: s.add_error(500, "The server had an error while processing your request.", times=times)


def _timeout(times: int) -> Script:
    return lambda s: s.add_json(GOOD_DIGEST, delay=SLOW_S, times=times)


def _reset(times: int) -> Script:
    return lambda s: s.add_reset(times=times)


def _invalid_json(times: int) -> Script:
    return lambda s: s.add_reply("Sure! Here is the reading guide: {verdict: skim, reason: 'it is small'", times=times)


def _schema_invalid(times: int) -> Script:
    return lambda s: s.add_json(INVALID_SCHEMA, times=times)


def _truncated(times: int) -> Script:
    return lambda s: s.add_reply(TRUNCATED, finish_reason="length", times=times)


def _refusal(times: int) -> Script:
    return lambda s: s.add_refusal("I'm sorry, but I can't help with that request.", times=times)


# (id, fault that the retries (attempts.py) or analyze's one repair turn get past, fault that outlasts
#  them, words the fallback reason must contain). A timeout is final: the attempt may use all of the
#  model-timeout bound, so when it times out there is no time left to try again.
FAULTS: list[tuple[str, Script | None, Script, str]] = [
    ("429-retry-after", _429(1), _429(4), "429"),
    ("500", _500(2), _500(4), "500"),
    ("timeout", None, _timeout(1), "timed out"),
    ("connection-reset", _reset(1), _reset(4), "connect"),
    ("invalid-json", _invalid_json(1), _invalid_json(2), "unusable answer"),
    ("schema-invalid-json", _schema_invalid(1), _schema_invalid(2), "schema"),
    ("truncated", _truncated(1), _truncated(2), "cut off"),
    ("refusal", None, _refusal(1), "refused"),  # a refusal is final: asking again is not retrying
]
RECOVERABLE = [(f[0], f[1]) for f in FAULTS if f[1] is not None]


def model_env(github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path, pr: PullRequest,
              **inputs: str) -> dict[str, str]:
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"),
                     openai_url=openai_server.url, inputs=inputs)
    env["INPUT_MODEL-TIMEOUT"] = str(MODEL_TIMEOUT_S)
    return env


# --------------------------------------------------------------------------- recovered


@pytest.mark.parametrize("script", [f[1] for f in RECOVERABLE], ids=[f[0] for f in RECOVERABLE])
def test_transient_model_fault_is_retried_and_the_model_answer_published(
    script: Script, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    script(openai_server)
    openai_server.add_json(GOOD_DIGEST)
    started = time.monotonic()
    result = run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path, pr))
    assert time.monotonic() - started < RUN_BOUND_S
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model" and not state.fallback_reason
    assert FALLBACK_LABEL not in comment.body
    assert openai_server.pending == 0  # the fault was met and then the good answer used
    assert len(openai_server.chat_requests) >= 2


def test_retry_after_is_honoured(github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    pr = small_pr(github_server)
    openai_server.add_error(429, "slow down", headers={"Retry-After": "1"})
    openai_server.add_json(GOOD_DIGEST)
    assert run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path, pr)).code == 0
    first, second = openai_server.chat_requests
    assert second.time - first.time >= 0.9


# --------------------------------------------------------------------------- given up: labelled fallback


PERSISTENT = [(f[0], f[2], f[3]) for f in FAULTS]


@pytest.mark.parametrize(("script", "words"), [f[1:] for f in PERSISTENT], ids=[f[0] for f in PERSISTENT])
def test_persistent_model_fault_publishes_a_labelled_heuristic_fallback(
    script: Script, words: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
) -> None:
    pr = small_pr(github_server)
    script(openai_server)
    started = time.monotonic()
    result = run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path, pr))
    elapsed = time.monotonic() - started
    assert elapsed < RUN_BOUND_S, f"{elapsed:.1f}s"
    assert result.code == 0  # fail-on-error defaults to false: a model outage does not block merges
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic"
    assert words in state.fallback_reason.lower(), state.fallback_reason
    assert FALLBACK_LABEL in comment.body  # the reader is told, in the comment itself
    assert words in comment.body.lower()
    assert result.outputs["verdict"] in ("deep-read", "skim", "skip")
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING" and "model" in r.getMessage()]
    assert any(words in w.lower() for w in warnings), warnings
    annotations = [line for line in result.stdout.splitlines() if line.startswith("::warning::readworthy:")]
    assert any("model could not be used" in a and words in a.lower() for a in annotations), result.stdout
    assert len(openai_server.chat_requests) <= 6  # bounded: SDK retries or one repair turn, no storm
    assert KEY not in comment.body + result.summary + result.stdout.replace(f"::add-mask::{KEY}", "")


@pytest.mark.parametrize(("script", "words"), [f[1:] for f in PERSISTENT], ids=[f[0] for f in PERSISTENT])
def test_model_fault_keeps_the_previous_model_comment(
    script: Script, words: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    openai_server.add_json(GOOD_DIGEST)
    assert run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path / "1", pr)).code == 0
    [before] = own_comments(github_server, pr.number)
    body_before = before.body
    script(openai_server)
    result = run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path / "2", pr, force="true"))
    assert result.code == 0
    [after] = own_comments(github_server, pr.number)
    assert after.id == before.id and after.body == body_before  # not replaced by the heuristic, not emptied
    assert "previous comment was kept" in result.summary and words in result.summary.lower()
    assert any(line.startswith("::warning::") and "analysis failed" in line for line in result.stdout.splitlines())


@pytest.mark.parametrize("script", [_500(4), _refusal(1)], ids=["500", "refusal"])
def test_fail_on_error_makes_a_model_outage_fail_the_step(
    script: Script, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    script(openai_server)
    result = run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path, pr,
                                                **{"fail-on-error": "true"}))
    assert result.code == 1
    [comment] = own_comments(github_server, pr.number)  # the labelled fallback is still posted
    assert FALLBACK_LABEL in comment.body


# --------------------------------------------------------------------------- `readworthy local`


LOCAL = [(f[0], f[2], f[3]) for f in FAULTS]


@pytest.mark.parametrize(("script", "words"), [f[1:] for f in LOCAL], ids=[f[0] for f in LOCAL])
def test_local_command_falls_back_with_the_reason(
    script: Script, words: str, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    script(openai_server)
    started = time.monotonic()
    code = cli_main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json", "--model-timeout",
                     str(MODEL_TIMEOUT_S)])
    assert time.monotonic() - started < RUN_BOUND_S
    out, err = capsys.readouterr()
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    assert data["analyzer"] == "heuristic" and words in data["fallback_reason"].lower()
    assert data["verdict"] in ("deep-read", "skim", "skip")
    assert "Traceback" not in err and KEY not in out + err


def test_local_command_recovers_from_one_fault(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    openai_server.add_reset()
    openai_server.add_json({**GOOD_DIGEST, "start_reading": [], "decisions": []})
    code = cli_main(["local", "--patch", str(SAMPLE_PATCH)])
    out, _ = capsys.readouterr()
    assert code == 0
    # The model's own guide is printed (the CLI prints it without the comment's hidden state).
    assert FALLBACK_LABEL not in out and GOOD_DIGEST["headline"] in out


def test_an_hour_long_retry_after_does_not_hang_the_run(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A provider asking for an hour is not asked again: one request, the labelled fallback in seconds."""
    pr = small_pr(github_server)
    openai_server.add_error(429, "quota exceeded", headers={"Retry-After": "3600"}, times=4)
    started = time.monotonic()
    result = run(monkeypatch, capsys, model_env(github_server, openai_server, tmp_path, pr))
    assert time.monotonic() - started < 5.0
    assert result.code == 0
    assert len(openai_server.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    assert FALLBACK_LABEL in comment.body and "429" in comment.body and "60 min" in comment.body


NOT_A_COMPLETION: dict[str, tuple[str, str]] = {
    "proxy-login-page": ("<html><body>Sign in to the corporate proxy</body></html>", "text/html; charset=utf-8"),
    "html-labelled-json": ("<html>502 Bad Gateway</html>", "application/json"),
    "truncated-json": ('{"id": "x", "choices": [{"message": {"content": "{\\"verdict', "application/json"),
    "choices-not-a-list": ('{"id": "x", "object": "chat.completion", "choices": "nope"}', "application/json"),
    "message-null": (('{"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": null, '
                     '"finish_reason": "stop"}]}'), "application/json"),
    "usage-not-numbers": (('{"id": "x", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": '
                          '"assistant", "content": "{}"}}], "usage": {"prompt_tokens": "many"}}'), "application/json"),
}


@pytest.mark.parametrize("answer", list(NOT_A_COMPLETION.values()), ids=list(NOT_A_COMPLETION))
def test_an_answer_that_is_not_a_chat_completion_falls_back_labelled(
    answer: tuple[str, str], openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A proxy page, truncated JSON or a non-OpenAI shape with 200: the labelled fallback, never a traceback."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    body, content_type = answer
    openai_server.add_raw(200, body, content_type=content_type, times=6)
    code = cli_main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    assert data["analyzer"] == "heuristic" and data["fallback_reason"]
    assert "Traceback" not in err
