"""The only GitHub writer: the sticky comment, verdict labels, reactions, job summary and outputs.

One comment per PR, found by our hidden marker *and* our own login: a comment from anyone
else that contains the marker text is never touched. Writes are idempotent instead of
retried blindly: PyGithub's retries include POSTs, and a create whose answer was lost
would otherwise leave two comments. After every create we list again, keep the oldest of
our comments and delete our own newer duplicates, so two concurrent runs converge on one.
A refusal (locked conversation, archived repository, read-only token) is a `CommentBlocked`
that says exactly why and how to fix it; the caller then puts the digest in the job summary.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

import github
import requests
from actions_toolkit import core  # type: ignore[import-untyped]
from github.Issue import Issue
from github.IssueComment import IssueComment
from github.Repository import Repository

from .errors import GitHubError, PublishError
from .models import Verdict
from .render.state import MARKER, has_marker

log = logging.getLogger(__name__)

COMMENT_LIMIT = 65_536
VERDICT_LABEL_PREFIX = "readworthy:"
VERDICT_LABEL_COLORS = {Verdict.DEEP_READ: "5319e7", Verdict.SKIM: "0e8a16", Verdict.SKIP: "c5def5"}
# After a create whose answer was lost, how long to look for the comment before creating it again:
# the request may still be landing on GitHub's side.
LOST_CREATE_GRACE_S = 3.0
LOST_CREATE_POLL_S = 0.5
TRIM_NOTE = "\n\n_Trimmed: this comment exceeded GitHub's 65,536-character limit; the end was cut._\n"

# Errors a network call can end in. RetryError is what PyGithub raises once *its* retries run out.
TRANSIENT = (requests.exceptions.RetryError, requests.exceptions.ConnectionError, requests.exceptions.Timeout)

FORK_FIX = (
    "the token is read-only — on `pull_request` from a fork GitHub gives the workflow a read-only token. "
    "Run readworthy on `pull_request_target` instead (safe here: readworthy never checks out or runs the "
    "PR's code, it only reads the PR through the API), and grant `pull-requests: write` and `issues: write`."
)


class CommentBlocked(PublishError):
    """GitHub refused the write for a reason a retry will not fix (locked, archived, no permission)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason  # "locked" | "archived" | "read-only" | "not-found" | "too-long"


@dataclass(frozen=True)
class CommentRef:
    id: int
    url: str
    action: str  # "created" | "edited" | "unchanged"
    duplicates_removed: int = 0


# --------------------------------------------------------------------------- errors


def describe_refusal(exc: github.GithubException, what: str) -> PublishError:
    """A GitHub refusal as a PublishError that names the cause and the fix."""
    message = ""
    if isinstance(exc.data, Mapping):
        message = str(exc.data.get("message", ""))
        errors = exc.data.get("errors")
        if isinstance(errors, list):
            message += " " + " ".join(str(e.get("message", "")) for e in errors if isinstance(e, Mapping))
    lower = message.lower()
    if "locked" in lower:
        return CommentBlocked(
            f"cannot {what}: the conversation is locked ({exc.status}: {message.strip()}). "
            "A maintainer can unlock it, or read the digest in this run's job summary.",
            "locked",
        )
    if "archived" in lower:
        return CommentBlocked(f"cannot {what}: the repository is archived and read-only.", "archived")
    if exc.status == 403 and ("not accessible" in lower or "permission" in lower or "forbidden" in lower):
        return CommentBlocked(f"cannot {what}: {FORK_FIX}", "read-only")
    if exc.status in (401, 403):
        return CommentBlocked(
            f"cannot {what}: GitHub answered {exc.status} ({message.strip() or 'forbidden'}); "
            "check that `github-token` is valid and has `pull-requests: write` and `issues: write`.",
            "read-only",
        )
    if exc.status == 404:
        return CommentBlocked(f"cannot {what}: not found (404) — deleted, or the token cannot see it.", "not-found")
    if exc.status == 422 and "too long" in lower:
        return CommentBlocked(f"cannot {what}: GitHub says the body is too long ({message.strip()}).", "too-long")
    return PublishError(f"cannot {what}: GitHub answered {exc.status} ({message.strip() or 'no message'})")


def _transient(exc: Exception, what: str) -> PublishError:
    return PublishError(f"cannot {what}: GitHub did not answer usably after retries ({type(exc).__name__}: {exc})")


# --------------------------------------------------------------------------- the body


def fit_comment(body: str, limit: int = COMMENT_LIMIT) -> str:
    """`body` cut to GitHub's limit as a last resort, keeping the state line and closing <details>.

    render.render_comment already drops the least important parts first; this only
    guards against a body that is still too long.
    """
    if len(body) <= limit:
        return body
    first, _, rest = body.partition("\n")
    head = first + "\n" if first.startswith(MARKER) and len(first) < limit // 2 else ""
    if not head:
        rest = body
    room = limit - len(head) - len(TRIM_NOTE) - len("\n</details>\n") - 1
    cut = rest[:room]
    cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
    if cut.count("<details>") > cut.count("</details>"):
        cut += "\n</details>"
    return head + cut + TRIM_NOTE


