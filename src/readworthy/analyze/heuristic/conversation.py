"""What a PR's conversation and linked issues show: who took part and how, and which issues investigate.

Facts for signals.py, read from PR text (untrusted): counts and markers only, no text is quoted from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...models import PRContext

# Signs that an issue investigates rather than only reports: a cause, a bisection, numbers with units.
# (A traceback or reproduction steps alone are an ordinary bug report.)
_ANALYSIS_MARKERS = re.compile(
    r"root[- ]cause|\bbisect|\bprofil|flame ?graph|\bbenchmark|\bregress|caused by|\bbecause\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|us|µs|%|x|GB|GiB|MB|MiB|tok/s|tokens/s|req/s|QPS|threads)(?!\w)",
    re.IGNORECASE,
)
_BOT_NAME = re.compile(r"\[bot\]$|-bot$|^bot$", re.IGNORECASE)


@dataclass(frozen=True)
class Discussion:
    participants: tuple[str, ...] = ()
    comments: int = 0  # human comments, review bodies and inline replies
    threads: int = 0
    unresolved_threads: int = 0
    unresolved_paths: tuple[str, ...] = ()
    changes_requested: int = 0
    approvals: int = 0


def discussion_of(ctx: PRContext) -> Discussion:
    """Who took part and how: human comments, review verdicts and threads (bots are not people)."""
    people: dict[str, None] = {}
    comments = 0

    def human(name: str, is_bot: bool = False) -> bool:
        return bool(name) and not is_bot and not _BOT_NAME.search(name)

    for c in ctx.comments:
        if human(c.author, c.author_is_bot) and c.body.strip():
            people.setdefault(c.author, None)
            comments += 1
    for r in ctx.reviews:
        if human(r.author) and (r.body.strip() or r.state.value in ("APPROVED", "CHANGES_REQUESTED")):
            people.setdefault(r.author, None)
            comments += 1 if r.body.strip() else 0
    for t in ctx.threads:
        for tc in t.comments:
            if human(tc.author) and tc.body.strip():
                people.setdefault(tc.author, None)
                comments += 1
    unresolved = [t for t in ctx.threads if not t.is_resolved and not t.is_outdated]
    return Discussion(
        participants=tuple(people),
        comments=comments,
        threads=len(ctx.threads),
        unresolved_threads=len(unresolved),
        unresolved_paths=tuple(dict.fromkeys(t.path for t in unresolved)),
        changes_requested=sum(1 for r in ctx.reviews if r.state.value == "CHANGES_REQUESTED"),
        approvals=sum(1 for r in ctx.reviews if r.state.value == "APPROVED"),
    )


def analysed_issues(ctx: PRContext) -> tuple[int, ...]:
    """Linked issues whose text reads like an investigation: a root cause, a bisection, measurements."""
    found = []
    for issue in ctx.linked_issues:
        text = "\n".join([issue.body, *(c.body for c in issue.comments if not c.author_is_bot)])
        markers = len(_ANALYSIS_MARKERS.findall(text))
        if markers >= 2:
            found.append(issue.number)
    return tuple(found)
