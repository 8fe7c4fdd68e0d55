"""The material a prompt is packed from: the PR context with its prose cleaned, @mentions unlinked
and secrets redacted everywhere (before anything is counted, so a secret can neither be sent nor
change what fits), and the hash of that material that decides whether a stored analysis still holds."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ..config import Settings
from ..models import Comment, FileChange, PRContext, Review, ReviewThread, ThreadComment
from ..prompts.messages import PROMPT_VERSION
from .redact import redact_secrets
from .sanitize import clean_prose

_MENTION_RE = re.compile(r"(?<![\w@/.`])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\b")
_HUNK_HEADER_RE = re.compile(r"^@@[^\n]*", re.MULTILINE)


@dataclass(frozen=True)
class Material:
    ctx: PRContext  # cleaned and redacted copy
    secrets: int  # how many secrets were redacted



def prepare_material(ctx: PRContext) -> Material:
    """A copy of the context with prose cleaned, @mentions unlinked, and secrets redacted everywhere."""
    secrets = 0

    def prose(text: str) -> str:
        nonlocal secrets
        cleaned, n = redact_secrets(_MENTION_RE.sub(r"\1", clean_prose(text)))
        secrets += n
        return cleaned

    def code(text: str | None) -> str | None:
        nonlocal secrets
        if not text:
            return text
        redacted, n = redact_secrets(text)
        secrets += n
        return redacted

    def comments(items: list[Comment]) -> list[Comment]:
        return [c.model_copy(update={"body": prose(c.body), "author": c.author.lstrip("@")}) for c in items]

    files = [_with_patch(f, code(f.patch)) for f in ctx.files]
    commits = [c.model_copy(update={"message": prose(c.message)}) for c in ctx.commits]
    issues = [
        i.model_copy(update={"title": prose(i.title), "body": prose(i.body), "comments": comments(i.comments)})
        for i in ctx.linked_issues
    ]
    reviews: list[Review] = [
        r.model_copy(update={"body": prose(r.body), "author": r.author.lstrip("@")}) for r in ctx.reviews
    ]
    threads: list[ReviewThread] = [
        t.model_copy(
            update={
                "comments": [
                    ThreadComment(author=c.author.lstrip("@"), body=prose(c.body), created_at=c.created_at)
                    for c in t.comments
                ],
                "diff_hunk": "",  # the diff section shows the code; the hunk copy would be counted twice
            }
        )
        for t in ctx.threads
    ]
    related = [r.model_copy(update={"title": prose(r.title)}) for r in ctx.related]
    clean = ctx.model_copy(
        update={
            "title": prose(ctx.title).replace("\n", " "),
            "body": prose(ctx.body),
            "author": ctx.author.lstrip("@"),
            "files": files,
            "commits": commits,
            "comments": comments(ctx.comments),
            "reviews": reviews,
            "threads": threads,
            "linked_issues": issues,
            "related": related,
        }
    )
    return Material(clean, secrets)


def _with_patch(change: FileChange, patch: str | None) -> FileChange:
    return change if patch is change.patch else change.model_copy(update={"patch": patch})


def input_hash(ctx: PRContext, settings: Settings) -> str:
    """sha256 over what was packed. The diff part is normalised like `git patch-id`: no index lines,
    no hunk line numbers, no whitespace, no SHAs, so a rebase without changes keeps the hash."""
    h = hashlib.sha256()

    def put(*parts: object) -> None:
        for part in parts:
            data = str(part).encode("utf-8", "replace")
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)

    put("v1", PROMPT_VERSION, settings.model, settings.language, settings.budget)
    if not settings.repo_config.taste.empty:  # the team's taste shapes the verdict: a new one re-analyses
        put("taste", settings.repo_config.taste.model_dump_json())
    put(ctx.title, ctx.body)
    for commit in ctx.commits:
        put("commit", commit.message)
    for issue in ctx.linked_issues:
        put("issue", issue.number, issue.title, issue.body, *(c.body for c in issue.comments))
    for review in ctx.reviews:
        put("review", review.author, review.state.value, review.body)
    for thread in ctx.threads:
        put("thread", thread.path, thread.is_resolved, *(c.body for c in thread.comments))
    for comment in ctx.comments:
        put("comment", comment.author, comment.body)
    for change in sorted(ctx.files, key=lambda f: f.path):
        patch = "".join(_HUNK_HEADER_RE.sub("@@", change.patch or "").split())  # no whitespace, no line numbers
        put("file", change.path, change.previous_path or "", change.status.value, change.binary, patch)
    return h.hexdigest()
