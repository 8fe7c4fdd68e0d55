"""Issue 23: one model call when two runs analyse one PR at the same moment (spend/lease.py).

The examples give each trigger its own concurrency group, so a push's run and a label's (or a refresh, or a
dispatch) can ask the model for the same PR at once. The run that creates the analysis lease (a git ref,
`refs/readworthy/lease/<pr>/<day>/<key>`) asks the model; the other finds it, waits for the comment and
reuses the analysis. Real HTTP against the tests' GitHub and OpenAI-compatible servers: the first test
starts two `readworthy action` processes at once; the others run in-process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, own_comments, pr_payload, run, small_pr
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN
from servers.openai_server import OpenAIServer

from readworthy import clock
from readworthy.prompts.messages import PROMPT_VERSION
from readworthy.render.state import decode_state
from readworthy.spend.lease import LEASE_PREFIX, MARGIN_S, lease_key, lease_ref
from readworthy.spend.ledger import day_key

SLOW_MODEL_S = 4.0  # the model's answer takes this long: both runs are past their gather before it comes


def lease_refs(server: GitHubServer) -> list[str]:
    return sorted(n for n in server.repo(REPO).refs if n.startswith(f"refs/{LEASE_PREFIX}"))


def lease_creates(server: GitHubServer) -> list[int]:
    """The status of every lease create the runs sent (201 taken, 422 held by another run, 403 refused)."""
    return [r.status for r in server.requests
            if r.method == "POST" and r.path.endswith("/git/refs") and isinstance(r.body, dict)
            and str(r.body.get("ref", "")).startswith(f"refs/{LEASE_PREFIX}")]


def lease_deletes(server: GitHubServer) -> int:
    return server.count("DELETE", rf"/git/refs/{LEASE_PREFIX}")


def test_two_runs_started_at_once_make_one_model_call(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
) -> None:
    """A push's run and the label's run of one PR, started together as two processes, with a model that takes
    4 s to answer: one holds the lease and asks the model, the other waits and reuses its analysis (the
    label's forced run too: the analysis it waited on is of the same inputs). Before the lease: 2 calls."""
    pr = small_pr(github_server)
    pr.labels.append("readworthy")
    openai_server.add_json(GOOD_DIGEST, times=2, delay=SLOW_MODEL_S)
    script = Path(sys.executable).parent / "readworthy"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))}
    events = {"push": pr_payload(pr, "synchronize"), "label": pr_payload(pr, "labeled", label={"name": "readworthy"})}
    procs = [subprocess.Popen([str(script), "action"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=clean | action_env(github_server, tmp_path / name, "pull_request_target", payload,
                                                     openai_url=openai_server.url))
             for name, payload in events.items()]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and "Traceback" not in err, err
    assert len(openai_server.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model" and len(state.model_runs) == 1
    # The cost: one create that took the lease, one that found it held, one delete; nothing left behind.
    assert sorted(lease_creates(github_server)) == [201, 422]
    assert lease_deletes(github_server) == 1 and lease_refs(github_server) == []
    assert "readworthy" not in pr.labels  # the label's run still did its part


@contextmanager
def fast_clock() -> Iterator[list[float]]:
    """The run's clock (readworthy.clock) moves on at once when it waits; returns the seconds it waited."""
    waited: list[float] = []
    start = datetime.now(UTC)

    def now() -> datetime:
        return start + timedelta(seconds=sum(waited))

    with clock.driven(now, waited.append):
        yield waited


def test_a_lease_left_by_a_killed_run_is_taken_over_after_the_bound(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A run killed while its model call was in flight leaves its lease. The next run of the same inputs (the
    label's, forced) waits for it no longer than its bound (model timeout + margin), then takes it over: it
    asks the model, writes the comment and deletes the lease."""
    pr = small_pr(github_server)
    openai_server.add_json(GOOD_DIGEST, times=2)
    first = action_env(github_server, tmp_path / "push", "pull_request_target", pr_payload(pr, "synchronize"),
                       openai_url=openai_server.url)
    assert run(monkeypatch, capsys, first).code == 0
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.analyzer == "model"
    # What a killed run of these inputs leaves behind (its key is rules.analysis_terms' hash).
    key = lease_key(f"{state.input_hash}\n{state.model}\n{state.language}\n{PROMPT_VERSION}")
    left = lease_ref(pr.number, day_key(datetime.now(UTC)), key)
    github_server.repo(REPO).refs[left] = pr.head_sha
    github_server.clear_log()
    pr.labels.append("readworthy")
    label = action_env(github_server, tmp_path / "label", "pull_request_target",
                       pr_payload(pr, "labeled", label={"name": "readworthy"}), openai_url=openai_server.url)
    with fast_clock() as waited:
        assert run(monkeypatch, capsys, label).code == 0
    life = 10 + MARGIN_S  # action_env's model-timeout is 10 s
    assert sum(waited) == pytest.approx(life)  # it waited its bound, no more
    assert len(openai_server.chat_requests) == 2  # then it made its own analysis
    assert lease_creates(github_server) == [422, 201]  # found held; taken over
    assert lease_refs(github_server) == []  # and deleted once the comment was written
    [comment] = own_comments(github_server, pr.number)
    again = decode_state(comment.body)
    assert again is not None and len(again.model_runs) == 2


def test_a_lease_of_other_inputs_does_not_hold_a_run_back(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Another run's lease for the same PR but other inputs (an older head, another model) is no reason to
    wait: this run's inputs get their own analysis at once, and the other lease is left to its holder."""
    pr = small_pr(github_server)
    openai_server.add_json(GOOD_DIGEST)
    other = lease_ref(pr.number, day_key(datetime.now(UTC)), lease_key("other inputs"))
    github_server.repo(REPO).refs[other] = pr.head_sha
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"),
                     openai_url=openai_server.url)
    with fast_clock() as waited:
        assert run(monkeypatch, capsys, env).code == 0
    assert sum(waited) == 0 and len(openai_server.chat_requests) == 1
    assert lease_creates(github_server) == [201] and lease_deletes(github_server) == 1
    assert lease_refs(github_server) == [other]


def test_without_contents_write_a_run_goes_on_without_a_lease(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A token without `contents: write` (GitHub answers 403 to the lease's create): the run reviews as it did
    before the lease, a model call and a comment per PR, with one refused attempt for the whole run."""
    github_server.deny(WORKFLOW_TOKEN, "contents")
    prs = [small_pr(github_server), small_pr(github_server)]
    openai_server.add_json(GOOD_DIGEST, times=2)
    env = action_env(github_server, tmp_path, "workflow_dispatch",
                     {"inputs": {"pr-number": " ".join(str(p.number) for p in prs)}}, openai_url=openai_server.url)
    result = run(monkeypatch, capsys, env)
    assert result.code == 0 and "::warning" not in result.stdout
    assert len(openai_server.chat_requests) == 2
    for p in prs:
        [comment] = own_comments(github_server, p.number)
        state = decode_state(comment.body)
        assert state is not None and state.analyzer == "model"
    assert lease_creates(github_server) == [403]  # asked once; the run's other PR did not ask again
    assert lease_refs(github_server) == []
