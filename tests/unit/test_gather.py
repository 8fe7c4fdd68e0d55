"""gather_pr through PyGithub over real HTTP against the test GitHub server (GraphQL on GitHub's schema)."""

from __future__ import annotations

import time

import pytest
from graphql import parse, validate
from servers.github_fixtures import (
    PERSONAL_TOKEN,
    WORKFLOW_TOKEN,
    GitHubServer,
    ItemRef,
    PRFile,
    seed_discussed_pr,
)
from servers.github_graphql import graphql_schema_or_skip

from readworthy.config import RepoConfig, Settings, build_settings
from readworthy.errors import GitHubError
from readworthy.gather.github_api import graphql, graphql_reader, make_github, own_login
from readworthy.gather.memory import MEMORY_QUERY, RECORDS_QUERY
from readworthy.gather.pull import gather_pr
from readworthy.gather.queries import (
    CORE_QUERY,
    PAGED_CONNECTIONS,
    PULL_REQUEST_QUERY,
    VIEWER_QUERY,
    linked_items_query,
    more_pages_query,
    thread_comments_query,
)
from readworthy.models import FileStatus, LinkKind, ReviewState


@pytest.fixture(autouse=True)
def _schema() -> None:
    graphql_schema_or_skip()


def _settings(server: GitHubServer, token: str = WORKFLOW_TOKEN, **extra: object) -> Settings:
    return build_settings({"github_api_url": server.api_url, "github_token": token, **extra})


def _gather(server: GitHubServer, repo: str, number: int, **extra: object):  # type: ignore[no-untyped-def]
    settings = _settings(server, **extra)
    server.clear_log()
    return gather_pr(make_github(settings), repo, number, settings)


def test_every_query_is_valid_against_githubs_schema() -> None:
    schema = graphql_schema_or_skip()
    queries = [
        PULL_REQUEST_QUERY,
        VIEWER_QUERY,
        more_pages_query({f: 100 for f in PAGED_CONNECTIONS}),
        CORE_QUERY,
        MEMORY_QUERY,
        RECORDS_QUERY,
        thread_comments_query(3),
        linked_items_query([("o/r", [(1, True), (2, False)]), ("x/y", [(3, True)])]),
    ]
    for q in queries:
        assert validate(schema, parse(q)) == [], q


def test_discussed_pr_is_gathered_completely_in_three_requests(github_server: GitHubServer) -> None:
    seeded = seed_discussed_pr(github_server)
    ctx = _gather(github_server, seeded.repo, seeded.number)

    assert len(github_server.requests) == 3
    assert [(r.method, r.path) for r in github_server.requests][1] == (
        "GET", f"/repos/{seeded.repo}/pulls/{seeded.number}/files")
    assert ctx.title.startswith("[Core] Cap OMP") and ctx.author == "alice" and not ctx.author_is_bot
    assert ctx.url == f"{github_server.html_url}/{seeded.repo}/pull/{seeded.number}"
    assert [f.path for f in ctx.files] == [f.filename for f in seeded.pr.files]
    assert ctx.files[1].status is FileStatus.ADDED and ctx.files[0].patch == seeded.pr.files[0].patch
    assert (ctx.changed_files, ctx.additions, ctx.deletions) == (3, 28, 1)
    # discussion: only what a reader needs; noise counted
    assert [c.author for c in ctx.comments] == ["bob", "alice"]
    assert "deprecate" in ctx.comments[0].body
    assert ctx.noise_counts == {"bot": 1, "command": 1, "own": 1, "lgtm": 1}
    assert [(r.author, r.state) for r in ctx.reviews] == [
        ("bob", ReviewState.CHANGES_REQUESTED), ("erin", ReviewState.APPROVED)]
    debate = [t for t in ctx.threads if not t.is_outdated]
    assert [(t.path, t.is_resolved, [c.author for c in t.comments]) for t in debate] == [
        (seeded.debate_paths[0], True, ["bob", "alice", "bob"]),
        (seeded.debate_paths[1], False, ["erin", "alice"]),
    ]
    assert debate[0].diff_hunk.startswith("@@ -40,7 +40,12 @@") and debate[0].line == 42
    assert [t.line for t in ctx.threads if t.is_outdated] == [40]  # original line kept for outdated threads
    # linked issues: via "Fixes #" and via closing references only; bot comments dropped from them
    by_number = {i.number: i for i in ctx.linked_issues}
    assert set(by_number) == {seeded.fixes_issue, seeded.closing_only_issue}
    root_cause = by_number[seeded.fixes_issue]
    assert "4x224 = 896" in root_cause.body and root_cause.labels == ["bug", "cpu"]
    assert [c.author for c in root_cause.comments] == ["reporter", "maintainer-a"]
    # related: the cross-referencing PR and the issue a commit message mentions
    related = {(r.number, r.kind, r.is_pull_request) for r in ctx.related}
    assert related == {(seeded.cross_ref_pr, LinkKind.CROSS_REFERENCED, True),
                       (seeded.mentioned_issue, LinkKind.MENTIONED, False)}
    # commits, owners from the base branch's CODEOWNERS
    assert ctx.commit_count == 2 and len(ctx.commits) == 2
    assert ctx.owners == {"@vllm-project/mrv2": ["vllm/v1/worker/cpu_worker.py"],
                          "@vllm-project/docs": ["docs/usage/cpu.md"]}
    assert ctx.gather_notes == []


