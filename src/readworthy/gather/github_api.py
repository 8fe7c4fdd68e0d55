"""The door to GitHub: the PyGithub client, GraphQL calls, and the one place PyGithub's failures
become readworthy errors that name the fix (`github_errors`, in the spirit of httpx's
`map_httpcore_exceptions`). Only this module, `gather/rest.py` (REST reads) and `publish.py`
(writes) import PyGithub; tests/unit/test_layout.py keeps it that way.

Reads are not spaced (PyGithub's default 0.25 s per request would dominate a gather of a few
requests); writes are spaced 1 s, GitHub's advice against secondary rate limits. Retries: a few,
for 5xx and rate limits, with every wait bounded (`BoundedRetry`): PyGithub would otherwise sleep
until a primary rate limit resets (up to an hour) or for any Retry-After a server sends. GraphQL
queries are reads and are retried; a GraphQL mutation or a REST POST (a comment create) is not
retried on a timeout or a 5xx, because it may have landed: publish.py looks for the comment
before creating it again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import github
from github import Auth
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.GithubRetry import GithubRetry
from github.Requester import Requester
from requests.exceptions import RequestException, RetryError
from urllib3.exceptions import MaxRetryError, ResponseError
from urllib3.util.retry import Retry

from ..config import Settings
from ..errors import CommentBlocked, GitHubError, GitHubNotFound, PublishError
from .queries import VIEWER_QUERY

# The client types other modules annotate with, so that they need not import PyGithub themselves.
GitHub = github.Github
GraphQLReader = Requester  # what graphql_reader() returns

SECONDS_BETWEEN_WRITES = 1.0  # GitHub asks for at least 1 s between content-creating requests
RETRIES = 3
GRAPHQL_TRANSIENT_RETRIES = 2
GRAPHQL_RETRY_PAUSE_S = 0.5
_TRANSIENT_GRAPHQL_MARKERS = ("something went wrong", "timeout", "timed out", "try again")
MAX_RATE_LIMIT_WAIT = 60.0  # seconds; a longer wait fails the run with a message instead of hanging the job


class BoundedRetry(GithubRetry):
    """GithubRetry with every wait bounded and REST creates never repeated blindly."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_rate_limit_wait", MAX_RATE_LIMIT_WAIT)
        # PATCH (edit a comment) is idempotent; urllib3 leaves it out by default.
        kwargs.setdefault("allowed_methods", Retry.DEFAULT_ALLOWED_METHODS | {"GET", "POST", "PATCH"})
        super().__init__(**kwargs)

    def increment(  # type: ignore[override]  # returns Retry, as GithubRetry.increment does
        self, method: str | None = None, url: str | None = None, response: Any = None,
        error: Exception | None = None, _pool: Any = None, _stacktrace: Any = None,
    ) -> Retry:
        if method == "POST" and not (url or "").split("?")[0].endswith("/graphql"):
            if error is not None:
                raise error  # what urllib3 does for a method it may not retry: the create may have landed
            if response is not None and response.status >= 500:
                raise MaxRetryError(_pool, url or "", ResponseError(f"{response.status} on a create; not repeated"))
        if response is not None and response.status in (403, 429):
            wait = _required_wait(response.headers)
            if wait is not None and wait > (self.max_rate_limit_wait or MAX_RATE_LIMIT_WAIT):
                message = (f"rate limit: GitHub asks to wait {wait:.0f}s, more than the "
                           f"{MAX_RATE_LIMIT_WAIT:.0f}s allowed")
                raise RateLimitExceededExceedsMaxWait(response.status, {"message": message},
                                                      dict(response.headers), wait=wait)
        try:
            return super().increment(method, url, response, error, _pool, _stacktrace)
        except MaxRetryError as exc:
            # The last answer's status travels with the error: its text names the URL and port, where a
            # "429" can be a PR number or a port, so it must not be searched for one.
            raise RetriesExhausted(_pool, url or "", exc.reason,
                                   response.status if response is not None else None) from None


class RetriesExhausted(MaxRetryError):
    """MaxRetryError with the status of the last answer (None when there was none)."""

    def __init__(self, pool: Any, url: str, reason: Exception | None = None, status: int | None = None) -> None:
        super().__init__(pool, url, reason)
        self.status = status


def _required_wait(headers: Any) -> float | None:
    """Seconds GitHub asks us to wait: Retry-After, or the primary limit's reset when none is left."""
    retry_after = headers.get("Retry-After")
    if retry_after is not None and str(retry_after).strip().isdigit():
        return float(retry_after)
    reset = headers.get("X-RateLimit-Reset")
    if headers.get("X-RateLimit-Remaining") == "0" and reset is not None and str(reset).isdigit():
        return max(0.0, int(reset) - time.time())
    return None


