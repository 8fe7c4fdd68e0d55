"""REST reads: a PR's changed files and metadata, our own comments, lists of pull requests and
issues, a file from a branch, a collaborator's permission. With `github_api` and `publish`, one of
the three modules that import PyGithub: every other module gets typed values from here.

Files (100 per page, following the Link header): GitHub's limits shape this. The files API lists
at most 3,000 files and omits `patch` for binary files and very large diffs; the diff media type
returns every patch but refuses PRs over 300 files or 20,000 changed lines (406). So: list the
files; if text files came back without a patch and the PR is within the diff limits, fetch the diff
once and fill them in; otherwise say what is missing.
"""

from __future__ import annotations

import base64
import binascii
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.Repository import Repository

from ..config import Settings
from ..errors import GitHubError, GitHubNotFound, InputError
from ..event import PullRequestInfo
from ..models import FileChange, FileStatus, PullSummary
from ..notes import note
from ..render.state import has_marker
from .diffparse import parse_patch
from .github_api import GitHub, github_errors

log = logging.getLogger(__name__)

# Our comment as PyGithub returns it: publish edits it in place, so the object itself travels.
GitHubComment = IssueComment

FILES_API_CAP = 3_000
DIFF_MAX_FILES = 300
DIFF_MAX_LINES = 20_000
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
_STATUS = {s.value: s for s in FileStatus}
# An empty text file also comes back with no patch and no line counts; these suffixes are never binary.
_TEXT_SUFFIXES = {
    "", ".py", ".pyi", ".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".yaml", ".yml", ".json", ".c", ".cc",
    ".cpp", ".h", ".hpp", ".cu", ".cuh", ".sh", ".js", ".ts", ".go", ".rs", ".java", ".html", ".css", ".typed",
    ".gitkeep", ".in", ".cmake", ".j2",
}


def _file_change(data: dict[str, Any]) -> FileChange:
    patch = data.get("patch")
    adds, dels = int(data.get("additions") or 0), int(data.get("deletions") or 0)
    status = _STATUS.get(str(data.get("status")), FileStatus.CHANGED)
    # GitHub marks binary files only by leaving `patch` out with no line counts. A pure rename and an
    # empty text file look the same, so those are not called binary.
    path = str(data["filename"])
    name = path.rsplit("/", 1)[-1]
    suffix = name[name.rfind("."):].lower() if "." in name else ""
    binary = (patch is None and adds == 0 and dels == 0 and suffix not in _TEXT_SUFFIXES
              and status not in (FileStatus.RENAMED, FileStatus.COPIED))
    return FileChange(
        path=path,
        status=status,
        previous_path=data.get("previous_filename"),
        additions=adds,
        deletions=dels,
        patch=patch,
        binary=binary,
    )


def fetch_files(gh: GitHub, settings: Settings, repo: str, number: int) -> list[FileChange]:
    files: list[FileChange] = []
    url: str | None = f"/repos/{repo}/pulls/{number}/files"
    params: dict[str, Any] | None = {"per_page": 100}
    while url:
        with github_errors(f"listing the files of {repo}#{number}", api_url=settings.github_api_url):
            headers, page = gh.requester.requestJsonAndCheck("GET", url, parameters=params)
        if not isinstance(page, list):  # e.g. a proxy's HTML page: not "a PR without files"
            raise GitHubError(f"GitHub answered the file list of {repo}#{number} with something that is not JSON "
                              f"(a proxy or login page?): check GITHUB_API_URL ({settings.github_api_url}).")
        files += [_file_change(d) for d in page if isinstance(d, dict) and d.get("filename")]
        link = next((v for k, v in headers.items() if k.lower() == "link"), "")
        m = _NEXT.search(link)
        url, params = (m.group(1), None) if m else (None, None)
    return files


