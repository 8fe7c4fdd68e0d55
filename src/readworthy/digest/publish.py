"""Where a digest goes: a new issue, one rolling issue found by label, or a Discussion.

Like the sticky comment, the rolling issue is only ever one we wrote: found by its label,
its author (our login) and our hidden digest marker; someone else's issue with the same
label is never edited. A refusal (no `issues: write` / `discussions: write`, locked,
archived) is a PublishError naming the fix; the caller still has the job summary and the
output file. The reads go through gather/rest.py and the writes through publish.py.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

from .. import publish
from ..config import Settings
from ..errors import GitHubError
from ..gather.github_api import GitHub
from ..gather.rest import IssueSummary, iter_labelled_issues
from .models import DEFAULT_CATEGORY, DigestResult
from .render import DIGEST_MARKER
from .window import parse_github_time

log = logging.getLogger(__name__)

_END = re.compile(re.escape(DIGEST_MARKER) + r"v1 [^\n>]*?\bend=(\S+) -->")
PREVIOUS_DIGESTS_LOOKED_AT = 20


def _is_our_digest(issue: IssueSummary, own_login: str) -> bool:
    return issue.author.lower() == own_login.lower() and DIGEST_MARKER in issue.body


def find_rolling_issue(gh: GitHub, repo: str, label: str, own_login: str) -> IssueSummary | None:
    """Our newest open issue with `label` that carries the digest marker, or None."""
    try:
        return next((i for i in iter_labelled_issues(gh, repo, label, "open") if _is_our_digest(i, own_login)), None)
    except GitHubError as exc:
        raise GitHubError(f"{exc} (looking for the rolling digest issue: grant the token `issues: read`)",
                          exc.status) from None


def previous_digest_end(gh: GitHub, repo: str, label: str, own_login: str) -> datetime | None:
    """Where the last digest (issue with `label`, open or closed) ended: the next one starts there."""
    try:
        for i, issue in enumerate(iter_labelled_issues(gh, repo, label, "all")):
            if i >= PREVIOUS_DIGESTS_LOOKED_AT:
                break
            match = _END.search(issue.body) if _is_our_digest(issue, own_login) else None
            if match:
                return parse_github_time(match.group(1))
    except GitHubError as exc:
        log.warning("could not read the previous digest (%s); using the default window", exc)
    return None


def publish_digest(gh: GitHub, settings: Settings, result: DigestResult, own_login: str) -> str:
    """Post the rendered digest to its target; the URL ("" for `none`). Raises PublishError/GitHubError."""
    request = result.request
    zh = result.language == "zh-CN"
    base = f"阅读清单：{request.repo}" if zh else f"Reading list: {request.repo}"
    window = request.window
    dated = f"{base} — {window.end.strftime('%Y-%m-%d')}" if window else base
    if request.publish == "issue":
        return publish.create_issue(gh, request.repo, dated, result.markdown, request.label)
    if request.publish == "rolling-issue":
        existing = find_rolling_issue(gh, request.repo, request.label, own_login) if own_login else None
        if existing is None:
            return publish.create_issue(gh, request.repo, base, result.markdown, request.label)
        return publish.edit_issue(gh, request.repo, existing.number, base, result.markdown)
    if request.publish == "discussion":
        return publish.create_discussion(gh, settings, request.repo, dated, result.markdown,
                                         request.discussion_category or DEFAULT_CATEGORY)
    return ""