def test_text_references_across_repositories_are_looked_up(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r")
    local = github_server.add_issue("o/r", "Local bug", "root cause A", comments=[("u", "detail")])
    other = github_server.add_issue("up/stream", "Upstream bug", "root cause B", labels=["upstream"])
    via_url = github_server.add_issue("up/stream", "Third", "root cause C")
    mentioned_pr = github_server.add_pr("o/r", "Earlier attempt")
    body = (f"Fixes #{local.number}. Also closes up/stream#{other.number} and resolves "
            f"https://github.com/up/stream/issues/{via_url.number}. See #{mentioned_pr.number}; "
            "fixes #999 (typo). `Fixes #12345` in code is not a link.")
    pr = github_server.add_pr("o/r", "Fix", body)
    ctx = _gather(github_server, "o/r", pr.number)
    assert [(i.repo, i.number, i.body) for i in ctx.linked_issues] == [
        ("", local.number, "root cause A"), ("up/stream", other.number, "root cause B"),
        ("up/stream", via_url.number, "root cause C")]
    assert ctx.linked_issues[0].comments[0].body == "detail"
    assert [(r.number, r.is_pull_request, r.title) for r in ctx.related] == [
        (mentioned_pr.number, True, "Earlier attempt")]
    assert ctx.gather_notes == ["1 referenced issue(s) not found or not visible to the token"]
    assert len(github_server.requests) == 3


def test_long_discussion_is_paged_in_batched_rounds(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", files=[PRFile("a.py", additions=1, patch="@@ -0,0 +1 @@\n+x")],
                              commits=[f"step {i}" for i in range(260)])
    for i in range(230):
        github_server.add_comment("o/r", pr.number, f"user{i % 7}", f"point {i}")
    for i in range(130):
        github_server.add_thread("o/r", pr.number, "a.py", 1, [("rev", f"thread {i}"), ("alice", f"answer {i}")])
    for i in range(105):
        github_server.add_review("o/r", pr.number, f"rev{i}", "COMMENTED", f"review {i}")
    ctx = _gather(github_server, "o/r", pr.number)
    assert [c.body for c in ctx.comments] == [f"point {i}" for i in range(230)]
    assert len(ctx.threads) == 130 and ctx.threads[-1].comments[1].body == "answer 129"
    assert len(ctx.reviews) == 105
    assert ctx.commit_count == 250 and len(ctx.commits) == 250  # GitHub stops listing at 250
    graphql_calls = github_server.count("POST", "/graphql")
    assert graphql_calls == 3  # first page + two rounds (comments need 3 pages; the rest ride along)
    assert len(github_server.requests) == graphql_calls + 1


def test_more_than_3000_files_says_what_is_missing(github_server: GitHubServer) -> None:
    files = [PRFile(f"pkg/m{i}.py", additions=1, patch=f"@@ -0,0 +1 @@\n+v{i}") for i in range(3_210)]
    pr = github_server.add_pr("o/r", files=files)
    ctx = _gather(github_server, "o/r", pr.number)
    assert len(ctx.files) == 3_000 and ctx.changed_files == 3_210
    assert ctx.gather_notes == [
        "210 of 3,210 changed files are not listed (GitHub's files API caps the list at 3,000); they are not in this reading"
    ]
    assert len(github_server.requests) == 31  # 1 GraphQL + 30 pages of 100; no futile diff request
    assert github_server.count("GET", r"/files$") == 30


def test_patches_github_omits_come_from_the_diff(github_server: GitHubServer) -> None:
    big = "@@ -1,2 +1,2 @@\n-old\n+new\n context"
    files = [
        PRFile("src/huge.py", additions=1, deletions=1, patch=big, patch_omitted=True),
        PRFile("assets/logo.png", status="added", binary=True),
        PRFile("src/moved.py", status="renamed", previous_filename="src/old.py"),
    ]
    pr = github_server.add_pr("o/r", files=files)
    ctx = _gather(github_server, "o/r", pr.number)
    assert ctx.files[0].patch == big
    assert ctx.files[1].binary and ctx.files[1].patch is None
    assert ctx.files[2].status is FileStatus.RENAMED and ctx.files[2].previous_path == "src/old.py"
    assert not ctx.files[2].binary
    diff_request = github_server.requests[2]
    assert diff_request.headers["accept"] == "application/vnd.github.diff"
    assert ctx.gather_notes == ["1 large patch(es) taken from the full diff"]


def test_a_patch_cut_off_in_the_full_diff_stays_flagged_incomplete(github_server: GitHubServer) -> None:
    cut = "@@ -1,6 +1,6 @@\n-old\n+new\n context"  # the hunk promises 6 lines and holds 3
    pr = github_server.add_pr("o/r", files=[PRFile("src/huge.py", additions=1, deletions=1, patch=cut,
                                                   patch_omitted=True)])
    ctx = _gather(github_server, "o/r", pr.number)
    assert ctx.files[0].patch is not None and "+new" in ctx.files[0].patch
    assert ctx.files[0].patch_incomplete


def test_omitted_patches_beyond_diff_limits_are_listed_with_stats(github_server: GitHubServer) -> None:
    files = [PRFile("gen/big.json", additions=25_000, patch="@@ -0,0 +1 @@\n+{", patch_omitted=True)]
    pr = github_server.add_pr("o/r", files=files)
    ctx = _gather(github_server, "o/r", pr.number)
    assert ctx.files[0].patch is None and ctx.files[0].additions == 25_000 and not ctx.files[0].binary
    assert "listed with line counts only" in ctx.gather_notes[0]
    assert github_server.count("GET", r"/pulls/\d+$") == 0


def test_ignore_authors_and_bot_pr_author(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", "Bump torch", user="dependabot[bot]")
    github_server.add_comment("o/r", pr.number, "mergify", "Queued.")
    github_server.add_comment("o/r", pr.number, "alice", "This pins CUDA 12.8; the wheel matrix changes.")
    ctx = _gather(github_server, "o/r", pr.number, repo_config=RepoConfig(ignore_authors=["Mergify"]))
    assert ctx.author == "dependabot[bot]" and ctx.author_is_bot
    assert [c.author for c in ctx.comments] == ["alice"] and ctx.noise_counts == {"bot": 1}


def test_areas_from_config(github_server: GitHubServer) -> None:
    files = [PRFile("vllm/v1/worker/gpu.py", additions=1), PRFile(".buildkite/rocm.yaml", additions=1)]
    pr = github_server.add_pr("o/r", files=files)
    areas = {"vllm/v1/**": "V1 engine", "vllm/v1/worker/**": "MRV2 / worker", ".buildkite/*rocm*": "ROCm CI"}
    ctx = _gather(github_server, "o/r", pr.number, repo_config=RepoConfig(areas=areas))
    assert ctx.areas == {"MRV2 / worker": ["vllm/v1/worker/gpu.py"], "ROCm CI": [".buildkite/rocm.yaml"]}
    assert ctx.owners == {}  # no CODEOWNERS on the base branch


def test_codeowners_come_from_the_base_branch_only(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", files={
        "main": {"docs/CODEOWNERS": "* @o/docs-owners\n", "CODEOWNERS": "* @o/root-owners\n"},
        "feature": {".github/CODEOWNERS": "* @attacker\n"},
    })
    pr = github_server.add_pr("o/r", files=[PRFile("x.py", additions=1)], head_ref="feature")
    ctx = _gather(github_server, "o/r", pr.number)
    assert ctx.owners == {"@o/root-owners": ["x.py"]}  # root wins over docs/; the head branch is ignored


def test_closed_merged_draft_locked_flags(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", merged=True, merged_at="2026-06-02T00:00:00Z", locked=True, labels=["x"])
    ctx = _gather(github_server, "o/r", pr.number)
    assert (ctx.state, ctx.merged, ctx.locked, ctx.merged_at, ctx.labels) == (
        "closed", True, True, "2026-06-02T00:00:00Z", ["x"])
    draft = github_server.add_pr("o/r", draft=True)
    assert _gather(github_server, "o/r", draft.number).draft


def test_cross_repository_closing_reference(github_server: GitHubServer) -> None:
    issue = github_server.add_issue("up/stream", "Upstream", "body")
    pr = github_server.add_pr("o/r")
    pr.closing_issues.append(ItemRef("up/stream", issue.number))
    ctx = _gather(github_server, "o/r", pr.number)
    assert [(i.repo, i.number) for i in ctx.linked_issues] == [("up/stream", issue.number)]
    assert len(github_server.requests) == 2  # nothing referenced in text: no third request


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        ("missing_pr", "Could not resolve to a PullRequest with the number of 77"),
        ("missing_repo", "Could not resolve to a Repository"),
        ("bad_token", "GitHub rejected the token"),
        ("files_500", "GitHub failed while listing the files"),
    ],
)
def test_failures_are_clear_errors(github_server: GitHubServer, setup: str, fragment: str) -> None:
    pr = github_server.add_pr("o/r")
    number = 77 if setup == "missing_pr" else pr.number
    repo = "o/missing" if setup == "missing_repo" else "o/r"
    token = "ghp_not_a_real_token_1234" if setup == "bad_token" else WORKFLOW_TOKEN
    if setup == "files_500":
        github_server.inject("GET", r"/files$", status=500, times=None)
    settings = _settings(github_server, token)
    with pytest.raises(GitHubError) as info:
        gather_pr(make_github(settings), repo, number, settings)
    assert fragment in str(info.value)
    assert "ghp_not_a_real_token" not in str(info.value)


