"""One model analysis per PR and inputs at a time, kept in GitHub as a git ref (issue 23).

The example workflows give each trigger its own concurrency group, so a push's run and a maintainer's
refresh, label or dispatch can analyse one PR at the same moment. overlap.py makes that harmless; this
makes it cost one model call. Right before asking the model (after triage and the run's own rules, before
the repository's budget is reserved), a run creates

    refs/readworthy/lease/<pr>/<YYYY-MM-DD>/<key>     key: the inputs (their hash, the model, the language
                                                      and the prompt version), pointing at the PR's head

**The create is the lock.** GitHub creates a ref or answers 422 "Reference already exists", so of two runs
with the same inputs exactly one holds the lease; the other waits for it. Runs with other inputs (a push
since, a new comment) have another key: each gets its own analysis, and overlap.settle keeps the newer.
The name must be one both runs know before either has taken it, so it cannot carry the moment the lease
was taken, only its UTC day (old days are ignored and pruned like the ledger's; a run in the first
`life` seconds of a day also looks for yesterday's lease).

**Waiting** (`hold`): the lease ref is read sparingly (after 2 s, then every 1.5x longer, at most 10 s
apart). When it is gone, the comment is read once: an analysis of the same inputs written meanwhile is
reused (a forced run included: it is as fresh as the one it asked for); anything else (the holder's model
failed, the budget turned it away) and the waiting run takes the lease and asks the model itself.

**Expiry**: a holder deletes its lease once its comment is written (and in a finally). A lease left by a
run that crashed or was killed is taken over when the waiting run's bound (`life`: its model timeout plus a
margin for the budget and the comment) has passed since it found the lease: a live holder that took it
before then would have finished. So a crashed run costs the next run of the same inputs one bounded
wait, never a lost comment; at worst one more model call (a holder slower than the waiter's bound).

**Who takes it**: action runs (review and catch-up: `ReviewSession.leases`), not `readworthy pr` nor the
digest. **Cost**: an analysed run makes one create and one delete (about a second more: PyGithub spaces
writes 1 s apart); a run that waits reads the ref a few times (at most 20 over a bound of 150 s) and the
comment once. Runs that make no model call never take a lease. Without `contents: write` (a fork's
read-only token) the create is refused once per run, nothing is written, and the run goes on as without a
lease.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from .. import clock, publish
from ..errors import CommentBlocked, GitHubError, PublishError
from ..gather.github_api import GitHub
from ..gather.rest import matching_refs
from .ledger import day_key

log = logging.getLogger(__name__)

LEASE_PREFIX = "readworthy/lease/"
MARGIN_S = 30.0  # past the model timeout: the budget's reservation, rendering and writing the comment
FIRST_POLL_S, POLL_GROWTH, LONGEST_POLL_S = 2.0, 1.5, 10.0
KEEP_DAYS = 2  # the catch-up run deletes the leases of older days (a holder deletes its own)

A = TypeVar("A")


# --------------------------------------------------------------------------- the rules (pure)


def lease_key(terms: str) -> str:
    """What makes two analyses the same (rules.analysis_terms: the inputs' hash, the model, the language,
    the prompt version), in 16 hex characters."""
    return hashlib.sha256(terms.encode()).hexdigest()[:16]


def lease_ref(number: int, day: str, key: str) -> str:
    return f"refs/{LEASE_PREFIX}{number}/{day}/{key}"


def lease_life(model_timeout: float) -> float:
    """How long a holder may keep the lease: its model step, every retry included, plus a margin."""
    return model_timeout + MARGIN_S


def polls(life: float) -> list[float]:
    """The pauses between reads of another run's lease, adding up to `life`: sparing, and soon at first
    (a holder that took the lease a moment ago often has its answer in a few seconds)."""
    out: list[float] = []
    pause, total = FIRST_POLL_S, 0.0
    while total < life:
        step = min(pause, life - total)
        out.append(step)
        total += step
        pause = min(pause * POLL_GROWTH, LONGEST_POLL_S)
    return out


def names_to_check(number: int, key: str, now: datetime, life: float) -> list[str]:
    """The lease names a run at `now` creates (first) and looks for: yesterday's too in the first `life`
    seconds of a UTC day, where a holder that began before midnight may still be at work."""
    names = [lease_ref(number, day_key(now), key)]
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if (now - midnight).total_seconds() < life:
        names.append(lease_ref(number, day_key(now - timedelta(days=1)), key))
    return names


def stale(name: str, now: datetime) -> bool:
    """A lease of a day before yesterday (or a name readworthy did not write): the catch-up run deletes it."""
    parts = name.removeprefix(f"refs/{LEASE_PREFIX}").split("/")
    return len(parts) != 3 or parts[1] < day_key(now - timedelta(days=KEEP_DAYS - 1))


# --------------------------------------------------------------------------- taking and waiting


@dataclass
class Lease:
    """A lease this run holds: released once its comment is written (release is idempotent)."""

    gh: GitHub
    repo: str
    name: str
    released: bool = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        try:
            publish.delete_ref(self.gh, self.repo, self.name)
        except PublishError as exc:  # it expires: the next run of these inputs waits once, then takes it over
            log.warning("could not delete the analysis lease %s: %s", self.name, exc)


@dataclass
class Held(Generic[A]):
    """What came of asking for the lease: hold it (`lease`), or reuse another run's `answer`; neither when
    no lease could be written (`refused` says why: the run goes on as without one)."""

    lease: Lease | None = None
    answer: A | None = None
    refused: str = ""
    waited_s: float = 0.0
    found: list[str] = field(default_factory=list)  # other runs' leases this run waited on or took over


def _create(gh: GitHub, repo: str, name: str, sha: str) -> bool | str:
    """True: taken; False: another run holds it; a string: why no lease can be written in this run."""
    try:
        return publish.create_ref(gh, repo, name, sha)
    except CommentBlocked as exc:
        return str(exc)
    except PublishError as exc:  # the create may have landed: hold it (deleting a missing ref is harmless)
        log.warning("GitHub did not confirm the analysis lease %s (%s); going on as its holder", name, exc)
        return True


def _exists(gh: GitHub, repo: str, name: str) -> bool:
    try:
        return name in matching_refs(gh, repo, name.removeprefix("refs/"))
    except GitHubError as exc:  # cannot tell: it is there until the bound says otherwise
        log.warning("could not read the analysis lease %s: %s", name, exc)
        return True


def hold(gh: GitHub, repo: str, number: int, key: str, sha: str, life: float,
         answered: Callable[[], A | None]) -> Held[A]:
    """Take the lease for PR `number` and these inputs (`key`), waiting at most `life` seconds for a run
    that holds it. `answered()` reads the comment and returns another run's analysis of these inputs written
    since this run read it, or None."""
    started = clock.now()
    mine, *other = names_to_check(number, key, started, life)
    held: Held[A] = Held()
    got = _create(gh, repo, mine, sha)
    if isinstance(got, str):
        return Held(refused=got)
    if got:
        held.lease = Lease(gh, repo, mine)
        busy = next((name for name in other if _exists(gh, repo, name)), "")
        if not busy:
            return held
    else:
        busy = mine
    held.found.append(busy)
    log.info("#%d: another run is analysing these inputs (%s); waiting for it, at most %.0f s", number, busy, life)
    for pause in polls(life):
        clock.sleep(pause)
        if _exists(gh, repo, busy):
            continue
        answer = answered()
        if answer is not None:
            return _reuse(held, answer, started)
        if held.lease is not None:
            break  # yesterday's holder is done and wrote nothing of use: ours is still held
        got = _create(gh, repo, mine, sha)
        if isinstance(got, str):
            return Held(refused=got, waited_s=_since(started))
        if got:
            held.lease = Lease(gh, repo, mine)
            break
        # A third run took it first: wait for that one, within the same bound.
    else:
        # The bound has passed and the lease is still there: its run crashed or is slower than this one may
        # wait. Its answer may be written all the same (its delete failed); else the lease is taken over.
        answer = answered()
        if answer is not None:
            return _reuse(held, answer, started)
        log.info("#%d: the lease %s outlived %.0f s; taking it over", number, busy, life)
        _take_over(gh, repo, busy)
        if held.lease is None:
            got = _create(gh, repo, mine, sha)
            held.lease = Lease(gh, repo, mine) if got is True else None  # taken by another: go on without
    held.waited_s = _since(started)
    return held


def _since(started: datetime) -> float:
    return (clock.now() - started).total_seconds()


def _reuse(held: Held[A], answer: A, started: datetime) -> Held[A]:
    if held.lease is not None:
        held.lease.release()
    return Held(answer=answer, waited_s=_since(started), found=held.found)


def _take_over(gh: GitHub, repo: str, name: str) -> None:
    try:
        publish.delete_ref(gh, repo, name)
    except PublishError as exc:
        log.warning("could not delete the expired analysis lease %s: %s", name, exc)


def prune(gh: GitHub, repo: str, max_deletes: int) -> int:
    """Delete the leases of days before yesterday (left by runs that were killed); at most `max_deletes`
    writes. Returns how many refs were deleted."""
    now = clock.now()
    old = [name for name in matching_refs(gh, repo, LEASE_PREFIX) if stale(name, now)]
    return sum(publish.delete_ref(gh, repo, name) for name in old[:max_deletes])
