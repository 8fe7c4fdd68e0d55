"""Read the taste memory: the corrections the team keeps in the issue labelled MEMORY_LABEL.

Cost: ONE GraphQL request per run, however many PRs the run reviews (`MemoryReader` reads on first use
and keeps the answer; the digest's threads share it). It asks for the oldest open issues with the label
(normally one; a locked one is followed by a new one) and their newest MAX_COMMENTS comments, with who
wrote and who last edited each.

Junk cannot push records out: the issue's body, which only its author and writers can edit, ends with an
index of the records readworthy wrote there (their comment ids, `<!-- readworthy-taste-index: … -->`).
Indexed records that are not among the newest comments (a hundred junk comments came after them) are read
by id, 100 a request: one more request only when there is junk. Every record read is checked the same way,
and must be a comment on that very issue. A record added by hand counts while it is among the newest
MAX_COMMENTS comments.

Who counts (a correction must come from someone with write access, like the command that makes it):
  - a comment written by our own login (the records `/readworthy verdict` writes), or by a person with
    write access (a record added by hand);
  - and, when it was edited (GitHub's `lastEditedAt`), last edited by our login or by a writer. GitHub
    reports the account that made the last edit (`editor`); an edit by anyone else, or by an account
    that cannot be identified, makes the comment unusable until a writer edits it again.
Write access is the collaborator permission API, asked once per login other than ours per run and for
at most MAX_PERMISSION_CHECKS logins: the usual memory, written only by us, costs no check at all.

Anything unusable (an untrusted author or editor, a broken block, a huge body, text that tries to steer
a model) is skipped with a notice, and a memory that cannot be read at all leaves the run without one:
the memory informs analyses, it never stops them.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from ..config import Settings
from ..errors import GitHubError
from ..memory.record import MARKER, RecordProblem, parse_record
from ..models import Correction
from .github_api import GitHub, graphql, graphql_reader
from .nodes import actor
from .rest import has_write_access

log = logging.getLogger(__name__)

MEMORY_LABEL = "readworthy-taste"
MEMORY_TITLE = "readworthy: reading taste"
MAX_ISSUES = 5  # concurrent first corrections may each open one, a locked one is followed by another; all read
MAX_COMMENTS = 100  # the newest comments, read with the issue
MAX_INDEXED = 300  # records an issue's index keeps (the newest); older ones are forgotten first
IDS_PER_REQUEST = 100  # GitHub's `nodes(ids:)` takes at most 100
MAX_PERMISSION_CHECKS = 10
MAX_NOTICES = 10
INDEX_PREFIX = "<!-- readworthy-taste-index:"
_INDEX = re.compile(r"<!-- readworthy-taste-index:([A-Za-z0-9_=,\- ]{0,40000})-->")
_NODE_ID = re.compile(r"[A-Za-z0-9_=-]{1,100}")

_COMMENT = ("id fullDatabaseId url body createdAt lastEditedAt "
            "author { __typename login } editor { __typename login }")
MEMORY_QUERY = f"""
query ReadworthyTasteMemory($owner: String!, $name: String!, $label: String!) {{
  repository(owner: $owner, name: $name) {{
    issues(first: {MAX_ISSUES}, labels: [$label], states: [OPEN], orderBy: {{field: CREATED_AT, direction: ASC}}) {{
      nodes {{
        number url locked body
        comments(last: {MAX_COMMENTS}) {{ totalCount nodes {{ {_COMMENT} }} }}
      }}
    }}
  }}
}}
"""
RECORDS_QUERY = f"""
query ReadworthyTasteRecords($ids: [ID!]!) {{
  nodes(ids: $ids) {{ ... on IssueComment {{ {_COMMENT} issue {{ number repository {{ nameWithOwner }} }} }} }}
}}
"""


def index_ids(body: str) -> list[str]:
    """The record ids an issue body's index lists, oldest first (at most MAX_INDEXED)."""
    match = _INDEX.search(body or "")
    ids = [part.strip() for part in match.group(1).split(",")] if match else []
    return [i for i in dict.fromkeys(ids) if _NODE_ID.fullmatch(i)][-MAX_INDEXED:]


