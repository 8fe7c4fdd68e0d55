"""In-memory state of the test GitHub server: repositories, issues, pull requests, discussion, tokens.

Plain dataclasses that tests seed directly (see github_fixtures.py for the seeding API) and the
REST / GraphQL front ends read and mutate. Issues and pull requests share one number sequence per
repository, as on GitHub; comment/review ids come from one server-wide counter.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

# Identities every server knows. Tests pass these strings as tokens.
WORKFLOW_TOKEN = "ghs_workflow_token"  # GITHUB_TOKEN: comments by github-actions[bot], 403 on GET /user
PERSONAL_TOKEN = "ghp_personal_token"  # a person's PAT: GET /user works
READONLY_TOKEN = "ghs_fork_readonly_token"  # a fork PR's GITHUB_TOKEN: every write is 403
WORKFLOW_LOGIN = "github-actions[bot]"
PERSONAL_LOGIN = "octocat"

_EPOCH = datetime(2026, 6, 1, 9, 0, 0, tzinfo=UTC)


def _sha_for(seed: str) -> str:
    """A stable fake git SHA for seeded commits and branches."""
    return hashlib.sha1(seed.encode()).hexdigest()


def iso(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Token:
    token: str
    login: str
    kind: str = "personal"  # "personal" | "workflow" | "app"
    read_only: bool = False
    # What the workflow's `permissions:` granted, where it matters to a test ({"contents": "read"}); a scope
    # not named here may write (except on a read-only token).
    permissions: dict[str, str] = field(default_factory=dict)

    def may_write(self, scope: str) -> bool:
        return not self.read_only and self.permissions.get(scope, "write") == "write"

    @property
    def is_integration(self) -> bool:
        return self.kind in ("workflow", "app")


@dataclass
class Label:
    id: int
    name: str
    color: str = "ededed"
    description: str = ""


@dataclass
class Reaction:
    id: int
    user: str
    content: str


@dataclass
class IssueComment:
    id: int
    user: str
    body: str
    created_at: str
    updated_at: str
    reactions: list[Reaction] = field(default_factory=list)
    editor: str | None = None  # who made the last edit (GitHub's `editor`); None while never edited


@dataclass
class Issue:
    number: int
    title: str
    body: str = ""
    user: str = "octocat"
    state: str = "open"  # "open" | "closed"
    state_reason: str | None = None
    locked: bool = False
    labels: list[str] = field(default_factory=list)
    comments: list[IssueComment] = field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""
    closed_at: str | None = None
    id: int = 0

    @property
    def is_pull_request(self) -> bool:
        return False


@dataclass
class PRFile:
    filename: str
    status: str = "modified"  # added | removed | modified | renamed | copied | changed | unchanged
    additions: int = 0
    deletions: int = 0
    patch: str | None = None  # the file's hunks; served by the diff media type
    previous_filename: str | None = None
    binary: bool = False
    patch_omitted: bool = False  # like GitHub for very large diffs: the files API leaves `patch` out


@dataclass
class PRCommit:
    sha: str
    message: str
    author: str = "octocat"  # login; "" for a commit whose e-mail matches no account
    author_name: str = ""
    date: str = ""


@dataclass
class Review:
    id: int
    user: str
    state: str  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING
    body: str
    submitted_at: str
    commit_id: str = ""


@dataclass
class ReviewComment:
    id: int
    user: str
    body: str
    created_at: str
    review_id: int | None = None
    in_reply_to: int | None = None


@dataclass
class ReviewThread:
    id: int
    path: str
    line: int | None  # None when outdated (the line is gone from the current diff)
    original_line: int | None = None
    side: str = "RIGHT"
    diff_hunk: str = ""
    resolved: bool = False
    outdated: bool = False
    resolved_by: str | None = None
    comments: list[ReviewComment] = field(default_factory=list)


@dataclass
class ItemRef:
    """A reference to an issue or PR, possibly in another repository ("owner/name")."""

    repo: str
    number: int


@dataclass
class PullRequest(Issue):
    head_ref: str = "feature"
    head_sha: str = "0" * 40
    base_ref: str = "main"
    base_sha: str = "1" * 40
    head_repo: str = ""  # "" = same repository; "fork-owner/name" for a fork
    draft: bool = False
    merged: bool = False
    merged_at: str | None = None
    merged_by: str | None = None
    files: list[PRFile] = field(default_factory=list)
    commits: list[PRCommit] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)
    threads: list[ReviewThread] = field(default_factory=list)
    closing_issues: list[ItemRef] = field(default_factory=list)  # GitHub's closingIssuesReferences
    cross_references: list[tuple[ItemRef, str]] = field(default_factory=list)  # (source, referenced_at)

    @property
    def is_pull_request(self) -> bool:
        return True

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    def review_comments(self) -> list[tuple[ReviewThread, ReviewComment]]:
        return [(t, c) for t in self.threads for c in t.comments]


@dataclass
class DiscussionCategory:
    id: str
    name: str
    slug: str


@dataclass
class Discussion:
    number: int
    id: str
    title: str
    body: str
    category_id: str
    user: str
    created_at: str


@dataclass
class CheckAnnotation:
    path: str
    start_line: int
    end_line: int
    annotation_level: str
    message: str
    title: str | None = None
    raw_details: str | None = None
    start_column: int | None = None
    end_column: int | None = None


@dataclass
class CheckRun:
    """A check run as the Checks API keeps it: the app that wrote it, its output and every annotation
    (an update appends annotations, it never replaces them)."""

    id: int
    name: str
    head_sha: str
    app_slug: str
    status: str = "queued"
    conclusion: str | None = None
    started_at: str = ""
    completed_at: str | None = None
    details_url: str | None = None
    external_id: str | None = None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    annotations: list[CheckAnnotation] = field(default_factory=list)
    updates: int = 0  # PATCH requests it received


@dataclass
class Repo:
    owner: str
    name: str
    id: int = 0
    archived: bool = False
    private: bool = False
    default_branch: str = "main"
    # ref (branch name or sha) -> path -> text
    files: dict[str, dict[str, str]] = field(default_factory=dict)
    items: dict[int, Issue] = field(default_factory=dict)  # issues and PRs share numbering
    labels: dict[str, Label] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)  # login -> admin|maintain|write|triage|read
    # login -> GitHub's author_association where it is not derived from the permission (CONTRIBUTOR,
    # FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, NONE ...)
    associations: dict[str, str] = field(default_factory=dict)
    discussion_categories: list[DiscussionCategory] = field(default_factory=list)
    discussions: list[Discussion] = field(default_factory=list)
    refs: dict[str, str] = field(default_factory=dict)  # git refs created through the API: "refs/..." -> sha
    check_runs: list[CheckRun] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def known_commits(self) -> set[str]:
        """The commit SHAs this repository has: its PRs' commits, heads and bases."""
        shas: set[str] = set()
        for item in self.items.values():
            if isinstance(item, PullRequest):
                shas |= {item.head_sha, item.base_sha, *(c.sha for c in item.commits)}
        return shas

    def next_number(self) -> int:
        existing = [*self.items, *(d.number for d in self.discussions)]
        return max(existing, default=0) + 1


