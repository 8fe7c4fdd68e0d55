"""spend/lease.py: the analysis lease's rules, and `hold` against the test GitHub server (PyGithub over real
HTTP): one holder per PR and inputs, a waiter reuses the holder's answer or takes the lease after it, an
expired lease is taken over, a read-only token holds none; overlap.answered_meanwhile."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from servers.github_fixtures import READONLY_TOKEN, github_client
from servers.github_server import GitHubServer

from readworthy import clock
from readworthy.models import Digest, Report, Verdict
from readworthy.overlap import answered_meanwhile
from readworthy.spend.lease import (
    FIRST_POLL_S,
    LEASE_PREFIX,
    LONGEST_POLL_S,
    hold,
    lease_key,
    lease_life,
    lease_ref,
    names_to_check,
    polls,
    prune,
    stale,
)

REPO = "o/r"
NOON = datetime(2026, 7, 14, 12, 0, tzinfo=UTC)
KEY = lease_key("hash\ngpt-4.1-mini\nen\n2")


def _setup(server: GitHubServer) -> str:
    server.add_repo(REPO)
    return server.add_pr(REPO, "A change").base_sha


def _leases(server: GitHubServer) -> list[str]:
    return sorted(n for n in server.repo(REPO).refs if n.startswith(f"refs/{LEASE_PREFIX}"))


def _report(*runs: datetime, analyzer: str = "model") -> Report:
    return Report(digest=Digest(verdict=Verdict.SKIM, reason="r", headline="h"), analyzer=analyzer,  # type: ignore[arg-type]
                  model_runs=[moment.isoformat(timespec="seconds") for moment in runs])


# --------------------------------------------------------------------------- the rules


def test_the_key_changes_with_every_term_of_the_analysis() -> None:
    terms = ["hash", "gpt-4.1-mini", "en", "2"]
    keys = {lease_key("\n".join(terms))}
    for i in range(len(terms)):
        keys.add(lease_key("\n".join(t + "x" if j == i else t for j, t in enumerate(terms))))
    assert len(keys) == 5 and all(len(k) == 16 for k in keys)


def test_polls_are_sparing_and_add_up_to_the_bound() -> None:
    life = lease_life(120)
    assert life == 150
    pauses = polls(life)
    assert sum(pauses) == pytest.approx(life)
    assert pauses[0] == FIRST_POLL_S and max(pauses) == LONGEST_POLL_S
    assert pauses == sorted(pauses[:-1]) + pauses[-1:]  # never sooner than the one before (but the last)
    assert len(pauses) <= 20  # a holder at work for its whole bound costs the waiter at most 20 reads
    assert polls(0) == []


def test_a_run_just_after_midnight_also_looks_for_yesterdays_lease() -> None:
    midnight = datetime(2026, 7, 15, tzinfo=UTC)
    assert names_to_check(7, KEY, NOON, 150) == [lease_ref(7, "2026-07-14", KEY)]
    assert names_to_check(7, KEY, midnight + timedelta(seconds=30), 150) == \
        [lease_ref(7, "2026-07-15", KEY), lease_ref(7, "2026-07-14", KEY)]
    assert len(names_to_check(7, KEY, midnight + timedelta(seconds=151), 150)) == 1
    assert lease_ref(7, "2026-07-14", KEY) == f"refs/readworthy/lease/7/2026-07-14/{KEY}"


def test_leases_of_days_before_yesterday_are_stale() -> None:
    assert not stale(lease_ref(7, "2026-07-14", KEY), NOON)
    assert not stale(lease_ref(7, "2026-07-13", KEY), NOON)
    assert stale(lease_ref(7, "2026-07-12", KEY), NOON)
    assert stale("refs/readworthy/lease/7/odd", NOON)


def test_answered_meanwhile_needs_a_model_analysis_newer_than_the_one_read_first() -> None:
    before, after = NOON - timedelta(hours=1), NOON + timedelta(seconds=5)
    assert answered_meanwhile(_report(after), None)
    assert answered_meanwhile(_report(before, after), _report(before))  # a forced run waited: reused
    assert not answered_meanwhile(_report(before), _report(before))  # nothing new: ask the model
    assert not answered_meanwhile(_report(analyzer="heuristic"), None)  # the holder's model failed
    assert not answered_meanwhile(None, _report(before))


# --------------------------------------------------------------------------- hold, over HTTP


def test_one_holder_then_the_waiter_reuses_its_answer(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    first = hold(gh, REPO, 7, KEY, sha, 20, lambda: "unused")
    assert first.lease is not None and first.answer is None and first.found == []
    assert _leases(github_server) == [first.lease.name]
    written: list[str] = []
    got: dict[str, object] = {}
    waiter = threading.Thread(target=lambda: got.update(held=hold(gh, REPO, 7, KEY, sha, 20,
                                                                 lambda: written[0] if written else None)))
    waiter.start()
    time.sleep(0.5)
    written.append("the holder's analysis")  # its comment is written, then its lease released
    first.lease.release()
    first.lease.release()  # idempotent
    waiter.join(timeout=30)
    second = got["held"]
    assert second.answer == "the holder's analysis" and second.lease is None  # type: ignore[attr-defined]
    assert second.found == [first.lease.name] and second.waited_s < 5  # type: ignore[attr-defined]
    assert _leases(github_server) == []


def test_a_waiter_takes_the_lease_when_the_holder_wrote_nothing_of_use(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    first = hold(gh, REPO, 7, KEY, sha, 20, lambda: None)
    assert first.lease is not None
    threading.Timer(0.5, first.lease.release).start()
    second = hold(gh, REPO, 7, KEY, sha, 20, lambda: None)
    assert second.lease is not None and second.answer is None and second.waited_s < 5
    assert _leases(github_server) == [second.lease.name]


def test_an_expired_lease_is_taken_over_after_the_bound(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    left = lease_ref(7, "2026-07-14", KEY)
    github_server.repo(REPO).refs[left] = sha  # a killed run's
    waited: list[float] = []
    with clock.driven(lambda: NOON + timedelta(seconds=sum(waited)), waited.append):
        held = hold(gh, REPO, 7, KEY, sha, 40, lambda: None)
    assert sum(waited) == pytest.approx(40) and held.found == [left]
    assert held.lease is not None and held.lease.name == left and _leases(github_server) == [left]
    held.lease.release()
    assert _leases(github_server) == []


def test_yesterdays_live_lease_holds_a_run_after_midnight(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    yesterday = lease_ref(7, "2026-07-14", KEY)
    github_server.repo(REPO).refs[yesterday] = sha
    waited: list[float] = []
    just_after = datetime(2026, 7, 15, 0, 0, 10, tzinfo=UTC)
    with clock.driven(lambda: just_after + timedelta(seconds=sum(waited)), waited.append):
        held = hold(gh, REPO, 7, KEY, sha, 40, lambda: "yesterday's holder's analysis")
    assert held.answer == "yesterday's holder's analysis" and held.lease is None
    assert sum(waited) == pytest.approx(40) and held.found == [yesterday]  # its lease never went: the bound
    assert _leases(github_server) == [yesterday]  # its own was released; the answer was there


def test_other_inputs_and_other_prs_hold_their_own_leases(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server)
    held = [hold(gh, REPO, n, key, sha, 20, lambda: None) for n, key in ((7, KEY), (7, lease_key("x")), (8, KEY))]
    assert all(h.lease is not None and h.found == [] for h in held)
    assert len(_leases(github_server)) == 3


def test_a_read_only_token_holds_no_lease_and_waits_for_nothing(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    gh = github_client(github_server, READONLY_TOKEN)
    held = hold(gh, REPO, 7, KEY, sha, 20, lambda: None)
    assert held.lease is None and held.answer is None and "contents: write" in held.refused
    assert _leases(github_server) == []


def test_prune_deletes_only_old_days(github_server: GitHubServer) -> None:
    sha = _setup(github_server)
    refs = github_server.repo(REPO).refs
    for day in ("2026-07-10", "2026-07-13", "2026-07-14"):
        refs[lease_ref(7, day, KEY)] = sha
    with clock.driven(lambda: NOON, lambda s: None):
        assert prune(github_client(github_server), REPO, 10) == 1
    assert _leases(github_server) == [lease_ref(7, "2026-07-13", KEY), lease_ref(7, "2026-07-14", KEY)]
