"""The prose sections of the prompt: PR, commits, linked issues, discussion.

Input here is already cleaned (sanitize.clean_prose) and redacted (redact.redact_secrets) by material.py.
Each function renders its section into at most `limit` tokens; when the full text does not fit,
the parts a reader needs most go first (see each function).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Comment, Commit, LinkedIssue, PRContext, RelatedItem, Review, ReviewState, ReviewThread
from .tokens import TokenCounter, truncate_to_tokens

# Trailers that say nothing about the change.
_TRAILER_RE = re.compile(r"^(?:Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Change-Id):", re.IGNORECASE)
_PR_NUMBER_SUFFIX_RE = re.compile(r"\s*\(#\d+\)\s*$")
# Long single comments are cut so one wall of logs cannot take the whole section.
MAX_COMMENT_TOKENS = 400
MAX_ISSUE_BODY_TOKENS = 900
MAX_INCOMPLETE_NAMED = 5  # files named in the "Patch incomplete" line; the comment lists them too


@dataclass(frozen=True)
class SectionText:
    """A rendered prose section and how many items it shows (issues, or discussion comments)."""

    text: str
    items: int


def render_pr(ctx: PRContext, limit: int, counter: TokenCounter) -> str:
    """Title and metadata always; the description truncated from its end if it does not fit."""
    meta = [f"Title: {ctx.title}" if ctx.title else "Title: (none)"]
    facts = []
    if ctx.repo:
        facts.append(f"{ctx.repo}#{ctx.number}" if ctx.number else ctx.repo)
    if ctx.author:
        facts.append(f"author {ctx.author}" + (" (bot)" if ctx.author_is_bot else ""))
    if ctx.base_ref:
        facts.append(f"{ctx.head_ref or '?'} -> {ctx.base_ref}")
    if ctx.draft:
        facts.append("draft")
    if ctx.state and ctx.state != "open":
        facts.append(ctx.state + (" (merged)" if ctx.merged else ""))
    if ctx.labels:
        facts.append("labels: " + ", ".join(ctx.labels))
    if facts:
        meta.append(" | ".join(facts))
    incomplete = [f.path for f in ctx.files if f.patch_incomplete]
    if incomplete:
        shown = ", ".join(incomplete[:MAX_INCOMPLETE_NAMED])
        if len(incomplete) > MAX_INCOMPLETE_NAMED:
            shown += " and more"
        meta.append(f"Patch incomplete: the diff of {shown} is cut off or damaged; only part of the change "
                    "is visible.")
    related = [_related_line(item) for item in ctx.related]
    if related:
        meta.append("Mentioned or cross-referenced:\n" + "\n".join(related))
    head = "\n".join(meta)
    body = ctx.body.strip()
    if not body:
        return truncate_to_tokens(counter, head + "\nDescription: (empty)", limit)
    room = limit - counter.count(head) - 4
    if room <= 20:
        return truncate_to_tokens(counter, head, limit)
    return head + "\nDescription:\n" + truncate_to_tokens(counter, body, room)


def _related_line(item: RelatedItem) -> str:
    ref = f"{item.repo}#{item.number}" if item.repo else f"#{item.number}"
    what = "PR" if item.is_pull_request else "issue"
    return f"- {ref} ({what}, {item.state or '?'}, {item.kind.value}): {item.title}"


def render_commits(commits: list[Commit], title: str, body: str, limit: int, counter: TokenCounter) -> str:
    """One block per commit, minus what the title and description already say (squash commits
    repeat them) and minus sign-off trailers; identical messages once."""
    title_key = _norm(_PR_NUMBER_SUFFIX_RE.sub("", title))
    body_lines = {_norm(line) for line in body.split("\n") if len(line.strip()) > 3}
    seen: set[str] = set()
    blocks: list[str] = []
    for commit in commits:
        lines = [line for line in commit.message.split("\n") if not _TRAILER_RE.match(line.strip())]
        if not lines:
            continue
        subject, rest = lines[0].strip(), lines[1:]
        kept = [line for line in rest if _norm(line) not in body_lines or not line.strip()]
        text = "\n".join(kept).strip()
        subject_dup = _norm(_PR_NUMBER_SUFFIX_RE.sub("", subject)) == title_key
        key = _norm(subject) + "\n" + _norm(text)
        if key in seen or (subject_dup and not text):
            continue
        seen.add(key)
        author = f" ({commit.author})" if commit.author else ""
        head = f"- {subject}{author}" if not subject_dup else f"- (same as title){author}"
        blocks.append(head + ("\n  " + text.replace("\n", "\n  ") if text else ""))
    if not blocks:
        return ""
    header = f"{len(commits)} commit(s); repeated text and sign-offs omitted."
    return truncate_to_tokens(counter, header + "\n" + "\n".join(blocks), limit)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def render_linked_issues(issues: list[LinkedIssue], limit: int, counter: TokenCounter) -> SectionText:
    """Each closing issue: title/state/labels, its body, then its non-bot comments; evenly shared.
    `items`: how many issues made it in."""
    if not issues:
        return SectionText("", 0)
    per_issue = max(limit // len(issues), 60)
    blocks: list[str] = []
    used = 0
    for issue in issues:
        ref = f"{issue.repo}#{issue.number}" if issue.repo else f"#{issue.number}"
        labels = f" [{', '.join(issue.labels)}]" if issue.labels else ""
        parts = [f"### {ref} ({issue.state or '?'}){labels}: {issue.title}"]
        if issue.body.strip():
            parts.append(truncate_to_tokens(counter, issue.body.strip(), MAX_ISSUE_BODY_TOKENS))
        for comment in issue.comments:
            if comment.author_is_bot or not comment.body.strip():
                continue
            parts.append(f"- {comment.author or '?'}: " + truncate_to_tokens(counter, comment.body.strip(), 250))
        block = truncate_to_tokens(counter, "\n".join(parts), min(per_issue, limit - used))
        if not block:
            break
        used += counter.count(block) + 1
        blocks.append(block)
    return SectionText("\n\n".join(blocks), len(blocks))


@dataclass(frozen=True)
class _Item:
    order: int  # chronological position
    priority: int  # lower = kept first when the section is short
    text: str
    comments: int


def render_discussion(
    reviews: list[Review],
    threads: list[ReviewThread],
    comments: list[Comment],
    ignore_authors: frozenset[str],
    limit: int,
    counter: TokenCounter,
) -> SectionText:
    """Reviews (with their state), inline threads (path:line, resolved or not) and PR comments.
    Items are kept by priority (change requests and multi-comment threads first: that is where the
    arguing happens), then printed in their original order."""
    items: list[_Item] = []
    for review in reviews:
        if review.author.lower() in ignore_authors:
            continue
        body = review.body.strip()
        if not body and review.state in (ReviewState.COMMENTED, ReviewState.PENDING):
            continue
        priority = 0 if review.state == ReviewState.CHANGES_REQUESTED else 2
        text = f"[review {review.state.value}] {review.author or '?'}" + (": " + _cut(body, counter) if body else "")
        items.append(_Item(_when(review.submitted_at, len(items)), priority, text, 1 if body else 0))
    for thread in threads:
        kept = [c for c in thread.comments if c.body.strip() and c.author.lower() not in ignore_authors]
        if not kept:
            continue
        where = f"{thread.path}:{thread.line}" if thread.line else thread.path
        flags = ["resolved" if thread.is_resolved else "unresolved"] + (["outdated"] if thread.is_outdated else [])
        lines = [f"[thread {where}, {', '.join(flags)}]"]
        lines += [f"  {c.author or '?'}: {_cut(c.body.strip(), counter)}" for c in kept]
        priority = 0 if len(kept) > 1 else 1
        first = kept[0].created_at
        items.append(_Item(_when(first, len(items)), priority, "\n".join(lines), len(kept)))
    for comment in comments:
        if comment.author_is_bot or comment.author.lower() in ignore_authors or not comment.body.strip():
            continue
        text = f"[comment] {comment.author or '?'}: {_cut(comment.body.strip(), counter)}"
        items.append(_Item(_when(comment.created_at, len(items)), 3, text, 1))
    if not items:
        return SectionText("", 0)
    chosen: list[_Item] = []
    used = 0
    for item in sorted(items, key=lambda it: (it.priority, it.order)):
        cost = counter.count(item.text) + 1
        if used + cost > limit:
            continue
        chosen.append(item)
        used += cost
    chosen.sort(key=lambda it: it.order)
    left_out = len(items) - len(chosen)
    text = "\n".join(item.text for item in chosen)
    if left_out:
        note = f"\n({left_out} more discussion items left out for space)"
        if used + counter.count(note) <= limit:
            text += note
    return SectionText(text, sum(item.comments for item in chosen))


def _cut(text: str, counter: TokenCounter) -> str:
    return truncate_to_tokens(counter, text, MAX_COMMENT_TOKENS).replace("\n", "\n    ")


def _when(timestamp: str, fallback: int) -> int:
    """Sort key from an ISO timestamp (digits only compare correctly); input order when absent."""
    digits = re.sub(r"\D", "", timestamp)[:14]
    return int(digits) * 10_000 + fallback if digits else fallback
