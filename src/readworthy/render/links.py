"""Links to the exact lines a Report cites, built from its stored locations. Pure.

Two kinds, both on the repository's own host only (`safe_markdown.link`):
- a **permalink** by the head commit, so it never drifts: `{web}/{owner}/{repo}/blob/{sha}/{path}#L{a}-L{b}`;
- a **Files changed** anchor for where to start reading, which opens the diff at that line:
  `{pr}/files#diff-{sha256(path)}R{line}` (GitHub names each file's diff by the SHA-256 of its path;
  `R` is the new side). A removed file has no lines at the head: it opens its diff, `#diff-{sha256}`.

Nothing here reads the diff: the locations were resolved when the Report was made (locate.py) and are
kept in the hidden state with the head SHA, so a digest builds the same links from a stored analysis.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from ..models import Location, Report
from . import safe_markdown as sm

_PR_URL = re.compile(r"^(https?://[^/\s?#]+/[^/\s?#]+/[^/\s?#]+)/pull/(\d+)$")
_SHA = re.compile(r"^[0-9a-f]{40}$")
MAX_URL = 800  # a longer URL (a hostile path, percent-encoded) is not worth its room in the comment


def diff_anchor(path: str) -> str:
    """GitHub's id for a file's diff on a PR's Files changed tab."""
    return "diff-" + hashlib.sha256(path.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Linker:
    """Builds the links of one Report: knows its repository's web address, head SHA and locations."""

    repo_web: str = ""  # https://github.com/owner/repo; "" when the Report has no PR address (local diffs)
    pr_url: str = ""
    head_sha: str = ""
    host: str = "github.com"
    locations: dict[str, Location] = field(default_factory=dict)

    @classmethod
    def of(cls, report: Report) -> Linker:
        match = _PR_URL.match((report.url or "").rstrip("/"))
        # An analysis kept across pushes that were not material is placed at the PR's head (`later_head`).
        sha = (report.later_head or report.head_sha or "").lower()
        if match is None or not _SHA.match(sha):
            return cls()
        host = urlsplit(report.url).hostname or "github.com"
        return cls(match.group(1), match.group(0), sha, host, {loc.ref: loc for loc in report.locations})

    @property
    def active(self) -> bool:
        return bool(self.repo_web)

    def location(self, ref: str) -> Location | None:
        return self.locations.get(ref) if self.active else None

    def permalink(self, loc: Location) -> str:
        """The file at the head commit, at the lines `loc` names (the diff for a removed file)."""
        if loc.removed:
            return f"{self.pr_url}/files#{diff_anchor(loc.path)}"
        url = f"{self.repo_web}/blob/{self.head_sha}/{quote(loc.path, safe='/')}"
        if loc.start:
            url += f"#L{loc.start}" + (f"-L{loc.end}" if loc.end > loc.start else "")
        return url

    def files_tab(self, loc: Location) -> str:
        """The PR's Files changed tab, opened at the line where `loc` starts."""
        anchor = f"{self.pr_url}/files#{diff_anchor(loc.path)}"
        return anchor + (f"R{loc.diff_line}" if loc.diff_line and not loc.removed else "")

    def code(self, ref: str, label: str, *, start_here: bool = False) -> str:
        """`label` (safe Markdown, usually a code span of `ref`) linked to where `ref` lives; `label` alone
        when the diff could not place it or the link would leave the repository's host."""
        loc = self.location(ref)
        if loc is None or not label:
            return label
        url = self.files_tab(loc) if start_here else self.permalink(loc)
        return sm.link(label, url, self.host) if len(url) <= MAX_URL else label
