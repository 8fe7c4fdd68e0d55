"""Issue 23: two triggers reviewing one PR at the same time are harmless and pay the model once.

The examples give pushes, the label, commands and dispatches their own concurrency groups (GitHub cancels
a group's pending run whenever a newer one is queued, so a shared group let a push cancel a pending
`/readworthy verdict`). The price is that runs of different triggers can overlap; review.py and overlap.py
make that harmless. Each test holds one run at a real HTTP request (the tests' GitHub server delays its
answer, or the OpenAI server its reply) while the other run goes end to end through `readworthy action`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, comment_payload, own_comments, pr_payload, small_pr
from servers.github_server import GitHubServer
from servers.openai_server import OpenAIServer

from readworthy.action import run_action
from readworthy.models import Verdict
from readworthy.render.state import decode_state

HOLD_S = 12.0  # how long the first run is held; the second run takes a second or two (more on a busy machine)


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the held run never reached the held request"
        time.sleep(0.05)


def in_thread(codes: dict[str, int], name: str, env: dict[str, str]) -> threading.Thread:
    thread = threading.Thread(target=lambda: codes.__setitem__(name, run_action(env, loopback_models=True)))
    thread.start()
    return thread


def test_a_forced_run_reuses_an_analysis_another_run_began_after_it_started(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
) -> None:
    """The label's run starts; a push's run analyses the same inputs meanwhile; the label's run finds that
    analysis when it reads the comment and reuses it: 2 runs, 1 model call (it used to be 2)."""
    pr = small_pr(github_server)
    openai_server.add_json(GOOD_DIGEST, times=2)
    pr.labels.append("readworthy")
    label_env = action_env(github_server, tmp_path / "label", "pull_request_target",
                           pr_payload(pr, "labeled", label={"name": "readworthy"}), openai_url=openai_server.url)
    push_env = action_env(github_server, tmp_path / "push", "pull_request_target", pr_payload(pr, "synchronize"),
                          openai_url=openai_server.url)
    hold = github_server.inject("GET", r"/issues/\d+/comments$", status=None, delay=HOLD_S, times=1)
    codes: dict[str, int] = {}
    label = in_thread(codes, "label", label_env)
    wait_until(lambda: hold.times == 0)  # the label's run is listing the PR's comments, held
    time.sleep(1.1)  # the push's analysis begins in a later second than the label's run (stamps are seconds)
    started = time.monotonic()
    codes["push"] = run_action(push_env, loopback_models=True)
    assert time.monotonic() - started < HOLD_S - 1.5, "the push's run did not finish while the label's was held"
    label.join(timeout=60)
    assert codes == {"label": 0, "push": 0}
    assert len(openai_server.chat_requests) == 1
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model" and len(state.model_runs) == 1
    assert "readworthy" not in pr.labels  # the label's run still did its part


def test_a_verdict_given_during_another_runs_analysis_is_kept(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
) -> None:
    """A maintainer's `/readworthy verdict` lands while the label's run waits for the model; the label's
    run then writes its new analysis and carries the verdict (it used to write the state it read before,
    dropping the verdict from the comment)."""
    pr = small_pr(github_server)
    github_server.repo(REPO).permissions["maya"] = "maintain"
    openai_server.add_json(GOOD_DIGEST)
    first = action_env(github_server, tmp_path / "open", "pull_request_target", pr_payload(pr, "opened"),
                       openai_url=openai_server.url)
    assert run_action(first, loopback_models=True) == 0
    openai_server.add_json(GOOD_DIGEST, delay=HOLD_S)  # the label's forced analysis takes a while
    pr.labels.append("readworthy")
    label_env = action_env(github_server, tmp_path / "label", "pull_request_target",
                           pr_payload(pr, "labeled", label={"name": "readworthy"}), openai_url=openai_server.url,
                           inputs={"model-timeout": str(HOLD_S * 4)})  # the held reply is slow, not lost
    codes: dict[str, int] = {}
    label = in_thread(codes, "label", label_env)
    wait_until(lambda: len(openai_server.chat_requests) == 2)  # the label's model call is in flight
    body = "/readworthy verdict skip a pure refactor"
    comment = github_server.add_comment(REPO, pr.number, "maya", body)
    verdict_env = action_env(github_server, tmp_path / "verdict", "issue_comment",
                             comment_payload(pr.number, "maya", body, comment.id), openai_url=openai_server.url)
    codes["verdict"] = run_action(verdict_env, loopback_models=True)
    assert codes["verdict"] == 0 and label.is_alive(), "the verdict's run did not finish while the label's waited"
    given = decode_state(own_comments(github_server, pr.number)[0].body)
    assert given is not None and given.team is not None and given.team.verdict is Verdict.SKIP
    label.join(timeout=60)
    assert codes["label"] == 0
    [ours] = own_comments(github_server, pr.number)
    state = decode_state(ours.body)
    assert state is not None and len(state.model_runs) == 2  # the label's new analysis is the one shown
    assert state.team is not None and state.team.verdict is Verdict.SKIP and state.team.by == "maya"
    assert len(openai_server.chat_requests) == 2  # the verdict's run reused the stored analysis
    assert "The team's verdict" in ours.body


@pytest.mark.parametrize("event", ["synchronize"])
def test_without_overlap_nothing_changes(
    event: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
) -> None:
    """Sequential runs: a forced run after an analysis still pays (the stored analysis began before it)."""
    pr = small_pr(github_server)
    openai_server.add_json(GOOD_DIGEST, times=2)
    first = action_env(github_server, tmp_path / "1", "pull_request_target", pr_payload(pr, event),
                       openai_url=openai_server.url)
    assert run_action(first, loopback_models=True) == 0
    time.sleep(1.1)
    pr.labels.append("readworthy")
    label_env = action_env(github_server, tmp_path / "2", "pull_request_target",
                           pr_payload(pr, "labeled", label={"name": "readworthy"}), openai_url=openai_server.url)
    assert run_action(label_env, loopback_models=True) == 0
    assert len(openai_server.chat_requests) == 2