def fill_missing_patches(
    gh: GitHub, settings: Settings, repo: str, number: int, files: list[FileChange], lines: int,
    notes: list[str],
) -> list[FileChange]:
    """Patches GitHub left out of the files API, from one diff-media-type request where GitHub allows it."""
    missing = [f for f in files if f.patch is None and not f.binary and (f.additions or f.deletions)]
    if not missing:
        return files
    if len(files) > DIFF_MAX_FILES or lines > DIFF_MAX_LINES:
        notes.append(note("patches_too_large", n=len(missing), files=DIFF_MAX_FILES, lines=f"{DIFF_MAX_LINES:,}"))
        return files
    try:
        with github_errors(f"reading the diff of {repo}#{number}", api_url=settings.github_api_url):
            _, data = gh.requester.requestJsonAndCheck(
                "GET", f"/repos/{repo}/pulls/{number}", headers={"Accept": "application/vnd.github.diff"}
            )
    except GitHubError as exc:
        notes.append(note("full_diff_refused", n=len(missing), why=exc.status or type(exc).__name__))
        return files
    text = data.get("data") if isinstance(data, dict) else None
    try:
        parsed = {f.path: f for f in parse_patch(text).files if f.patch} if isinstance(text, str) else {}
    except InputError:
        parsed = {}
    # a patch cut off or damaged in the full diff stays flagged, so the guide says it rests on a fragment
    filled = [f.model_copy(update={"patch": parsed[f.path].patch, "patch_incomplete": parsed[f.path].patch_incomplete})
              if f in missing and f.path in parsed else f
              for f in files]
    still = sum(1 for f in filled if f.patch is None and not f.binary and (f.additions or f.deletions))
    notes.append(note("patches_from_diff_partly", n=len(missing) - still, still=still) if still
                 else note("patches_from_diff", n=len(missing)))
    return filled


# --------------------------------------------------------------------------- pull requests


def _lazy_repo(gh: GitHub, repo: str) -> Repository:
    """The repository without a GET: objects made from it are fetched only when a field is read."""
    return gh.withLazy(True).get_repo(repo)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _summary(pull: PullRequest) -> PullSummary:
    """Only fields the list endpoint returns: reading others (`merged`) would cost a request each."""
    user = pull.user
    login = user.login if user is not None else ""
    merged_at = _utc(pull.merged_at)
    return PullSummary(
        number=pull.number,
        title=pull.title or "",
        url=pull.html_url or "",
        author=login,
        author_is_bot=(user is not None and user.type == "Bot") or login.endswith("[bot]"),
        draft=bool(pull.draft),
        state=pull.state or "",
        merged=merged_at is not None,
        merged_at=merged_at,
        created_at=_utc(pull.created_at),
        head_sha=pull.head.sha if pull.head is not None else "",
        base_ref=pull.base.ref if pull.base is not None else "",
        labels=tuple(label.name for label in pull.labels),
        closed_at=_utc(pull.closed_at),
        updated_at=_utc(pull.updated_at),
        locked=bool(pull.locked),
    )


def read_pull_info(gh: GitHub, repo: str, number: int) -> PullRequestInfo:
    """What the skip rules need about PR `number` (one request). GitHubNotFound when there is none."""
    with github_errors(f"reading {repo}#{number}"):
        pull = _lazy_repo(gh, repo).get_pull(number)
        user = pull.user
        login = user.login if user is not None else ""
        return PullRequestInfo(
            number=number,
            draft=bool(pull.draft),
            author=login,
            author_is_bot=(user is not None and user.type == "Bot") or login.endswith("[bot]"),
            base_ref=pull.base.ref,
            head_sha=pull.head.sha,
            labels=tuple(label.name for label in pull.labels),
            locked=bool(pull.locked),
        )


def read_pull_summary(gh: GitHub, repo: str, number: int) -> PullSummary | None:
    """PR `number` as a list would show it; None when there is no such pull request."""
    try:
        with github_errors(f"reading {repo}#{number}"):
            return _summary(_lazy_repo(gh, repo).get_pull(number))
    except GitHubNotFound:
        return None


def iter_pulls(gh: GitHub, repo: str, state: str, sort: str) -> Iterator[PullSummary]:
    """Pull requests newest first by `sort` (`created` or `updated`), a page at a time: the caller stops
    reading as soon as it has enough, so only the pages it looks at are requested."""
    with github_errors(f"listing the pull requests of {repo}"):
        for pull in _lazy_repo(gh, repo).get_pulls(state=state, sort=sort, direction="desc"):
            yield _summary(pull)


def open_pull_numbers(gh: GitHub, repo: str, limit: int) -> tuple[list[int], bool]:
    """The newest `limit` open PRs' numbers, and whether there were more."""
    numbers: list[int] = []
    for pull in iter_pulls(gh, repo, "open", "created"):
        if len(numbers) >= limit:
            return numbers, True
        numbers.append(pull.number)
    return numbers, False


def default_branch(gh: GitHub, repo: str) -> str:
    with github_errors(f"reading the repository {repo}"):
        return str(gh.get_repo(repo).default_branch)


WRITE_PERMISSIONS = ("admin", "maintain", "write")


def has_write_access(gh: GitHub, repo: str, login: str) -> bool:
    """The collaborator permission API, not the payload's author_association (a hint, not an answer)."""
    return bool(login) and collaborator_permission(gh, repo, login) in WRITE_PERMISSIONS


