"""The repository's daily model budget, triage and the catch-up run, end to end through `readworthy action`
against the test GitHub server and an OpenAI-compatible server standing in for GitHub Models (issue 21)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, own_comments, pr_payload, run, small_pr
from digest_seeding import add_pr_at
from servers.github_server import GitHubServer
from servers.github_state import PRFile
from servers.openai_server import OpenAIServer

from readworthy.render.state import decode_state
from readworthy.spend.ledger import BUDGET_PREFIX
from readworthy.spend.queue import QUEUE_PREFIX

DAY_QUOTA = {"x-ratelimit-type": "UserByModelByDay", "x-ratelimit-timeremaining": "1"}


@pytest.fixture
def github_models_on(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    monkeypatch.delenv("READWORTHY_GITHUB_MODELS", raising=False)
    monkeypatch.setenv("READWORTHY_GITHUB_MODELS_URL", openai_server.url)
    return openai_server


def refs(server: GitHubServer, prefix: str) -> list[str]:
    repo = server.state.repo(REPO)
    assert repo is not None
    return sorted(n for n in repo.refs if n.startswith(f"refs/{prefix}"))


def lock_only_pr(server: GitHubServer, title: str = "Bump locked dependencies") -> object:
    return server.add_pr(REPO, title, "", user="alice",
                         files=[PRFile("uv.lock", additions=6, deletions=6,
                                       patch="@@ -10,6 +10,6 @@\n"
                                             + "".join(f"-a{i} = 1\n+a{i} = 2\n" for i in range(6)))])


def test_two_runs_at_once_share_one_repository_budget(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
) -> None:
    """Two dispatch runs of four PRs each, started together as two processes, with `model-budget: 3`."""
    prs = [small_pr(github_server) for _ in range(8)]
    openai_server.add_json(GOOD_DIGEST, times=20)
    script = Path(sys.executable).parent / "readworthy"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))}
    procs = []
    for i, chunk in enumerate((prs[:4], prs[4:])):
        env = action_env(github_server, tmp_path / str(i), "workflow_dispatch",
                         {"inputs": {"pr-number": " ".join(str(p.number) for p in chunk)}},
                         openai_url=openai_server.url, inputs={"model-budget": "3"})
        procs.append(subprocess.Popen([str(script), "action"], env=clean | env, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0 and "Traceback" not in err, err
    assert len(openai_server.chat_requests) == 3
    assert len(refs(github_server, BUDGET_PREFIX)) == 3
    states = [decode_state(own_comments(github_server, p.number)[0].body) for p in prs]
    assert sum(1 for s in states if s is not None and s.analyzer == "model") == 3
    turned_away = [s for s in states if s is not None and s.analyzer == "heuristic"]
    assert len(turned_away) == 5 and all("model budget for today (3 requests" in s.model_withheld
                                         for s in turned_away)
    assert all(len(own_comments(github_server, p.number)) == 1 for p in prs)
    assert len({n.split("/")[3] for n in refs(github_server, QUEUE_PREFIX)}) == 5  # queued for the catch-up run


def test_a_repair_turn_is_counted_in_the_repository_budget(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """One reservation, two requests (the answer was not JSON): GitHub counts both, so the ledger holds two
    slots and the next run finds the one left, not two."""
    first, second = small_pr(github_server), small_pr(github_server)
    openai_server.add_reply("not json at all")
    openai_server.add_json(GOOD_DIGEST, times=3)
    inputs = {"model-budget": "3"}
    for i, pr in enumerate((first, second)):
        env = action_env(github_server, tmp_path / str(i), "workflow_dispatch",
                         {"inputs": {"pr-number": str(pr.number)}}, openai_url=openai_server.url, inputs=inputs)
        assert run(monkeypatch, capsys, env).code == 0
        if pr is first:
            assert len(openai_server.chat_requests) == 2 and len(refs(github_server, BUDGET_PREFIX)) == 2
    assert len(openai_server.chat_requests) == 3 and len(refs(github_server, BUDGET_PREFIX)) == 3
    third = small_pr(github_server)
    env = action_env(github_server, tmp_path / "3", "workflow_dispatch", {"inputs": {"pr-number": str(third.number)}},
                     openai_url=openai_server.url, inputs=inputs)
    assert run(monkeypatch, capsys, env).code == 0
    assert len(openai_server.chat_requests) == 3  # the day's three requests are spent: no fourth
    state = decode_state(own_comments(github_server, third.number)[0].body)
    assert state is not None and state.analyzer == "heuristic" and "model budget for today" in state.model_withheld


def test_a_catch_up_run_upgrades_a_quota_fallback_comment_in_place(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = small_pr(github_server)
    github_models_on.add_error(429, "Rate limit of 150 per 86400s exceeded for UserByModelByDay.",
                               headers={"Retry-After": "1", **DAY_QUOTA})
    first = run(monkeypatch, capsys, action_env(github_server, tmp_path / "1", "pull_request_target",
                                                pr_payload(pr, "opened")))
    assert first.code == 0 and len(github_models_on.chat_requests) == 1
    [fallback] = own_comments(github_server, pr.number)
    state = decode_state(fallback.body)
    assert state is not None and state.analyzer == "heuristic" and state.queued
    assert "A model analysis is queued" in fallback.body
    assert refs(github_server, QUEUE_PREFIX)

    time.sleep(2.5)  # the quota's Retry-After (recorded in the ledger) has passed
    github_models_on.add_json(GOOD_DIGEST)
    env = action_env(github_server, tmp_path / "2", "schedule", {"repository": {"full_name": REPO}},
                     inputs={"mode": "catch-up"})
    caught = run(monkeypatch, capsys, env)
    assert caught.code == 0 and len(github_models_on.chat_requests) == 2
    [upgraded] = own_comments(github_server, pr.number)
    assert upgraded.id == fallback.id  # the same sticky comment, edited
    state = decode_state(upgraded.body)
    assert state is not None and state.analyzer == "model" and not state.queued
    assert "A model analysis is queued" not in upgraded.body
    assert refs(github_server, QUEUE_PREFIX) == []
    assert "1 now carry a model analysis" in caught.summary
    # The check run on the PR's head follows: the one the review wrote, edited to the model's verdict.
    [check] = github_server.check_runs(REPO, pr.head_sha)
    assert check.updates == 1 and check.title is not None and GOOD_DIGEST["headline"] in check.title

    again = run(monkeypatch, capsys, action_env(github_server, tmp_path / "3", "schedule",
                                                {"repository": {"full_name": REPO}}, inputs={"mode": "catch-up"}))
    assert again.code == 0 and len(github_models_on.chat_requests) == 2  # nothing queued: no call


@pytest.mark.parametrize("exactly", [True, False], ids=["same-inputs", "not-material"])
def test_a_queued_reanalysis_leaves_the_queue_once_the_pushes_since_are_not_material(
    exactly: bool, github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A material push meets a spent quota, so the model analysis stays and a new one is queued; a later push
    takes the new file out again (exactly, or with a line fixed in place): the analysis describes the PR once
    more, so nothing is queued any longer and the catch-up run spends no request on it."""
    pr = small_pr(github_server)
    original = list(pr.files)

    def trigger(name: str, action: str) -> None:
        result = run(monkeypatch, capsys, action_env(github_server, tmp_path / name, "pull_request_target",
                                                     pr_payload(pr, action)))
        assert result.code == 0, result.stdout

    github_models_on.add_json(GOOD_DIGEST)
    trigger("opened", "opened")
    pr.head_sha = "b" * 40
    pr.files = [*original, PRFile("vllm/v1/worker/cpu_pinning.py", status="added", additions=40,
                                  patch="@@ -0,0 +1,40 @@\n" + "".join(f"+PIN_{i} = {i}\n" for i in range(40)))]
    github_models_on.add_error(429, "quota", headers={"Retry-After": "1", **DAY_QUOTA})
    trigger("material", "synchronize")
    queued = decode_state(own_comments(github_server, pr.number)[0].body)
    assert queued is not None and queued.analyzer == "model" and queued.queued and refs(github_server, QUEUE_PREFIX)

    time.sleep(2.5)  # the quota's Retry-After has passed
    pr.head_sha = "c" * 40
    pr.files = original if exactly else [  # the new file is gone again
        PRFile(f.filename, f.status, f.additions, f.deletions, f.patch.replace("threads)", "threads)  # per rank"))
        for f in original]
    trigger("reverted", "synchronize")
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model" and not state.queued
    assert "A model analysis is queued" not in comment.body

    env = action_env(github_server, tmp_path / "c", "schedule", {"repository": {"full_name": REPO}},
                     inputs={"mode": "catch-up"})
    assert run(monkeypatch, capsys, env).code == 0
    assert len(github_models_on.chat_requests) == 2  # the analysis and the refused re-analysis, nothing more
    assert refs(github_server, QUEUE_PREFIX) == []


