"""A digest on a repository whose hourly request budget is small (issue 15): it reads
X-RateLimit-Remaining as it goes, stops starting new analyses while a reserve is left for the
repository's other workflows, keeps what it analysed (in the PRs' comments), and the next run
finishes the work with no repeated model calls."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from digest_seeding import REPO, add_pr_at, model_reply
from servers.github_server import GitHubServer
from servers.openai_server import OpenAIServer

from readworthy.cli import main

NOW = datetime.now(UTC)
PRS = 10


def _digest(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    capsys.readouterr()
    code = main(["digest", "--repo", REPO, "--since", "1d", "--format", "json", "--concurrency", "2", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_a_small_request_budget_stops_cleanly_and_the_next_run_finishes_without_repeats(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    numbers = [add_pr_at(digest_env, f"Change {i}", created=NOW - timedelta(hours=10),
                         merged=NOW - timedelta(hours=9, minutes=i), user=f"dev{i}").number for i in range(PRS)]
    openai_server.add_json(model_reply(), times=PRS * 2)
    # About enough for listing, the lookups and a few analyses, and the 25-request reserve.
    digest_env.set_rate_budget(core=80, graphql=1_000)

    code, first = _digest(capsys)
    analysed = [e["number"] for e in first["entries"]]
    waiting = [x for x in first["left_out"] if x["reason"] == "rate-limit"]
    assert code == 0, first
    assert 1 <= len(analysed) < PRS and len(analysed) + len(waiting) == PRS
    assert not [x for x in first["left_out"] if x["reason"] == "failed"]
    assert "request budget" in waiting[0]["detail"] and any("request budget" in w for w in first["warnings"])
    assert len(openai_server.chat_requests) == len(analysed)
    # It stopped with the reserve untouched: GitHub never had to refuse a request.
    assert (digest_env.rate_left() or 0) >= 20
    assert not [r for r in digest_env.requests if r.status == 403]

    # An hour later the budget is back: the rest is analysed, the first run's work is reused.
    digest_env.set_rate_budget(core=1_000, graphql=1_000)
    code, second = _digest(capsys)
    assert code == 0 and second["left_out"] == []
    assert sorted(e["number"] for e in second["entries"]) == sorted(numbers)
    assert second["cached"] == len(analysed)
    assert len(openai_server.chat_requests) == PRS  # every PR analysed exactly once over the two runs


def test_list_chunks_auto_plans_only_what_the_budget_allows(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str],
) -> None:
    for i in range(12):
        add_pr_at(digest_env, f"Change {i}", created=NOW - timedelta(hours=10), merged=NOW - timedelta(hours=9, minutes=i))
    digest_env.set_rate_budget(core=100)
    capsys.readouterr()
    assert main(["digest", "--repo", REPO, "--since", "1d", "--list-chunks", "auto"]) == 0
    plan = json.loads(capsys.readouterr().out)
    planned = [int(n) for chunk in plan["chunks"] for n in chunk.split(",") if n]
    deferred = [int(n) for n in plan["deferred"].split(",") if n]
    assert plan["analyses_affordable_now"] is not None and 0 < plan["analyses_affordable_now"] < 12
    assert len(planned) == plan["analyses_affordable_now"] == plan["count"]
    assert sorted(planned + deferred) == sorted({*planned, *deferred}) and len(planned) + len(deferred) == 12
    assert plan["rate_remaining"] is not None and plan["rate_remaining"] < 100