@pytest.mark.parametrize("number", [403, 429])
def test_server_errors_are_not_called_a_rate_limit_when_the_url_holds_403_or_429(
        github_server: GitHubServer, number: int) -> None:
    """The retries' error text names the URL (and the server's port): a 500 on PR #429's files once read as a
    rate limit because "429" was in that text. The status code decides."""
    pr = github_server.add_pr("o/r", number=number)
    github_server.inject("GET", r"/files$", status=500, times=None)
    settings = _settings(github_server)
    with pytest.raises(GitHubError) as info:
        gather_pr(make_github(settings), "o/r", pr.number, settings)
    assert "server errors" in str(info.value)
    assert "rate limit" not in str(info.value)


def test_a_rate_limit_that_outlasts_the_retries_is_named(github_server: GitHubServer) -> None:
    """A 403 with Retry-After is retried (a secondary rate limit); still refused after the retries, it is
    named a rate limit from its status."""
    pr = github_server.add_pr("o/r")
    github_server.inject("GET", r"/files$", status=403, times=None, headers={"Retry-After": "0"},
                         body={"message": "Forbidden"})
    settings = _settings(github_server)
    with pytest.raises(GitHubError) as info:
        gather_pr(make_github(settings), "o/r", pr.number, settings)
    assert "rate limit" in str(info.value) and "still limited" in str(info.value)


