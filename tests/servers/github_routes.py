"""REST route handlers of the test GitHub server (one function per GitHub endpoint)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import github_rest as rest
from .github_rest import Call, HttpError, Reply, error
from .github_state import Issue, IssueComment, PullRequest, Reaction, State

Handler = Callable[[State, Call], Reply]
ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []

_SEG = r"(?P<{0}>[^/]+)"
_REPO = "/repos/" + _SEG.format("owner") + "/" + _SEG.format("repo")


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    regex = re.compile("^" + pattern.replace("{repo}", _REPO).replace("{n}", r"(?P<number>\d+)") + "$")

    def register(fn: Handler) -> Handler:
        ROUTES.append((method, regex, fn))
        return fn

    return register


# --------------------------------------------------------------------------- identity


@route("GET", "/user")
def get_user(state: State, c: Call) -> Reply:
    if c.token is None:
        return error(401, "Requires authentication")
    if c.token.is_integration:
        return error(403, "Resource not accessible by integration")
    return Reply(200, rest.user_json(c, c.token.login) | {"name": c.token.login.title()})


@route("GET", "/rate_limit")
def get_rate_limit(state: State, c: Call) -> Reply:
    core = {"limit": 5000, "remaining": 4999, "reset": 1_900_000_000, "used": 1, "resource": "core"}
    res = {k: core | {"resource": k} for k in ("core", "graphql", "search", "integration_manifest")}
    return Reply(200, {"resources": res, "rate": core})


@route("GET", "{repo}")
def get_repository(state: State, c: Call) -> Reply:
    return Reply(200, rest.repo_json(c, rest.get_repo(state, c)))


@route("GET", "{repo}/collaborators/(?P<user>[^/]+)/permission")
def get_permission(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    login = c.params["user"]
    perm = repo.permissions.get(login, "admin" if login == repo.owner else "none")
    legacy = {"maintain": "write", "triage": "read", "none": "none"}.get(perm, perm)
    return Reply(200, {"permission": legacy, "role_name": perm, "user": rest.user_json(c, login)})


# --------------------------------------------------------------------------- contents


@route("GET", "{repo}/contents/(?P<path>.+)")
def get_contents(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    ref = c.query.get("ref") or repo.default_branch
    text = repo.files.get(ref, {}).get(c.params["path"])
    if text is None:
        return error(404, "Not Found")
    return Reply(200, rest.content_json(c, repo, c.params["path"], ref, text))


# --------------------------------------------------------------------------- pulls


@route("GET", "{repo}/pulls")
def list_pulls(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    want = c.query.get("state", "open")
    pulls = [i for i in repo.items.values() if isinstance(i, PullRequest) and want in ("all", i.state)]
    if base := c.query.get("base"):
        pulls = [p for p in pulls if p.base_ref == base]
    key = {"created": "created_at", "updated": "updated_at"}.get(c.query.get("sort", "created"), "created_at")
    pulls.sort(key=lambda p: (getattr(p, key), p.number), reverse=c.query.get("direction", "desc") == "desc")
    return rest.list_reply(c, pulls, lambda p: rest.pull_json(c, repo, p))


@route("GET", "{repo}/pulls/{n}")
def get_pull(state: State, c: Call) -> Reply:
    repo, pr = rest.get_pull(state, c)
    if "diff" in c.headers.get("accept", ""):
        lines = pr.additions + pr.deletions
        if len(pr.files) > rest.DIFF_MAX_FILES or lines > rest.DIFF_MAX_LINES:
            limit = "files (300)" if len(pr.files) > rest.DIFF_MAX_FILES else "lines (20000)"
            return Reply(
                406,
                {
                    "message": f"Sorry, the diff exceeded the maximum number of {limit}. Consider using "
                    "'List pull requests files' API or locally cloning the repository instead.",
                    "errors": [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                    "documentation_url": rest.DOCS,
                },
            )
        return Reply(200, rest.unified_diff(pr), content_type="text/plain; charset=utf-8")
    return Reply(200, rest.pull_json(c, repo, pr))


@route("GET", "{repo}/pulls/{n}/files")
def list_pull_files(state: State, c: Call) -> Reply:
    repo, pr = rest.get_pull(state, c)
    return rest.list_reply(c, pr.files[: rest.FILES_CAP], lambda f: rest.file_json(c, repo, pr, f))


@route("GET", "{repo}/pulls/{n}/commits")
def list_pull_commits(state: State, c: Call) -> Reply:
    repo, pr = rest.get_pull(state, c)
    return rest.list_reply(c, pr.commits[: rest.COMMITS_CAP], lambda cm: rest.commit_json(c, repo, cm))


@route("GET", "{repo}/pulls/{n}/reviews")
def list_pull_reviews(state: State, c: Call) -> Reply:
    repo, pr = rest.get_pull(state, c)
    return rest.list_reply(c, pr.reviews, lambda rv: rest.review_json(c, repo, pr, rv))


@route("GET", "{repo}/pulls/{n}/comments")
def list_pull_review_comments(state: State, c: Call) -> Reply:
    repo, pr = rest.get_pull(state, c)
    pairs = sorted(pr.review_comments(), key=lambda tc: tc[1].id)
    return rest.list_reply(c, pairs, lambda tc: rest.review_comment_json(c, repo, pr, tc[0], tc[1]))


@route("GET", "{repo}/compare/(?P<base>.+)\\.\\.\\.(?P<head>[^/]+)")
def compare(state: State, c: Call) -> Reply:
    """Enough of the compare API for a PR's base...head: files capped at 300, like GitHub."""
    repo = rest.get_repo(state, c)
    for item in repo.items.values():
        if isinstance(item, PullRequest) and item.head_sha == c.params["head"]:
            if c.params["base"] not in (item.base_sha, item.base_ref):
                continue
            if "diff" in c.headers.get("accept", ""):
                return get_pull(state, Call(**{**c.__dict__, "params": {**c.params, "number": str(item.number)}}))
            commits, headers = rest.paginate(c, item.commits, default=250)
            return Reply(
                200,
                {
                    "url": f"{c.api_base}{c.path}",
                    "status": "ahead",
                    "ahead_by": len(item.commits),
                    "behind_by": 0,
                    "total_commits": len(item.commits),
                    "commits": [rest.commit_json(c, repo, cm) for cm in commits],
                    "files": [rest.file_json(c, repo, item, f) for f in item.files[:300]],
                },
                headers,
            )
    return error(404, "Not Found")