def make_github(settings: Settings) -> github.Github:
    token = settings.github_token.get_secret_value() if settings.github_token else ""
    return github.Github(
        auth=Auth.Token(token) if token else None,
        base_url=settings.github_api_url,
        timeout=max(1, round(settings.github_timeout)),  # PyGithub asserts an int
        per_page=100,
        seconds_between_requests=0,
        seconds_between_writes=SECONDS_BETWEEN_WRITES,
        retry=BoundedRetry(total=RETRIES),
    )


FORK_FIX = (
    "the token is read-only — on `pull_request` from a fork GitHub gives the workflow a read-only token. "
    "Run readworthy on `pull_request_target` instead (safe here: readworthy never checks out or runs the "
    "PR's code, it only reads the PR through the API), and grant `pull-requests: write`."
)


@contextmanager
def github_errors(doing: str, *, api_url: str = "", writing: bool = False, permission: str = "") -> Iterator[None]:
    """Turn PyGithub's and requests' failures inside the block into readworthy errors naming the fix.

    Reads raise GitHubError (GitHubNotFound on 404); an answer PyGithub cannot read as JSON (a proxy
    or login page) is a GitHubError too, not a crash. Writes (`writing=True`) raise PublishError, or
    CommentBlocked when a retry will not help; `permission` names what a refused write needs (else
    the advice is about fork PRs' read-only token). Messages never include the token.
    """
    try:
        yield
    except github.GithubException as exc:
        raise (_refusal(exc, doing, permission) if writing else _read_error(exc, doing)) from None
    except RequestException as exc:  # RetryError: PyGithub's retries ran out; or no connection at all
        if writing:
            raise PublishError(f"cannot {doing}: GitHub did not answer usably after retries "
                               f"({type(exc).__name__}); re-run the job", transient=True) from None
        raise _unreachable(exc, doing, api_url) from None
    except (KeyError, TypeError, AttributeError):
        if writing:
            raise
        # PyGithub builds objects lazily from whatever came back: a proxy's HTML page fails here.
        raise GitHubError(f"GitHub answered {doing} with something that is not JSON (a proxy or login page?); "
                          f"check GITHUB_API_URL{f' ({api_url})' if api_url else ''} and re-run the job") from None


def _message(exc: github.GithubException) -> str:
    if not isinstance(exc.data, Mapping):
        return ""
    message = str(exc.data.get("message") or "")
    errors = exc.data.get("errors")
    if isinstance(errors, list):
        message += " " + " ".join(str(e.get("message", "")) for e in errors if isinstance(e, Mapping))
    return message.strip()


def _read_error(exc: github.GithubException, doing: str) -> GitHubError:
    message, status = _message(exc), exc.status
    if status == 401:
        return GitHubError(f"GitHub rejected the token while {doing} (401 {message or 'Bad credentials'}): "
                           "check the `github-token` input or GITHUB_TOKEN.", status)
    if status in (403, 429) and "rate limit" in message.lower():
        return GitHubError(f"GitHub rate limit hit while {doing}: wait for the reset, or use a token with "
                           "a higher limit.", status)
    if status == 403:
        return GitHubError(f"GitHub refused {doing} (403 {message}): give the token `contents: read`, "
                           "`pull-requests: read` and `issues: read`.", status)
    if status == 404:
        return GitHubNotFound(f"GitHub found nothing while {doing} (404): check the repository and number, and "
                              "that the token can see the repository.", status)
    return GitHubError(f"GitHub failed while {doing} ({status} {message}) after {RETRIES} retries; "
                       "try again later.", status)


def _unreachable(exc: RequestException, doing: str, api_url: str) -> GitHubError:
    if isinstance(exc, RetryError):
        cause = exc.args[0] if exc.args else None
        if getattr(cause, "status", None) in (403, 429):
            return GitHubError(f"GitHub rate limit hit while {doing} (still limited after {RETRIES} retries): "
                               "wait a few minutes and re-run, or use a token with a higher limit.")
        return GitHubError(f"GitHub failed while {doing} (server errors after {RETRIES} retries); try again later "
                           "or re-run the job.")
    where = f" at {api_url}" if api_url else ""
    return GitHubError(f"could not reach GitHub{where} while {doing} ({type(exc).__name__}): check GITHUB_API_URL "
                       "and the network, then re-run the job.")