def with_index(body: str, ids: list[str]) -> str:
    """`body` with its index listing `ids` (the newest MAX_INDEXED), replacing any index it had."""
    kept = [i for i in dict.fromkeys(ids) if _NODE_ID.fullmatch(i)][-MAX_INDEXED:]
    line = f"{INDEX_PREFIX} {','.join(kept)} -->"
    text = _INDEX.sub("", body or "").rstrip()
    return f"{text}\n\n{line}\n"


@dataclass(frozen=True)
class MemoryRecord:
    correction: Correction
    comment_id: int
    author: str
    url: str
    node_id: str = ""  # GitHub's global id: what an issue's index lists
    issue: int = 0


@dataclass(frozen=True)
class MemoryIssue:
    number: int
    locked: bool  # GitHub refuses new comments there: the next record goes to another memory issue
    index: tuple[str, ...] = ()


@dataclass
class TasteMemory:
    """What the memory holds for this run. `issue_number` is where the next record goes: the oldest open,
    unlocked memory issue; None until the first correction is kept, or when every memory issue is locked."""

    issue_number: int | None = None
    records: list[MemoryRecord] = field(default_factory=list)  # oldest first, one per PR (the newest)
    notices: list[str] = field(default_factory=list)
    readable: bool = True
    issues: list[MemoryIssue] = field(default_factory=list)

    @property
    def locked_issues(self) -> list[int]:
        return [i.number for i in self.issues if i.locked]

    @property
    def corrections(self) -> list[Correction]:
        return [r.correction for r in self.records]

    def record_for(self, pr: int, author: str) -> MemoryRecord | None:
        """The record of PR `pr` written by `author` (ours, to edit instead of adding another)."""
        return next((r for r in reversed(self.records)
                     if r.correction.pr == pr and r.author.lower() == author.lower()), None)


def read_memory(gh: GitHub, settings: Settings, repo: str, own_login: str) -> TasteMemory:
    """The taste memory of `repo`, never raising: what cannot be read is a notice."""
    owner, _, name = repo.partition("/")
    try:
        data, _ = graphql(graphql_reader(gh), settings, MEMORY_QUERY,
                          {"owner": owner, "name": name, "label": MEMORY_LABEL}, "reading the taste memory")
    except GitHubError as exc:
        log.warning("taste memory not read: %s", exc)
        return TasteMemory(readable=False, notices=[f"the taste memory could not be read, so no past correction "
                                                    f"informs this run: {exc}"])
    issues = [i for i in ((data.get("repository") or {}).get("issues") or {}).get("nodes") or [] if i]
    memory = TasteMemory(issues=[MemoryIssue(_int(i.get("number")), bool(i.get("locked")),
                                             tuple(index_ids(str(i.get("body") or "")))) for i in issues])
    memory.issue_number = next((i.number for i in memory.issues if not i.locked), None)
    writers = _Writers(gh, repo, own_login, memory.notices)
    by_pr: dict[int, tuple[str, MemoryRecord]] = {}

    def keep(node: dict[str, Any], number: int) -> None:
        record = _record(node, writers, memory.notices, number)
        if record is not None:
            stamp = str(node.get("createdAt") or "")
            if record.correction.pr not in by_pr or by_pr[record.correction.pr][0] <= stamp:
                by_pr[record.correction.pr] = (stamp, record)

    for issue, known in zip(issues, memory.issues, strict=True):
        nodes = [n for n in ((issue.get("comments") or {}).get("nodes") or []) if n]
        for node in nodes:
            keep(node, known.number)
        seen = {str(n.get("id") or "") for n in nodes}
        for node in _indexed(gh, settings, repo, known, [i for i in known.index if i not in seen], memory.notices):
            keep(node, known.number)
    memory.records = [record for _, record in sorted(by_pr.values(), key=lambda item: item[0])]
    if len(memory.notices) > MAX_NOTICES:
        more = len(memory.notices) - MAX_NOTICES
        memory.notices[MAX_NOTICES:] = [f"... and {more} more unusable comment(s) in the taste memory"]
    return memory