def test_transient_errors_are_retried(github_server: GitHubServer) -> None:
    pr = github_server.add_pr("o/r", files=[PRFile("a.py", additions=1, patch="@@ -0,0 +1 @@\n+x")])
    github_server.inject("GET", r"/files$", status=502, times=1)
    github_server.inject("POST", r"/graphql$", status=503, times=1)
    ctx = _gather(github_server, "o/r", pr.number)
    assert [f.path for f in ctx.files] == ["a.py"]
    assert [r.status for r in github_server.requests] == [503, 200, 502, 200]


def test_own_login_for_each_kind_of_token(github_server: GitHubServer) -> None:
    workflow = _settings(github_server, WORKFLOW_TOKEN)
    assert own_login(make_github(workflow), workflow) == "github-actions[bot]"
    personal = _settings(github_server, PERSONAL_TOKEN)
    assert own_login(make_github(personal), personal) == "octocat"
    override = _settings(github_server, WORKFLOW_TOKEN, own_login="my-app[bot]")
    github_server.clear_log()
    assert own_login(make_github(override), override) == "my-app[bot]"
    assert github_server.requests == []


def test_own_login_falls_back_to_rest_then_names_the_override(github_server: GitHubServer) -> None:
    github_server.inject("POST", r"/graphql$", status=404, times=None, body={"message": "Not Found"})
    personal = _settings(github_server, PERSONAL_TOKEN)
    assert own_login(make_github(personal), personal) == "octocat"
    workflow = _settings(github_server, WORKFLOW_TOKEN)
    with pytest.raises(GitHubError, match="READWORTHY_OWN_LOGIN"):  # from a terminal, its variable (issue 23)
        own_login(make_github(workflow), workflow)
    in_action = workflow.model_copy(update={"run_from": "action"})
    with pytest.raises(GitHubError, match="the `own-login` input"):
        own_login(make_github(in_action), in_action)


def test_make_github_does_not_space_reads_but_spaces_writes(github_server: GitHubServer) -> None:
    settings = _settings(github_server, github_timeout=7.5)
    gh = make_github(settings)
    assert gh.requester.base_url == github_server.api_url
    assert gh.requester.graphql_url == settings.graphql_url == github_server.graphql_url
    pr = github_server.add_pr("o/r")
    start = time.monotonic()
    for _ in range(12):
        gh.requester.requestJsonAndCheck("GET", f"/repos/o/r/issues/{pr.number}")
    assert time.monotonic() - start < 1.0  # PyGithub's default 0.25 s spacing would take 3 s
    reader = graphql_reader(gh)
    start = time.monotonic()
    for _ in range(4):
        graphql(reader, settings, VIEWER_QUERY, {}, "asking who we are")
    assert time.monotonic() - start < 1.0  # GraphQL queries are POSTs but reads: not spaced like writes
    issue = gh.get_repo("o/r").get_issue(pr.number)
    start = time.monotonic()
    issue.create_comment("one")
    issue.create_comment("two")
    assert time.monotonic() - start >= 0.45  # writes stay spaced against secondary rate limits