def _refusal(exc: github.GithubException, what: str, permission: str) -> PublishError:
    """A refused write as a PublishError that names the cause and the fix."""
    message = _message(exc)
    lower = message.lower()
    if "locked" in lower:
        return CommentBlocked(
            f"cannot {what}: the conversation is locked ({exc.status}: {message}). "
            "A maintainer can unlock it, or read the digest in this run's job summary.",
            "locked",
        )
    if "archived" in lower:
        return CommentBlocked(f"cannot {what}: the repository is archived and read-only.", "archived")
    if exc.status in (401, 403) and permission:
        return CommentBlocked(f"cannot {what}: the token may not write here (GitHub answered {exc.status}); "
                              f"grant `{permission}` in the workflow's `permissions:`.", "read-only")
    if exc.status == 403 and ("not accessible" in lower or "permission" in lower or "forbidden" in lower):
        return CommentBlocked(f"cannot {what}: {FORK_FIX}", "read-only")
    if exc.status in (401, 403):
        return CommentBlocked(
            f"cannot {what}: GitHub answered {exc.status} ({message or 'forbidden'}); "
            "check that `github-token` is valid and has `pull-requests: write`.",
            "read-only",
        )
    if exc.status == 404:
        return CommentBlocked(f"cannot {what}: not found (404) — deleted, or the token cannot see it.", "not-found")
    if exc.status == 422 and "too long" in lower:
        return CommentBlocked(f"cannot {what}: GitHub says the body is too long ({message}).", "too-long")
    return PublishError(f"cannot {what}: GitHub answered {exc.status} ({message or 'no message'})",
                        transient=exc.status >= 500)


@dataclass(frozen=True)
class RateLeft:
    """GitHub's hourly REST budget as the last answer reported it (`X-RateLimit-*`). The workflow
    token's budget is shared by every job in the repository, so this is a reading, not a promise."""

    remaining: int | None  # None: no answer has said yet
    limit: int | None
    reset_at: datetime | None


def rate_left(gh: github.Github) -> RateLeft:
    """What the last REST answer said is left; costs no request (PyGithub keeps the headers).
    GraphQL reads go through graphql_reader()'s own requester, so they do not blur the REST reading."""
    remaining, limit = gh.requester.rate_limiting
    reset = gh.requester.rate_limiting_resettime
    return RateLeft(remaining if remaining >= 0 else None, limit if limit >= 0 else None,
                    datetime.fromtimestamp(reset, UTC) if reset else None)


def graphql_reader(gh: github.Github, retries: int = RETRIES) -> Requester:
    """A requester for GraphQL *reads*: PyGithub spaces every POST as a write (1 s each), which
    would make a 3-request gather take a second; queries are reads, so this one does not wait.
    `retries`: fewer for a heavy read, whose 502 is more likely GitHub's 10 s cut-off than a blip (a
    smaller query helps then; asking the same one again costs another 10 s)."""
    extra: dict[str, Any] = {"seconds_between_writes": 0, "seconds_between_requests": 0}
    if retries != RETRIES:
        extra["retry"] = BoundedRetry(total=retries)
    return Requester(**(gh.requester.kwargs | extra))


