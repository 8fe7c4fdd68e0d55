"""gather: one pull request from GitHub -> PRContext (GraphQL through github_api, files through rest).

Requests for a typical PR (<=100 files, <=100 comments, <=50 review threads): three.
  1. GraphQL: metadata, commits, conversation, reviews, review threads, closing issues (with their
     comments), cross-referencing items, and the base branch's CODEOWNERS — one round trip.
  2. REST: the files with patches, 100 per page (GraphQL has no patches).
  3. GraphQL: issues the body and commit messages reference that GitHub did not already link
     (skipped when there are none).
Then one REST request for each of at most 10 Python files whose hunks change lines under a `class`
header with no `def` line of their own (gather/outline.py: the file at the head says which method).
More only when something does not fit: further pages (gather/pages.py: one query per round for all
connections, a few long threads per query, at most pages.MAX_PAGE_REQUESTS), the diff media type for
patches GitHub left out. When GitHub fails on the first query (a busy PR: its 10 s cut-off, or partial
data), the PR is read without its discussion (queries.CORE_QUERY) and the discussion paged from the
start; what still cannot be read is a coverage note, never a failed review.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from ..config import Settings
from ..errors import GitHubError
from ..models import LinkedIssue, LinkKind, PRContext, RelatedItem
from ..notes import note
from .github_api import GitHub, GraphQLReader, graphql, graphql_reader
from .links import IssueRef, find_issue_refs
from .nodes import (
    actor,
    comments_from_nodes,
    commits_from_nodes,
    linked_issue_from_node,
    related_from_node,
    reviews_from_nodes,
    threads_from_nodes,
)
from .outline import MAX_OUTLINE_BYTES, add_outlines
from .owners import first_codeowners, match_areas, match_owners
from .pages import Pager, holes, read_remaining_pages
from .queries import (
    CODEOWNERS_ALIAS_PATHS,
    CORE_QUERY,
    DISCUSSION_CONNECTIONS,
    PULL_REQUEST_QUERY,
    linked_items_query,
    linked_items_variables,
)
from .rest import FILES_API_CAP, fetch_files, fill_missing_patches, read_file_bytes

HEAVY_READ_RETRIES = 1  # a 502 on a PR's discussion is likely GitHub's 10 s cut-off: ask smaller, not again
MAX_TEXT_CLOSING_REFS = 10
MAX_MENTIONS = 20

log = logging.getLogger(__name__)


def gather_pr(gh: GitHub, repo: str, number: int, settings: Settings) -> PRContext:
    owner, _, name = repo.partition("/")
    if not owner or not name:
        raise GitHubError(f"repository must be OWNER/NAME, got {repo!r}")
    notes: list[str] = []
    noise: Counter[str] = Counter()
    ignore = settings.repo_config.ignore_authors
    base_vars = {"owner": owner, "name": name, "number": number}

    reader = graphql_reader(gh)
    pr, unread = _first_query(gh, reader, settings, base_vars, f"{repo}#{number}")
    pager = Pager(graphql_reader(gh, retries=HEAVY_READ_RETRIES), settings, f"{repo}#{number}", base_vars)
    read_remaining_pages(pager, pr, unread)
    notes += pager.notes

    files = fetch_files(gh, settings, repo, number)
    changed = int(pr.get("changedFiles") or len(files))
    if len(files) < changed:
        key = "files_not_listed_cap" if len(files) >= FILES_API_CAP else "files_not_listed"
        notes.append(note(key, missing=f"{changed - len(files):,}", changed=f"{changed:,}"))
    lines = int(pr.get("additions") or 0) + int(pr.get("deletions") or 0)
    files = fill_missing_patches(gh, settings, repo, number, files, lines, notes)
    head_sha = str(pr.get("headRefOid") or "")
    if head_sha:  # which method a change under a `class` hunk header is in: at most MAX_OUTLINE_FILES reads
        files = add_outlines(files, lambda path: read_file_bytes(gh, repo, path, head_sha, MAX_OUTLINE_BYTES))

    title, body = str(pr.get("title") or ""), str(pr.get("body") or "")
    commit_nodes = [n for n in pr["commits"]["nodes"] if n]
    linked, related = _links(reader, settings, repo, number, pr, commit_nodes, notes)

    paths = [f.path for f in files]
    owners: dict[str, list[str]] = {}
    found = first_codeowners(_base_files(pr))
    if found:
        owners = match_owners(found[1], paths)
    author, author_is_bot = actor(pr.get("author"))
    state = "merged" if pr.get("merged") else str(pr.get("state") or "open").lower()
    return PRContext(
        repo=repo,
        number=number,
        title=title,
        body=body,
        author=author,
        author_is_bot=author_is_bot,
        author_association=str(pr.get("authorAssociation") or ""),
        url=str(pr.get("url") or ""),
        state="closed" if state == "merged" else state,
        draft=bool(pr.get("isDraft")),
        locked=bool(pr.get("locked")),
        merged=bool(pr.get("merged")),
        base_ref=str(pr.get("baseRefName") or ""),
        head_ref=str(pr.get("headRefName") or ""),
        base_sha=str(pr.get("baseRefOid") or ""),
        head_sha=head_sha,
        labels=[str(lb["name"]) for lb in (pr.get("labels") or {}).get("nodes") or [] if lb],
        created_at=str(pr.get("createdAt") or ""),
        merged_at=str(pr.get("mergedAt") or ""),
        files=files,
        changed_files=changed,
        additions=int(pr.get("additions") or 0),
        deletions=int(pr.get("deletions") or 0),
        commits=commits_from_nodes(commit_nodes, title, body),
        commit_count=int(pr["commits"].get("totalCount") or len(commit_nodes)),
        comments=comments_from_nodes(pr["comments"]["nodes"], ignore, noise),
        reviews=reviews_from_nodes(pr["reviews"]["nodes"], ignore, noise),
        threads=threads_from_nodes(pr["reviewThreads"]["nodes"], ignore, noise, notes),
        linked_issues=linked,
        related=related,
        owners=owners,
        areas=match_areas(settings.repo_config.areas, paths),
        noise_counts=dict(noise),
        gather_notes=notes,
    )


def _first_query(gh: GitHub, reader: GraphQLReader, settings: Settings, base_vars: dict[str, Any],
                 what: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The PR from the main query, and the connections still to read whole: none normally; the discussion
    when GitHub failed on the main query (then the PR comes from CORE_QUERY); a connection it answered
    with holes (partial data)."""
    doing = f"reading {what}"
    failure = ""
    try:
        data, errors = graphql(graphql_reader(gh, retries=HEAVY_READ_RETRIES), settings, PULL_REQUEST_QUERY,
                               base_vars, doing, partial=True)
        pr = (data.get("repository") or {}).get("pullRequest")
        missing = [e for e in errors if e.get("type") == "NOT_FOUND"]
        failure = "" if pr or missing else "; ".join(str(e.get("message", ""))[:160] for e in errors[:2])
    except GitHubError as exc:
        if "rate limit" in str(exc).lower():
            raise  # a smaller query would be refused just the same
        pr, missing, failure = None, [], str(exc)
    if pr:
        return pr, tuple(name for name in DISCUSSION_CONNECTIONS if holes(pr.get(name)))
    if not failure:
        why = missing[0].get("message") if missing else "no such pull request"
        raise GitHubError(f"{what}: {why}. Check the number, and that the token can read the repository.")
    log.warning("%s: GitHub failed on the full query (%s); reading it without its discussion, then the "
                "discussion page by page", what, failure[:200])
    data, missing = graphql(reader, settings, CORE_QUERY, base_vars, doing)
    pr = (data.get("repository") or {}).get("pullRequest")
    if not pr:
        why = missing[0].get("message") if missing else "no such pull request"
        raise GitHubError(f"{what}: {why}. Check the number, and that the token can read the repository.")
    return pr, DISCUSSION_CONNECTIONS


