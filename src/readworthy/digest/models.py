"""Typed values of the digest (a reading list across many PRs).

    DigestRequest   what to build: repository, which PRs, limits, where to publish
    DigestEntry     one PR in the reading list: its Report and where the Report came from
    LeftOut         a PR that was selected but is not in the list, and why
    DigestResult    the whole reading list, counts and cost, and where it went
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..models import PullSummary, Report, Usage, Verdict
from .window import Window

PRState = Literal["merged", "open", "all"]
PublishTarget = Literal["none", "issue", "rolling-issue", "discussion"]
PUBLISH_TARGETS: tuple[PublishTarget, ...] = ("none", "issue", "rolling-issue", "discussion")
PR_STATES: tuple[PRState, ...] = ("merged", "open", "all")
DEFAULT_LABEL = "readworthy-digest"
DEFAULT_CONCURRENCY = 4
DEFAULT_CATEGORY = "General"  # discussion category of a digest
VERDICT_ORDER = (Verdict.DEEP_READ, Verdict.SKIM, Verdict.SKIP)


@dataclass(frozen=True)
class DigestRequest:
    repo: str
    window: Window | None = None  # None only with explicit `prs`
    prs: tuple[int, ...] = ()
    state: PRState = "merged"
    max_prs: int | None = None
    max_cost: float | None = None
    publish: PublishTarget = "none"
    label: str = DEFAULT_LABEL
    discussion_category: str = ""
    cached_only: bool = False  # assemble from stored analyses only: 0 model calls, no gathering
    write_comments: bool = True  # a fresh analysis also upserts the PR's own comment (the cache)
    concurrency: int = DEFAULT_CONCURRENCY


EntrySource = Literal["cached", "analysed"]


@dataclass(frozen=True)
class DigestEntry:
    candidate: PullSummary
    report: Report
    source: EntrySource
    comment_url: str = ""


LeftOutReason = Literal[
    "max-prs", "max-cost", "rate-limit", "not-cached", "failed", "skipped-rule", "not-found"
]


@dataclass(frozen=True)
class LeftOut:
    number: int
    title: str
    url: str
    reason: LeftOutReason
    detail: str = ""  # e.g. which rule skipped it, or the error message


def common_reason(failures: list[tuple[int, str]]) -> str:
    """The reason most of `failures` share (the first of equals), as given."""
    reasons = [why for _, why in failures]
    return max(dict.fromkeys(reasons), key=reasons.count) if reasons else ""


@dataclass
class DigestResult:
    request: DigestRequest
    language: str
    entries: list[DigestEntry] = field(default_factory=list)
    left_out: list[LeftOut] = field(default_factory=list)
    considered: int = 0  # PRs the window/list produced before any rule or limit
    usage: Usage = field(default_factory=Usage)  # what *this run* spent (cached entries cost nothing)
    analyzer_note: str = ""  # "heuristic — no model was called" etc.
    markdown: str = ""
    published_url: str = ""
    warnings: list[str] = field(default_factory=list)
    model_failures: list[tuple[int, str]] = field(default_factory=list)  # (PR, why) the model failed this run
    model_answers: int = 0  # fresh analyses the model wrote this run

    def errors(self) -> list[str]:
        """What makes this digest a failed run for `fail-on-error` (the caller adds "not published"): every
        model call of the run failed (the heuristic stood in everywhere), or no PR could be analysed at all."""
        out = []
        if self.model_failures and not self.model_answers:
            n = len(self.model_failures)
            out.append(f"the model could not be used for any of the {n} pull request(s) analysed now "
                       f"({common_reason(self.model_failures)}); the labelled heuristic, or the stored analysis, "
                       "stands in")
        failed = [x for x in self.left_out if x.reason == "failed"]
        if failed and not self.analysed_count:
            out.append(f"none of the {len(failed)} pull request(s) to analyse could be analysed "
                       f"(#{failed[0].number}: {failed[0].detail[:200]})")
        return out

    def counts(self) -> dict[Verdict, int]:
        out = {v: 0 for v in VERDICT_ORDER}
        for entry in self.entries:
            out[entry.report.verdict] += 1
        return out

    def ordered(self) -> list[DigestEntry]:
        """deep-read -> skim -> skip; inside a verdict, newest merge (or creation) first."""
        rank = {v: i for i, v in enumerate(VERDICT_ORDER)}

        def key(entry: DigestEntry) -> tuple[int, float, int]:
            moment = entry.candidate.merged_at or entry.candidate.created_at
            stamp = moment.timestamp() if moment else 0.0
            return (rank[entry.report.verdict], -stamp, -entry.candidate.number)

        return sorted(self.entries, key=key)

    @property
    def cached_count(self) -> int:
        return sum(1 for e in self.entries if e.source == "cached")

    @property
    def analysed_count(self) -> int:
        return sum(1 for e in self.entries if e.source == "analysed")
