"""GitHub failing in ordinary ways, against the test GitHub server over real HTTP (issue 8, "Faults").

Every row of the matrix ends in one of two places:
  - retried within a bounded time and the review is published (exactly one comment), or
  - a clean, labelled failure: a log line that names the cause, the documented exit code
    (`fail-on-error`: 0 by default, 1 when true), and the existing comment left exactly as it was.
Waits are kept short: Retry-After values of 1 s and, where a timeout is the fault, Settings with
a 1 s GitHub timeout (the action itself uses 30 s).

test_action_faults.py (publish/triggers) covers the fork token, locked PRs, 403/422 on create,
archived repositories, spoofed markers and concurrent runs; this file covers the transport faults.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import requests
from action_run import REPO, action_env, own_comments, pr_payload, run
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN, PRFile, PullRequest

from readworthy.config import Settings, build_settings
from readworthy.gather import github_api
from readworthy.review import Request, ReviewSession, review_one

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
             "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}
PRIMARY = {"message": "API rate limit exceeded for installation ID 4242.",
           "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}
PULL = r"/pulls/\d+$"  # only read when the event payload does not describe the PR (dispatch, comments)
CONFIG_GET = r"/contents/\.github/readworthy\.yml$"
FILES = r"/pulls/\d+/files$"
GRAPHQL = r"^/graphql$"
LIST_COMMENTS = r"/issues/\d+/comments$"
EDIT_COMMENT = r"/issues/comments/\d+$"
# A bound on any single faulted run: three retries of 1 s waits plus the normal work.
RUN_BOUND_S = 15.0


def primary_headers(reset_in: float) -> dict[str, str]:
    return {"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "1000",
            "X-RateLimit-Reset": str(int(time.time() + reset_in))}


@pytest.fixture(scope="module", autouse=True)
def _warm_graphql_schema() -> None:
    """The test server loads GitHub's GraphQL schema on its first query (~2 s, once per process).
    Warm it so that 1-second client timeouts below measure the fault, not the schema load."""
    server = GitHubServer().start()
    try:
        requests.post(server.graphql_url, json={"query": "query { viewer { login } }"},
                      headers={"Authorization": f"token {WORKFLOW_TOKEN}"}, timeout=60)
    finally:
        server.stop()


def simple_pr(server: GitHubServer, title: str = "Retry the model download once on 503") -> PullRequest:
    return server.add_pr(REPO, title, "Retries once on 503, then gives up with a clear error.", user="alice",
                         files=[PRFile("vllm/model_executor/download.py", additions=3, deletions=1,
                                       patch="@@ -10,2 +10,4 @@ def fetch(url):\n-    return get(url)\n"
                                             "+    for attempt in range(2):\n+        try:\n"
                                             "+            return get(url)\n")])


def small_settings(server: GitHubServer, **extra: Any) -> Settings:
    # review_one is given no model client here: say so in the settings too (no GitHub Models default)
    return build_settings({"github_token": WORKFLOW_TOKEN, "github_api_url": server.api_url,
                           "github_graphql_url": server.graphql_url, "github_timeout": 1,
                           "github_models": False, **extra})


def review(server: GitHubServer, pr: PullRequest, **extra: Any):  # type: ignore[no-untyped-def]
    settings = small_settings(server, **extra)
    session = ReviewSession(github_api.make_github(settings), None, REPO, settings, WORKFLOW_LOGIN)
    return review_one(session, pr.number, Request(force=True))


# --------------------------------------------------------------------------- recovered by retrying


TRANSIENT_FAULTS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("rest-500", "GET", CONFIG_GET, {"status": 500, "times": 2}),
    ("rest-502-files", "GET", FILES, {"status": 502, "times": 2}),
    ("rest-503-comments", "GET", LIST_COMMENTS, {"status": 503, "times": 1}),
    ("graphql-502", "POST", GRAPHQL, {"status": 502, "times": 2}),
    ("graphql-503", "POST", GRAPHQL, {"status": 503, "times": 1}),
    ("secondary-403-retry-after", "POST", GRAPHQL,
     {"status": 403, "headers": {"Retry-After": "1"}, "body": SECONDARY, "times": 1}),
    ("secondary-429-retry-after", "GET", FILES,
     {"status": 429, "headers": {"Retry-After": "1"}, "body": SECONDARY, "times": 1}),
    ("primary-rate-limit-reset-soon", "GET", FILES,
     {"status": 403, "headers": "primary:1", "body": PRIMARY, "times": 1}),
    ("connection-dropped", "GET", LIST_COMMENTS, {"drop": True, "times": 1}),
]


@pytest.mark.parametrize(("method", "path", "fault"), [f[1:] for f in TRANSIENT_FAULTS],
                         ids=[f[0] for f in TRANSIENT_FAULTS])
def test_transient_fault_is_retried_and_the_review_published(
    method: str, path: str, fault: dict[str, Any], github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = simple_pr(github_server)
    fault = dict(fault)
    if fault.get("headers") == "primary:1":
        fault["headers"] = primary_headers(1)
    github_server.inject(method, path, **fault)
    started = time.monotonic()
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened")))
    elapsed = time.monotonic() - started
    assert result.code == 0, result.stdout
    assert len(own_comments(github_server, pr.number)) == 1
    assert result.outputs["comment-url"] and result.outputs["verdict"] in ("deep-read", "skim", "skip")
    assert github_server.count(method, path) >= fault["times"] + 1  # the fault was met, then retried
    assert elapsed < RUN_BOUND_S
    assert "Traceback" not in result.stdout


def test_secondary_rate_limit_waits_for_retry_after(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("GET", PULL, status=403, headers={"Retry-After": "1"}, body=SECONDARY, times=1)
    started = time.monotonic()
    outcome = review(github_server, pr)
    assert outcome.status == "published"
    assert time.monotonic() - started >= 1.0  # Retry-After was honoured, not hammered


# --------------------------------------------------------------------------- given up: clean failure


PERSISTENT_FAULTS: list[tuple[str, str, str, dict[str, Any], str]] = [
    # id, method, path, fault, words the failure message must contain (case-insensitive)
    ("rest-500-retry-error", "GET", LIST_COMMENTS, {"status": 500}, "github"),
    ("rest-503-files", "GET", FILES, {"status": 503}, "github"),
    ("graphql-502", "POST", GRAPHQL, {"status": 502}, "github"),
    ("comments-list-dropped", "GET", LIST_COMMENTS, {"drop": True}, "github"),
    ("secondary-rate-limit", "POST", GRAPHQL,
     {"status": 403, "headers": {"Retry-After": "1"}, "body": SECONDARY}, "rate limit"),
    ("primary-rate-limit-reset-in-an-hour", "GET", FILES,
     {"status": 403, "headers": "primary:3600", "body": PRIMARY}, "rate limit"),
    ("graphql-rate-limited-200", "POST", GRAPHQL, {"status": 200, "body": {"data": None, "errors": [
        {"type": "RATE_LIMITED", "message": "API rate limit exceeded for installation ID 1."}]}}, "rate limit"),
    ("retry-after-an-hour", "POST", GRAPHQL,
     {"status": 429, "headers": {"Retry-After": "3600"}, "body": SECONDARY}, "rate limit"),
]


@pytest.mark.parametrize("fail_on_error", ["false", "true"])
@pytest.mark.parametrize(("method", "path", "fault", "words"), [f[1:] for f in PERSISTENT_FAULTS],
                         ids=[f[0] for f in PERSISTENT_FAULTS])
def test_persistent_fault_fails_cleanly_and_keeps_the_comment(
    method: str, path: str, fault: dict[str, Any], words: str, fail_on_error: str,
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = simple_pr(github_server)
    first = run(monkeypatch, capsys, action_env(github_server, tmp_path / "ok", "pull_request_target",
                                                  pr_payload(pr, "opened")))
    assert first.code == 0
    [before] = own_comments(github_server, pr.number)
    body_before = before.body
    pr.title = "Retry the model download up to three times"  # a successful run would now edit the comment
    fault = dict(fault)
    if fault.get("headers") == "primary:3600":
        fault["headers"] = primary_headers(3600)
    github_server.inject(method, path, times=None, **fault)
    started = time.monotonic()
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path / "fault", "pull_request_target",
                                                   pr_payload(pr, "synchronize"),
                                                   inputs={"fail-on-error": fail_on_error, "force": "true"}))
    elapsed = time.monotonic() - started
    assert result.code == (1 if fail_on_error == "true" else 0)
    assert elapsed < RUN_BOUND_S, f"gave up only after {elapsed:.1f}s"
    [after] = own_comments(github_server, pr.number)
    assert after.id == before.id and after.body == body_before  # never replaced by an error, never emptied
    assert "Traceback" not in result.stdout
    # One annotation says what failed: per PR ("#1 failed: ...") or for the run (e.g. "who is the token").
    failure_lines = [line for line in result.stdout.splitlines()
                     if line.startswith(("::warning::readworthy:", "::error::readworthy:"))]
    assert failure_lines, result.stdout
    assert words in failure_lines[0].lower(), failure_lines[0]
    assert "❌" in result.summary
    leaked = [line for line in result.stdout.splitlines() if WORKFLOW_TOKEN in line and not line.startswith("::add-mask::")]
    assert leaked == [] and WORKFLOW_TOKEN not in result.summary


# --------------------------------------------------------------------------- timeouts (Settings: 1 s)


def test_one_slow_answer_is_retried(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("POST", GRAPHQL, status=None, delay=1.5, times=1)
    outcome = review(github_server, pr)
    assert outcome.status == "published"
    assert len(own_comments(github_server, pr.number)) == 1


def test_github_that_never_answers_in_time_fails_within_a_bound(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("GET", PULL, status=None, delay=1.5, times=None)
    started = time.monotonic()
    outcome = review(github_server, pr)
    elapsed = time.monotonic() - started
    assert outcome.status == "failed"
    assert "github" in outcome.message.lower() and "re-run" in outcome.message.lower()
    assert elapsed < 10, f"{elapsed:.1f}s"
    assert own_comments(github_server, pr.number) == []


# --------------------------------------------------------------------------- writes: never two comments


def test_create_whose_answer_is_lost_leaves_one_comment(github_server: GitHubServer) -> None:
    """GitHub creates the comment but the answer arrives after the client gave up (a read timeout).
    PyGithub's transport retries POSTs; a blind retry would leave two comments."""
    pr = simple_pr(github_server)
    github_server.inject("POST", LIST_COMMENTS, status=None, delay=1.6, times=1)
    outcome = review(github_server, pr)
    time.sleep(1.0)  # let the slow original request finish on the server
    comments = own_comments(github_server, pr.number)
    assert len(comments) == 1, [c.id for c in comments]
    assert outcome.status == "published" and outcome.comment is not None
    assert outcome.comment.id == comments[0].id


