"""Typed values passed between the pipeline stages.

event -> gather -> pack -> analyze -> render -> publish

    Event        what triggered the run (event.py)
    PullSummary  one pull request as a list of PRs shows it: cheap metadata, no diff (gather/rest.py)
    PRContext    everything gathered about one pull request (gather/pull.py, gather/local.py)
    Prompt       the messages for the model, inside the token budget (pack/prompt.py)
    Digest       the structured reading guide the model (or heuristic) writes (analyze/)
    Report       Digest + how it was made: usage, coverage, state (analyze/model.py)
    str          Markdown (render/), then a comment (publish.py)

All PR-derived text in these values is untrusted: it is data to describe,
never instructions to follow.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- PR context


@dataclass(frozen=True)
class PullSummary:
    """One pull request as the list endpoints return it (no diff, no discussion). Times are UTC."""

    number: int
    title: str
    url: str
    author: str
    author_is_bot: bool
    draft: bool
    state: str  # "open" | "closed"
    merged: bool
    merged_at: datetime | None
    created_at: datetime | None
    head_sha: str
    base_ref: str
    labels: tuple[str, ...] = ()
    closed_at: datetime | None = None
    updated_at: datetime | None = None
    locked: bool = False  # the conversation is locked: GitHub refuses our comment there


class FileStatus(str, Enum):
    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"
    RENAMED = "renamed"
    COPIED = "copied"
    CHANGED = "changed"  # mode-only and other GitHub statuses


class OutlineEntry(_Frozen):
    """One definition of a file as it is at the PR's head (gather/outline.py): a class, or a function or
    method that is not nested in another function. Lines are 1-based and inclusive."""

    qualname: str  # with its enclosing classes: `Outer.Inner.method`
    kind: Literal["class", "function"]
    first: int  # its `def`/`class` line (below its decorators)
    last: int  # its body's last line of code
    indent: int  # columns before its first line, tabs as 4


class FileChange(_Frozen):
    """One changed file. `patch` is None when GitHub (or git) gave none: binary, too large, capped."""

    path: str
    status: FileStatus = FileStatus.MODIFIED
    previous_path: str | None = None
    additions: int = 0
    deletions: int = 0
    patch: str | None = None
    binary: bool = False
    # The diff text of this file is cut off or damaged (a hunk shorter than its header says, no hunks
    # after a header, text that is not a diff): what `patch` shows may be a fragment of the change.
    patch_incomplete: bool = False
    # The definitions of the file at the PR's head, read when its hunks leave changed lines outside any
    # definition the diff names (a method under a `class` hunk header); None when not read. Names and
    # line ranges only: the file's text is not kept.
    outline: tuple[OutlineEntry, ...] | None = None


class Commit(_Frozen):
    sha: str
    message: str
    author: str = ""


class Comment(_Frozen):
    """An issue comment on the PR or on a linked issue."""

    id: int = 0
    author: str = ""
    body: str = ""
    created_at: str = ""
    author_is_bot: bool = False


class ReviewState(str, Enum):
    APPROVED = "APPROVED"
    CHANGES_REQUESTED = "CHANGES_REQUESTED"
    COMMENTED = "COMMENTED"
    DISMISSED = "DISMISSED"
    PENDING = "PENDING"


class Review(_Frozen):
    id: int = 0
    author: str = ""
    state: ReviewState = ReviewState.COMMENTED
    body: str = ""
    submitted_at: str = ""


class ThreadComment(_Frozen):
    author: str = ""
    body: str = ""
    created_at: str = ""


class ReviewThread(_Frozen):
    """Inline review comments on one spot of the diff, replies in order."""

    path: str
    line: int | None = None
    is_resolved: bool = False
    is_outdated: bool = False
    diff_hunk: str = ""
    comments: list[ThreadComment] = Field(default_factory=list)


class LinkKind(str, Enum):
    CLOSING = "closing"  # Fixes #N / closingIssuesReferences
    MENTIONED = "mentioned"  # "see #N", a bare #N
    CROSS_REFERENCED = "cross-referenced"  # another issue/PR referenced this PR


class LinkedIssue(_Frozen):
    """An issue this PR closes, with the substance a reader needs (root cause, numbers)."""

    number: int
    repo: str = ""  # owner/name; "" means the PR's own repository
    title: str = ""
    state: str = ""
    labels: list[str] = Field(default_factory=list)
    body: str = ""
    comments: list[Comment] = Field(default_factory=list)
    url: str = ""


class RelatedItem(_Frozen):
    """An issue or PR that is only mentioned or cross-references this one: title and state only."""

    number: int
    repo: str = ""
    title: str = ""
    state: str = ""
    is_pull_request: bool = False
    kind: LinkKind = LinkKind.MENTIONED
    url: str = ""


class PRContext(_Frozen):
    """Everything gathered about one pull request. Built by gather (GitHub) or local (a diff)."""

    repo: str = ""  # owner/name; "" for a local diff
    number: int = 0
    title: str = ""
    body: str = ""
    author: str = ""
    author_is_bot: bool = False
    author_association: str = ""  # GitHub's OWNER / MEMBER / COLLABORATOR / CONTRIBUTOR / FIRST_TIME_CONTRIBUTOR / NONE
    url: str = ""
    state: str = "open"
    draft: bool = False
    locked: bool = False
    merged: bool = False
    base_ref: str = ""
    head_ref: str = ""
    base_sha: str = ""
    head_sha: str = ""
    labels: list[str] = Field(default_factory=list)
    created_at: str = ""
    merged_at: str = ""
    files: list[FileChange] = Field(default_factory=list)
    changed_files: int = 0  # as GitHub reports it; may exceed len(files) past the 3,000-file cap
    additions: int = 0
    deletions: int = 0
    commits: list[Commit] = Field(default_factory=list)
    commit_count: int = 0
    comments: list[Comment] = Field(default_factory=list)
    reviews: list[Review] = Field(default_factory=list)
    threads: list[ReviewThread] = Field(default_factory=list)
    linked_issues: list[LinkedIssue] = Field(default_factory=list)
    related: list[RelatedItem] = Field(default_factory=list)
    owners: dict[str, list[str]] = Field(default_factory=dict)  # team/owner -> changed paths they own
    areas: dict[str, list[str]] = Field(default_factory=dict)  # human area name -> changed paths
    noise_counts: dict[str, int] = Field(default_factory=dict)  # e.g. {"lgtm": 3, "bot": 5}
    gather_notes: list[str] = Field(default_factory=list)  # e.g. "files API capped at 3,000"


# --------------------------------------------------------------------------- packing


class Coverage(_Frozen):
    """What the model (or heuristic) actually saw."""

    files_total: int = 0
    files_full: int = 0
    files_partial: int = 0
    files_name_only: int = 0
    omitted: list[str] = Field(default_factory=list)  # paths seen by name only or not at all
    secrets_redacted: int = 0
    incomplete_patches: list[str] = Field(default_factory=list)  # paths whose diff is cut off or damaged
    linked_issues: int = 0
    review_comments: int = 0
    notes: list[str] = Field(default_factory=list)


class Message(_Frozen):
    role: Literal["system", "user", "assistant"]
    content: str


class Prompt(_Frozen):
    messages: list[Message]
    tokens: int  # counted with `encoding` over the final messages
    budget: int
    encoding: str
    estimated: bool = False  # True when tiktoken was unavailable and tokens were estimated
    coverage: Coverage = Field(default_factory=Coverage)
    input_hash: str = ""  # hash of what was packed; same inputs -> same hash
    # The cleaned, redacted context the prompt was packed from: what analysis, grounding and the
    # Report's title must use (a secret in the raw title must not reach the comment). Not serialised.
    material: PRContext | None = Field(default=None, exclude=True, repr=False)
    taste_prs: list[int] = Field(default_factory=list)  # the team's past corrections the prompt shows (their PRs)


# --------------------------------------------------------------------------- analysis


class Verdict(str, Enum):
    DEEP_READ = "deep-read"
    SKIM = "skim"
    SKIP = "skip"


# Bounds on list items, so no single entry of a model's answer can run away (issue 5: field lengths bounded).
ReferenceText = Annotated[str, Field(max_length=200)]  # a path, symbol or test name
LineText = Annotated[str, Field(max_length=300)]  # one short line of prose


class Decision(BaseModel):
    """One key design decision, tied to code in the diff."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(max_length=160)
    explanation: str = Field(max_length=900)
    references: list[ReferenceText] = Field(default_factory=list, max_length=8)  # files, symbols, tests