def _base_files(pr: dict[str, Any]) -> dict[str, str | None]:
    target = ((pr.get("baseRef") or {}).get("target")) or {}
    out: dict[str, str | None] = {}
    for alias, path in CODEOWNERS_ALIAS_PATHS.items():
        blob = ((target.get(alias) or {}).get("object")) or {}
        out[path] = blob.get("text") if "text" in blob else None
    return out


def _links(
    reader: GraphQLReader,
    settings: Settings,
    repo: str,
    number: int,
    pr: dict[str, Any],
    commit_nodes: list[dict[str, Any]],
    notes: list[str],
) -> tuple[list[LinkedIssue], list[RelatedItem]]:
    """Linked issues (GitHub's closing references + `Fixes #N` in text) and related items."""
    ignore = settings.repo_config.ignore_authors
    closing = pr.get("closingIssuesReferences") or {}
    linked = [linked_issue_from_node(n, repo, ignore) for n in closing.get("nodes") or [] if n]
    if (closing.get("totalCount") or 0) > len(linked):
        notes.append(note("closing_issues", total=closing["totalCount"], read=len(linked)))

    def key(item_repo: str, n: int) -> tuple[str, int]:
        return ((item_repo or repo).lower(), n)

    known = {key(i.repo, i.number) for i in linked} | {(repo.lower(), number)}
    related: list[RelatedItem] = []
    timeline = (pr.get("timelineItems") or {}).get("nodes") or []
    for event in timeline:
        source = (event or {}).get("source")
        if source and source.get("number") is not None:
            item = related_from_node(source, repo, LinkKind.CROSS_REFERENCED)
            if key(item.repo, item.number) not in known:
                known.add(key(item.repo, item.number))
                related.append(item)

    text = "\n".join([str(pr.get("body") or "")] + [str((c.get("commit") or {}).get("message") or "")
                                                     for c in commit_nodes])
    refs = [r for r in find_issue_refs(text, repo) if key(r.repo, r.number) not in known and r.number < 2**31]
    closing_refs = [r for r in refs if r.kind is LinkKind.CLOSING]
    mentions = [r for r in refs if r.kind is LinkKind.MENTIONED]
    if len(closing_refs) > MAX_TEXT_CLOSING_REFS or len(mentions) > MAX_MENTIONS:
        notes.append(note("text_references", closing=len(closing_refs), mentions=len(mentions),
                          closing_read=MAX_TEXT_CLOSING_REFS, mentions_read=MAX_MENTIONS))
    wanted = closing_refs[:MAX_TEXT_CLOSING_REFS] + mentions[:MAX_MENTIONS]
    if wanted:
        more_linked, more_related = _lookup_refs(reader, settings, repo, number, wanted, notes)
        linked += more_linked
        related += more_related
    return linked, related


def _lookup_refs(
    reader: GraphQLReader, settings: Settings, repo: str, number: int, refs: list[IssueRef], notes: list[str]
) -> tuple[list[LinkedIssue], list[RelatedItem]]:
    grouped: dict[str, tuple[str, list[tuple[int, bool]]]] = {}
    for r in refs:
        grouped.setdefault(r.repo.lower(), (r.repo, []))[1].append((r.number, r.kind is LinkKind.CLOSING))
    groups = list(grouped.values())
    data, missing = graphql(reader, settings, linked_items_query(groups), linked_items_variables(groups),
                            f"looking up issues referenced by {repo}#{number}")
    linked: list[LinkedIssue] = []
    related: list[RelatedItem] = []
    ignore = settings.repo_config.ignore_authors
    for i, (_, items) in enumerate(groups):
        block = data.get(f"r{i}") or {}
        for n, detailed in items:
            node = block.get(f"n{n}")
            if not node:
                continue
            if detailed and node.get("__typename") == "Issue":
                linked.append(linked_issue_from_node(node, repo, ignore))
            else:
                kind = LinkKind.MENTIONED
                related.append(related_from_node(node, repo, kind))
    if missing:
        notes.append(note("references_missing", n=len(missing)))
    return linked, related