def collaborator_permission(gh: GitHub, repo: str, login: str) -> str:
    """`admin`, `maintain`, `write`, `triage`, `read` — or "" for someone who is not a collaborator.
    The collaborator permission API, not the payload's author_association (a hint, not an answer)."""
    try:
        with github_errors(f"checking {login}'s permission on {repo}"):
            return str(_lazy_repo(gh, repo).get_collaborator_permission(login))
    except GitHubNotFound:
        return ""


def read_contents(gh: GitHub, repo: str, path: str, ref: str) -> dict[str, Any] | None:
    """The contents API's answer for `path` at `ref` (base64 content inside); None when there is no file."""
    try:
        with github_errors(f"reading {path} from {ref}"):
            _, data = gh.requester.requestJsonAndCheck("GET", f"/repos/{repo}/contents/{path}",
                                                       parameters={"ref": ref})
    except GitHubNotFound:
        return None
    return data if isinstance(data, dict) else {"type": type(data).__name__}


def read_file_bytes(gh: GitHub, repo: str, path: str, ref: str, max_bytes: int) -> bytes | None:
    """A file's bytes at `ref` (one contents API request), for a caller that can do without them: None
    when there is no such file, it is not a file (a directory, a symlink), it is over `max_bytes` (over
    1 MB the API sends no content), or GitHub refused or failed."""
    try:
        data = read_contents(gh, repo, quote(path, safe="/"), ref)
    except GitHubError as exc:
        log.warning("could not read %s at %s (%s); going on without it", path, ref[:12], exc)
        return None
    if not data or data.get("type") != "file" or data.get("encoding") != "base64":
        return None
    size = data.get("size")
    if not isinstance(size, int) or size > max_bytes:
        return None
    try:
        raw = base64.b64decode(str(data.get("content") or ""))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) <= max_bytes else None


# --------------------------------------------------------------------------- comments and issues


def _is_ours(comment: IssueComment, own_login: str) -> bool:
    user = comment.user.login if comment.user is not None else ""
    return user.lower() == own_login.lower() and has_marker(comment.body or "")


def find_own_comments(gh: GitHub, repo: str, number: int, own_login: str) -> list[GitHubComment]:
    """Our sticky comments on PR `number`, oldest first (normally zero or one): they carry our hidden
    marker AND are written by our login — a copied marker in someone else's comment is ignored."""
    with github_errors(f"listing the comments of #{number}"):
        comments = list(_lazy_repo(gh, repo).get_issue(number).get_comments())
        return sorted((c for c in comments if _is_ours(c, own_login)), key=lambda c: c.id)


def refresh_comment_body(comment: GitHubComment) -> str | None:
    """Our comment's body as it is now (another run may have edited it since it was listed; one request);
    None when it was deleted meanwhile."""
    try:
        with github_errors("re-reading the readworthy comment"):
            comment.update()
    except GitHubNotFound:
        return None
    return comment.body or ""


def find_existing_body(gh: GitHub, repo: str, number: int, own_login: str) -> tuple[GitHubComment | None, str]:
    """Our current comment on PR `number` and its body, for the cache check ("" when none)."""
    ours = find_own_comments(gh, repo, number, own_login)
    return (ours[0], ours[0].body or "") if ours else (None, "")


@dataclass(frozen=True)
class IssueSummary:
    number: int
    author: str
    body: str
    url: str


def iter_labelled_issues(gh: GitHub, repo: str, label: str, state: str) -> Iterator[IssueSummary]:
    """Issues (not PRs) with `label`, newest first, a page at a time."""
    # Filtered by author by the caller, not with `creator=`: how GitHub spells an App's login there varies.
    with github_errors(f"looking for the issues labelled `{label}` in {repo}"):
        issues = _lazy_repo(gh, repo).get_issues(state=state, labels=[label], sort="created", direction="desc")
        for issue in issues:
            if issue.pull_request is not None:
                continue
            user = issue.user
            yield IssueSummary(issue.number, user.login if user is not None else "", issue.body or "",
                               issue.html_url or "")


def matching_refs(gh: GitHub, repo: str, prefix: str) -> dict[str, str]:
    """Git refs whose name starts with `refs/<prefix>`, as {full name: sha} (the model budget's ledger)."""
    with github_errors(f"listing the git refs refs/{prefix}*"):
        return {ref.ref: ref.object.sha for ref in _lazy_repo(gh, repo).get_git_matching_refs(prefix)}