def _indexed(gh: GitHub, settings: Settings, repo: str, issue: MemoryIssue, ids: list[str],
             notices: list[str]) -> list[dict[str, Any]]:
    """The indexed records of `issue` that were not among its newest comments, by id: only comments on that
    very issue (an index could name any comment). A deleted one is simply gone."""
    found: list[dict[str, Any]] = []
    for start in range(0, len(ids), IDS_PER_REQUEST):
        try:
            data, _ = graphql(graphql_reader(gh), settings, RECORDS_QUERY, {"ids": ids[start:start + IDS_PER_REQUEST]},
                              "reading older records of the taste memory")
        except GitHubError as exc:
            notices.append(f"older records of the taste memory (#{issue.number}) could not be read, so they do not "
                           f"inform this run: {exc}")
            break
        for node in data.get("nodes") or []:
            where = (node or {}).get("issue") or {}
            same_repo = str((where.get("repository") or {}).get("nameWithOwner") or "").lower() == repo.lower()
            if node and _int(where.get("number")) == issue.number and same_repo:
                found.append(node)
    return found


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class _Writers:
    """Who may write to the memory besides us: the permission API, once per login, a bounded number."""

    def __init__(self, gh: GitHub, repo: str, own_login: str, notices: list[str]) -> None:
        self.gh, self.repo, self.own = gh, repo, own_login.lower()
        self.known: dict[str, bool] = {}
        self.notices = notices

    def trusted(self, login: str) -> bool | None:
        """True/False; None when the question was not asked (the check budget is spent)."""
        if self.own and login.lower() == self.own:
            return True
        key = login.lower()
        if key not in self.known:
            if len(self.known) >= MAX_PERMISSION_CHECKS:
                return None
            try:
                self.known[key] = has_write_access(self.gh, self.repo, login)
            except GitHubError as exc:
                self.notices.append(f"could not check {login}'s permission, so their records are skipped: {exc}")
                self.known[key] = False
        return self.known[key]


def _untrusted(node: dict[str, Any], writers: _Writers) -> str:
    """Why the comment's author or last editor does not count ("" when both do)."""
    author, _ = actor(node.get("author"))
    if author == "ghost":
        return "its author's account no longer exists"
    verdict = writers.trusted(author)
    if verdict is None:
        return f"{author}'s permission was not checked (at most {MAX_PERMISSION_CHECKS} people per run)"
    if not verdict:
        return f"it was written by {author}, who has no write access"
    if node.get("lastEditedAt"):
        if not node.get("editor"):
            return "it was edited by an account GitHub does not name"
        editor, _ = actor(node.get("editor"))
        trusted = writers.trusted(editor)
        if trusted is None:
            return f"{editor}'s permission was not checked (at most {MAX_PERMISSION_CHECKS} people per run)"
        if not trusted:
            return f"it was last edited by {editor}, who has no write access"
    return ""


def _record(node: dict[str, Any], writers: _Writers, notices: list[str], issue: int = 0) -> MemoryRecord | None:
    body = str(node.get("body") or "")
    where = str(node.get("url") or f"comment {node.get('fullDatabaseId')}")[:200]
    if MARKER not in body and "readworthy-correction" not in body:
        return None  # conversation on the memory issue, not a record
    why = _untrusted(node, writers)
    if why:
        notices.append(f"skipped a taste-memory comment ({where}): {why}")
        return None
    try:
        correction = parse_record(body)
    except RecordProblem as exc:
        notices.append(f"skipped a taste-memory comment ({where}): {exc}")
        return None
    if correction is None:
        return None
    author, _ = actor(node.get("author"))
    return MemoryRecord(correction, _int(node.get("fullDatabaseId")), author, where, str(node.get("id") or ""), issue)


class MemoryReader:
    """The run's taste memory, read on first use and shared (thread-safe): one request per run."""

    def __init__(self, gh: GitHub, settings: Settings, repo: str, own_login: str) -> None:
        self._args = (gh, settings, repo, own_login)
        self._lock = threading.Lock()
        self._memory: TasteMemory | None = None

    def get(self) -> TasteMemory:
        with self._lock:
            if self._memory is None:
                self._memory = read_memory(*self._args)
            return self._memory

    @property
    def read(self) -> TasteMemory | None:
        """The memory if it was read this run, else None (nothing is requested)."""
        return self._memory

    def forget(self) -> None:
        """Read again on next use (after this run changed the memory)."""
        with self._lock:
            self._memory = None
