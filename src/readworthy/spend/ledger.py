"""The repository's daily model budget, kept in GitHub itself as git refs (issue 21).

GitHub Models' free tier counts requests per model and day for the account behind the token, whatever
run, PR, trigger or digest sends them. So every run of the repository reserves from one ledger before it
asks the model:

    refs/readworthy/model-budget/<YYYY-MM-DD>/<slot>   one per model request reserved that UTC day,
                                                       slot 0001 ... the day's budget
    refs/readworthy/model-quota/<epoch>                GitHub Models answered "day quota spent" (429
                                                       UserByModelByDay); nothing is asked until <epoch>

**A reservation is made before the request is sent, and it is atomic.** GitHub creates a ref or answers
422 "Reference already exists": of two runs creating one slot, one gets it and the other tries the next.
So at most `limit` reservations exist for a day whatever runs at once, and no call is made without one. A
reservation whose call then fails still counts (counting twice is acceptable; under-counting into the
quota is not), and a create whose answer was lost counts too — the call is not made. An analysis that
sends more than one request (a repair turn, a retry) counts the others once it ends (`count_sent`), past
the limit if need be.

**Cost**: the first reservation of a run lists the day's slots (one request per 100) and the quota markers
(one request); each reservation is one write (PyGithub spaces writes 1 s apart, as GitHub asks). Runs that
make no model call (a confident skip, an unchanged push) never touch the ledger.

**Permission**: refs are git data, so the workflow needs `contents: write`. Without it — and always with a
fork PR's read-only token — nothing can be reserved: the model is not asked (that run could not post its
comment either), and the reason names the permission. `model-budget: 0` turns the ledger off.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from .. import clock, publish
from ..errors import CommentBlocked, GitHubError, PublishError
from ..gather.github_api import GitHub
from ..gather.rest import matching_refs
from ..notes import note

log = logging.getLogger(__name__)

BUDGET_PREFIX = "readworthy/model-budget/"
QUOTA_PREFIX = "readworthy/model-quota/"
RELIST_AFTER_CONFLICTS = 3  # another run is reserving too: read the ledger again rather than guess on
KEEP_DAYS = 2  # the catch-up run deletes the slots of older days


@dataclass(frozen=True)
class BudgetView:
    """What the spending rules need to know about today's budget."""

    limit: int
    used: int
    spent_until: datetime | None  # GitHub Models said the day quota is spent, until then
    day_fraction: float  # how much of the UTC day has passed, 0..1

    @property
    def left(self) -> int:
        return 0 if self.spent_until is not None else max(0, self.limit - self.used)


def day_key(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d}"


def _fraction_of_day(moment: datetime) -> float:
    start = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return (moment - start).total_seconds() / 86_400