def graphql(
    client: github.Github | Requester, settings: Settings, query: str, variables: dict[str, Any], doing: str,
    *, partial: bool = False,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(data, not-found errors). Any other GraphQL error raises: a partial answer would mislead.
    With `partial=True` (a caller that says what it could not read) data that came with errors is returned
    with all of them (GitHub answers partial data when a query uses too many resources); no data at all, or
    a rate limit, still raises.

    `client`: a Github (its requester spaces every POST as a write: right for mutations) or a
    graphql_reader(gh) for queries, which need no spacing. A query that GitHub answers with only a
    transient error ("Something went wrong while executing your query", HTTP 200 and no data) is
    asked again, at most GRAPHQL_TRANSIENT_RETRIES times; a mutation never is (it may have landed).
    """
    reader = client.requester if isinstance(client, github.Github) else client
    mutation = query.lstrip().startswith("mutation")
    if mutation:
        # A mutation may have landed even when its answer was lost (timeout, 5xx): never repeat it blindly.
        reader = Requester(**(reader.kwargs | {"retry": BoundedRetry(total=0)}))
    for attempt in range(GRAPHQL_TRANSIENT_RETRIES + 1):
        with github_errors(doing, api_url=settings.graphql_url):
            _, body = reader.requestJsonAndCheck(
                "POST", settings.graphql_url, input={"query": query, "variables": variables}
            )
        if mutation or attempt == GRAPHQL_TRANSIENT_RETRIES or not _transient_graphql_answer(body):
            break
        time.sleep(GRAPHQL_RETRY_PAUSE_S * (attempt + 1))
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict | None) or (
            body.get("data") is None and not body.get("errors")):
        # PyGithub wraps a non-JSON answer as {"data": "<html>..."}: a proxy or login page, not GitHub.
        raise GitHubError(f"GitHub's GraphQL endpoint answered {doing} with something that is not GraphQL JSON "
                          f"(a proxy or login page?): check GITHUB_GRAPHQL_URL ({settings.graphql_url}).")
    errors = [e for e in body.get("errors") or [] if isinstance(e, dict)]
    fatal = [e for e in errors if e.get("type") != "NOT_FOUND"]
    if partial and isinstance(body.get("data"), dict) and not _rate_limited(fatal):
        return body["data"], errors
    if fatal:
        detail = "; ".join(str(e.get("message", e))[:200] for e in fatal[:3])
        if _rate_limited(fatal):
            # GraphQL reports its rate limit as HTTP 200 with an error: not a configuration problem.
            raise GitHubError(f"GitHub rate limit hit while {doing} (GraphQL: {detail}): wait for the reset, "
                              "or use a token with a higher limit.")
        if _transient_graphql_answer(body):
            raise GitHubError(f"GitHub's GraphQL API kept failing on its side while {doing} ({detail}); "
                              "re-run the job.")
        raise GitHubError(f"GitHub's GraphQL API refused the query for {doing}: {detail}. "
                          f"Check GITHUB_GRAPHQL_URL ({settings.graphql_url}) points at the same GitHub.")
    return body.get("data") or {}, errors


def _rate_limited(errors: list[dict[str, Any]]) -> bool:
    return any(e.get("type") == "RATE_LIMITED" or "rate limit" in str(e.get("message", "")).lower() for e in errors)


def _transient_graphql_answer(body: Any) -> bool:
    """No data and only errors of GitHub's own making (not a bad query, not a missing object)."""
    if not isinstance(body, dict) or body.get("data") is not None:
        return False
    errors = [e for e in body.get("errors") or [] if isinstance(e, dict)]
    return bool(errors) and all(
        any(marker in str(e.get("message", "")).lower() for marker in _TRANSIENT_GRAPHQL_MARKERS)
        or e.get("type") in ("INTERNAL", "SERVICE_UNAVAILABLE", "TIMEOUT")
        for e in errors
    )


def own_login(gh: github.Github, settings: Settings) -> str:
    """The login our comments are authored by.

    Order: explicit override; GraphQL `viewer` (works for workflow and App tokens, which get 403 on
    GET /user); GET /user (personal tokens on servers whose GraphQL is unavailable).
    """
    if settings.own_login:
        return settings.own_login
    graphql_failure: GitHubError | None = None
    try:
        data, _ = graphql(graphql_reader(gh), settings, VIEWER_QUERY, {}, "asking who the token belongs to")
        login = (data.get("viewer") or {}).get("login")
        if login:
            return str(login)
    except GitHubError as exc:
        graphql_failure = exc  # fall through to REST: some GHES installs or proxies do not serve GraphQL
    try:
        with github_errors("asking GET /user who the token belongs to", api_url=settings.github_api_url):
            _, user = gh.requester.requestJsonAndCheck("GET", "/user")
            return str(user["login"])
    except GitHubError as exc:
        if graphql_failure is not None:
            # GET /user always refuses workflow/App tokens, so the GraphQL failure is often the real cause.
            raise GitHubError(
                f"cannot tell which account the GitHub token belongs to. GraphQL viewer: {graphql_failure} "
                f"GET /user: {exc.status or 'no usable answer'}. If GitHub is only briefly unavailable, "
                f"re-run the job; otherwise set {_own_login_setting(settings)} to the account that writes the "
                "comment (github-actions[bot] for the workflow token)."
            ) from None
        raise GitHubError(
            "cannot tell which account the GitHub token belongs to (GraphQL viewer and GET /user both "
            f"failed: {exc.status or 'no usable answer'}); set {_own_login_setting(settings)} to the "
            "account that writes the comment (github-actions[bot] for the workflow token)."
        ) from None


def _own_login_setting(settings: Settings) -> str:
    """The `own-login` input in the action, its environment variable from a terminal."""
    return "the `own-login` input" if settings.run_from == "action" else "READWORTHY_OWN_LOGIN"
