"""A PR's changed files with patches, over REST (100 per page, following the Link header).

GitHub's limits shape this: the files API lists at most 3,000 files and omits `patch` for binary
files and very large diffs; the diff media type returns every patch but refuses PRs over 300 files
or 20,000 changed lines (406). So: list the files; if text files came back without a patch and the
PR is within the diff limits, fetch the diff once and fill them in; otherwise say what is missing.
"""

from __future__ import annotations

import re
from typing import Any

import github
from requests.exceptions import RequestException

from ..config import Settings
from ..errors import GitHubError, InputError
from ..models import FileChange, FileStatus
from .diffparse import parse_patch
from .github_api import github_error

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


def fetch_files(gh: github.Github, settings: Settings, repo: str, number: int) -> list[FileChange]:
    files: list[FileChange] = []
    url: str | None = f"/repos/{repo}/pulls/{number}/files"
    params: dict[str, Any] | None = {"per_page": 100}
    while url:
        try:
            headers, page = gh.requester.requestJsonAndCheck("GET", url, parameters=params)
        except (github.GithubException, RequestException) as exc:
            raise github_error(exc, f"listing the files of {repo}#{number}", settings) from None
        if not isinstance(page, list):  # e.g. a proxy's HTML page: not "a PR without files"
            raise GitHubError(f"GitHub answered the file list of {repo}#{number} with something that is not JSON "
                              f"(a proxy or login page?): check GITHUB_API_URL ({settings.github_api_url}).")
        files += [_file_change(d) for d in page if isinstance(d, dict) and d.get("filename")]
        link = next((v for k, v in headers.items() if k.lower() == "link"), "")
        m = _NEXT.search(link)
        url, params = (m.group(1), None) if m else (None, None)
    return files


def fill_missing_patches(
    gh: github.Github, settings: Settings, repo: str, number: int, files: list[FileChange], lines: int,
    notes: list[str],
) -> list[FileChange]:
    """Patches GitHub left out of the files API, from one diff-media-type request where GitHub allows it."""
    missing = [f for f in files if f.patch is None and not f.binary and (f.additions or f.deletions)]
    if not missing:
        return files
    if len(files) > DIFF_MAX_FILES or lines > DIFF_MAX_LINES:
        notes.append(f"{len(missing)} file(s) too large for GitHub to include a patch; listed with line counts only "
                     f"(the full diff is refused beyond {DIFF_MAX_FILES} files or {DIFF_MAX_LINES:,} lines)")
        return files
    try:
        _, data = gh.requester.requestJsonAndCheck(
            "GET", f"/repos/{repo}/pulls/{number}", headers={"Accept": "application/vnd.github.diff"}
        )
    except (github.GithubException, RequestException) as exc:
        notes.append(f"{len(missing)} file(s) without a patch; the full diff was refused "
                     f"({getattr(exc, 'status', type(exc).__name__)})")
        return files
    text = data.get("data") if isinstance(data, dict) else None
    try:
        parsed = {f.path: f.patch for f in parse_patch(text).files if f.patch} if isinstance(text, str) else {}
    except InputError:
        parsed = {}
    filled = [f.model_copy(update={"patch": parsed[f.path]}) if f in missing and f.path in parsed else f
              for f in files]
    still = sum(1 for f in filled if f.patch is None and not f.binary and (f.additions or f.deletions))
    notes.append(f"{len(missing) - still} large patch(es) taken from the full diff"
                 + (f"; {still} still without a patch" if still else ""))
    return filled
