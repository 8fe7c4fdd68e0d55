"""The Checks API of the test GitHub server: check runs as GitHub documents them.

- `POST /repos/{o}/{r}/check-runs` needs `name` and a `head_sha` the repository has (422 "No commit found
  for SHA" otherwise); `PATCH .../check-runs/{id}` updates one; `GET .../check-runs/{id}`;
  `GET .../commits/{ref}/check-runs` lists a commit's (`check_name`, `status`, `app_id`, `filter=latest|all`);
  `GET .../check-runs/{id}/annotations`.
- Writes need `checks: write`: only integration tokens (a workflow token, an App) can create check runs —
  a person's token gets 403 "You must authenticate via a GitHub App." — and a workflow token whose
  `permissions:` leave out `checks` (`server.deny(token, "checks")`) or a fork's read-only token get 403
  "Resource not accessible by integration". Only the app that created a check run may update it.
- `output`: `title` and `summary` required, `title`/`summary`/`text` at most 65,535 characters; at most
  50 `annotations` per request, each with `path`, `start_line`, `end_line`, `annotation_level` (`notice`,
  `warning`, `failure`) and `message`; columns only on one line. An update replaces title/summary/text
  and **appends** its annotations.
- `status` `completed` needs a `conclusion`; a `conclusion` alone completes the run.
"""

from __future__ import annotations

from typing import Any

from . import github_rest as rest
from .github_rest import Call, HttpError, Reply, error, validation_failed
from .github_routes import route
from .github_state import CheckAnnotation, CheckRun, Repo, State

OUTPUT_MAX = 65_535
ANNOTATIONS_PER_REQUEST = 50
RAW_DETAILS_MAX = 65_535
STATUSES = ("queued", "in_progress", "completed")
CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out")
LEVELS = ("notice", "warning", "failure")
APP_IDS = {"github-actions": 15368}


def app_slug(c: Call) -> str:
    """The app a token writes check runs as: the workflow token is GitHub Actions, `x[bot]` is App x."""
    assert c.token is not None
    if c.token.kind == "workflow":
        return "github-actions"
    return c.token.login.removesuffix("[bot]")


def _app_json(slug: str) -> dict[str, Any]:
    app_id = APP_IDS.get(slug, int(rest._sha(slug)[:6], 16))
    return {"id": app_id, "slug": slug, "node_id": f"A_{app_id}", "name": slug.replace("-", " ").title(),
            "owner": {"login": "github" if slug == "github-actions" else slug, "type": "Organization"}}


def check_run_json(c: Call, repo: Repo, run: CheckRun) -> dict[str, Any]:
    base = f"{c.api_base}/repos/{repo.full_name}/check-runs/{run.id}"
    return {
        "id": run.id,
        "node_id": f"CR_{run.id}",
        "head_sha": run.head_sha,
        "external_id": run.external_id or "",
        "url": base,
        "html_url": f"{c.html_base}/{repo.full_name}/runs/{run.id}",
        "details_url": run.details_url or f"{c.html_base}/{repo.full_name}/runs/{run.id}",
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": run.started_at,
        "completed_at": run.completed_at,
        "name": run.name,
        "output": {"title": run.title, "summary": run.summary, "text": run.text,
                   "annotations_count": len(run.annotations), "annotations_url": f"{base}/annotations"},
        "check_suite": {"id": 7_000_000 + run.id},
        "app": _app_json(run.app_slug),
        "pull_requests": [],
    }


def _annotation_json(a: CheckAnnotation) -> dict[str, Any]:
    return {"path": a.path, "start_line": a.start_line, "end_line": a.end_line, "start_column": a.start_column,
            "end_column": a.end_column, "annotation_level": a.annotation_level, "title": a.title or "",
            "message": a.message, "raw_details": a.raw_details or "", "blob_href": ""}


def _check_permission(c: Call, repo: Repo) -> None:
    if c.token is None:
        raise HttpError(error(401, "Requires authentication"))
    if not c.token.is_integration:
        raise HttpError(error(403, "You must authenticate via a GitHub App."))
    if not c.token.may_write("checks"):
        raise HttpError(error(403, "Resource not accessible by integration"))
    if repo.archived:
        raise HttpError(error(403, "Repository was archived so is read-only."))


