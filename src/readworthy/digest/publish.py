"""Where a digest goes: a new issue, one rolling issue found by label, or a Discussion (GraphQL).

Like the sticky comment, the rolling issue is only ever one we wrote: found by its label,
its author (our login) and our hidden digest marker; someone else's issue with the same
label is never edited. A refusal (no `issues: write` / `discussions: write`, locked,
archived) is a PublishError naming the fix; the caller still has the job summary and the
output file.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

import github

from ..config import Settings
from ..errors import GitHubError, PublishError
from ..gather.github_api import graphql, graphql_reader
from ..publish import TRANSIENT, describe_refusal
from .render import DIGEST_MARKER
from .window import parse_github_time

log = logging.getLogger(__name__)

CATEGORIES_QUERY = """
query($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    id
    hasDiscussionsEnabled
    discussionCategories(first: 100) { nodes { id name slug } }
  }
}
"""

CREATE_DISCUSSION = """
mutation($repositoryId: ID!, $categoryId: ID!, $title: String!, $body: String!) {
  createDiscussion(input: {repositoryId: $repositoryId, categoryId: $categoryId, title: $title, body: $body}) {
    discussion { id number url }
  }
}
"""

_END = re.compile(re.escape(DIGEST_MARKER) + r"v1 [^\n>]*?\bend=(\S+) -->")


def _is_our_digest(issue: object, own_login: str) -> bool:
    user = getattr(issue, "user", None)
    login = user.login if user is not None else ""
    body = getattr(issue, "body", "") or ""
    return login.lower() == own_login.lower() and DIGEST_MARKER in body


def find_rolling_issue(gh: github.Github, repo: str, label: str, own_login: str) -> github.Issue.Issue | None:
    """Our newest open issue with `label` that carries the digest marker, or None."""
    try:
        # Filtered by author here, not with `creator=`: how GitHub spells an App's login there varies.
        issues = gh.withLazy(True).get_repo(repo).get_issues(state="open", labels=[label], sort="created",
                                                             direction="desc")
        for issue in issues:
            if issue.pull_request is None and _is_our_digest(issue, own_login):
                return issue
    except github.GithubException as exc:
        raise GitHubError(f"cannot look for the rolling digest issue labelled `{label}` in {repo}: "
                          f"GitHub answered {exc.status}; grant the token `issues: read`.") from None
    except TRANSIENT as exc:
        raise GitHubError(f"cannot look for the rolling digest issue: {type(exc).__name__}") from None
    return None


def previous_digest_end(gh: github.Github, repo: str, label: str, own_login: str) -> datetime | None:
    """Where the last digest (issue with `label`, open or closed) ended: the next one starts there."""
    try:
        issues = gh.withLazy(True).get_repo(repo).get_issues(state="all", labels=[label], sort="created",
                                                             direction="desc")
        for i, issue in enumerate(issues):
            if i >= 20:
                break
            match = _END.search(issue.body or "") if _is_our_digest(issue, own_login) else None
            if match:
                return parse_github_time(match.group(1))
    except (github.GithubException, *TRANSIENT) as exc:
        log.warning("could not read the previous digest (%s); using the default window", type(exc).__name__)
    return None


def publish_issue(gh: github.Github, repo: str, title: str, body: str, label: str) -> str:
    """A new issue holding the digest; its URL."""
    try:
        issue = gh.withLazy(True).get_repo(repo).create_issue(title=title, body=body, labels=[label] if label else [])
    except github.GithubException as exc:
        raise _refusal(exc, "open the digest issue", "issues: write") from None
    except TRANSIENT as exc:
        raise PublishError(f"cannot open the digest issue: {type(exc).__name__}; re-run the job") from None
    return str(issue.html_url)


def publish_rolling_issue(gh: github.Github, repo: str, title: str, body: str, label: str, own_login: str) -> str:
    """Edit our open issue labelled `label` in place, or open it the first time; its URL."""
    existing = find_rolling_issue(gh, repo, label, own_login) if own_login else None
    if existing is None:
        return publish_issue(gh, repo, title, body, label)
    try:
        existing.edit(title=title, body=body)
    except github.GithubException as exc:
        raise _refusal(exc, f"update the rolling digest issue #{existing.number}", "issues: write") from None
    except TRANSIENT as exc:
        raise PublishError(f"cannot update the rolling digest issue: {type(exc).__name__}; re-run the job") from None
    return str(existing.html_url)


def publish_discussion(gh: github.Github, settings: Settings, repo: str, title: str, body: str,
                       category: str) -> str:
    """A new Discussion in `category` (matched by name or slug, case-insensitively); its URL."""
    owner, name = repo.split("/", 1)
    data, _ = graphql(graphql_reader(gh), settings, CATEGORIES_QUERY, {"owner": owner, "name": name},
                      f"looking up the discussion categories of {repo}")
    repository = data.get("repository") or {}
    if not repository:
        raise PublishError(f"cannot post the digest as a discussion: {repo} was not found or the token cannot see it")
    nodes = (repository.get("discussionCategories") or {}).get("nodes") or []
    if not repository.get("hasDiscussionsEnabled", True) or not nodes:
        raise PublishError(f"cannot post the digest as a discussion: {repo} has Discussions turned off; enable them "
                           "in the repository settings, or use `--publish rolling-issue`.")
    wanted = category.strip().lower()
    match = next((n for n in nodes if wanted in (str(n.get("name", "")).lower(), str(n.get("slug", "")).lower())),
                 None)
    if match is None:
        names = ", ".join(str(n.get("name")) for n in nodes)
        raise PublishError(f"no discussion category {category!r} in {repo}; choose one of: {names}")
    try:
        data, _ = graphql(gh, settings, CREATE_DISCUSSION,
                          {"repositoryId": repository["id"], "categoryId": match["id"], "title": title, "body": body},
                          "creating the digest discussion")
    except GitHubError as exc:
        raise PublishError(f"{exc} The token needs `discussions: write`.") from None
    discussion = (data.get("createDiscussion") or {}).get("discussion") or {}
    return str(discussion.get("url", ""))


def _refusal(exc: github.GithubException, what: str, permission: str) -> PublishError:
    error = describe_refusal(exc, what)
    if getattr(error, "reason", "") == "read-only":
        # describe_refusal's advice is about fork PRs; a digest's fix is a permission in the workflow.
        return PublishError(f"cannot {what}: the token may not write here (GitHub answered {exc.status}); "
                            f"grant `{permission}` in the workflow's `permissions:`, or use `--publish none`.")
    return error
