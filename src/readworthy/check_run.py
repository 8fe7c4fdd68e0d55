"""The check run on the PR's head commit — publish.py's sibling, the only writer of the Checks API.

One check run named `readworthy` per head commit, written by our own app (the workflow token writes as
GitHub Actions, an App token as that App): a re-run for the same head edits it in place, a new head gets
its own. Conclusion `neutral`: it shows the verdict in the checks list and never blocks a merge.

It goes on the PR's `head.sha` as gathered, never `GITHUB_SHA` (on `pull_request_target` and
`issue_comment` that is the base branch's commit). The Checks API takes at most 50 annotations per
request and an update *appends* annotations, so an update sends only the marks the run does not have
yet, and an unchanged run is not written at all. Writes need `checks: write` (and a GitHub App or the
workflow token: a person's token cannot write check runs); a refusal is a `CommentBlocked` whose
message names the permission, and the review goes on without the check.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .errors import CommentBlocked, GitHubError, PublishError
from .gather.github_api import GitHub, github_errors
from .render.check import CheckOutput, Mark

log = logging.getLogger(__name__)

CHECK_NAME = "readworthy"
ANNOTATIONS_PER_REQUEST = 50
PERMISSION = "checks: write"
_PERSONAL = ("cannot write the readworthy check run as {login}: only a GitHub App or the workflow token "
             "(GITHUB_TOKEN with `checks: write`) can write check runs, not a person's token")


@dataclass(frozen=True)
class CheckRef:
    id: int
    url: str
    action: str  # "created" | "edited" | "unchanged"
    annotations: int = 0  # annotations this run added


def app_slug(own_login: str) -> str:
    """The app our check runs are written as: `github-actions[bot]` -> `github-actions`; "" for a person."""
    return own_login.removesuffix("[bot]") if own_login.endswith("[bot]") else ""


def _key(mark: dict[str, Any]) -> tuple[str, int, int, str]:
    return (str(mark.get("path")), int(mark.get("start_line") or 0), int(mark.get("end_line") or 0),
            str(mark.get("message")))


def find_check_run(gh: GitHub, repo: str, head_sha: str, own_login: str) -> dict[str, Any] | None:
    """Our `readworthy` check run on `head_sha` (the oldest, should there be two), or None."""
    slug = app_slug(own_login)
    with github_errors(f"list the check runs of {head_sha[:7]}"):
        _, data = gh.requester.requestJsonAndCheck(
            "GET", f"/repos/{repo}/commits/{head_sha}/check-runs",
            parameters={"check_name": CHECK_NAME, "filter": "all", "per_page": 100})
    runs = [r for r in (data or {}).get("check_runs") or [] if isinstance(r, dict) and r.get("name") == CHECK_NAME
            and (not slug or (r.get("app") or {}).get("slug") == slug)]
    return min(runs, key=lambda r: int(r.get("id") or 0)) if runs else None


def _existing_marks(gh: GitHub, repo: str, run: dict[str, Any]) -> set[tuple[str, int, int, str]]:
    count = int(((run.get("output") or {}).get("annotations_count")) or 0)
    if not count:
        return set()
    found: set[tuple[str, int, int, str]] = set()
    page = 1
    while len(found) < count and page <= 20:
        with github_errors("read the check run's annotations"):
            _, data = gh.requester.requestJsonAndCheck(
                "GET", f"/repos/{repo}/check-runs/{run['id']}/annotations",
                parameters={"per_page": 100, "page": page})
        if not isinstance(data, list) or not data:
            break
        found |= {_key(a) for a in data if isinstance(a, dict)}
        page += 1
    return found


def _body(output: CheckOutput, marks: list[Mark], details_url: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "status": "completed", "conclusion": "neutral",
        "completed_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "output": {"title": output.title, "summary": output.summary,
                   "annotations": [m.as_json() for m in marks[:ANNOTATIONS_PER_REQUEST]]},
    }
    if details_url:
        body["details_url"] = details_url
    return body


def _same(run: dict[str, Any], output: CheckOutput) -> bool:
    out = run.get("output") or {}
    return (run.get("conclusion") == "neutral" and out.get("title") == output.title
            and out.get("summary") == output.summary)


def _write(gh: GitHub, method: str, path: str, body: dict[str, Any], doing: str) -> dict[str, Any]:
    with github_errors(doing, writing=True, permission=PERMISSION):
        _, data = gh.requester.requestJsonAndCheck(method, path, input=body)
    if not isinstance(data, dict) or not isinstance(data.get("id"), int):
        raise PublishError(f"GitHub's answer to {doing} has no check run in it; re-run the job")
    return data


def _append(gh: GitHub, repo: str, run_id: int, output: CheckOutput, rest: list[Mark]) -> None:
    """Annotations past the first 50: further updates, 50 at a time (each appends)."""
    for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
        chunk = rest[start:start + ANNOTATIONS_PER_REQUEST]
        _write(gh, "PATCH", f"/repos/{repo}/check-runs/{run_id}",
               {"output": {"title": output.title, "summary": output.summary,
                           "annotations": [m.as_json() for m in chunk]}}, "add annotations to the check run")


def _create(gh: GitHub, repo: str, head_sha: str, body: dict[str, Any], own_login: str) -> dict[str, Any]:
    """POST the check run; after a lost answer, look for it before anything else (check runs cannot be
    deleted, so a blind retry would leave two)."""
    try:
        return _write(gh, "POST", f"/repos/{repo}/check-runs", {"name": CHECK_NAME, "head_sha": head_sha, **body},
                      "create the readworthy check run")
    except PublishError as exc:
        if not exc.transient:
            raise
        try:
            landed = find_check_run(gh, repo, head_sha, own_login)
        except GitHubError:
            landed = None
        if landed is None:
            raise
        return landed


def publish_check(gh: GitHub, repo: str, head_sha: str, output: CheckOutput, own_login: str,
                  details_url: str = "") -> CheckRef:
    """Create or update our check run on `head_sha`. Raises PublishError (CommentBlocked without
    `checks: write`); a read that fails is a PublishError too (the review itself goes on)."""
    if not app_slug(own_login):
        raise CommentBlocked(_PERSONAL.format(login=own_login or "this token"), "read-only")
    try:
        existing = find_check_run(gh, repo, head_sha, own_login)
        have = _existing_marks(gh, repo, existing) if existing else set()
    except GitHubError as exc:
        raise PublishError(f"cannot read the check runs of {head_sha[:7]}: {exc}") from None
    missing = [m for m in output.marks if _key(m.as_json()) not in have]
    if existing is not None:
        if _same(existing, output) and not missing:
            return CheckRef(int(existing["id"]), str(existing.get("html_url") or ""), "unchanged")
        data = _write(gh, "PATCH", f"/repos/{repo}/check-runs/{existing['id']}",
                      _body(output, missing, details_url), "update the readworthy check run")
        action = "edited"
    else:
        data = _create(gh, repo, head_sha, _body(output, missing, details_url), own_login)
        action = "created"
    _append(gh, repo, int(data["id"]), output, missing[ANNOTATIONS_PER_REQUEST:])
    return CheckRef(int(data["id"]), str(data.get("html_url") or ""), action, len(missing))