def lazy_repo(gh: github.Github, repo: str) -> Repository:
    """The repository without a GET: objects made from it are fetched only when a field is read."""
    return gh.withLazy(True).get_repo(repo)


def _is_ours(comment: IssueComment, own_login: str) -> bool:
    user = comment.user.login if comment.user is not None else ""
    return user.lower() == own_login.lower() and has_marker(comment.body or "")


def find_own_comments(issue: Issue, own_login: str) -> list[IssueComment]:
    """Our sticky comments on `issue`, oldest first (normally zero or one)."""
    try:
        comments = list(issue.get_comments())
    except (TypeError, AttributeError, KeyError):  # PyGithub reading a non-JSON page (a proxy, a login page)
        raise GitHubError(f"GitHub answered the comment list of #{issue.number} with something that is not JSON "
                          "(a proxy or login page?); check GITHUB_API_URL and re-run the job") from None
    except github.GithubException as exc:
        raise GitHubError(f"cannot list the comments of #{issue.number}: {exc.status} {exc.data}") from None
    except TRANSIENT as exc:
        raise GitHubError(f"GitHub did not answer usably while listing the comments of #{issue.number} "
                          f"({type(exc).__name__}, after retries); re-run the job") from None
    return sorted((c for c in comments if _is_ours(c, own_login)), key=lambda c: c.id)


def find_existing_body(issue: Issue, own_login: str) -> tuple[IssueComment | None, str]:
    """Our current comment and its body, for the cache check ("" when none)."""
    ours = find_own_comments(issue, own_login)
    return (ours[0], ours[0].body or "") if ours else (None, "")


def _delete_duplicates(keep: IssueComment, ours: list[IssueComment]) -> int:
    removed = 0
    for extra in ours:
        if extra.id == keep.id:
            continue
        try:
            extra.delete()
            removed += 1
        except github.GithubException as exc:
            if exc.status != 404:  # 404: the other run already removed it
                log.warning("could not remove duplicate comment %s: %s", extra.id, exc.status)
        except TRANSIENT as exc:
            log.warning("could not remove duplicate comment %s: %s", extra.id, type(exc).__name__)
    return removed


def _edit(comment: IssueComment, body: str) -> CommentRef:
    if (comment.body or "") == body:
        return CommentRef(comment.id, comment.html_url, "unchanged")
    try:
        comment.edit(body)
    except github.GithubException as exc:
        raise describe_refusal(exc, "edit the readworthy comment") from None
    except TRANSIENT as exc:
        raise _transient(exc, "edit the readworthy comment") from None
    return CommentRef(comment.id, comment.html_url, "edited")


class _Unknown:
    pass


UNKNOWN = _Unknown()


def upsert_comment(
    gh: github.Github,
    repo: str,
    number: int,
    body: str,
    own_login: str,
    existing: IssueComment | None | _Unknown = UNKNOWN,
) -> CommentRef:
    """Create or edit our one comment on PR `number`. Raises PublishError (CommentBlocked) on refusal.

    `existing`: our comment as the caller just found it (None: none), to save listing again;
    a concurrent run's duplicate is still removed by the re-check after any create.
    """
    if not body.strip() or not has_marker(body):
        # An empty or state-less body would orphan or blank the existing comment: refuse, keep what is there.
        raise PublishError("refusing to publish a comment without readworthy's hidden state (a bug)")
    body = fit_comment(body)
    try:
        issue = lazy_repo(gh, repo).get_issue(number)
    except github.GithubException as exc:
        raise describe_refusal(exc, f"read {repo}#{number}") from None
    except TRANSIENT as exc:
        raise _transient(exc, f"read {repo}#{number}") from None

    ours = find_own_comments(issue, own_login) if isinstance(existing, _Unknown) else [c for c in [existing] if c]
    if ours:
        try:
            ref = _edit(ours[0], body)
        except CommentBlocked as exc:
            if exc.reason != "not-found":
                raise
            # Deleted since it was listed: fall through and create a new one.
        else:
            removed = _delete_duplicates(ours[0], ours)
            return CommentRef(ref.id, ref.url, ref.action, removed)
    return _create(issue, body, own_login)


def _wait_for_own_comment(issue: Issue, own_login: str) -> list[IssueComment]:
    """Our comments, polled for a few seconds: a timed-out create can appear after the timeout."""
    deadline = time.monotonic() + LOST_CREATE_GRACE_S
    while True:
        ours = find_own_comments(issue, own_login)
        if ours or time.monotonic() >= deadline:
            return ours
        time.sleep(LOST_CREATE_POLL_S)