class Digest(BaseModel):
    """The structured reading guide for one PR. This is the model's output schema."""

    model_config = ConfigDict(extra="forbid")
    verdict: Verdict
    reason: str = Field(max_length=400)
    headline: str = Field(max_length=200)
    audience: list[LineText] = Field(default_factory=list, max_length=6)
    decisions: list[Decision] = Field(default_factory=list, max_length=4)
    start_reading: list[ReferenceText] = Field(default_factory=list, max_length=6)
    discussion: str = Field(default="", max_length=900)
    linked_issue_findings: list[LineText] = Field(default_factory=list, max_length=4)
    open_items: list[LineText] = Field(default_factory=list, max_length=5)
    related: list[int] = Field(default_factory=list, max_length=8)


# --------------------------------------------------------------------------- the team's taste

# Paths in a profile: what a repository's directory names use, nothing that could act in Markdown.
AreaName = Annotated[str, Field(max_length=120, pattern=r"^[A-Za-z0-9._+@-][A-Za-z0-9._+@/ -]*$")]
MAX_PROFILE_AREAS = 8
LOGIN_PATTERN = r"^(?:[A-Za-z0-9][A-Za-z0-9-]*(?:\[bot\])?)?$"  # a GitHub login, or ""


class ChangeProfile(_Frozen):
    """What kind of change a PR is, to compare it with the team's past corrections (memory/profile.py):
    the directories it changes most and the kinds of file it changes, each with its changed lines."""

    areas: dict[AreaName, Annotated[int, Field(ge=0, le=10**8)]] = Field(default_factory=dict,
                                                                          max_length=MAX_PROFILE_AREAS)
    kinds: dict[Annotated[str, Field(max_length=20)], Annotated[int, Field(ge=0, le=10**8)]] = Field(
        default_factory=dict, max_length=16)
    lines: int = Field(default=0, ge=0, le=10**9)


