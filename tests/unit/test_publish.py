"""publish against the GitHub test server: idempotent creates, refusals named, labels, limits, outputs."""

from __future__ import annotations

import os
from pathlib import Path

import github
import pytest
from github import Auth
from github.GithubRetry import GithubRetry
from servers.github_fixtures import github_client
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN

from readworthy import action, publish
from readworthy.errors import PublishError
from readworthy.models import Verdict
from readworthy.render.state import MARKER

REPO = "o/r"
BODY = f"{MARKER}v1 verdict=skim data=AAAA -->\n## 👀 Worth a skim — x\n"


def ours(server: GitHubServer, number: int) -> list[str]:
    item = server.state.item(REPO, number)
    assert item is not None
    return [c.body for c in item.comments if c.user == WORKFLOW_LOGIN and MARKER in c.body]


@pytest.fixture
def pr_number(github_server: GitHubServer) -> int:
    github_server.add_repo(REPO)
    return github_server.add_pr(REPO, "t", "b", user="alice").number


def test_create_then_edit_then_unchanged(github_server: GitHubServer, pr_number: int) -> None:
    gh = github_client(github_server)
    created = publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    edited = publish.upsert_comment(gh, REPO, pr_number, BODY + "more\n", WORKFLOW_LOGIN)
    same = publish.upsert_comment(gh, REPO, pr_number, BODY + "more\n", WORKFLOW_LOGIN)
    assert (created.action, edited.action, same.action) == ("created", "edited", "unchanged")
    assert created.id == edited.id == same.id and ours(github_server, pr_number) == [BODY + "more\n"]


def test_refuses_empty_or_stateless_bodies(github_server: GitHubServer, pr_number: int) -> None:
    gh = github_client(github_server)
    publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    for bad in ("", "   ", "analysis failed"):
        with pytest.raises(PublishError):
            publish.upsert_comment(gh, REPO, pr_number, bad, WORKFLOW_LOGIN)
    assert ours(github_server, pr_number) == [BODY]


def test_timed_out_create_that_landed_leaves_one_comment(github_server: GitHubServer, pr_number: int) -> None:
    # The create is stored 1.5 s after it arrives; the client gives up after 1 s and PyGithub retries the
    # POST. Whatever lands, the re-check after creating removes our duplicates.
    gh = github.Github(auth=Auth.Token(WORKFLOW_TOKEN), base_url=github_server.api_url, timeout=1,
                       seconds_between_requests=0, seconds_between_writes=0, retry=GithubRetry(total=1))
    github_server.inject("POST", r"/issues/\d+/comments$", status=None, delay=1.5, times=1)
    try:
        publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    except PublishError:
        pass  # acceptable: the run reports it; what matters is the count below
    import time

    time.sleep(1.0)  # let the held create land
    publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    assert len(ours(github_server, pr_number)) == 1


def test_existing_duplicates_are_cleaned_keeping_the_oldest(github_server: GitHubServer, pr_number: int) -> None:
    first = github_server.add_comment(REPO, pr_number, WORKFLOW_LOGIN, BODY)
    github_server.add_comment(REPO, pr_number, WORKFLOW_LOGIN, BODY + "dup\n")
    ref = publish.upsert_comment(github_client(github_server), REPO, pr_number, BODY + "new\n", WORKFLOW_LOGIN)
    assert ref.id == first.id and ref.duplicates_removed == 1 and ours(github_server, pr_number) == [BODY + "new\n"]


def test_marker_in_someone_elses_comment_is_not_ours(github_server: GitHubServer, pr_number: int) -> None:
    spoof = github_server.add_comment(REPO, pr_number, "mallory", BODY)
    ref = publish.upsert_comment(github_client(github_server), REPO, pr_number, BODY + "x\n", WORKFLOW_LOGIN)
    assert ref.action == "created" and spoof.body == BODY


def test_fit_comment_keeps_state_and_closes_details() -> None:
    body = BODY + "<details><summary>s</summary>\n\n" + ("line of text\n" * 10_000) + "</details>\n"
    fitted = publish.fit_comment(body, limit=5_000)
    assert len(fitted) <= 5_000 and fitted.startswith(BODY.split("\n")[0])
    assert fitted.count("<details>") == fitted.count("</details>") and "Trimmed" in fitted
    assert publish.fit_comment("short") == "short"


def test_refusals_are_named(github_server: GitHubServer, pr_number: int) -> None:
    gh = github_client(github_server)
    github_server.inject("POST", r"/comments$", status=403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(publish.CommentBlocked) as info:
        publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    assert info.value.reason == "read-only" and "pull_request_target" in str(info.value)
    github_server.inject("POST", r"/comments$", status=403,
                         body={"message": "Unable to create comment because issue is locked."})
    with pytest.raises(publish.CommentBlocked) as info:
        publish.upsert_comment(gh, REPO, pr_number, BODY, WORKFLOW_LOGIN)
    assert info.value.reason == "locked"


def test_verdict_labels_created_and_swapped(github_server: GitHubServer, pr_number: int) -> None:
    gh = github_client(github_server)
    publish.set_verdict_label(gh, REPO, pr_number, Verdict.SKIM, [])
    pr = github_server.state.item(REPO, pr_number)
    assert pr is not None and pr.labels == ["readworthy:skim"]
    assert "readworthy:skim" in github_server.repo(REPO).labels
    publish.set_verdict_label(gh, REPO, pr_number, Verdict.DEEP_READ, list(pr.labels))
    assert pr.labels == ["readworthy:deep-read"]
    pr.labels.append("readworthy")
    assert publish.remove_label(gh, REPO, pr_number, "readworthy") is True
    assert pr.labels == ["readworthy:deep-read"]
    assert publish.remove_label(gh, REPO, pr_number, "not-there") is False


def test_summary_and_outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    assert publish.write_job_summary("# one", str(summary)) and publish.write_job_summary("# two", str(summary))
    assert summary.read_text() == "# one\n\n# two\n\n"
    assert publish.write_job_summary("x", None) is False
    out = tmp_path / "out"
    out.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    action.set_outputs({"verdict": "skim", "cost-usd": 0.25, "comment-url": "line1\nline2"}, os.environ["GITHUB_OUTPUT"])
    text = out.read_text()
    assert "verdict<<" in text and "\nskim\n" in text and "line1\nline2" in text and "skipped-reason<<" in text


def test_the_job_summary_never_grows_past_githubs_limit(tmp_path: Path) -> None:
    """GitHub throws away a step's whole summary beyond 1 MiB: what would not fit is cut, with a note."""
    summary = tmp_path / "summary.md"
    assert publish.write_job_summary("# first\n" + "中文 and text " * 10, str(summary))
    huge = "## a digest\n" + ("- a line of the reading list, 你好\n" * 60_000)
    assert len(huge.encode()) > publish.JOB_SUMMARY_LIMIT
    assert publish.write_job_summary(huge, str(summary))
    size = summary.stat().st_size
    text = summary.read_text(encoding="utf-8")  # still valid UTF-8: nothing cut inside a character
    assert publish.JOB_SUMMARY_LIMIT - 200 < size <= publish.JOB_SUMMARY_LIMIT
    assert text.startswith("# first") and "GitHub keeps at most 1 MiB" in text
    assert publish.write_job_summary("# one more", str(summary)) is False
    assert summary.stat().st_size == size
