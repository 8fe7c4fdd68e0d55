"""GraphQL nodes -> typed discussion values, with noise left out and counted. Pure functions.

GitHub's GraphQL reports bot authors as `Bot` with the login minus "[bot]" ("github-actions"),
while REST says "github-actions[bot]"; logins are normalised to the REST form so that a login means
the same account everywhere (the sticky-comment author check compares them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..models import (
    Comment,
    Commit,
    LinkedIssue,
    LinkKind,
    RelatedItem,
    Review,
    ReviewState,
    ReviewThread,
    ThreadComment,
)
from ..notes import note
from .noise import noise_kind

SUBSTANTIVE_COMMENTS = 4  # per linked issue: the first comment + the longest others
_TRAILER = re.compile(r"^(signed-off-by|co-authored-by|reviewed-by|change-id):.*$", re.IGNORECASE | re.MULTILINE)


def actor(node: dict[str, Any] | None) -> tuple[str, bool]:
    """(login in REST form, is_bot). A deleted account is GitHub's "ghost"."""
    if not node:
        return "ghost", False
    login = str(node.get("login") or "ghost")
    is_bot = node.get("__typename") == "Bot" or login.endswith("[bot]")
    if is_bot and not login.endswith("[bot]"):
        login += "[bot]"
    return login, is_bot


def _db_id(node: dict[str, Any]) -> int:
    raw = node.get("fullDatabaseId") or node.get("databaseId") or 0
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def comments_from_nodes(nodes: Iterable[dict[str, Any]], ignore: Iterable[str], noise: Counter[str]) -> list[Comment]:
    kept = []
    ignore = list(ignore)
    for node in nodes:
        if not node:  # partial data: GitHub left it out (pages.py notes what was not read)
            continue
        login, is_bot = actor(node.get("author"))
        body = str(node.get("body") or "")
        kind = noise_kind(login, body, author_is_bot=is_bot, ignore_authors=ignore)
        if kind:
            noise[kind] += 1
            continue
        kept.append(Comment(id=_db_id(node), author=login, body=body, created_at=str(node.get("createdAt") or ""),
                            author_is_bot=is_bot))
    return kept


def reviews_from_nodes(nodes: Iterable[dict[str, Any]], ignore: Iterable[str], noise: Counter[str]) -> list[Review]:
    """Reviews by people. A COMMENTED review with no body only wraps inline comments (kept as threads)."""
    kept = []
    ignore = list(ignore)
    for node in nodes:
        if not node:
            continue
        login, is_bot = actor(node.get("author"))
        body = str(node.get("body") or "")
        state = str(node.get("state") or "COMMENTED")
        if state == "PENDING" or (state == "COMMENTED" and not body.strip()):
            continue
        kind = noise_kind(login, body, author_is_bot=is_bot, ignore_authors=ignore)
        if kind in ("own", "bot"):
            noise[kind] += 1
            continue
        kept.append(Review(id=_db_id(node), author=login, state=ReviewState(state), body=body,
                           submitted_at=str(node.get("submittedAt") or "")))
    return kept


def threads_from_nodes(
    nodes: Iterable[dict[str, Any]], ignore: Iterable[str], noise: Counter[str], notes: list[str]
) -> list[ReviewThread]:
    threads = []
    ignore = list(ignore)
    for node in nodes:
        if not node:
            continue
        conn = node.get("comments") or {}
        # The diff hunk is asked once per thread, on its first comment (queries.py: `hunk`).
        first = [c for c in (node.get("hunk") or {}).get("nodes") or [] if c]
        comments, hunk = [], str(first[0].get("diffHunk") or "") if first else ""
        read = [c for c in conn.get("nodes") or [] if c]
        for c in read:
            hunk = hunk or str(c.get("diffHunk") or "")
            login, is_bot = actor(c.get("author"))
            body = str(c.get("body") or "")
            kind = noise_kind(login, body, author_is_bot=is_bot, ignore_authors=ignore)
            if kind in ("own", "bot", "command", "empty"):
                noise[kind] += 1
                continue
            comments.append(ThreadComment(author=login, body=body, created_at=str(c.get("createdAt") or "")))
        if (conn.get("totalCount") or 0) > len(read):
            notes.append(note("long_thread", path=node.get("path"), total=conn["totalCount"], read=len(read)))
        if not comments:
            continue
        threads.append(ReviewThread(
            path=str(node.get("path") or ""),
            line=node.get("line") if node.get("line") is not None else node.get("originalLine"),
            is_resolved=bool(node.get("isResolved")),
            is_outdated=bool(node.get("isOutdated")),
            diff_hunk=hunk,
            comments=comments,
        ))
    return threads


def _strip_trailers(message: str) -> str:
    return _TRAILER.sub("", message).strip()


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def commits_from_nodes(nodes: Iterable[dict[str, Any]], title: str, body: str) -> list[Commit]:
    """Commit messages a reader has not already seen in the title or body, each once."""
    seen = {_norm(title)}
    body_norm = _norm(body)
    commits = []
    for node in nodes:
        c = (node or {}).get("commit") or {}
        message = _strip_trailers(str(c.get("message") or ""))
        key = _norm(message)
        if not key or key in seen or key in body_norm:
            continue
        seen.add(key)
        author = c.get("author") or {}
        login = (author.get("user") or {}).get("login") or author.get("name") or ""
        commits.append(Commit(sha=str(c.get("oid") or ""), message=message, author=str(login)))
    return commits


def _substantive(comments: list[Comment]) -> list[Comment]:
    """The first comment and the longest others, in their original order."""
    if len(comments) <= SUBSTANTIVE_COMMENTS:
        return comments
    rest = sorted(comments[1:], key=lambda c: len(c.body), reverse=True)[: SUBSTANTIVE_COMMENTS - 1]
    keep = {id(c) for c in rest} | {id(comments[0])}
    return [c for c in comments if id(c) in keep]


def _repo_of(node: dict[str, Any], pr_repo: str) -> str:
    name = str((node.get("repository") or {}).get("nameWithOwner") or "")
    return "" if not name or name.lower() == pr_repo.lower() else name


def linked_issue_from_node(node: dict[str, Any], pr_repo: str, ignore: Iterable[str]) -> LinkedIssue:
    comments = comments_from_nodes((node.get("comments") or {}).get("nodes") or [], ignore, Counter())
    return LinkedIssue(
        number=int(node["number"]),
        repo=_repo_of(node, pr_repo),
        title=str(node.get("title") or ""),
        state=str(node.get("state") or node.get("issueState") or "").lower(),
        labels=[str(lb["name"]) for lb in (node.get("labels") or {}).get("nodes") or [] if lb],
        body=str(node.get("body") or ""),
        comments=_substantive(comments),
        url=str(node.get("url") or ""),
    )


def related_from_node(node: dict[str, Any], pr_repo: str, kind: LinkKind) -> RelatedItem:
    is_pr = node.get("__typename") == "PullRequest"
    state = node.get("prState") if is_pr else (node.get("issueState") or node.get("state"))
    return RelatedItem(
        number=int(node["number"]),
        repo=_repo_of(node, pr_repo),
        title=str(node.get("title") or ""),
        state=str(state or "").lower(),
        is_pull_request=is_pr,
        kind=kind,
        url=str(node.get("url") or ""),
    )
