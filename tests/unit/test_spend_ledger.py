"""The repository's model budget as git refs, against the test GitHub server (PyGithub over real HTTP)."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta

import pytest
from servers.github_fixtures import READONLY_TOKEN, github_client
from servers.github_server import GitHubServer

from readworthy import clock
from readworthy.spend.ledger import BUDGET_PREFIX, QUOTA_PREFIX, ModelBudget
from readworthy.spend.priority import Claim, Tier
from readworthy.spend.queue import dequeue, enqueue, read_queue

REPO = "o/r"
NOON = datetime(2026, 7, 14, 12, 0, tzinfo=UTC)


def _setup(server: GitHubServer) -> str:
    server.add_repo(REPO)
    pr = server.add_pr(REPO, "A change")
    return pr.base_sha


def _at(moment: datetime) -> AbstractContextManager[None]:
    return clock.driven(lambda: moment, lambda s: None)


def _slots(server: GitHubServer) -> list[str]:
    repo = server.state.repo(REPO)
    assert repo is not None
    return sorted(n for n in repo.refs if n.startswith(f"refs/{BUDGET_PREFIX}"))


def test_reservations_are_slots_of_the_day_and_stop_at_the_limit(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    budget = ModelBudget(github_client(github_server), REPO, limit=3)
    with _at(NOON):
        assert [budget.reserve(sha) for _ in range(3)] == ["", "", ""]
        refusal = budget.reserve(sha)
        assert "model budget for today (3 requests" in refusal and "spent" in refusal
        view = budget.view()
    assert (view.used, view.left) == (3, 0)
    assert _slots(github_server) == [f"refs/{BUDGET_PREFIX}2026-07-14/000{i}" for i in (1, 2, 3)]


def test_a_new_day_has_a_new_budget(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    budget = ModelBudget(github_client(github_server), REPO, limit=1)
    with _at(NOON):
        assert budget.reserve(sha) == "" and budget.reserve(sha) != ""
    with _at(NOON + timedelta(days=1)):
        assert budget.reserve(sha) == ""
        assert budget.view().used == 1


def test_runs_at_once_never_reserve_more_than_the_limit(github_server: GitHubServer) -> None:
    """Eight runs, each with its own client and its own stale view of the ledger, race for 10 slots."""
    sha = _setup(github_server)
    granted: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def one_run() -> None:
        budget = ModelBudget(github_client(github_server), REPO, limit=10)
        budget.view()  # every run reads the ledger before any of them writes
        start.wait()
        mine = sum(1 for _ in range(4) if budget.reserve(sha) == "")
        with lock:
            granted.append(mine)

    with _at(NOON):  # the drive is process-wide: set it once for all the threads
        threads = [threading.Thread(target=one_run) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sum(granted) == 10
    assert len(_slots(github_server)) == 10


def test_a_spent_day_quota_is_seen_by_every_later_run_until_it_resets(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    with _at(NOON):
        ModelBudget(gh, REPO, limit=100).mark_spent(NOON + timedelta(hours=2), sha)
        later_run = ModelBudget(gh, REPO, limit=100)
        refusal = later_run.reserve(sha)
    assert "daily quota is spent until 2026-07-14 14:00" in refusal
    with _at(NOON + timedelta(hours=2, minutes=1)):
        assert ModelBudget(gh, REPO, limit=100).reserve(sha) == ""


def test_a_read_only_token_reserves_nothing_and_says_what_to_grant(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    budget = ModelBudget(github_client(github_server, READONLY_TOKEN), REPO, limit=5)
    with _at(NOON):
        refusal = budget.reserve(sha)
    assert "could not be reserved" in refusal and budget.problem == refusal
    assert _slots(github_server) == []


def test_without_contents_write_nothing_is_reserved(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    github_server.add_token("ghs_no_contents", "github-actions[bot]", kind="workflow",
                            permissions={"contents": "read"})
    budget = ModelBudget(github_client(github_server, "ghs_no_contents"), REPO, limit=5)
    with _at(NOON):
        refusal = budget.reserve(sha)
    assert "contents: write" in refusal and _slots(github_server) == []


def test_prune_deletes_past_days_and_passed_quota_markers_only(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    for day in (NOON - timedelta(days=3), NOON - timedelta(days=1), NOON):
        with _at(day):
            ModelBudget(gh, REPO, limit=5).reserve(sha)
    with _at(NOON - timedelta(days=3)):
        ModelBudget(gh, REPO, limit=5).mark_spent(NOON - timedelta(days=3, hours=-1), sha)
    with _at(NOON):
        assert ModelBudget(gh, REPO, limit=5).prune(max_deletes=50) == 2
    repo = github_server.state.repo(REPO)
    assert repo is not None
    assert sorted(repo.refs) == [f"refs/{BUDGET_PREFIX}2026-07-13/0001", f"refs/{BUDGET_PREFIX}2026-07-14/0001"]
    assert not any(n.startswith(f"refs/{QUOTA_PREFIX}") for n in repo.refs)


def test_the_queue_keeps_each_prs_best_claim(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    enqueue(gh, REPO, 7, Claim(Tier.LOW, 2.5), sha)
    enqueue(gh, REPO, 7, Claim(Tier.ASKED, 2.5), sha)
    enqueue(gh, REPO, 9, Claim(Tier.READY, 14.0), sha)
    enqueue(gh, REPO, 9, Claim(Tier.READY, 14.0), sha)  # again: 422 from GitHub, no second ref
    queue = read_queue(gh, REPO)
    assert {n: c.tier for n, (c, _) in queue.items()} == {7: Tier.ASKED, 9: Tier.READY}
    assert len(queue[7][1]) == 2 and len(queue[9][1]) == 1
    dequeue(gh, REPO, queue[7][1])
    assert set(read_queue(gh, REPO)) == {9}


def test_readworthy_writes_no_ref_outside_its_own_namespace(github_server: GitHubServer) -> None:
    from readworthy import publish

    sha = _setup(github_server)
    gh = github_client(github_server)
    for name in ("refs/heads/main", "refs/tags/v1", "refs/readworthy/../heads/main"):
        with pytest.raises(ValueError):
            publish.create_ref(gh, REPO, name, sha)
        with pytest.raises(ValueError):
            publish.delete_ref(gh, REPO, name)


def test_requests_already_sent_are_counted_past_the_limit_and_a_spent_quota(github_server: GitHubServer) -> None:
    """A repair turn or a retry went out under one reservation: GitHub counts it, so the ledger must too."""
    sha = _setup(github_server)
    budget = ModelBudget(github_client(github_server), REPO, limit=2)
    with _at(NOON):
        assert budget.reserve(sha) == ""
        budget.count_sent(2, sha)  # the second request takes the last slot, the third goes past the limit
        budget.mark_spent(NOON + timedelta(hours=1), sha)
        budget.count_sent(1, sha)
        later_run = ModelBudget(github_client(github_server), REPO, limit=2)
        assert later_run.view().used == 4
    assert _slots(github_server)[-1] == f"refs/{BUDGET_PREFIX}2026-07-14/0004"