class State:
    """All repositories and identities. One lock: the server is threaded."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.repos: dict[str, Repo] = {}
        self.tokens: dict[str, Token] = {}
        self._ids = itertools.count(1_000)
        self._clock = itertools.count(0)
        for tok in (
            Token(WORKFLOW_TOKEN, WORKFLOW_LOGIN, kind="workflow"),
            Token(PERSONAL_TOKEN, PERSONAL_LOGIN, kind="personal"),
            Token(READONLY_TOKEN, WORKFLOW_LOGIN, kind="workflow", read_only=True),
        ):
            self.tokens[tok.token] = tok

    def new_id(self) -> int:
        return next(self._ids)

    def now(self) -> str:
        """A deterministic, strictly increasing clock: one minute per event."""
        return iso(_EPOCH + timedelta(minutes=next(self._clock)))

    def repo(self, full_name: str) -> Repo | None:
        return self.repos.get(full_name.lower())

    def item(self, full_name: str, number: int) -> Issue | None:
        repo = self.repo(full_name)
        return repo.items.get(number) if repo else None

    def find_issue_comment(self, comment_id: int) -> tuple[Repo, Issue, IssueComment] | None:
        for repo in self.repos.values():
            for item in repo.items.values():
                for c in item.comments:
                    if c.id == comment_id:
                        return repo, item, c
        return None