def _invalid(field: str, message: str) -> HttpError:
    return HttpError(validation_failed("CheckRun", field, message))


def _int(value: Any, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise _invalid(field, f"{field} must be a positive integer")
    return value


def _annotation(raw: Any, i: int) -> CheckAnnotation:
    if not isinstance(raw, dict):
        raise _invalid(f"output.annotations[{i}]", "annotation must be an object")
    for key in ("path", "start_line", "end_line", "annotation_level", "message"):
        if raw.get(key) in (None, ""):
            raise _invalid(f"output.annotations[{i}].{key}", f"{key} wasn't supplied")
    if raw["annotation_level"] not in LEVELS:
        raise _invalid(f"output.annotations[{i}].annotation_level", "annotation_level is not included in the list")
    start, end = _int(raw["start_line"], "start_line"), _int(raw["end_line"], "end_line")
    if end < start:
        raise _invalid(f"output.annotations[{i}].end_line", "end_line must be greater than or equal to start_line")
    columns = raw.get("start_column"), raw.get("end_column")
    if any(col is not None for col in columns) and start != end:
        raise _invalid(f"output.annotations[{i}].start_column",
                       "start_column and end_column may only be given when start_line and end_line are the same")
    if not isinstance(raw["message"], str) or not isinstance(raw["path"], str):
        raise _invalid(f"output.annotations[{i}]", "path and message must be strings")
    if len(str(raw.get("raw_details") or "")) > RAW_DETAILS_MAX:
        raise _invalid(f"output.annotations[{i}].raw_details", "raw_details is too long")
    return CheckAnnotation(raw["path"], start, end, raw["annotation_level"], raw["message"], raw.get("title"),
                           raw.get("raw_details"), columns[0], columns[1])


def _apply(run: CheckRun, body: dict[str, Any], state: State, *, creating: bool) -> None:
    """Validate the whole request first, then change the run: a refused request changes nothing."""
    status = body.get("status", run.status if not creating else "queued")
    conclusion = body.get("conclusion", run.conclusion)
    if status not in STATUSES:
        raise _invalid("status", "status is not included in the list")
    if conclusion is not None and conclusion not in CONCLUSIONS:
        raise _invalid("conclusion", "conclusion is not included in the list")
    if "conclusion" in body and conclusion is not None:
        status = "completed"
    if status == "completed" and conclusion is None:
        raise _invalid("conclusion", "conclusion is required when status is completed")
    output = body.get("output")
    annotations: list[CheckAnnotation] = []
    if output is not None:
        if not isinstance(output, dict):
            raise _invalid("output", "output must be an object")
        for key in ("title", "summary"):
            if not isinstance(output.get(key), str) or not output[key]:
                raise _invalid(f"output.{key}", f"{key} wasn't supplied")
        for key in ("title", "summary", "text"):
            if len(str(output.get(key) or "")) > OUTPUT_MAX:
                raise _invalid(f"output.{key}", f"{key} is too long (maximum is {OUTPUT_MAX} characters)")
        raw = output.get("annotations") or []
        if not isinstance(raw, list):
            raise _invalid("output.annotations", "annotations must be an array")
        if len(raw) > ANNOTATIONS_PER_REQUEST:
            raise _invalid("output.annotations",
                           f"Only {ANNOTATIONS_PER_REQUEST} annotations are allowed per request; update the check "
                           "run to add more")
        annotations = [_annotation(a, i) for i, a in enumerate(raw)]
    run.status, run.conclusion = status, conclusion
    if status == "completed":
        run.completed_at = body.get("completed_at") or run.completed_at or state.now()
    for key in ("details_url", "external_id"):
        if key in body:
            setattr(run, key, body[key])
    if output is not None:
        run.title, run.summary, run.text = output["title"], output["summary"], output.get("text")
        run.annotations.extend(annotations)


def _known_commit(repo: Repo, sha: str) -> None:
    """GitHub's 422 for a commit the repository does not have."""
    if sha not in repo.known_commits():
        raise HttpError(Reply(422, {"message": f"No commit found for SHA: {sha}", "documentation_url": rest.DOCS}))


@route("POST", "{repo}/check-runs")
def create_check_run(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    _check_permission(c, repo)
    body = c.body if isinstance(c.body, dict) else {}
    name, sha = body.get("name"), body.get("head_sha")
    if not isinstance(name, str) or not name.strip():
        raise _invalid("name", "name wasn't supplied")
    if not isinstance(sha, str) or not sha:
        raise _invalid("head_sha", "head_sha wasn't supplied")
    _known_commit(repo, sha)
    run = CheckRun(id=state.new_id(), name=name, head_sha=sha, app_slug=app_slug(c),
                   started_at=body.get("started_at") or state.now())
    _apply(run, body, state, creating=True)
    repo.check_runs.append(run)
    return Reply(201, check_run_json(c, repo, run))


def _run(state: State, c: Call) -> tuple[Repo, CheckRun]:
    repo = rest.get_repo(state, c)
    run = next((r for r in repo.check_runs if r.id == int(c.params["id"])), None)
    if run is None:
        raise HttpError(error(404, "Not Found"))
    return repo, run


@route("PATCH", "{repo}/check-runs/(?P<id>\\d+)")
def update_check_run(state: State, c: Call) -> Reply:
    repo, run = _run(state, c)
    _check_permission(c, repo)
    if app_slug(c) != run.app_slug:
        app_id = _app_json(app_slug(c))["id"]
        raise HttpError(error(403, f"Invalid app_id `{app_id}` - check run can only be modified by the GitHub App "
                                   "that created it."))
    body = c.body if isinstance(c.body, dict) else {}
    if "name" in body and (not isinstance(body["name"], str) or not body["name"].strip()):
        raise _invalid("name", "name wasn't supplied")
    _apply(run, body, state, creating=False)
    if "name" in body:
        run.name = body["name"]
    run.updates += 1
    return Reply(200, check_run_json(c, repo, run))


@route("GET", "{repo}/check-runs/(?P<id>\\d+)")
def get_check_run(state: State, c: Call) -> Reply:
    repo, run = _run(state, c)
    return Reply(200, check_run_json(c, repo, run))


@route("GET", "{repo}/check-runs/(?P<id>\\d+)/annotations")
def list_annotations(state: State, c: Call) -> Reply:
    _, run = _run(state, c)
    return rest.list_reply(c, run.annotations, _annotation_json)


@route("GET", "{repo}/commits/(?P<ref>[^/]+)/check-runs")
def list_check_runs_for_ref(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    ref = c.params["ref"]
    _known_commit(repo, ref)
    runs = [r for r in repo.check_runs if r.head_sha == ref]
    if c.query.get("check_name"):
        runs = [r for r in runs if r.name == c.query["check_name"]]
    if c.query.get("status"):
        runs = [r for r in runs if r.status == c.query["status"]]
    if c.query.get("app_id"):
        runs = [r for r in runs if str(_app_json(r.app_slug)["id"]) == c.query["app_id"]]
    if c.query.get("filter", "latest") == "latest":
        newest: dict[tuple[str, str], CheckRun] = {}
        for r in runs:
            newest[(r.app_slug, r.name)] = r
        runs = list(newest.values())
    runs = sorted(runs, key=lambda r: r.id, reverse=True)
    chunk, headers = rest.paginate(c, runs)
    return Reply(200, {"total_count": len(runs), "check_runs": [check_run_json(c, repo, r) for r in chunk]}, headers)


@route("GET", "{repo}/commits/(?P<ref>[0-9a-f]{40})")
def get_commit(state: State, c: Call) -> Reply:
    """A commit by SHA, as far as the Checks API needs one (PyGithub's `repo.get_commit(sha)`)."""
    repo = rest.get_repo(state, c)
    sha = c.params["ref"]
    _known_commit(repo, sha)
    return Reply(200, {"sha": sha, "node_id": f"C_{sha}", "url": f"{c.api_base}/repos/{repo.full_name}/commits/{sha}",
                       "html_url": f"{c.html_base}/{repo.full_name}/commit/{sha}", "commit": {"message": ""},
                       "parents": [], "files": []})