class ModelBudget:
    """One run's view of the repository's ledger: read once, then reserved slot by slot (thread-safe:
    the digest analyses several PRs at once)."""

    def __init__(self, gh: GitHub, repo: str, limit: int) -> None:
        self.gh, self.repo, self.limit = gh, repo, limit
        self._lock = threading.Lock()
        self._day = ""
        self._taken: set[int] = set()
        self._spent_until: datetime | None = None
        self._conflicts = 0
        self.problem = ""  # why nothing can be reserved in this run (a permission), once known
        self.reserved = 0  # reservations this run made

    # ------------------------------------------------------------------ reading

    def _load(self, now: datetime) -> None:
        day = day_key(now)
        slots = matching_refs(self.gh, self.repo, f"{BUDGET_PREFIX}{day}/")
        markers = matching_refs(self.gh, self.repo, QUOTA_PREFIX)
        self._day = day
        self._taken = {int(name.rsplit("/", 1)[1]) for name in slots if name.rsplit("/", 1)[1].isdigit()}
        until = [int(name.rsplit("/", 1)[1]) for name in markers if name.rsplit("/", 1)[1].isdigit()]
        latest = max(until, default=0)
        self._spent_until = datetime.fromtimestamp(latest, now.tzinfo) if latest > now.timestamp() else None
        self._conflicts = 0

    def _fresh(self, now: datetime) -> None:
        if self._day != day_key(now) or self._conflicts >= RELIST_AFTER_CONFLICTS:
            self._load(now)
        if self._spent_until is not None and self._spent_until <= now:
            self._spent_until = None

    def view(self) -> BudgetView:
        """Today's budget as far as this run knows (the ledger is read on first use)."""
        now = clock.now()
        with self._lock:
            try:
                self._fresh(now)
            except GitHubError as exc:
                self.problem = self.problem or note("budget_unreadable", error=str(exc))
            return BudgetView(self.limit, len(self._taken) if not self.problem else self.limit,
                              self._spent_until, _fraction_of_day(now))

    # ------------------------------------------------------------------ writing

    def reserve(self, sha: str) -> str:
        """Reserve one model request for today: "" when reserved, else why not (the comment shows it)."""
        return self._take(sha, sent=False)

    def count_sent(self, requests: int, sha: str) -> None:
        """Count requests already sent beyond an analysis's one reservation (a repair turn, a retry, the
        smaller retry after a 413): GitHub's quota counts each, so the ledger does too, past the limit if need
        be (over-counting is safe, under-counting is not). They are counted once the analysis ends, since the
        model step cannot wait on the ledger; the default budget's headroom covers them until then."""
        for _ in range(requests):
            why = self._take(sha, sent=True)
            if why:
                log.warning("could not count a model request already sent in the ledger: %s", why)
                return

    def _take(self, sha: str, *, sent: bool) -> str:
        """Create the day's next slot; `sent`: the request went already, so neither the limit nor a spent
        quota refuses it."""
        now = clock.now()
        with self._lock:
            if self.problem:
                return self.problem
            try:
                self._fresh(now)
            except GitHubError as exc:
                self.problem = note("budget_unreadable", error=str(exc))
                return self.problem
            if self._spent_until is not None and not sent:
                return note("quota_spent", when=f"{self._spent_until:%Y-%m-%d %H:%M}")
            while True:
                slot = max(self._taken, default=0) + 1
                if slot > self.limit and not sent:
                    return note("budget_spent", limit=self.limit)
                name = f"refs/{BUDGET_PREFIX}{self._day}/{slot:04d}"
                try:
                    created = publish.create_ref(self.gh, self.repo, name, sha)
                except CommentBlocked as exc:
                    self.problem = note("budget_unwritable", error=str(exc))
                    return self.problem
                except PublishError as exc:  # the create may have landed: count the slot, do not call
                    self._taken.add(slot)
                    return note("budget_uncertain", error=str(exc))
                self._taken.add(slot)
                if created:
                    self.reserved += 1
                    return ""
                self._conflicts += 1  # another run took this slot first
                if self._conflicts >= RELIST_AFTER_CONFLICTS:
                    try:
                        self._load(now)
                    except GitHubError as exc:
                        self.problem = note("budget_unreadable", error=str(exc))
                        return self.problem

    def mark_spent(self, until: datetime, sha: str) -> None:
        """GitHub Models said the day quota is spent until `until`: every run sees it from the ledger."""
        with self._lock:
            if self._spent_until is not None and self._spent_until >= until:
                return
            self._spent_until = until
            try:
                publish.create_ref(self.gh, self.repo, f"refs/{QUOTA_PREFIX}{int(until.timestamp())}", sha)
            except PublishError as exc:
                log.warning("could not record the spent day quota in the ledger: %s", exc)

    def prune(self, max_deletes: int) -> int:
        """Delete the slots of days before yesterday and quota markers that have passed (the catch-up run
        does it); at most `max_deletes` writes. Returns how many refs were deleted."""
        now = clock.now()
        oldest_kept = day_key(now - timedelta(days=KEEP_DAYS - 1))
        stale = [name for name in matching_refs(self.gh, self.repo, BUDGET_PREFIX)
                 if name.removeprefix(f"refs/{BUDGET_PREFIX}").split("/", 1)[0] < oldest_kept]
        stale += [name for name in matching_refs(self.gh, self.repo, QUOTA_PREFIX)
                  if not name.rsplit("/", 1)[1].isdigit() or int(name.rsplit("/", 1)[1]) < now.timestamp()]
        deleted = 0
        for name in stale[:max_deletes]:
            deleted += publish.delete_ref(self.gh, self.repo, name)
        return deleted
