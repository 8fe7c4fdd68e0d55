"""A busy pull request is read in bounded requests (issue 23): hundreds of review threads, long threads,
and GitHub's 502 cut-off or partial data on a page end in a coverage note, never in a failed read.

The test GitHub server models GitHub's execution limits (tests/servers/github_graphql_limits.py): a query
over 10 s of modelled work answers 502, one that loads too many objects answers partial data."""

from __future__ import annotations

import pytest
from servers.github_fixtures import WORKFLOW_TOKEN, GitHubServer, PRFile
from servers.github_graphql import graphql_schema_or_skip

from readworthy.config import build_settings
from readworthy.gather import pages
from readworthy.gather.github_api import make_github
from readworthy.gather.pull import gather_pr
from readworthy.models import PRContext

REPO = "o/r"


@pytest.fixture(autouse=True)
def _schema() -> None:
    graphql_schema_or_skip()


def _busy(server: GitHubServer, threads: int = 0, comments: int = 0, per_thread: int = 3) -> int:
    pr = server.add_pr(REPO, "Busy", "A busy PR.",
                       files=[PRFile(f"pkg/m{i}.py", additions=2, patch=f"@@ -1 +1,2 @@\n-a{i}\n+b{i}\n+c{i}")
                              for i in range(5)])
    for i in range(threads):
        server.add_thread(REPO, pr.number, f"pkg/m{i % 5}.py", 1,
                          [(f"rev{j % 4}", f"thread {i} comment {j}") for j in range(per_thread)])
    for i in range(comments):
        server.add_comment(REPO, pr.number, f"dev{i % 6}", f"point {i}")
    return pr.number


def _gather(server: GitHubServer, number: int) -> PRContext:
    settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
    server.clear_log()
    return gather_pr(make_github(settings), REPO, number, settings)


def _graphql_statuses(server: GitHubServer) -> list[int]:
    return [r.status for r in server.requests if r.path == "/graphql"]


def test_hundreds_of_review_threads_are_read_whole_in_bounded_queries(github_server: GitHubServer) -> None:
    number = _busy(github_server, threads=400)
    ctx = _gather(github_server, number)
    assert len(ctx.threads) == 400 and ctx.gather_notes == []
    assert [c.body for c in ctx.threads[-1].comments] == [f"thread 399 comment {j}" for j in range(3)]
    assert ctx.threads[0].diff_hunk.startswith("@@")  # asked once per thread, on its first comment
    statuses = _graphql_statuses(github_server)
    assert set(statuses) == {200}  # no query ran into GitHub's 10 s cut-off
    assert len(statuses) == 8  # the first query + 7 more pages of 50 threads


def test_a_long_threads_comments_are_followed_by_the_threads_id(github_server: GitHubServer) -> None:
    number = _busy(github_server, threads=3, per_thread=2)
    pr = github_server.state.repo(REPO).items[number]
    github_server.add_thread(REPO, number, "pkg/m1.py", 1, [(f"rev{j % 3}", f"long {j}") for j in range(120)])
    ctx = _gather(github_server, number)
    long = ctx.threads[-1]
    assert [c.body for c in long.comments] == [f"long {j}" for j in range(120)]
    assert ctx.gather_notes == [] and len(pr.threads) == 4
    assert sum(1 for r in github_server.requests if "ReadworthyThreadComments" in str(r.body)) == 3  # 10+50+50+10


def test_a_long_thread_github_cannot_page_keeps_what_was_read(github_server: GitHubServer) -> None:
    number = _busy(github_server, threads=2, per_thread=2)
    github_server.add_thread(REPO, number, "pkg/m1.py", 1, [(f"rev{j % 3}", f"long {j}") for j in range(120)])
    github_server.graphql_limits.max_objects = 45  # the first query fits; a page of 50 thread comments does not
    ctx = _gather(github_server, number)
    assert len(ctx.threads) == 3 and [c.body for c in ctx.threads[-1].comments] == [f"long {j}" for j in range(10)]
    assert "1 long review thread(s) not read to the end; GitHub could not answer the rest (Resource limits" in (
        " | ".join(ctx.gather_notes))
    assert any(n.startswith("a review thread on pkg/m1.py has 120 comments; the first 10 were read")
               for n in ctx.gather_notes)


def test_a_first_query_cut_off_at_ten_seconds_falls_back_to_smaller_pages(github_server: GitHubServer) -> None:
    number = _busy(github_server, threads=60, comments=30)
    github_server.graphql_limits.diff_hunk_ms = 300  # 50 diff hunks in one query: 15 s, 25: 7.5 s
    ctx = _gather(github_server, number)
    statuses = _graphql_statuses(github_server)
    assert statuses[:2] == [502, 502]  # the main query, and its one retry
    assert len(ctx.threads) == 60 and len(ctx.comments) == 30 and ctx.gather_notes == []
    assert ctx.title == "Busy" and len(ctx.files) == 5


def test_partial_data_on_a_page_is_asked_again_smaller(github_server: GitHubServer) -> None:
    number = _busy(github_server, comments=230)
    github_server.graphql_limits.max_objects = 80  # a page of 100 comments answers partial data
    ctx = _gather(github_server, number)
    assert [c.body for c in ctx.comments] == [f"point {i}" for i in range(230)]
    assert ctx.gather_notes == []
    queries = [str((r.body or {}).get("query")) for r in github_server.requests if r.path == "/graphql"]
    assert any("ReadworthyPullRequestCore" in q for q in queries)  # the full query came back partial
    assert any("comments(first: 100, after:" in q for q in queries)  # a page that came back partial…
    assert any("comments(first: 50, after:" in q for q in queries)  # …asked again at half the size


def test_a_page_github_never_answers_becomes_a_coverage_note(github_server: GitHubServer) -> None:
    number = _busy(github_server, comments=20)
    github_server.graphql_limits.max_objects = 4  # not even a page of MIN_PAGE comments fits
    ctx = _gather(github_server, number)
    assert ctx.comments == [] and ctx.title == "Busy"  # the rest of the PR is read
    [unread] = [n for n in ctx.gather_notes if "conversation comments" in n]
    assert unread.startswith("0 of 20 conversation comments read; GitHub could not answer the rest (")
    assert "Resource limits for this query exceeded" in unread


def test_the_request_cap_ends_in_a_note_naming_what_was_left(github_server: GitHubServer,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "MAX_PAGE_REQUESTS", 2)
    number = _busy(github_server, threads=260, per_thread=1)
    ctx = _gather(github_server, number)
    assert len(ctx.threads) == 150  # the first page and two more
    assert ctx.gather_notes == ["150 of 260 review threads read; the rest is beyond the 2 requests one pull "
                                "request may take"]