class Correction(_Frozen):
    """One verdict the team gave on a PR, as the taste memory keeps it (memory/record.py): corrected
    when `team` differs from `analysed`, confirmed when it is the same."""

    pr: int = Field(ge=1, lt=10**9)
    title: str = Field(default="", max_length=200)
    areas: dict[AreaName, Annotated[int, Field(ge=0, le=10**8)]] = Field(default_factory=dict,
                                                                          max_length=MAX_PROFILE_AREAS)
    kinds: dict[Annotated[str, Field(max_length=20)], Annotated[int, Field(ge=0, le=10**8)]] = Field(
        default_factory=dict, max_length=16)
    lines: int = Field(default=0, ge=0, le=10**9)
    analysed: Verdict
    team: Verdict
    reason: str = Field(default="", max_length=200)
    by: str = Field(default="", max_length=60, pattern=LOGIN_PATTERN)
    head: str = Field(default="", max_length=40, pattern=r"^[0-9a-f]*$")
    at: str = Field(default="", max_length=32, pattern=r"^[0-9T:.+Z-]*$")

    @property
    def profile(self) -> ChangeProfile:
        return ChangeProfile(areas=self.areas, kinds=self.kinds, lines=self.lines)

    @property
    def corrected(self) -> bool:
        return self.team is not self.analysed


class CorrectionMatch(_Frozen):
    """A past correction and how similar its change is to the PR at hand (0..1, memory/similar.py)."""

    correction: Correction
    similarity: float = Field(ge=0.0, le=1.0)


class TeamVerdict(_Frozen):
    """The verdict a maintainer gave with `/readworthy verdict`, kept in the comment's hidden state."""

    verdict: Verdict
    by: str = Field(max_length=60)
    reason: str = Field(default="", max_length=200)
    head_sha: str = Field(default="", max_length=40)  # the head it was given on
    at: str = Field(default="", max_length=32)  # ISO time
    analysed: Verdict  # the analysis it corrected (or confirmed), for the digest's agreement
    profile: ChangeProfile = Field(default_factory=ChangeProfile)  # the kind of change, for the digest