def test_create_answered_with_502_is_retried_once_without_duplicates(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("POST", LIST_COMMENTS, status=502, times=1)
    outcome = review(github_server, pr)
    assert outcome.status == "published"
    assert len(own_comments(github_server, pr.number)) == 1


def test_create_that_keeps_failing_is_a_clean_failure(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("POST", LIST_COMMENTS, status=502, times=None)
    outcome = review(github_server, pr)
    assert outcome.status == "failed" and "comment" in outcome.message
    assert own_comments(github_server, pr.number) == []
    assert github_server.count("POST", LIST_COMMENTS) <= 4  # bounded, not a retry storm


EDIT_FAULTS: list[tuple[str, dict[str, Any], str]] = [
    ("edit-403-read-only", {"status": 403, "body": {"message": "Resource not accessible by integration"}}, "blocked"),
    ("edit-422-locked", {"status": 422, "body": {"message": "Validation Failed", "errors": [
        {"resource": "IssueComment", "code": "unprocessable", "message": "Issue is locked"}]}}, "blocked"),
    ("edit-500", {"status": 500}, "failed"),
    ("edit-dropped", {"drop": True}, "failed"),
]


@pytest.mark.parametrize(("fault", "status"), [f[1:] for f in EDIT_FAULTS], ids=[f[0] for f in EDIT_FAULTS])
def test_failed_edit_leaves_the_existing_comment_intact(
    fault: dict[str, Any], status: str, github_server: GitHubServer
) -> None:
    pr = simple_pr(github_server)
    assert review(github_server, pr).status == "published"
    [before] = own_comments(github_server, pr.number)
    body_before = before.body
    pr.title = "A different title, so the comment must be edited"
    github_server.inject("PATCH", EDIT_COMMENT, times=None, **fault)
    outcome = review(github_server, pr)
    assert outcome.status == status, outcome.message
    assert outcome.message
    [after] = own_comments(github_server, pr.number)
    assert after.id == before.id and after.body == body_before


def test_one_failed_edit_is_retried(github_server: GitHubServer) -> None:
    """An edit is idempotent: a 502 on PATCH is worth one more try, unlike a create."""
    pr = simple_pr(github_server)
    assert review(github_server, pr).status == "published"
    pr.title = "A different title, so the comment must be edited"
    github_server.inject("PATCH", EDIT_COMMENT, status=502, times=1)
    outcome = review(github_server, pr)
    assert outcome.status == "published", outcome.message
    [after] = own_comments(github_server, pr.number)
    assert "A different title" in after.body


# --------------------------------------------------------------------------- 404 PR through the action


@pytest.mark.parametrize(("fail_on_error", "code"), [("false", 0), ("true", 1)])
def test_dispatch_for_a_pr_that_does_not_exist(
    fail_on_error: str, code: int, github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    github_server.add_repo(REPO)
    env = action_env(github_server, tmp_path, "workflow_dispatch", {"inputs": {"pr-number": "4242"}},
                     inputs={"pr-number": "4242", "fail-on-error": fail_on_error})
    result = run(monkeypatch, capsys, env)
    assert result.code == code
    assert "4242" in result.summary and "404" in result.summary
    assert "Traceback" not in result.stdout


# --------------------------------------------------------------------------- `readworthy pr` from a terminal


@pytest.mark.parametrize(("method", "path", "fault", "words"), [
    ("GET", PULL, {"status": 404, "body": {"message": "Not Found"}}, "404"),
    ("GET", FILES, {"status": 502}, "github"),
    ("POST", GRAPHQL, {"status": 429, "headers": {"Retry-After": "3600"}, "body": SECONDARY}, "rate limit"),
], ids=["404", "files-502", "rate-limit-an-hour"])
def test_pr_command_fails_with_exit_1_and_one_line(
    method: str, path: str, fault: dict[str, Any], words: str, github_server: GitHubServer,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from readworthy.cli import main as cli_main

    pr = simple_pr(github_server)
    github_server.inject(method, path, times=None, **fault)
    monkeypatch.setenv("GITHUB_TOKEN", WORKFLOW_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    started = time.monotonic()
    code = cli_main(["pr", f"{REPO}#{pr.number}", "--dry-run"])
    out, err = capsys.readouterr()
    assert time.monotonic() - started < RUN_BOUND_S
    assert code == 1
    errors = [line for line in err.splitlines() if line.startswith("readworthy: error: ")]
    assert len(errors) == 1 and words in errors[0].lower(), err
    assert "Traceback" not in err and WORKFLOW_TOKEN not in out + err


def test_graphql_rate_limit_answered_with_200_is_named(github_server: GitHubServer) -> None:
    """GitHub's GraphQL API reports its rate limit as HTTP 200 with an error of type RATE_LIMITED."""
    pr = simple_pr(github_server)
    github_server.inject("POST", GRAPHQL, status=200, times=None, body={
        "data": None, "errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for installation ID 1."}]})
    outcome = review(github_server, pr)
    assert outcome.status == "failed"
    assert "rate limit" in outcome.message.lower()
    assert "GITHUB_GRAPHQL_URL" not in outcome.message  # not a configuration problem


PROXY_PAGE = "<html><body><h1>Sign in to continue</h1>corporate proxy</body></html>"


@pytest.mark.parametrize(("method", "path"), [("POST", GRAPHQL), ("GET", FILES), ("GET", LIST_COMMENTS)],
                         ids=["graphql", "files", "comments"])
def test_a_proxy_page_answered_with_200_is_a_clean_failure(method: str, path: str, github_server: GitHubServer) -> None:
    """A proxy or captive portal in front of GHES answers 200 with HTML: not a PR without files, not a crash."""
    pr = simple_pr(github_server)
    github_server.inject(method, path, status=200, body=PROXY_PAGE, times=None)
    outcome = review(github_server, pr)
    assert outcome.status == "failed"
    assert "not json" in outcome.message.lower() or "not graphql json" in outcome.message.lower(), outcome.message
    assert own_comments(github_server, pr.number) == []


def test_a_proxy_page_for_the_pull_request_itself(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """workflow_dispatch reads the PR through REST (no payload describes it)."""
    pr = simple_pr(github_server)
    github_server.inject("GET", PULL, status=200, body=PROXY_PAGE, times=None)
    env = action_env(github_server, tmp_path, "workflow_dispatch", {"inputs": {"pr-number": str(pr.number)}},
                     inputs={"pr-number": str(pr.number), "fail-on-error": "true"})
    result = run(monkeypatch, capsys, env)
    assert result.code == 1 and "not JSON" in result.summary
    assert own_comments(github_server, pr.number) == []


def test_a_proxy_page_for_the_permission_check(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    from action_run import comment_payload

    pr = simple_pr(github_server)
    github_server.inject("GET", r"/collaborators/[^/]+/permission$", status=200, body=PROXY_PAGE, times=None)
    env = action_env(github_server, tmp_path, "issue_comment", comment_payload(pr.number, "alice", "/readworthy", 77),
                     inputs={"fail-on-error": "true"})
    result = run(monkeypatch, capsys, env)
    assert result.code == 1 and "not JSON" in result.summary
    assert own_comments(github_server, pr.number) == []


def test_a_proxy_page_for_the_create_is_not_reported_as_published(github_server: GitHubServer) -> None:
    pr = simple_pr(github_server)
    github_server.inject("POST", LIST_COMMENTS, status=200, body=PROXY_PAGE, times=None)
    outcome = review(github_server, pr)
    assert own_comments(github_server, pr.number) == []
    assert outcome.status == "failed" and outcome.comment is None, outcome


def test_graphql_queries_are_retried_but_mutations_are_not(github_server: GitHubServer) -> None:
    """A mutation (a Discussion for the digest) may have landed when its answer was lost: repeating it
    could post twice. Queries are reads and are retried."""
    from readworthy.errors import GitHubError
    from readworthy.gather.queries import VIEWER_QUERY

    settings = small_settings(github_server)
    gh = github_api.make_github(settings)
    github_server.inject("POST", GRAPHQL, status=502, times=1)
    data, _ = github_api.graphql(gh, settings, VIEWER_QUERY, {}, "asking who we are")
    assert data["viewer"]["login"] == WORKFLOW_LOGIN and github_server.count("POST", GRAPHQL) == 2
    github_server.clear_log()
    github_server.inject("POST", GRAPHQL, status=502, times=1)
    mutation = 'mutation { addComment(input: {subjectId: "x", body: "y"}) { clientMutationId } }'
    with pytest.raises(GitHubError):
        github_api.graphql(gh, settings, mutation, {}, "posting the digest")
    assert github_server.count("POST", GRAPHQL) == 1


TRANSIENT_GRAPHQL = {"data": None, "errors": [{"message": "Something went wrong while executing your query. "
                                                          "Please include `C0DE:1234` when reporting this issue."}]}


def test_a_transient_graphql_answer_to_a_query_is_asked_again(github_server: GitHubServer) -> None:
    """HTTP 200, no data, "Something went wrong…": GitHub's own trouble. The very first query (who the
    token belongs to) used to end the run without a comment."""
    pr = simple_pr(github_server)
    github_server.inject("POST", GRAPHQL, status=200, body=TRANSIENT_GRAPHQL, times=1)
    settings = small_settings(github_server)
    login = github_api.own_login(github_api.make_github(settings), settings)
    assert login == WORKFLOW_LOGIN and github_server.count("POST", GRAPHQL) == 2
    assert review(github_server, pr).status == "published"


def test_a_transient_graphql_answer_is_bounded_and_named(github_server: GitHubServer) -> None:
    from readworthy.errors import GitHubError
    from readworthy.gather.queries import VIEWER_QUERY

    github_server.inject("POST", GRAPHQL, status=200, body=TRANSIENT_GRAPHQL, times=None)
    settings = small_settings(github_server)
    with pytest.raises(GitHubError, match="re-run the job"):
        github_api.graphql(github_api.graphql_reader(github_api.make_github(settings)), settings, VIEWER_QUERY, {},
                           "asking who we are")
    assert github_server.count("POST", GRAPHQL) == github_api.GRAPHQL_TRANSIENT_RETRIES + 1


def test_a_transient_graphql_answer_to_a_mutation_is_not_repeated(github_server: GitHubServer) -> None:
    from readworthy.errors import GitHubError

    github_server.inject("POST", GRAPHQL, status=200, body=TRANSIENT_GRAPHQL, times=1)
    settings = small_settings(github_server)
    mutation = 'mutation { addComment(input: {subjectId: "x", body: "y"}) { clientMutationId } }'
    with pytest.raises(GitHubError):
        github_api.graphql(github_api.make_github(settings), settings, mutation, {}, "posting the digest")
    assert github_server.count("POST", GRAPHQL) == 1


def _comment_as_written(server: GitHubServer, number: int) -> tuple[str, dict[str, Any]]:
    """Our comment: its visible Markdown and its decoded hidden state, with the server's own address
    taken out (each test server listens on its own port, and the state stores the PR's URL)."""
    from readworthy.render.state import MARKER, decode_state

    [comment] = own_comments(server, number)
    visible = "\n".join(line for line in comment.body.splitlines() if not line.startswith(MARKER))
    state = decode_state(comment.body)
    assert state is not None
    stored = state.model_dump(mode="json")
    stored["url"] = stored["url"].replace(server.html_url, "<server>")
    return visible.replace(server.html_url, "<server>"), stored


def test_a_run_through_every_transient_fault_leaves_the_comment_a_clean_run_leaves(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """502 twice on the file list, a secondary rate limit with Retry-After, a 3 s stall and one
    transient GraphQL answer, all in one run: the result is exactly what a clean run leaves."""
    clean_server = GitHubServer().start()
    try:
        clean_pr = simple_pr(clean_server)
        clean = run(monkeypatch, capsys, action_env(clean_server, tmp_path / "clean", "pull_request_target",
                                                     pr_payload(clean_pr, "opened")))
        expected = _comment_as_written(clean_server, clean_pr.number)
    finally:
        clean_server.stop()
    pr = simple_pr(github_server)
    github_server.inject("GET", FILES, status=502, times=2)
    github_server.inject("GET", LIST_COMMENTS, status=403, headers={"Retry-After": "1"}, body=SECONDARY, times=1)
    github_server.inject("GET", CONFIG_GET, status=None, delay=3.0, times=1)
    github_server.inject("POST", GRAPHQL, status=200, body=TRANSIENT_GRAPHQL, times=1)
    faulted = run(monkeypatch, capsys, action_env(github_server, tmp_path / "faults", "pull_request_target",
                                                   pr_payload(pr, "opened")))
    assert (clean.code, faulted.code) == (0, 0), faulted.stdout
    assert _comment_as_written(github_server, pr.number) == expected
    assert faulted.outputs["verdict"] == clean.outputs["verdict"]
    assert github_server.count("GET", FILES) >= 3 and github_server.count("POST", GRAPHQL) >= 2


def test_pr_command_for_a_missing_pr_says_so_once(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """No raw `{'message': 'Not Found', …}` dict, and the error is printed once, not once per layer."""
    from readworthy.cli import main as cli_main

    monkeypatch.setenv("GITHUB_TOKEN", WORKFLOW_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    code = cli_main(["pr", f"{REPO}#4242", "--dry-run"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "#4242" in err and "404" in err and "{'" not in err and "Not Found'" not in err, err
    assert len([line for line in err.splitlines() if "4242" in line]) == 1, err
