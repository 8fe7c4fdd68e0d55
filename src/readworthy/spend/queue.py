"""The PRs waiting for a model analysis, kept in GitHub as git refs beside the budget's ledger:

    refs/readworthy/model-queue/<number>/<tier>-<score>

A PR that got the heuristic because of the budget, the day quota or triage is queued with its claim
(priority.Claim); asked again with a better claim it gets another ref, and the catch-up run takes each
PR's best one. One listing reads the whole queue (one request per 100 refs); the catch-up run deletes a
PR's refs once it carries a model analysis. Writes need `contents: write`, like the ledger.
"""

from __future__ import annotations

import logging

from .. import publish
from ..errors import PublishError
from ..gather.github_api import GitHub
from ..gather.rest import matching_refs
from .priority import Claim, Tier

log = logging.getLogger(__name__)

QUEUE_PREFIX = "readworthy/model-queue/"


def queue_ref(number: int, c: Claim) -> str:
    return f"refs/{QUEUE_PREFIX}{number}/{int(c.tier)}-{min(max(c.score, 0.0), 99_999.0):.3f}"


def enqueue(gh: GitHub, repo: str, number: int, c: Claim, sha: str) -> bool:
    """Queue PR `number` for the catch-up run; False when it could not be written (said in the log)."""
    try:
        publish.create_ref(gh, repo, queue_ref(number, c), sha)
    except PublishError as exc:
        log.warning("#%d: could not queue it for a model analysis: %s", number, exc)
        return False
    return True


def _parse(name: str) -> tuple[int, Claim] | None:
    parts = name.removeprefix(f"refs/{QUEUE_PREFIX}").split("/")
    if len(parts) != 2 or not parts[0].isdigit():
        return None
    tier, _, score = parts[1].partition("-")
    try:
        return int(parts[0]), Claim(Tier(int(tier)), float(score))
    except ValueError:
        return None


def read_queue(gh: GitHub, repo: str) -> dict[int, tuple[Claim, list[str]]]:
    """Every queued PR: its best claim and all its queue refs."""
    out: dict[int, tuple[Claim, list[str]]] = {}
    for name in matching_refs(gh, repo, QUEUE_PREFIX):
        parsed = _parse(name)
        if parsed is None:
            continue
        number, c = parsed
        best, names = out.get(number, (c, []))
        if (c.tier, -c.score) < (best.tier, -best.score):
            best = c
        out[number] = (best, [*names, name])
    return out


def dequeue(gh: GitHub, repo: str, names: list[str]) -> None:
    for name in names:
        try:
            publish.delete_ref(gh, repo, name)
        except PublishError as exc:
            log.warning("could not take %s off the queue: %s", name, exc)
