"""The test GitHub server behaves like GitHub where readworthy depends on it (through PyGithub, real HTTP)."""

from __future__ import annotations

import github
import pytest
import requests
from servers.github_fixtures import (
    PERSONAL_TOKEN,
    READONLY_TOKEN,
    WORKFLOW_LOGIN,
    WORKFLOW_TOKEN,
    GitHubServer,
    PRFile,
    files_from_patch,
    github_client,
    seed_discussed_pr,
)


def _files(n: int) -> list[PRFile]:
    return [PRFile(f"pkg/m{i}.py", additions=1, deletions=1, patch=f"@@ -1 +1 @@\n-a{i}\n+b{i}") for i in range(n)]


def test_pull_request_shape_and_absolute_urls(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", "Title", "Body", files=_files(3), labels=["cpu"])
    pull = github_client(github_server).get_repo("o/r").get_pull(pr.number)
    assert (pull.title, pull.body, pull.changed_files, pull.additions) == ("Title", "Body", 3, 3)
    assert pull.html_url == f"{github_server.html_url}/o/r/pull/{pr.number}"
    assert pull.url.startswith(github_server.api_url + "/repos/o/r/pulls/")
    assert [lb.name for lb in pull.labels] == ["cpu"]
    assert pull.base.ref == "main" and len(pull.head.sha) == 40


def test_pagination_follows_link_headers_and_caps_files(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", files=_files(3_050))
    gh = github_client(github_server)
    github_server.clear_log()
    files = list(gh.get_repo("o/r").get_pull(pr.number).get_files())
    assert len(files) == 3_000  # GitHub's files API stops at 3,000
    pages = [r for r in github_server.requests if r.path.endswith("/files")]
    assert len(pages) == 100  # PyGithub's default 30 per page, following rel="next"
    raw = requests.get(f"{github_server.api_url}/repos/o/r/pulls/{pr.number}/files?per_page=100&page=2",
                       timeout=5)
    assert len(raw.json()) == 100
    assert 'rel="next"' in raw.headers["Link"] and "page=30" in raw.headers["Link"]
    assert "per_page=101" not in raw.headers["Link"]


def test_per_page_is_capped_at_100_and_commits_at_250(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", commits=[f"commit {i}" for i in range(300)])
    url = f"{github_server.api_url}/repos/o/r/pulls/{pr.number}/commits?per_page=500"
    assert len(requests.get(url, timeout=5).json()) == 100
    commits = list(github_client(github_server).get_repo("o/r").get_pull(pr.number).get_commits())
    assert len(commits) == 250


def test_diff_media_type_and_its_300_file_limit(github_server: GitHubServer) -> None:
    small = github_server.add_pr("o/r", files=_files(2))
    big = github_server.add_pr("o/r", files=_files(301))
    headers = {"Accept": "application/vnd.github.diff"}
    ok = requests.get(f"{github_server.api_url}/repos/o/r/pulls/{small.number}", headers=headers, timeout=5)
    assert ok.status_code == 200 and ok.text.startswith("diff --git a/pkg/m0.py b/pkg/m0.py\n")
    assert files_from_patch(ok.text)[1].patch == "@@ -1 +1 @@\n-a1\n+b1"
    refused = requests.get(f"{github_server.api_url}/repos/o/r/pulls/{big.number}", headers=headers, timeout=5)
    assert refused.status_code == 406 and "maximum number of files (300)" in refused.json()["message"]


def test_comment_lifecycle_as_the_workflow_token(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r")
    issue = github_client(github_server).get_repo("o/r").get_issue(pr.number)
    created = issue.create_comment("first")
    assert created.user.login == WORKFLOW_LOGIN
    assert created.html_url.endswith(f"/o/r/pull/{pr.number}#issuecomment-{created.id}")
    created.edit("second")
    created.create_reaction("eyes")
    again = issue.get_comment(created.id)
    assert again.body == "second" and again.updated_at >= again.created_at
    assert [c.body for c in issue.get_comments()] == ["second"]
    again.delete()
    assert issue.get_comments().totalCount == 0


@pytest.mark.parametrize(
    ("setup", "status", "message"),
    [
        ("locked", 403, "Unable to create comment because issue is locked."),
        ("archived", 403, "Repository was archived so is read-only."),
        ("readonly", 403, "Resource not accessible by integration"),
        ("too_long", 422, "Validation Failed"),
    ],
)
def test_write_refusals(github_server: GitHubServer, setup: str, status: int, message: str) -> None:
    repo = github_server.add_repo("o/r", archived=setup == "archived")
    pr = github_server.add_pr("o/r", locked=setup == "locked")
    token = READONLY_TOKEN if setup == "readonly" else WORKFLOW_TOKEN
    body = "x" * 65_537 if setup == "too_long" else "hello"
    with pytest.raises(github.GithubException) as info:
        github_client(github_server, token).get_repo("o/r").get_issue(pr.number).create_comment(body)
    assert info.value.status == status and info.value.data["message"] == message
    assert repo.items[pr.number].comments == []


def test_exactly_65536_characters_is_accepted(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r")
    comment = github_client(github_server).get_repo("o/r").get_issue(pr.number).create_comment("x" * 65_536)
    assert len(comment.body) == 65_536


def test_identity_by_token(github_server: GitHubServer) -> None:
    with pytest.raises(github.GithubException) as info:
        _ = github_client(github_server, WORKFLOW_TOKEN).get_user().login
    assert info.value.status == 403
    assert github_client(github_server, PERSONAL_TOKEN).get_user().login == "octocat"
    with pytest.raises(github.BadCredentialsException):
        _ = github_client(github_server, "nope").get_user().login


def test_contents_per_ref_and_404(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", files={"main": {".github/CODEOWNERS": "* @o/core\n"}, "feature": {}})
    repo = github_client(github_server).get_repo("o/r")
    assert repo.get_contents(".github/CODEOWNERS", ref="main").decoded_content == b"* @o/core\n"
    with pytest.raises(github.UnknownObjectException):
        repo.get_contents(".github/CODEOWNERS", ref="feature")


def test_issues_labels_and_listing(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r")
    repo = github_client(github_server).get_repo("o/r")
    repo.create_label("readworthy: skim", "cccccc")
    issue = repo.create_issue("Reading list", body="…", labels=["digest"])
    issue.add_to_labels("readworthy: skim")
    issue.remove_from_labels("digest")
    assert [lb.name for lb in repo.get_issue(issue.number).labels] == ["readworthy: skim"]
    assert [i.number for i in repo.get_issues(labels=["readworthy: skim"])] == [issue.number]
    issue.edit(state="closed")
    assert repo.get_issues(state="open").totalCount == 0
    assert {lb.name for lb in repo.get_labels()} == {"readworthy: skim", "digest"}


def test_collaborator_permission(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", permissions={"alice": "write", "eve": "read"})
    repo = github_client(github_server).get_repo("o/r")
    assert repo.get_collaborator_permission("alice") == "write"
    assert repo.get_collaborator_permission("eve") == "read"
    assert repo.get_collaborator_permission("mallory") == "none"


def test_search_merged_since(github_server: GitHubServer) -> None:
    github_server.add_pr("o/r", "old", merged=True, merged_at="2026-05-01T10:00:00Z")
    new = github_server.add_pr("o/r", "new", merged=True, merged_at="2026-06-10T10:00:00Z")
    github_server.add_pr("o/r", "open one")
    github_server.add_issue("o/r", "an issue")
    found = github_client(github_server).search_issues("repo:o/r is:pr is:merged merged:>=2026-06-01")
    assert [i.number for i in found] == [new.number]


def test_list_pulls_sorted_and_paginated(github_server: GitHubServer) -> None:
    for i in range(35):
        github_server.add_pr("o/r", f"pr {i}", state="closed" if i % 2 else "open")
    repo = github_client(github_server).get_repo("o/r")
    assert repo.get_pulls(state="all").totalCount == 35
    opened = list(repo.get_pulls(state="open", sort="created", direction="asc"))
    assert [p.title for p in opened[:2]] == ["pr 0", "pr 2"] and len(opened) == 18


def test_injected_faults_are_consumed_and_logged(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r")
    github_server.inject("GET", r"/pulls/\d+$", status=502, times=2)
    github_server.inject("POST", r"/comments$", status=403, headers={"Retry-After": "0"},
                         body={"message": "You have exceeded a secondary rate limit."})
    url = f"{github_server.api_url}/repos/o/r/pulls/{pr.number}"
    assert [requests.get(url, timeout=5).status_code for _ in range(3)] == [502, 502, 200]
    refused = requests.post(f"{github_server.api_url}/repos/o/r/issues/{pr.number}/comments",
                            json={"body": "x"}, headers={"Authorization": f"token {WORKFLOW_TOKEN}"}, timeout=5)
    assert refused.status_code == 403 and refused.headers["Retry-After"] == "0"
    assert github_server.count("GET", r"/pulls/\d+$") == 3
    assert [r.status for r in github_server.requests] == [502, 502, 200, 403]


def test_dropped_connection_and_delay(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r")
    url = f"{github_server.api_url}/repos/o/r/pulls/{pr.number}"
    github_server.inject("GET", r"/pulls/", drop=True)
    with pytest.raises(requests.ConnectionError):
        requests.get(url, timeout=5)
    github_server.inject("GET", r"/pulls/", status=None, delay=0.5)
    with pytest.raises(requests.Timeout):
        requests.get(url, timeout=0.1)


def test_seeded_discussed_pr_over_rest(github_server: GitHubServer) -> None:
    seeded = seed_discussed_pr(github_server)
    pull = github_client(github_server).get_repo(seeded.repo).get_pull(seeded.number)
    assert [r.state for r in pull.get_reviews()] == ["CHANGES_REQUESTED", "APPROVED"]
    inline = list(pull.get_review_comments())
    assert len(inline) == 6 and inline[1].in_reply_to_id == inline[0].id
    assert inline[0].diff_hunk.startswith("@@")
    assert any("<!-- readworthy:" in c.body for c in pull.get_issue_comments())


# --------------------------------------------------------------------------- GraphQL (GitHub's real schema)

PR_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      title state isDraft author { __typename login }
      comments(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { body } }
      reviewThreads(first: 10) { nodes { path line isResolved isOutdated comments(first: 10) { nodes { body } } } }
      closingIssuesReferences(first: 10) { nodes { number title state } }
      timelineItems(first: 10, itemTypes: [CROSS_REFERENCED_EVENT]) {
        nodes { ... on CrossReferencedEvent { source { __typename ... on PullRequest { number } } } }
      }
    }
  }
}
"""


@pytest.fixture
def gql_schema() -> object:
    from servers.github_graphql import graphql_schema_or_skip

    return graphql_schema_or_skip()


def test_graphql_executes_against_the_real_schema(github_server: GitHubServer, gql_schema: object) -> None:
    seeded = seed_discussed_pr(github_server)
    gh = github_client(github_server)
    variables = {"owner": "vllm-project", "name": "vllm", "number": seeded.number, "after": None}
    _, data = gh.requester.graphql_query(PR_QUERY, variables)
    assert data["data"]["viewer"]["login"] == WORKFLOW_LOGIN
    pr = data["data"]["repository"]["pullRequest"]
    assert pr["state"] == "OPEN" and pr["author"] == {"__typename": "User", "login": "alice"}
    assert pr["comments"]["totalCount"] == 6 and pr["comments"]["pageInfo"]["hasNextPage"]
    threads = pr["reviewThreads"]["nodes"]
    assert [(t["isResolved"], t["isOutdated"], len(t["comments"]["nodes"])) for t in threads] == [
        (True, False, 3), (False, False, 2), (False, True, 1)]
    assert threads[2]["line"] is None  # outdated: the line is gone from the current diff
    assert {n["number"] for n in pr["closingIssuesReferences"]["nodes"]} == {
        seeded.fixes_issue, seeded.closing_only_issue}
    assert pr["timelineItems"]["nodes"][0]["source"] == {"__typename": "PullRequest", "number": seeded.cross_ref_pr}
    variables["after"] = pr["comments"]["pageInfo"]["endCursor"]
    _, page2 = gh.requester.graphql_query(PR_QUERY, variables)
    bodies = [n["body"] for n in page2["data"]["repository"]["pullRequest"]["comments"]["nodes"]]
    assert bodies == ["<!-- readworthy:state v1 -->\n**readworthy**: skim — an earlier run's comment.", "LGTM"]


def test_graphql_bot_logins_drop_the_bot_suffix(github_server: GitHubServer, gql_schema: object) -> None:
    pr = github_server.add_pr("o/r")
    github_server.add_comment("o/r", pr.number, "github-actions[bot]", "hi")
    query = (f'query {{ repository(owner: "o", name: "r") {{ pullRequest(number: {pr.number}) {{'
             " comments(first: 5) { nodes { author { __typename login } } } } } }")
    _, data = github_client(github_server).requester.graphql_query(query, {})
    author = data["data"]["repository"]["pullRequest"]["comments"]["nodes"][0]["author"]
    assert author == {"__typename": "Bot", "login": "github-actions"}


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("query { viewer { logn } }", "Cannot query field 'logn' on type 'User'"),
        ('query { repository(owner: "o", name: "r") { pullRequest(number: 1) { comments { totalCount } } } }',
         "You must provide a `first` or `last` value"),
        (('query { repository(owner: "o", name: "r") { pullRequest(number: 1) { comments(first: 101) '
          "{ totalCount } } } }"), "exceeds the `first` limit of 100 records"),
        (('query { repository(owner: "o", name: "r") { pullRequest(number: 1) { reviewThreads(first: 100) {'
          " nodes { comments(first: 100) { nodes { reactions(first: 100) { totalCount } } } } } } } }"),
         "exceeds the maximum limit of 500,000"),
    ],
)
def test_graphql_refuses_what_github_refuses(
    github_server: GitHubServer, gql_schema: object, query: str, fragment: str
) -> None:
    github_server.add_pr("o/r")
    with pytest.raises(github.GithubException) as info:
        github_client(github_server).requester.graphql_query(query, {})
    assert fragment in info.value.data["errors"][0]["message"]


def test_graphql_not_found_is_typed(github_server: GitHubServer, gql_schema: object) -> None:
    github_server.add_repo("o/r")
    query = 'query { repository(owner: "o", name: "r") { pullRequest(number: 9) { title } } }'
    with pytest.raises(github.UnknownObjectException) as info:
        github_client(github_server).requester.graphql_query(query, {})
    assert info.value.data["errors"][0]["type"] == "NOT_FOUND"


def test_graphql_base_branch_files_and_discussions(github_server: GitHubServer, gql_schema: object) -> None:
    github_server.add_repo("o/r", files={"main": {".github/CODEOWNERS": "* @o/core\n"}},
                           discussion_categories=["Reading list"])
    gh = github_client(github_server)
    query = """query { repository(owner: "o", name: "r") { id
      object(expression: "main:.github/CODEOWNERS") { ... on Blob { text } }
      missing: object(expression: "main:CODEOWNERS") { ... on Blob { text } }
      discussionCategories(first: 10) { nodes { id name } } } }"""
    _, data = gh.requester.graphql_query(query, {})
    repo = data["data"]["repository"]
    assert repo["object"] == {"text": "* @o/core\n"} and repo["missing"] is None
    category = repo["discussionCategories"]["nodes"][0]
    mutation = """mutation($input: CreateDiscussionInput!) {
      createDiscussion(input: $input) { discussion { number title url } } }"""
    inp = {"repositoryId": repo["id"], "categoryId": category["id"], "title": "Weekly reading", "body": "…"}
    _, created = gh.requester.graphql_query(mutation, {"input": inp})
    discussion = created["data"]["createDiscussion"]["discussion"]
    assert discussion["url"] == f"{github_server.html_url}/o/r/discussions/{discussion['number']}"
    with pytest.raises(github.GithubException) as info:
        github_client(github_server, READONLY_TOKEN).requester.graphql_query(mutation, {"input": inp})
    assert info.value.data["errors"][0]["type"] == "FORBIDDEN"


def test_graphql_search_merged_prs(github_server: GitHubServer, gql_schema: object) -> None:
    merged = github_server.add_pr("o/r", "merged", merged=True, merged_at="2026-06-10T10:00:00Z")
    github_server.add_pr("o/r", "open")
    query = """query($q: String!) { search(query: $q, type: ISSUE, first: 50) { issueCount
      nodes { ... on PullRequest { number mergedAt } } } }"""
    _, data = github_client(github_server).requester.graphql_query(
        query, {"q": "repo:o/r is:pr is:merged merged:>=2026-06-01"})
    assert data["data"]["search"]["issueCount"] == 1
    assert data["data"]["search"]["nodes"] == [{"number": merged.number, "mergedAt": "2026-06-10T10:00:00Z"}]


def test_compare_base_head_caps_files_at_300(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", files=_files(320), commits=["one", "two"])
    url = f"{github_server.api_url}/repos/o/r/compare/{pr.base_sha}...{pr.head_sha}"
    data = requests.get(url, timeout=5).json()
    assert (data["total_commits"], len(data["commits"]), len(data["files"])) == (2, 2, 300)
    assert requests.get(url.replace(pr.head_sha, "f" * 40), timeout=5).status_code == 404



def test_percent_encoded_path_parameters_are_decoded(github_server: GitHubServer) -> None:
    """PyGithub sends DELETE .../labels/readworthy%3Askim; like GitHub, the server must find `readworthy:skim`."""
    pr = github_server.add_pr("o/r", "Title", "Body", files=_files(1), labels=["readworthy:skim", "cpu"])
    issue = github_client(github_server).get_repo("o/r").get_issue(pr.number)
    issue.remove_from_labels("readworthy:skim")
    assert [lb.name for lb in issue.repository.get_issue(pr.number).labels] == ["cpu"]
