"""Bad input through `readworthy action` (issue 8, "Bad input"): odd PRs, broken config, broken
events. Each ends with a clear message and the exit code docs/exit-codes.md gives, never a traceback.

Malformed/truncated event JSON and unknown events are in test_action_faults.py (publish/triggers);
this file adds unreadable event files, payloads missing fields, and the odd PRs themselves.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from action_run import REPO, action_env, own_comments, pr_payload, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest

from readworthy.render.state import decode_state


def review(github_server: GitHubServer, pr: PullRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           capsys: pytest.CaptureFixture[str], **inputs: str) -> Any:
    return run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                               pr_payload(pr, "opened"), inputs=inputs))


def one_state(github_server: GitHubServer, pr: PullRequest) -> Any:
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None
    assert len(comment.body) <= 65_536
    return state


# --------------------------------------------------------------------------- odd pull requests


def test_pr_with_zero_files(github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    pr = github_server.add_pr(REPO, "Empty commit to retrigger CI", "", user="alice", files=[])
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert result.code == 0, result.stdout
    state = one_state(github_server, pr)
    assert state.coverage.files_total == 0 and state.digest.verdict.value == "skip"


def test_binary_only_pr(github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    pr = github_server.add_pr(REPO, "Update logos", "New artwork.", user="alice", files=[
        PRFile(f"docs/assets/{name}.png", status="modified", patch=None, binary=True) for name in ("logo", "icon")])
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert result.code == 0
    state = one_state(github_server, pr)
    assert state.coverage.files_total == 2 and state.digest.verdict.value in ("skim", "skip")


def test_single_5_mb_one_line_file(github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    line = "var a=" + "1+" * 2_500_000 + "1;"
    pr = github_server.add_pr(REPO, "Vendor the minified bundle", "", user="alice", files=[
        PRFile("web/static/app.min.js", status="added", additions=1, patch=f"@@ -0,0 +1 @@\n+{line}")])
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert time.monotonic() - started < 30
    assert result.code == 0
    state = one_state(github_server, pr)
    assert state.coverage.files_total == 1
    assert len(result.summary) < 70_000


def test_more_than_3000_files(github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    files = [PRFile(f"pkg/mod_{i:04d}.py", status="added", additions=1, patch=f"@@ -0,0 +1 @@\n+V{i} = {i}")
             for i in range(3_200)]
    pr = github_server.add_pr(REPO, "Generate the bindings", "", user="alice", files=files)
    started = time.monotonic()
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert time.monotonic() - started < 60
    assert result.code == 0, result.stdout
    state = one_state(github_server, pr)
    assert state.coverage.files_total == 3_200  # GitHub's count, not the 3,000 the files API returns
    assert any("cap" in note and "200" in note for note in state.coverage.notes), state.coverage.notes


# --------------------------------------------------------------------------- invalid repository config


@pytest.mark.parametrize(("text", "words"), [
    ("language: en\nbudget: [oops\n", "not valid YAML"),
    ("langauge: zh-CN\n", "langauge"),
    ("budget: lots\n", "budget"),
    ("- just\n- a list\n", "mapping"),
    # judged only by the packer: found there, they failed every review with no comment
    ("section_shares: {code: 0.3}\n", "section_shares"),
    ("file_kinds: {'*.cuh': kernal}\n", "kernal"),
], ids=["yaml-syntax", "unknown-key", "wrong-type", "not-a-mapping", "unknown-section", "unknown-file-kind"])
def test_invalid_config_file_on_the_base_branch_is_a_warning_and_defaults(
    text: str, words: str, github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    github_server.add_repo(REPO)
    github_server.set_file(REPO, "main", ".github/readworthy.yml", text)
    pr = github_server.add_pr(REPO, "Split threads", "", user="alice", files=[
        PRFile("vllm/worker.py", additions=1, patch="@@ -1 +1,2 @@\n x\n+y\n")])
    result = review(github_server, pr, tmp_path, monkeypatch, capsys)
    assert result.code == 0
    assert len(own_comments(github_server, pr.number)) == 1  # the review still happens, with defaults
    # An annotation, not only a log line: a config silently replaced by defaults is easy to miss.
    warnings = [line for line in result.stdout.splitlines()
                if line.startswith("::warning::") and ".github/readworthy.yml" in line]
    assert warnings and any(words.lower() in w.lower() for w in warnings), result.stdout
    assert "Traceback" not in result.stdout


# --------------------------------------------------------------------------- broken events and environment


@pytest.mark.parametrize("fail_on_error", ["false", "true"])
@pytest.mark.parametrize("problem", ["missing-file", "directory", "not-utf8", "json-array", "no-pr-number"])
def test_unusable_event_is_a_clear_message(
    problem: str, fail_on_error: str, github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    env = action_env(github_server, tmp_path, "pull_request_target", {"action": "opened"},
                     inputs={"fail-on-error": fail_on_error})
    event = Path(env["GITHUB_EVENT_PATH"])
    if problem == "missing-file":
        event.unlink()
    elif problem == "directory":
        event.unlink()
        event.mkdir()
    elif problem == "not-utf8":
        event.write_bytes(b'{"action": "opened", "pull_request": {"title": "caf\xe9"}}')
    elif problem == "json-array":
        event.write_text('[{"action": "opened"}]')
    else:
        event.write_text('{"action": "opened", "pull_request": {"title": "no number"}, '
                         '"repository": {"full_name": "vllm-project/vllm"}}')
    result = run(monkeypatch, capsys, env)
    assert result.code == (1 if fail_on_error == "true" else 0)
    assert "event" in result.summary.lower() and "❌" in result.summary
    assert "Traceback" not in result.stdout
    assert github_server.count("POST", r"/comments$") == 0


def test_missing_repository_variable(github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    pr = github_server.add_pr(REPO, "t", "", user="alice", files=[])
    payload = pr_payload(pr, "opened")
    del payload["repository"]
    env = action_env(github_server, tmp_path, "pull_request_target", payload, inputs={"fail-on-error": "true"})
    env["GITHUB_REPOSITORY"] = ""
    result = run(monkeypatch, capsys, env)
    assert result.code == 1 and "GITHUB_REPOSITORY" in result.summary


@pytest.mark.parametrize(("inputs", "words"), [
    ({"language": "fr"}, "language"),
    ({"budget": "-5"}, "budget"),
    ({"price-table": "{not json"}, "price-table"),
    ({"fail-on-error": "sometimes"}, "fail-on-error"),
])
def test_invalid_inputs_always_exit_1(inputs: dict[str, str], words: str, github_server: GitHubServer,
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    pr = github_server.add_pr(REPO, "t", "", user="alice", files=[])
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened"), inputs=inputs))
    assert result.code == 1  # a broken workflow file fails the step whatever fail-on-error says
    assert words in result.summary and "::error::" in result.stdout
    assert own_comments(github_server, pr.number) == []


# --------------------------------------------------------------------------- fuzz: any event text through the action

_KEYS = st.sampled_from(["action", "number", "pull_request", "issue", "comment", "body", "inputs", "pr-number",
                         "all-open", "label", "name", "repository", "full_name", "user", "login", "type", "draft",
                         "labels", "head", "base", "ref", "sha", "sender", "id", "author_association", "repo"])
_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**40), st.text(max_size=20),
                  st.sampled_from(["opened", "labeled", "created", "readworthy", "/readworthy", "/readworthy lang fr",
                                   "1", "1,2", "vllm-project/vllm", "main", "synchronize"]))
_PAYLOAD = st.recursive(_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(_KEYS, inner, max_size=5)), max_leaves=20)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=st.sampled_from(["pull_request", "pull_request_target", "issue_comment", "workflow_dispatch", "push",
                             "schedule", ""]),
       payload=_PAYLOAD, cut=st.integers(0, 400),
       inputs=st.dictionaries(st.sampled_from(["pr-number", "mode", "force", "language", "all-open"]),
                              st.sampled_from(["", "1", "true", "maybe", "digest", "zh-CN", "fr", "1,x"]), max_size=2))
def test_fuzz_any_event_text_ends_in_0_or_1_without_a_traceback(
    name: str, payload: Any, cut: int, inputs: dict[str, str], github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    text = json.dumps(payload)
    text = text[:cut] if cut < len(text) and cut % 3 == 0 else text  # sometimes truncated
    env = action_env(github_server, tmp_path / "fuzz", name, text, inputs=inputs)
    env["GITHUB_EVENT_NAME"] = name
    for key in [k for k in os.environ if k.startswith("INPUT_")]:
        monkeypatch.delenv(key)
    result = run(monkeypatch, capsys, env)
    assert result.code in (0, 1)
    assert "Traceback" not in result.stdout
    assert github_server.count("POST", r"/issues/\d+/comments$") == 0  # no repository there: nothing written
