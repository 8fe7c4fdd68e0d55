"""Which pull requests a digest covers: the window (or an explicit list), then the config's skip rules.

Listing uses the pulls API sorted newest first and stops paging as soon as the page is older than
the window, so a daily digest of a busy repository costs a page or two, not the whole history.
(The search API would be shorter to write but caps at 1,000 results and lags behind merges.)

    merged  merged inside the window (sorted by `updated`: a merge bumps `updated_at`, and
            `updated_at >= merged_at`, so the first PR updated before the window ends the scan)
    closed  closed inside the window, merged or not
    open    still open and created inside the window
    all     merged inside the window, plus open ones created inside it
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from ..config import Settings
from ..event import PullRequestInfo
from ..gather.github_api import GitHub
from ..gather.rest import iter_pulls, read_pull_summary
from ..models import PullSummary
from ..rules import skip_reason
from .models import DigestRequest, LeftOut
from .window import Window

log = logging.getLogger(__name__)

# A window listing never reads more than this many PRs (a year of a very busy repository is ~20,000).
MAX_LISTED = 5_000


@dataclass
class Selection:
    candidates: list[PullSummary]  # in the digest's scope, newest first
    left_out: list[LeftOut]  # found but skipped by a rule, or not found
    considered: int  # everything the window or list produced


def in_scope(candidate: PullSummary, state: str, window: Window, closed_at: datetime | None = None) -> bool:
    """Does this PR belong to the digest of `state` over `window`? Pure."""
    if state == "merged":
        return candidate.merged and window.contains(candidate.merged_at)
    if state == "open":
        return candidate.state == "open" and window.contains(candidate.created_at)
    if state == "closed":
        return candidate.state == "closed" and window.contains(closed_at or candidate.merged_at)
    # all
    return in_scope(candidate, "merged", window) or in_scope(candidate, "open", window)


def _walk(pulls: Iterable[PullSummary], stop_before: datetime, key: str) -> Iterator[PullSummary]:
    for i, pull in enumerate(pulls):
        moment = getattr(pull, key)
        if moment is not None and moment < stop_before:
            return
        if i >= MAX_LISTED:
            log.warning("stopped listing after %d pull requests; narrow the window", MAX_LISTED)
            return
        yield pull


def _list_window(gh: GitHub, repo: str, state: str, window: Window) -> list[PullSummary]:
    found: dict[int, PullSummary] = {}
    if state in ("merged", "closed", "all"):
        for pull in _walk(iter_pulls(gh, repo, "closed", "updated"), window.start, "updated_at"):
            if in_scope(pull, "merged" if state == "all" else state, window, pull.closed_at):
                found[pull.number] = pull
    if state in ("open", "all"):
        for pull in _walk(iter_pulls(gh, repo, "open", "created"), window.start, "created_at"):
            if in_scope(pull, "open", window):
                found[pull.number] = pull
    return list(found.values())


def _list_numbers(gh: GitHub, repo: str, numbers: Iterable[int]) -> tuple[list[PullSummary], list[LeftOut]]:
    found: list[PullSummary] = []
    missing: list[LeftOut] = []
    for number in dict.fromkeys(numbers):
        pull = read_pull_summary(gh, repo, number)
        if pull is None:
            missing.append(LeftOut(number, "", "", "not-found", "no such pull request"))
        else:
            found.append(pull)
    return found, missing


def _newest_first(candidates: list[PullSummary]) -> list[PullSummary]:
    def key(c: PullSummary) -> tuple[float, int]:
        moment = c.merged_at or c.created_at
        return (moment.timestamp() if moment else 0.0, c.number)

    return sorted(candidates, key=key, reverse=True)


def apply_rules(
    candidates: list[PullSummary], settings: Settings, explicit: bool
) -> tuple[list[PullSummary], list[LeftOut]]:
    """The repository's skip rules (drafts, bots, labels, authors, base branches), as the per-PR action applies them."""
    kept: list[PullSummary] = []
    skipped: list[LeftOut] = []
    for cand in candidates:
        info = PullRequestInfo(number=cand.number, draft=cand.draft, author=cand.author,
                               author_is_bot=cand.author_is_bot, base_ref=cand.base_ref, head_sha=cand.head_sha,
                               labels=cand.labels)
        code, why = skip_reason(info, settings, explicit)
        if code:
            skipped.append(LeftOut(cand.number, cand.title, cand.url, "skipped-rule", why))
        else:
            kept.append(cand)
    return kept, skipped


def select_prs(gh: GitHub, request: DigestRequest, settings: Settings) -> Selection:
    """The PRs of `request`, newest first, with the config's rules applied. Raises GitHubError."""
    if request.prs:
        candidates, missing = _list_numbers(gh, request.repo, request.prs)
    else:
        assert request.window is not None, "a digest needs a window or a list of PRs"
        candidates, missing = _list_window(gh, request.repo, request.state, request.window), []
    considered = len(candidates) + len(missing)
    # A PR someone named explicitly is wanted even if it is a draft or a bot's.
    kept, skipped = apply_rules(_newest_first(candidates), settings, explicit=bool(request.prs))
    for left in skipped:
        log.info("#%d left out: %s", left.number, left.detail)
    return Selection(kept, [*missing, *skipped], considered)


def chunk_numbers(numbers: list[int], chunks: int) -> list[list[int]]:
    """Split into at most `chunks` non-empty, contiguous, near-equal parts (for a workflow matrix)."""
    if chunks < 1:
        raise ValueError("chunks must be at least 1")
    count = min(chunks, len(numbers))
    if count == 0:
        return []
    size, extra = divmod(len(numbers), count)
    out: list[list[int]] = []
    pos = 0
    for i in range(count):
        step = size + (1 if i < extra else 0)
        out.append(numbers[pos : pos + step])
        pos += step
    return out