def _create(issue: Issue, body: str, own_login: str) -> CommentRef:
    created: IssueComment | None = None
    try:
        created = issue.create_comment(body)
    except github.GithubException as exc:
        if exc.status < 500:
            raise describe_refusal(exc, "create the readworthy comment") from None
        failure: Exception = exc
    except TRANSIENT as exc:
        failure = exc
    if created is None:
        # The POST may have landed even though its answer was lost: look before trying once more.
        ours = _wait_for_own_comment(issue, own_login)
        if not ours:
            try:
                created = issue.create_comment(body)
            except github.GithubException as exc:
                raise describe_refusal(exc, "create the readworthy comment") from None
            except TRANSIENT as exc:
                raise _transient(exc, "create the readworthy comment") from failure
    # Re-check: a concurrent run may have created its own comment meanwhile. The oldest wins.
    ours = find_own_comments(issue, own_login)
    if not ours:
        if created is None or not isinstance(created.id, int):  # no comment in GitHub's answer (a proxy page?)
            raise PublishError("the readworthy comment was neither created nor found; re-run the job")
        return CommentRef(created.id, created.html_url, "created")
    keep = ours[0]
    removed = _delete_duplicates(keep, ours)
    if created is not None and keep.id == created.id:
        return CommentRef(keep.id, keep.html_url, "created", removed)
    ref = _edit(keep, body)
    # Found after a lost answer with our body already in it: this run's create landed after all.
    action = "created" if created is None and ref.action == "unchanged" else ref.action
    return CommentRef(ref.id, ref.url, action, removed)


# --------------------------------------------------------------------------- labels and reactions


def verdict_label(verdict: Verdict) -> str:
    return VERDICT_LABEL_PREFIX + verdict.value


def set_verdict_label(gh: github.Github, repo: str, number: int, verdict: Verdict, current: list[str]) -> None:
    """Put `readworthy:<verdict>` on the PR (creating the label if missing) and remove a stale one.

    `current` is what gather saw; the labels are read again right before the single write
    (PUT of the whole list), so a label someone added meanwhile is kept.
    """
    wanted = verdict_label(verdict)
    if wanted in current and not any(n.startswith(VERDICT_LABEL_PREFIX) and n != wanted for n in current):
        return
    try:
        gh_repo = lazy_repo(gh, repo)
        try:
            gh_repo.get_label(wanted)
        except github.UnknownObjectException:
            gh_repo.create_label(wanted, VERDICT_LABEL_COLORS[verdict], "readworthy's reading verdict")
        issue = gh_repo.get_issue(number)
        names = [label.name for label in issue.labels]
        keep = [n for n in names if not n.startswith(VERDICT_LABEL_PREFIX)]
        if sorted(keep + [wanted]) != sorted(names):
            issue.set_labels(*keep, wanted)
    except github.GithubException as exc:
        raise describe_refusal(exc, f"set the label {wanted}") from None
    except TRANSIENT as exc:
        raise _transient(exc, f"set the label {wanted}") from None


def remove_label(gh: github.Github, repo: str, number: int, name: str) -> bool:
    """Remove `name` from the PR (the trigger label, so it can be applied again). False if absent."""
    try:
        lazy_repo(gh, repo).get_issue(number).remove_from_labels(name)
    except github.GithubException as exc:
        if exc.status == 404:
            return False
        raise describe_refusal(exc, f"remove the label {name}") from None
    except TRANSIENT as exc:
        raise _transient(exc, f"remove the label {name}") from None
    return True


def react(gh: github.Github, repo: str, number: int, comment_id: int, content: str = "eyes") -> None:
    """Acknowledge a /readworthy command with a reaction on the comment."""
    try:
        lazy_repo(gh, repo).get_issue(number).get_comment(comment_id).create_reaction(content)
    except github.GithubException as exc:
        raise describe_refusal(exc, "react to the command comment") from None
    except TRANSIENT as exc:
        raise _transient(exc, "react to the command comment") from None


# --------------------------------------------------------------------------- job summary and outputs


def write_job_summary(markdown: str, path: str | None) -> bool:
    """Append `markdown` to $GITHUB_STEP_SUMMARY (actions_toolkit has no helper for it). False if unset."""
    if not path:
        return False
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(markdown.rstrip("\n") + "\n\n")
    except OSError as exc:
        log.warning("could not write the job summary to %s: %s", path, exc)
        return False
    return True


OUTPUT_NAMES = (
    "verdict",
    "comment-id",
    "comment-url",
    "prompt-tokens",
    "completion-tokens",
    "cost-usd",
    "skipped-reason",
)


def set_outputs(outputs: Mapping[str, str | int | float | None], output_path: str | None) -> None:
    """Write the step outputs through actions_toolkit (it writes $GITHUB_OUTPUT with a safe delimiter)."""
    if not output_path or os.environ.get("GITHUB_OUTPUT") != output_path:
        # actions_toolkit reads os.environ itself; outside a runner there is nowhere to write.
        log.debug("GITHUB_OUTPUT not set: outputs not written")
        return
    for name in OUTPUT_NAMES:
        value = outputs.get(name)
        core.set_output(name, "" if value is None else str(value))