def test_a_confident_skip_costs_no_call_and_is_caught_up_last(
    github_server: GitHubServer, github_models_on: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    lock, fix = lock_only_pr(github_server), small_pr(github_server)
    github_models_on.add_error(429, "quota", headers={"Retry-After": "1", **DAY_QUOTA})
    for i, pr in enumerate((lock, fix)):
        run(monkeypatch, capsys, action_env(github_server, tmp_path / str(i), "pull_request_target",
                                            pr_payload(pr, "opened")))
    assert len(github_models_on.chat_requests) == 1  # the lock-file bump was not sent
    lock_state = decode_state(own_comments(github_server, lock.number)[0].body)
    assert lock_state is not None and "confident skip" in lock_state.model_withheld and lock_state.queued

    time.sleep(2.5)
    github_models_on.add_json(GOOD_DIGEST)
    github_models_on.add_json(GOOD_DIGEST | {"verdict": "skip", "decisions": [], "start_reading": []})
    run(monkeypatch, capsys, action_env(github_server, tmp_path / "c", "schedule",
                                        {"repository": {"full_name": REPO}}, inputs={"mode": "catch-up"}))
    bodies = [r.json for r in github_models_on.chat_requests[1:]]
    assert len(bodies) == 2
    order = ["Cap torch threads" in str(b) for b in bodies]
    assert order == [True, False]  # the ready PR worth reading first, the confident skip last
    for pr in (lock, fix):
        [comment] = own_comments(github_server, pr.number)
        state = decode_state(comment.body)
        assert state is not None and state.analyzer == "model"


def test_the_digest_counts_against_the_same_repository_budget(
    digest_env: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A review run spends one request of `model-budget: 2`; the digest after it gets the one left, and the
    third PR is listed with the heuristic and queued — never a third request."""
    now = datetime.now(UTC)
    prs = [add_pr_at(digest_env, f"Change {i}", created=now - timedelta(hours=10),
                     merged=now - timedelta(hours=9 - i), user=f"dev{i}",
                     files=[PRFile("vllm/model.py", additions=30, deletions=2,
                                   patch="@@ -1,2 +1,30 @@\n"
                                         + "".join(f"+v{i}_{j} = step({j})\n" for j in range(30)))])
           for i in range(3)]
    openai_server.add_json(GOOD_DIGEST, times=5)
    inputs = {"model-budget": "2"}
    first = run(monkeypatch, capsys, action_env(digest_env, tmp_path / "1", "workflow_dispatch",
                                                {"inputs": {"pr-number": str(prs[0].number)}},
                                                openai_url=openai_server.url, inputs=inputs))
    assert first.code == 0 and len(openai_server.chat_requests) == 1
    env = action_env(digest_env, tmp_path / "2", "schedule", {"repository": {"full_name": REPO}},
                     openai_url=openai_server.url,
                     inputs=inputs | {"mode": "digest", "digest-since": "2d", "digest-target": "none"})
    digest = run(monkeypatch, capsys, env)
    assert digest.code == 0
    assert len(openai_server.chat_requests) == 2  # the digest got the one request left, not two
    assert len(refs(digest_env, BUDGET_PREFIX)) == 2
    states = [decode_state(own_comments(digest_env, p.number)[0].body) for p in prs]
    assert sorted(s.analyzer for s in states if s is not None) == ["heuristic", "model", "model"]