# --------------------------------------------------------------------------- issues


@route("GET", "{repo}/issues")
def list_issues(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    want = c.query.get("state", "open")
    items = [i for i in repo.items.values() if want in ("all", i.state)]
    wanted_labels = [x.strip().lower() for x in c.query.get("labels", "").split(",") if x.strip()]
    if wanted_labels:
        items = [i for i in items if all(w in {x.lower() for x in i.labels} for w in wanted_labels)]
    if creator := c.query.get("creator"):
        items = [i for i in items if i.user == creator]
    items.sort(key=lambda i: (i.created_at, i.number), reverse=c.query.get("direction", "desc") == "desc")
    return rest.list_reply(c, items, lambda i: rest.issue_json(c, repo, i))


@route("POST", "{repo}/issues")
def create_issue(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    rest.check_write(c, repo)
    title = (c.body or {}).get("title")
    if not isinstance(title, str) or not title.strip():
        return rest.validation_failed("Issue", "title", "title cannot be blank")
    body = (c.body or {}).get("body") or ""
    if len(body) > rest.COMMENT_MAX:
        return rest.validation_failed("Issue", "body", "body is too long (maximum is 65536 characters)")
    now = state.now()
    assert c.token is not None
    issue = Issue(
        number=repo.next_number(),
        id=state.new_id(),
        title=title,
        body=body,
        user=c.token.login,
        labels=list((c.body or {}).get("labels") or []),
        created_at=now,
        updated_at=now,
    )
    for name in issue.labels:
        rest.ensure_label(repo, name)
    repo.items[issue.number] = issue
    return Reply(201, rest.issue_json(c, repo, issue))


@route("GET", "{repo}/issues/{n}")
def get_issue(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    return Reply(200, rest.issue_json(c, repo, item))


@route("PATCH", "{repo}/issues/{n}")
def update_issue(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    rest.check_write(c, repo)
    body = c.body or {}
    for key in ("title", "body", "state", "state_reason"):
        if key in body:
            setattr(item, key, body[key])
    if "labels" in body:
        item.labels = list(body["labels"])
    item.updated_at = state.now()
    if body.get("state") == "closed" and not item.closed_at:
        item.closed_at = item.updated_at
    return Reply(200, rest.issue_json(c, repo, item))


@route("GET", "{repo}/issues/{n}/comments")
def list_comments(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    comments = list(item.comments)
    if since := c.query.get("since"):
        comments = [cm for cm in comments if cm.updated_at >= since]
    return rest.list_reply(c, comments, lambda cm: rest.comment_json(c, repo, item, cm))


@route("POST", "{repo}/issues/{n}/comments")
def create_comment(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    rest.check_write(c, repo)
    if item.locked:
        raise HttpError(error(403, "Unable to create comment because issue is locked."))
    body = rest.check_body(c, "IssueComment")
    now = state.now()
    assert c.token is not None
    cm = IssueComment(id=state.new_id(), user=c.token.login, body=body, created_at=now, updated_at=now)
    item.comments.append(cm)
    item.updated_at = now
    url = f"{c.api_base}/repos/{repo.full_name}/issues/comments/{cm.id}"
    return Reply(201, rest.comment_json(c, repo, item, cm), {"Location": url})


def _comment(state: State, c: Call) -> tuple[Any, Issue, IssueComment]:
    found = state.find_issue_comment(int(c.params["id"]))
    if found is None or found[0] is not rest.get_repo(state, c):
        raise HttpError(error(404, "Not Found"))
    return found


@route("GET", "{repo}/issues/comments/(?P<id>\\d+)")
def get_comment(state: State, c: Call) -> Reply:
    repo, item, cm = _comment(state, c)
    return Reply(200, rest.comment_json(c, repo, item, cm))


def _check_comment_owner(c: Call, repo: Any, cm: IssueComment) -> None:
    """GitHub lets a comment's author, people with write access and integration tokens with write
    permission edit or delete a comment; anyone else gets 403."""
    rest.check_write(c, repo)
    assert c.token is not None
    if c.token.is_integration or c.token.login == cm.user:
        return
    if repo.permissions.get(c.token.login) in ("admin", "maintain", "write"):
        return
    raise HttpError(error(403, "You must have write access to edit or delete this comment."))


@route("PATCH", "{repo}/issues/comments/(?P<id>\\d+)")
def update_comment(state: State, c: Call) -> Reply:
    repo, item, cm = _comment(state, c)
    _check_comment_owner(c, repo, cm)
    cm.body = rest.check_body(c, "IssueComment")
    cm.updated_at = state.now()
    assert c.token is not None
    cm.editor = c.token.login
    return Reply(200, rest.comment_json(c, repo, item, cm))


@route("DELETE", "{repo}/issues/comments/(?P<id>\\d+)")
def delete_comment(state: State, c: Call) -> Reply:
    repo, item, cm = _comment(state, c)
    _check_comment_owner(c, repo, cm)
    item.comments.remove(cm)
    return Reply(204, None)


@route("POST", "{repo}/issues/comments/(?P<id>\\d+)/reactions")
def add_reaction(state: State, c: Call) -> Reply:
    repo, _item, cm = _comment(state, c)
    rest.check_write(c, repo)
    content = (c.body or {}).get("content")
    if content not in ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"):
        return rest.validation_failed("Reaction", "content", "content is not included in the list")
    assert c.token is not None
    for r in cm.reactions:
        if r.user == c.token.login and r.content == content:
            return Reply(200, _reaction_json(c, r))
    reaction = Reaction(id=state.new_id(), user=c.token.login, content=content)
    cm.reactions.append(reaction)
    return Reply(201, _reaction_json(c, reaction))


def _reaction_json(c: Call, r: Reaction) -> dict[str, Any]:
    return {"id": r.id, "node_id": f"REA_{r.id}", "user": rest.user_json(c, r.user), "content": r.content,
            "created_at": "2026-06-01T09:00:00Z"}


# --------------------------------------------------------------------------- labels


@route("GET", "{repo}/labels")
def list_labels(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    return rest.list_reply(c, list(repo.labels.values()), lambda lb: rest.label_json(c, repo, lb))


@route("POST", "{repo}/labels")
def create_label(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    rest.check_write(c, repo)
    name = (c.body or {}).get("name")
    if not isinstance(name, str) or not name:
        return rest.validation_failed("Label", "name", "name cannot be blank")
    if name.lower() in repo.labels:
        return Reply(422, {"message": "Validation Failed", "documentation_url": rest.DOCS,
                           "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}]})
    label = rest.ensure_label(repo, name)
    label.color = (c.body or {}).get("color") or label.color
    label.description = (c.body or {}).get("description") or ""
    return Reply(201, rest.label_json(c, repo, label))


@route("GET", "{repo}/labels/(?P<name>[^/]+)")
def get_label(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    label = repo.labels.get(c.params["name"].lower())
    return Reply(200, rest.label_json(c, repo, label)) if label else error(404, "Not Found")


@route("GET", "{repo}/issues/{n}/labels")
def list_issue_labels(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    return Reply(200, rest._item_labels(c, repo, item))


@route("POST", "{repo}/issues/{n}/labels")
def add_issue_labels(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    rest.check_write(c, repo)
    names = c.body.get("labels") if isinstance(c.body, dict) else c.body
    if not isinstance(names, list):
        return rest.validation_failed("Label", "labels", "labels must be a list")
    for name in names:
        label = rest.ensure_label(repo, str(name))
        if label.name.lower() not in {x.lower() for x in item.labels}:
            item.labels.append(label.name)
    return Reply(200, rest._item_labels(c, repo, item))


@route("PUT", "{repo}/issues/{n}/labels")
def set_issue_labels(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    rest.check_write(c, repo)
    names = c.body.get("labels") if isinstance(c.body, dict) else c.body
    item.labels = [rest.ensure_label(repo, str(n)).name for n in (names or [])]
    return Reply(200, rest._item_labels(c, repo, item))


@route("DELETE", "{repo}/issues/{n}/labels/(?P<name>[^/]+)")
def remove_issue_label(state: State, c: Call) -> Reply:
    repo, item = rest.get_item(state, c)
    rest.check_write(c, repo)
    match = [x for x in item.labels if x.lower() == c.params["name"].lower()]
    if not match:
        return error(404, "Label does not exist")
    item.labels.remove(match[0])
    return Reply(200, rest._item_labels(c, repo, item))


# --------------------------------------------------------------------------- search


def _date_matches(value: str | None, cond: str) -> bool:
    if not value:
        return False
    day = value[:10]
    if ".." in cond:
        lo, hi = cond.split("..", 1)
        return (lo in ("", "*") or day >= lo) and (hi in ("", "*") or day <= hi)
    for op in (">=", "<=", ">", "<"):
        if cond.startswith(op):
            ref = cond[len(op) :]
            probe = value if "T" in ref else day
            return {">=": probe >= ref, "<=": probe <= ref, ">": probe > ref, "<": probe < ref}[op]
    return day == cond


def _search_filter(item: Issue, repo_name: str, key: str, val: str) -> bool:
    val = val.strip('"')
    pr = item if isinstance(item, PullRequest) else None
    checks: dict[str, Callable[[], bool]] = {
        "repo": lambda: repo_name.lower() == val.lower(),
        "is": lambda: {
            "pr": pr is not None,
            "issue": pr is None,
            "open": item.state == "open",
            "closed": item.state == "closed",
            "merged": bool(pr and pr.merged),
            "unmerged": bool(pr and not pr.merged and pr.state == "closed"),
            "draft": bool(pr and pr.draft),
        }.get(val, False),
        "type": lambda: (pr is not None) == (val == "pr"),
        "state": lambda: item.state == val,
        "label": lambda: val.lower() in {x.lower() for x in item.labels},
        "author": lambda: item.user == val,
        "base": lambda: bool(pr and pr.base_ref == val),
        "merged": lambda: bool(pr and _date_matches(pr.merged_at, val)),
        "created": lambda: _date_matches(item.created_at, val),
        "updated": lambda: _date_matches(item.updated_at, val),
        "closed": lambda: _date_matches(item.closed_at, val),
    }
    return checks.get(key, lambda: True)()


def search_items(state: State, q: str) -> list[tuple[Any, Issue]]:
    """Issues and PRs matching a search query (the qualifiers a digest uses; free words match title/body)."""
    terms = [(m.group(1), m.group(2), m.group(3)) for m in rest.SEARCH_TERM.finditer(q)]
    results: list[tuple[Any, Issue]] = []
    for repo in state.repos.values():
        for item in repo.items.values():
            ok = True
            for key, val, word in terms:
                if key:
                    ok = _search_filter(item, repo.full_name, key, val)
                else:
                    w = word.strip('"').lower()
                    ok = w in item.title.lower() or w in item.body.lower()
                if not ok:
                    break
            if ok:
                results.append((repo, item))
    results.sort(key=lambda ri: ri[1].number, reverse=True)
    return results


@route("GET", "/search/issues")
def search_issues(state: State, c: Call) -> Reply:
    q = c.query.get("q", "")
    if not q.strip():
        return rest.validation_failed("Search", "q", "q cannot be blank")
    results = search_items(state, q)
    sort = c.query.get("sort")
    if sort in ("created", "updated", "comments"):
        keyf = {
            "created": lambda ri: ri[1].created_at,
            "updated": lambda ri: ri[1].updated_at,
            "comments": lambda ri: len(ri[1].comments),
        }[sort]
        results.sort(key=keyf, reverse=c.query.get("order", "desc") == "desc")
    else:
        results.sort(key=lambda ri: ri[1].number, reverse=True)
    capped = results[:1000]  # search never returns more than 1,000 results
    chunk, headers = rest.paginate(c, capped)
    items = [rest.issue_json(c, r, i) | {"score": 1.0} for r, i in chunk]
    return Reply(200, {"total_count": len(results), "incomplete_results": False, "items": items}, headers)