class TasteUse(_Frozen):
    """How the team's past corrections informed this analysis: shown to the model, or weighed by the
    heuristic (`changed_from`: its own verdict, when the corrections changed it)."""

    prs: list[int] = Field(default_factory=list, max_length=10)
    changed_from: Verdict | None = None


class RateLimitHit(_Frozen):
    """A rate limit the model endpoint answered and readworthy did not wait out (a 429): which, and until when.
    A spent day quota (`day_quota`) means no request to this model succeeds before `until`."""

    kind: str = ""  # `x-ratelimit-type` (GitHub Models: UserByModelByDay, UserByMinute ...), "" if not said
    day_quota: bool = False
    retry_after_s: float | None = None  # the Retry-After not waited, in seconds, when known
    until: str = ""  # ISO time when it should be lifted ("" when unknown)


class Location(_Frozen):
    """Where a reference the Report cites lives at the PR's head (locate.py): a path, and the lines of the
    definition it names or the file's first changed line. Kept in the hidden state, so a digest can link
    the stored analysis to the same lines without gathering the diff again."""

    ref: str = Field(max_length=200)  # the reference exactly as the Digest cites it
    path: str = Field(max_length=1000)  # at the head (a removed file: its old path)
    start: int = Field(default=0, ge=0)  # 0: the file only, no line the diff could place
    end: int = Field(default=0, ge=0)
    removed: bool = False  # the file is gone at the head: only the Files changed tab shows it
    # A definition placed from the head file's outline (its `def` line outside every hunk): the first
    # changed line inside it, where the Files changed tab and a start-here mark can show it. 0: none.
    changed: int = Field(default=0, ge=0)

    @property
    def diff_line(self) -> int:
        """The line to open the diff at: inside the diff whenever the diff shows a line of it."""
        return self.changed or self.start


class ContentSketch(_Frozen):
    """What an analysis saw, small enough for the hidden state: changed lines per file (keyed by a short
    hash of the path). A later push is compared with it to decide whether the change is material."""

    files: dict[str, int] = Field(default_factory=dict)
    other: int = 0  # changed lines of the files beyond the ones kept by name


class Usage(_Frozen):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0


class Report(BaseModel):
    """A Digest plus how it was made. Stored (as JSON) in the comment's hidden state."""

    model_config = ConfigDict(extra="forbid")
    digest: Digest
    analyzer: Literal["model", "heuristic"]
    model: str = ""
    prompt_version: str = ""
    language: str = "en"
    usage: Usage = Field(default_factory=Usage)
    coverage: Coverage = Field(default_factory=Coverage)
    dropped_references: int = 0
    fallback_reason: str = ""  # why the heuristic stood in for the model, if it did
    model_withheld: str = ""  # why the model was deliberately not asked (cost and abuse control), if so
    model_runs: list[str] = Field(default_factory=list)  # ISO times of this PR's model analyses, last 24 h
    run_from: Literal["action", "terminal"] = "action"  # names settings in the banner the way the reader sets them
    repo: str = ""
    number: int = 0
    title: str = ""
    url: str = ""
    head_sha: str = ""
    input_hash: str = ""
    team: TeamVerdict | None = None  # the team's verdict (`/readworthy verdict`), kept across re-runs
    taste: TasteUse | None = None  # the team's past corrections that informed this analysis
    rate_limit: RateLimitHit | None = None  # the 429 that ended the model call, when one did (see analyze)
    # the cited references at the PR's head: `later_head` when the analysis describes an earlier one
    locations: list[Location] = Field(default_factory=list, max_length=64)
    content: ContentSketch | None = None  # what this analysis saw (for the material-push rule)
    queued: str = ""  # why a model analysis is queued for the catch-up run ("" = not queued)
    later_head: str = ""  # a later head this analysis does not describe (its pushes were not material)
    later_lines: int = 0  # how many changed lines those pushes moved

    @property
    def verdict(self) -> Verdict:
        """The verdict that counts: the team's when a maintainer gave one, else the analysis'."""
        return self.team.verdict if self.team is not None else self.digest.verdict
