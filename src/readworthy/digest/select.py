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

import github
from github.PullRequest import PullRequest

from ..config import Settings
from ..event import PullRequestInfo
from ..gather.github_api import github_error
from ..publish import TRANSIENT
from ..review import skip_reason
from .models import Candidate, DigestRequest, LeftOut
from .window import Window, parse_github_time

log = logging.getLogger(__name__)

# A window listing never reads more than this many PRs (a year of a very busy repository is ~20,000).
MAX_LISTED = 5_000


@dataclass
class Selection:
    candidates: list[Candidate]  # in the digest's scope, newest first
    left_out: list[LeftOut]  # found but skipped by a rule, or not found
    considered: int  # everything the window or list produced


def candidate_from_pull(pull: PullRequest) -> Candidate:
    """Only fields the list endpoint returns: touching others (e.g. `merged`) would cost a request each."""
    user = pull.user
    login = user.login if user is not None else ""
    merged_at = parse_github_time(pull.merged_at)
    return Candidate(
        number=pull.number,
        title=pull.title or "",
        url=pull.html_url or "",
        author=login,
        author_is_bot=(user is not None and user.type == "Bot") or login.endswith("[bot]"),
        draft=bool(pull.draft),
        state=pull.state or "",
        merged=merged_at is not None,
        merged_at=merged_at,
        created_at=parse_github_time(pull.created_at),
        head_sha=pull.head.sha if pull.head is not None else "",
        base_ref=pull.base.ref if pull.base is not None else "",
        labels=tuple(label.name for label in pull.labels),
    )


def in_scope(candidate: Candidate, state: str, window: Window, closed_at: datetime | None = None) -> bool:
    """Does this PR belong to the digest of `state` over `window`? Pure."""
    if state == "merged":
        return candidate.merged and window.contains(candidate.merged_at)
    if state == "open":
        return candidate.state == "open" and window.contains(candidate.created_at)
    if state == "closed":
        return candidate.state == "closed" and window.contains(closed_at or candidate.merged_at)
    # all
    return in_scope(candidate, "merged", window) or in_scope(candidate, "open", window)


def _walk(pulls: Iterable[PullRequest], stop_before: datetime, key: str) -> Iterator[PullRequest]:
    for i, pull in enumerate(pulls):
        moment = parse_github_time(getattr(pull, key))
        if moment is not None and moment < stop_before:
            return
        if i >= MAX_LISTED:
            log.warning("stopped listing after %d pull requests; narrow the window", MAX_LISTED)
            return
        yield pull


def _list_window(gh: github.Github, repo: str, state: str, window: Window) -> list[Candidate]:
    gh_repo = gh.withLazy(True).get_repo(repo)
    found: dict[int, Candidate] = {}
    if state in ("merged", "closed", "all"):
        pulls = gh_repo.get_pulls(state="closed", sort="updated", direction="desc")
        for pull in _walk(pulls, window.start, "updated_at"):
            cand = candidate_from_pull(pull)
            if in_scope(cand, "merged" if state == "all" else state, window, parse_github_time(pull.closed_at)):
                found[cand.number] = cand
    if state in ("open", "all"):
        pulls = gh_repo.get_pulls(state="open", sort="created", direction="desc")
        for pull in _walk(pulls, window.start, "created_at"):
            cand = candidate_from_pull(pull)
            if in_scope(cand, "open", window):
                found[cand.number] = cand
    return list(found.values())


def _list_numbers(gh: github.Github, repo: str, numbers: Iterable[int]) -> tuple[list[Candidate], list[LeftOut]]:
    gh_repo = gh.withLazy(True).get_repo(repo)
    found: list[Candidate] = []
    missing: list[LeftOut] = []
    for number in dict.fromkeys(numbers):
        try:
            found.append(candidate_from_pull(gh_repo.get_pull(number)))
        except github.UnknownObjectException:
            missing.append(LeftOut(number, "", "", "not-found", "no such pull request"))
    return found, missing


def _newest_first(candidates: list[Candidate]) -> list[Candidate]:
    def key(c: Candidate) -> tuple[float, int]:
        moment = c.merged_at or c.created_at
        return (moment.timestamp() if moment else 0.0, c.number)

    return sorted(candidates, key=key, reverse=True)


def apply_rules(candidates: list[Candidate], settings: Settings, explicit: bool) -> tuple[list[Candidate], list[LeftOut]]:
    """The repository's skip rules (drafts, bots, labels, authors, base branches), as the per-PR action applies them."""
    kept: list[Candidate] = []
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


def select_prs(gh: github.Github, request: DigestRequest, settings: Settings) -> Selection:
    """The PRs of `request`, newest first, with the config's rules applied. Raises GitHubError."""
    try:
        if request.prs:
            candidates, missing = _list_numbers(gh, request.repo, request.prs)
        else:
            assert request.window is not None, "a digest needs a window or a list of PRs"
            candidates, missing = _list_window(gh, request.repo, request.state, request.window), []
    except (github.GithubException, *TRANSIENT) as exc:
        raise github_error(exc, f"listing the pull requests of {request.repo}", settings) from None
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

