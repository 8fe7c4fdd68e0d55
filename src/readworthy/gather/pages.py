"""The rest of a busy pull request's discussion, in bounded requests that degrade to a coverage note.

GitHub cuts off a query that runs over 10 s (a 502 or 504) and answers partial data (an error, and null
where it stopped) when a query loads too much; vLLM's busiest PRs carry hundreds of review threads. So:
  - the connections that did not fit the first query (conversation, reviews, review threads,
    cross-references, commits) are paged by their `pageInfo` cursors, all of them in one query per round;
  - a review thread's comments beyond its first page are read by the thread's id, a few threads a query;
  - a page GitHub fails on (a 502 after one retry, or partial data) is asked again on its own, then
    smaller, down to MIN_PAGE; one that still fails stops that connection with a coverage note;
  - the whole PR may take at most MAX_PAGE_REQUESTS such requests; what is left is named in a note.
What was read is always kept: a failed page never turns into a failed review.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..errors import GitHubError
from ..notes import note
from .github_api import GraphQLReader, graphql
from .queries import PAGE_SIZES, THREAD_COMMENTS_PAGE, more_pages_query, thread_comments_query

log = logging.getLogger(__name__)

MAX_PAGE_REQUESTS = 40  # per PR: 2,000 review threads or 4,000 comments; the rest is a coverage note
MIN_PAGE = 5
THREADS_PER_QUERY = 10  # long threads whose further comments one query asks for (10 x 50 comments)
_NOTE_KEYS = {"comments": "unread_comments", "reviews": "unread_reviews", "reviewThreads": "unread_threads",
              "timelineItems": "unread_crossrefs", "commits": "unread_commits"}


@dataclass
class _Connection:
    name: str
    size: int
    cursor: str | None  # None: from the first page
    failed: str = ""  # why GitHub's answers stopped this connection


@dataclass
class Pager:
    """The request budget of one PR's reads, shared by its connections and its long threads."""

    reader: GraphQLReader
    settings: Settings
    what: str  # "OWNER/REPO#N", for messages
    variables: dict[str, Any]  # owner, name, number
    left: int = field(default_factory=lambda: MAX_PAGE_REQUESTS)
    notes: list[str] = field(default_factory=list)

    def ask(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
        """(data, "") or (None, why): GitHub's failures are answers here, never exceptions."""
        self.left -= 1
        try:
            data, errors = graphql(self.reader, self.settings, query, variables, f"reading more of {self.what}",
                                   partial=True)
        except GitHubError as exc:
            return None, str(exc)
        problems = [e for e in errors if e.get("type") != "NOT_FOUND"]
        if problems:
            return data, "; ".join(str(e.get("message", e))[:160] for e in problems[:2])
        return data, ""


def holes(conn: dict[str, Any] | None) -> bool:
    """A connection GitHub did not answer whole: missing, or with null nodes (partial data)."""
    return conn is None or any(n is None for n in conn.get("nodes") or [])


def empty_connection(total: int = 0) -> dict[str, Any]:
    return {"totalCount": total, "nodes": [], "pageInfo": {"hasNextPage": True, "endCursor": None}}


def read_remaining_pages(pager: Pager, pr: dict[str, Any], unread: tuple[str, ...] = ()) -> None:
    """Append the further pages of every connection of `pr` in place (`unread`: connections the first
    query did not carry, or carried with holes, read again from their first page), then the long
    threads' comments."""
    todo: list[_Connection] = []
    for name in PAGE_SIZES:
        if name in unread:
            pr[name] = empty_connection(int((pr.get(f"{name}Total") or pr.get(name) or {}).get("totalCount") or 0))
            todo.append(_Connection(name, PAGE_SIZES[name], None))
            continue
        info = (pr.get(name) or {}).get("pageInfo") or {}
        if info.get("hasNextPage") and info.get("endCursor"):
            todo.append(_Connection(name, PAGE_SIZES[name], str(info["endCursor"])))
    failed: list[_Connection] = []
    alone = False  # after a failed round each connection is asked on its own, so a failure is its own
    while todo and pager.left > 0:
        batch = todo[:1] if alone else list(todo)
        variables = pager.variables | {f"{c.name}After": c.cursor for c in batch}
        data, why = pager.ask(more_pages_query({c.name: c.size for c in batch}), variables)
        more = ((data or {}).get("repository") or {}).get("pullRequest") or {}
        if why or any(holes(more.get(c.name)) for c in batch):
            log.info("%s: GitHub failed on a page of %s (%s)", pager.what, ", ".join(c.name for c in batch), why[:120])
            if len(batch) > 1:
                alone = True
            elif batch[0].size > MIN_PAGE:
                batch[0].size = max(MIN_PAGE, batch[0].size // 2)  # a smaller page loads less, runs shorter
            else:
                batch[0].failed = why or "no data"
                todo.remove(batch[0])
                failed.append(batch[0])
            continue
        for c in batch:
            page = more[c.name]
            _append(pr[c.name], page)
            if page["pageInfo"]["hasNextPage"] and page["pageInfo"]["endCursor"]:
                c.cursor = page["pageInfo"]["endCursor"]
            else:
                todo.remove(c)
    for c in todo:  # the request budget ran out
        pager.notes.append(_unread_note(pr, c.name, note("why_capped", n=MAX_PAGE_REQUESTS)))
    for c in failed:
        pager.notes.append(_unread_note(pr, c.name, note("why_failed", error=c.failed[:200])))
    for c in todo + failed:
        _close(pr[c.name])
    read_long_threads(pager, pr)


def _append(conn: dict[str, Any], page: dict[str, Any]) -> None:
    conn["nodes"] += page.get("nodes") or []
    conn["pageInfo"] = page.get("pageInfo") or {"hasNextPage": False, "endCursor": None}
    conn["totalCount"] = page.get("totalCount", conn.get("totalCount", 0))


def _unread_note(pr: dict[str, Any], name: str, why: str) -> str:
    conn = pr.get(name) or {}
    read = sum(1 for n in conn.get("nodes") or [] if n)
    total = max(int(conn.get("totalCount") or 0), read)
    return note(_NOTE_KEYS[name], read=f"{read:,}", total=f"{total:,}", cause=why)


def read_long_threads(pager: Pager, pr: dict[str, Any]) -> None:
    """The comments of review threads beyond their first page, by thread id, a few threads a query."""
    threads = [t for t in ((pr.get("reviewThreads") or {}).get("nodes") or [])
               if t and t.get("id") and ((t.get("comments") or {}).get("pageInfo") or {}).get("hasNextPage")]
    per_query = THREADS_PER_QUERY
    failure, given_up = "", 0
    while threads and pager.left > 0:
        batch = threads[:per_query]
        variables: dict[str, Any] = {}
        for i, t in enumerate(batch):
            variables[f"t{i}"] = t["id"]
            variables[f"c{i}"] = t["comments"]["pageInfo"]["endCursor"]
        data, why = pager.ask(thread_comments_query(len(batch), THREAD_COMMENTS_PAGE), variables)
        pages = [((data or {}).get(f"t{i}") or {}).get("comments") for i in range(len(batch))]
        if why or any(holes(page) for page in pages):
            log.info("%s: GitHub failed on %d long thread(s)' comments (%s)", pager.what, len(batch), why[:120])
            if len(batch) > 1:
                per_query = 1  # one thread a query from now on, so a failure is that thread's own
                continue
            failure = why or "no data"
            given_up += 1
            _close(batch[0]["comments"])
            threads.remove(batch[0])
            continue
        for t, page in zip(batch, pages, strict=True):
            if page is None:  # not reached: holes() above
                continue
            _append(t["comments"], page)
            if not (page["pageInfo"]["hasNextPage"] and page["pageInfo"]["endCursor"]):
                threads.remove(t)
    if given_up:
        pager.notes.append(note("unread_thread_comments", n=given_up, cause=note("why_failed", error=failure[:200])))
    if threads:  # the request budget ran out
        capped = note("why_capped", n=MAX_PAGE_REQUESTS)
        pager.notes.append(note("unread_thread_comments", n=len(threads), cause=capped))
        for t in threads:
            _close(t["comments"])


def _close(conn: dict[str, Any]) -> None:
    """Stop paging `conn`: what was read stands, and the thread's own note says how much."""
    conn["pageInfo"] = {"hasNextPage": False, "endCursor": None}
