"""The taste memory survives junk and a locked issue (issue 23): records kept through the product's own write
path are found behind a hundred junk comments (the issue's index), and a locked memory issue (GitHub refuses
the workflow token's comments: 403, or 422 on some paths) is still read while new records go to a new one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from action_run import REPO, run
from servers.github_fixtures import WORKFLOW_LOGIN, WORKFLOW_TOKEN
from servers.github_server import GitHubServer
from taste_seeding import BOT, command, correction, docker_pr, env_for, record, seed_memory

from readworthy import publish
from readworthy.config import build_settings
from readworthy.gather.github_api import make_github
from readworthy.gather.memory import INDEX_PREFIX, MEMORY_LABEL, TasteMemory, index_ids, read_memory
from readworthy.models import Verdict


@pytest.fixture
def team(github_server: GitHubServer) -> GitHubServer:
    github_server.add_repo(REPO, permissions={"maya": "maintain"})
    return github_server


def _read(server: GitHubServer) -> TasteMemory:
    settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
    return read_memory(make_github(settings), settings, REPO, WORKFLOW_LOGIN)


def _keep(server: GitHubServer, pr: int, team_verdict: Verdict = Verdict.SKIM) -> str:
    settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
    memory = _read(server)
    return publish.keep_correction(make_github(settings), REPO, memory, correction(pr, team=team_verdict),
                                   WORKFLOW_LOGIN)


def _memory_issues(server: GitHubServer) -> list:  # type: ignore[type-arg]
    return sorted((i for i in server.repo(REPO).items.values() if MEMORY_LABEL in i.labels), key=lambda i: i.number)


def _graphql_queries(server: GitHubServer) -> list[str]:
    return [str(json.loads(json.dumps(r.body)).get("query", ""))[:40] for r in server.requests if r.path == "/graphql"]


def test_a_hundred_junk_comments_cannot_push_the_records_out(team: GitHubServer) -> None:
    for pr in (101, 102, 103, 104, 105):
        assert _keep(team, pr)
    [issue] = _memory_issues(team)
    assert len(index_ids(issue.body)) == 5 and INDEX_PREFIX in issue.body
    for i in range(150):
        team.add_comment(REPO, issue.number, "stranger", f"+1 me too {i}")
    team.clear_log()
    memory = _read(team)
    assert sorted(c.pr for c in memory.corrections) == [101, 102, 103, 104, 105]
    assert memory.notices == []  # junk is conversation, passed over quietly
    # The newest 100 comments with the issue, then the indexed records not among them, by id: two requests.
    queries = _graphql_queries(team)
    assert len(queries) == 2 and "ReadworthyTasteRecords" in queries[1]


def test_without_junk_the_memory_is_still_one_request(team: GitHubServer) -> None:
    for pr in (101, 102):
        _keep(team, pr)
    team.clear_log()
    assert len(_read(team).records) == 2
    assert len(_graphql_queries(team)) == 1


def test_an_index_names_only_records_of_its_own_issue(team: GitHubServer) -> None:
    issue = seed_memory(team, [])
    elsewhere = team.add_issue(REPO, "Unrelated", "x")
    planted = team.add_comment(REPO, elsewhere.number, BOT, record(77))
    issue.body = f"memory\n\n{INDEX_PREFIX} IC_{planted.id} -->\n"
    for i in range(120):
        team.add_comment(REPO, issue.number, "stranger", f"junk {i}")
    assert _read(team).records == []


def test_a_deleted_record_is_simply_forgotten(team: GitHubServer) -> None:
    _keep(team, 101)
    _keep(team, 102)
    [issue] = _memory_issues(team)
    first = next(c for c in issue.comments if '"pr": 101' in c.body)
    issue.comments.remove(first)
    for i in range(120):
        team.add_comment(REPO, issue.number, "stranger", f"junk {i}")
    memory = _read(team)
    assert [c.pr for c in memory.corrections] == [102] and memory.notices == []


def test_a_memory_from_before_the_index_is_indexed_by_its_next_correction(team: GitHubServer) -> None:
    issue = seed_memory(team, [(BOT, record(101)), (BOT, record(102))])
    assert index_ids(issue.body) == []
    _keep(team, 103)
    assert len(index_ids(issue.body)) == 3
    for i in range(120):
        team.add_comment(REPO, issue.number, "stranger", f"junk {i}")
    assert sorted(c.pr for c in _read(team).corrections) == [101, 102, 103]


def test_a_locked_memory_issue_is_still_read_and_the_next_verdict_opens_a_new_one(
    team: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    old = seed_memory(team, [(BOT, record(51))])
    old.locked = True
    pr = docker_pr(team, "testdeps")
    payload = command(team, pr.number, "maya", "/readworthy verdict skim too narrow")
    result = run(monkeypatch, capsys, env_for(team, tmp_path, "issue_comment", payload))
    assert result.code == 0
    assert "The team's verdict is kept in the taste memory" in result.summary
    new = [i for i in _memory_issues(team) if i.number != old.number]
    assert len(new) == 1 and f"continues #{old.number} (locked)" in new[0].body
    assert f"#{old.number} is locked" in result.summary and "::notice::" in result.stdout
    assert [c.body for c in old.comments] == [record(51)]  # nothing written where GitHub refuses it
    assert sorted(c.pr for c in _read(team).corrections) == sorted([51, pr.number])


@pytest.mark.parametrize(("status", "body"), [
    (403, {"message": "Unable to create comment because issue is locked."}),
    (422, {"message": "Validation Failed", "errors": [
        {"resource": "IssueComment", "code": "unprocessable", "message": "Unable to create comment because issue is locked."}]}),
])
def test_a_memory_issue_locked_after_it_was_read_gets_a_successor(team: GitHubServer, status: int,
                                                                 body: dict[str, object]) -> None:
    old = seed_memory(team, [(BOT, record(51))])
    memory = _read(team)
    assert memory.issue_number == old.number
    old.locked = True  # between the read and the write
    team.inject("POST", rf"/issues/{old.number}/comments$", status=status, body=body, times=1)
    settings = build_settings({"github_api_url": team.api_url, "github_token": WORKFLOW_TOKEN})
    url = publish.keep_correction(make_github(settings), REPO, memory, correction(52), WORKFLOW_LOGIN)
    [new] = [i for i in _memory_issues(team) if i.number != old.number]
    assert url.endswith(f"/issues/{new.number}#issuecomment-{new.comments[0].id}")
    assert any(f"#{old.number} is locked" in n for n in memory.notices)
    assert sorted(c.pr for c in _read(team).corrections) == [51, 52]


def test_a_record_in_a_locked_issue_is_superseded_not_edited(team: GitHubServer) -> None:
    old = seed_memory(team, [(BOT, record(51))])
    old.locked = True
    _keep(team, 51, Verdict.SKIP)
    assert [c.body for c in old.comments] == [record(51)]
    [latest] = [c for c in _read(team).corrections if c.pr == 51]
    assert latest.team is Verdict.SKIP
