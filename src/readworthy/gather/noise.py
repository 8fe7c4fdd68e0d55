"""Which discussion comments carry no reading value: bots, slash commands, bare approvals, our own comment.

Noise is counted, not silently lost: the caller keeps `noise_counts` so a reader can see "5 bot
comments, 3 LGTMs" were left out. Pure functions over (author, body).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

OWN_MARKER_PREFIX = "<!-- readworthy:"  # every comment readworthy writes carries this hidden marker

_COMMAND = re.compile(r"^/[a-z][\w-]*(\s+\S+){0,4}\s*$", re.IGNORECASE)
# Our own commands, a verdict's one-line reason included: the command that starts a run must not change the
# inputs it is judged by (else every `/readworthy` re-analyses, and two overlapping runs both pay).
_OWN_COMMAND = re.compile(r"^/readworthy\b", re.IGNORECASE)
_APPROVALS = {
    "lgtm", "+1", "👍", "ship it", "shipit", "looks good", "looks good to me", "approved", "approve",
    "thanks", "thank you", "nice", "great", "awesome", "lgtm thanks", "lgtm thank you", "lgtm!", "ok",
}
_APPROVAL_MAX_CHARS = 64  # "LGTM, thanks!!! :)" and its like; longer text is read, not matched
_TRIM = re.compile(r"^[\s.!,:;)(*_~`-]+|[\s.!,:;)(*_~`-]+$")


def is_bot_login(login: str, ignore_authors: Iterable[str] = ()) -> bool:
    low = login.lower()
    return low.endswith("[bot]") or low in {a.lower() for a in ignore_authors}


def noise_kind(author: str, body: str, *, author_is_bot: bool, ignore_authors: Iterable[str] = ()) -> str | None:
    """"own", "bot", "command", "lgtm" or None (worth keeping)."""
    if OWN_MARKER_PREFIX in body:
        return "own"
    if author_is_bot or is_bot_login(author, ignore_authors):
        return "bot"
    text = body.strip()
    if not text:
        return "empty"
    if "\n" not in text and (_COMMAND.match(text) or _OWN_COMMAND.match(text)):
        return "command"
    if len(text) <= _APPROVAL_MAX_CHARS and _TRIM.sub("", text).lower() in _APPROVALS:
        return "lgtm"
    return None
