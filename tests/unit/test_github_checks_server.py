"""The test GitHub server's Checks API behaves as GitHub documents it (through PyGithub, real HTTP)."""

from __future__ import annotations

from typing import Any

import github
import pytest
from servers.github_fixtures import (
    PERSONAL_TOKEN,
    READONLY_TOKEN,
    WORKFLOW_TOKEN,
    GitHubServer,
    github_client,
)


def _note(i: int, **extra: Any) -> dict[str, Any]:
    return {"path": "a.py", "start_line": i, "end_line": i, "annotation_level": "notice", "message": f"m{i}"} | extra


def _output(n: int = 0, **extra: Any) -> dict[str, Any]:
    return {"title": "t", "summary": "s", "annotations": [_note(i + 1) for i in range(n)]} | extra


@pytest.fixture
def sha(github_server: GitHubServer) -> str:
    return github_server.add_pr("o/r", "A change").head_sha


def test_create_list_get_and_update_in_place(github_server: GitHubServer, sha: str) -> None:
    repo = github_client(github_server, WORKFLOW_TOKEN).get_repo("o/r")
    run = repo.create_check_run("readworthy", sha, conclusion="neutral", output=_output(2))
    assert (run.status, run.conclusion, run.app.slug, run.output.annotations_count) == ("completed", "neutral",
                                                                                         "github-actions", 2)
    listed = list(repo.get_commit(sha).get_check_runs(check_name="readworthy"))
    assert [r.id for r in listed] == [run.id]
    assert repo.get_check_run(run.id).output.title == "t"
    run.edit(output=_output(1, title="t2"))  # an update appends its annotations
    again = repo.get_check_run(run.id)
    assert again.output.title == "t2" and again.output.annotations_count == 3
    assert [a.message for a in again.get_annotations()] == ["m1", "m2", "m1"]
    assert list(repo.get_commit(github_server.add_pr("o/r").head_sha).get_check_runs()) == []


def test_at_most_50_annotations_per_request_more_by_updates(github_server: GitHubServer, sha: str) -> None:
    repo = github_client(github_server, WORKFLOW_TOKEN).get_repo("o/r")
    with pytest.raises(github.GithubException) as refused:
        repo.create_check_run("readworthy", sha, conclusion="neutral", output=_output(51))
    assert refused.value.status == 422 and github_server.check_runs("o/r") == []
    run = repo.create_check_run("readworthy", sha, conclusion="neutral", output=_output(50))
    run.edit(output=_output(30))
    assert len(github_server.check_runs("o/r", sha)[0].annotations) == 80


@pytest.mark.parametrize("change, field", [
    ({"head_sha": "f" * 40}, "No commit found"),
    ({"name": ""}, "name"),
    ({"output": {"title": "t"}}, "summary"),
    ({"output": _output(title="x" * 65_536)}, "title"),
    ({"output": _output(summary="x" * 65_536)}, "summary"),
    ({"output": _output(text="x" * 65_536)}, "text"),
    ({"output": _output(annotations=[_note(1, annotation_level="info")])}, "annotation_level"),
    ({"output": _output(annotations=[{"path": "a.py", "start_line": 1, "annotation_level": "notice",
                                      "message": "m"}])}, "end_line"),
    ({"output": _output(annotations=[_note(2, start_line=3)])}, "end_line"),
    ({"output": _output(annotations=[_note(1, end_line=2, start_column=1, end_column=2)])}, "start_column"),
    ({"status": "completed", "conclusion": None}, "conclusion"),
    ({"conclusion": "meh"}, "conclusion"),
])
def test_required_fields_and_limits(github_server: GitHubServer, sha: str, change: dict[str, Any],
                                    field: str) -> None:
    gh = github_client(github_server, WORKFLOW_TOKEN)
    body = {"name": "readworthy", "head_sha": sha, "conclusion": "neutral", "output": _output(1)} | change
    with pytest.raises(github.GithubException) as refused:
        gh.requester.requestJsonAndCheck("POST", "/repos/o/r/check-runs", input=body)
    assert refused.value.status == 422 and field in str(refused.value.data)
    assert github_server.check_runs("o/r") == []


def test_the_limits_themselves_are_accepted(github_server: GitHubServer, sha: str) -> None:
    repo = github_client(github_server, WORKFLOW_TOKEN).get_repo("o/r")
    out = _output(1, title="x" * 65_535, summary="y" * 65_535, text="z" * 65_535)
    out["annotations"] = [_note(1, annotation_level=level) for level in ("notice", "warning", "failure")]
    run = repo.create_check_run("readworthy", sha, conclusion="neutral", output=out)
    assert len(run.output.summary) == 65_535 and run.output.annotations_count == 3


def test_403_without_checks_write(github_server: GitHubServer, sha: str) -> None:
    for token in (READONLY_TOKEN, PERSONAL_TOKEN):
        with pytest.raises(github.GithubException) as refused:
            github_client(github_server, token).get_repo("o/r").create_check_run("readworthy", sha,
                                                                                 conclusion="neutral")
        assert refused.value.status == 403
    github_server.deny(WORKFLOW_TOKEN, "checks")
    repo = github_client(github_server, WORKFLOW_TOKEN).get_repo("o/r")
    with pytest.raises(github.GithubException) as refused:
        repo.create_check_run("readworthy", sha, conclusion="neutral")
    assert refused.value.status == 403 and "not accessible by integration" in str(refused.value.data)
    github_server.grant(WORKFLOW_TOKEN, "checks")
    assert repo.create_check_run("readworthy", sha, conclusion="neutral").conclusion == "neutral"


def test_only_the_creating_app_updates_and_latest_filter(github_server: GitHubServer, sha: str) -> None:
    github_server.add_token("ghs_other_app", "other-app[bot]", kind="app")
    ours = github_client(github_server, WORKFLOW_TOKEN).get_repo("o/r")
    theirs = github_client(github_server, "ghs_other_app").get_repo("o/r")
    mine = ours.create_check_run("readworthy", sha, conclusion="neutral")
    other = theirs.create_check_run("readworthy", sha, conclusion="success")
    with pytest.raises(github.GithubException) as refused:
        theirs.get_check_run(mine.id).edit(conclusion="failure")
    assert refused.value.status == 403
    ours.create_check_run("readworthy", sha, conclusion="neutral")  # a second one by the same app
    latest = list(ours.get_commit(sha).get_check_runs(check_name="readworthy"))
    assert len(latest) == 2 and other.id in {r.id for r in latest}
    assert len(list(ours.get_commit(sha).get_check_runs(check_name="readworthy", filter="all"))) == 3
