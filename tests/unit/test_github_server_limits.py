"""The test GitHub server's GraphQL execution limits behave like GitHub's (issue 23): a query that runs
over 10 s is cut off with a 502, one that loads too much answers partial data with an error, and the
connections a bounded reader pages carry cursors (`pageInfo`, `after`, `node(id:)` for one thread)."""

from __future__ import annotations

from typing import Any

import pytest
import requests
from servers.github_fixtures import WORKFLOW_TOKEN, GitHubServer, PRFile
from servers.github_graphql import graphql_schema_or_skip

PR_THREADS = """query($number: Int!, $after: String) { repository(owner: "o", name: "r") { pullRequest(number: $number) {
  title
  reviewThreads(first: 100, after: $after) { totalCount pageInfo { hasNextPage endCursor }
    nodes { id %s } } } } }"""
EVERY_HUNK = "comments(first: 100) { nodes { body diffHunk } }"
ONE_HUNK = "first: comments(first: 1) { nodes { diffHunk } } comments(first: 10) { nodes { body } }"


@pytest.fixture
def gql_schema() -> object:
    return graphql_schema_or_skip()


def _post(server: GitHubServer, query: str, **variables: Any) -> requests.Response:
    return requests.post(server.graphql_url, json={"query": query, "variables": variables},
                         headers={"Authorization": f"token {WORKFLOW_TOKEN}"}, timeout=60)


def _busy_pr(server: GitHubServer, threads: int, comments: int = 3) -> int:
    pr = server.add_pr("o/r", "Busy", files=[PRFile("a.py", additions=3, patch="@@ -1 +1,3 @@\n-a\n+b\n+c\n+d")])
    for i in range(threads):
        server.add_thread("o/r", pr.number, "a.py", 2, [(f"u{j}", f"t{i} c{j}") for j in range(comments)])
    return pr.number


def test_a_query_over_ten_seconds_is_cut_off_with_a_502(github_server: GitHubServer, gql_schema: object) -> None:
    number = _busy_pr(github_server, threads=100)
    slow = _post(github_server, PR_THREADS % EVERY_HUNK, number=number)
    assert slow.status_code == 502 and "Bad Gateway" in slow.text  # the gateway's page, no GraphQL body
    # The same threads with one diffHunk each stay well inside the bound.
    fast = _post(github_server, PR_THREADS % ONE_HUNK, number=number)
    assert fast.status_code == 200 and "errors" not in fast.json()
    assert len(fast.json()["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]) == 100


def test_too_many_objects_answer_partial_data_with_an_error(github_server: GitHubServer, gql_schema: object) -> None:
    number = _busy_pr(github_server, threads=30, comments=5)
    github_server.graphql_limits.max_objects = 60  # 30 threads + 30 x 5 comments is more
    body = _post(github_server, PR_THREADS % "comments(first: 10) { nodes { body } }", number=number).json()
    assert body["errors"][0]["type"] == "RESOURCE_LIMITS_EXCEEDED"
    assert body["errors"][0]["message"] == "Resource limits for this query exceeded."
    assert len([e for e in body["errors"] if e.get("type") == "RESOURCE_LIMITS_EXCEEDED"]) == 1
    nodes = body["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
    # Null propagation: a thread whose comments could not be loaded is null in the list; earlier ones are whole.
    assert nodes[0]["comments"]["nodes"][0]["body"] == "t0 c0"
    assert None in nodes and nodes[-1] is None
    assert body["data"]["repository"]["pullRequest"]["title"] == "Busy"


def test_a_limit_on_a_non_null_connection_empties_its_parent(github_server: GitHubServer, gql_schema: object) -> None:
    number = _busy_pr(github_server, threads=30)
    github_server.graphql_limits.max_objects = 10
    body = _post(github_server, PR_THREADS % "path", number=number).json()
    assert body["data"]["repository"]["pullRequest"] is None  # reviewThreads is non-null: the PR goes
    assert body["errors"][0]["path"] == ["repository", "pullRequest", "reviewThreads"]


def test_threads_and_a_threads_comments_page_by_cursor(github_server: GitHubServer, gql_schema: object) -> None:
    number = _busy_pr(github_server, threads=3, comments=12)
    first = _post(github_server, PR_THREADS.replace("first: 100", "first: 2") % "path", number=number).json()
    threads = first["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert threads["totalCount"] == 3 and threads["pageInfo"]["hasNextPage"]
    rest = _post(github_server, PR_THREADS.replace("first: 100", "first: 2") % "path", number=number,
                 after=threads["pageInfo"]["endCursor"]).json()
    more = rest["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert len(more["nodes"]) == 1 and not more["pageInfo"]["hasNextPage"]

    query = """query($id: ID!, $after: String) { node(id: $id) { ... on PullRequestReviewThread {
      comments(first: 5, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { body } } } } }"""
    thread_id = threads["nodes"][0]["id"]
    page = _post(github_server, query, id=thread_id).json()["data"]["node"]["comments"]
    assert page["totalCount"] == 12 and page["pageInfo"]["hasNextPage"]
    page2 = _post(github_server, query, id=thread_id, after=page["pageInfo"]["endCursor"]).json()
    assert [n["body"] for n in page2["data"]["node"]["comments"]["nodes"]] == [f"t0 c{j}" for j in range(5, 10)]


def test_nodes_by_id_answer_null_and_not_found_for_a_deleted_one(github_server: GitHubServer,
                                                                   gql_schema: object) -> None:
    issue = github_server.add_issue("o/r", "memory", comments=[("a", "one"), ("b", "two")])
    ids = [f"IC_{c.id}" for c in issue.comments] + ["IC_999999"]
    query = "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { body author { login } } } }"
    body = _post(github_server, query, ids=ids).json()
    assert body["data"]["nodes"][:2] == [{"body": "one", "author": {"login": "a"}},
                                         {"body": "two", "author": {"login": "b"}}]
    assert body["data"]["nodes"][2] is None
    assert body["errors"][0]["type"] == "NOT_FOUND" and body["errors"][0]["path"] == ["nodes", 2]
