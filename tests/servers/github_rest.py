"""REST routes of the test GitHub server: real GitHub JSON shapes, absolute URLs, GitHub's limits.

Each handler takes a `Call` (parsed request + identity) and returns a `Reply`. Routing, auth,
fault injection and logging live in github_server.py; this module only knows GitHub's answers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from .github_state import (
    Issue,
    IssueComment,
    Label,
    PRFile,
    PullRequest,
    Reaction,
    Repo,
    State,
    Token,
)

COMMENT_MAX = 65_536
FILES_CAP = 3_000
COMMITS_CAP = 250
DIFF_MAX_FILES = 300
DIFF_MAX_LINES = 20_000
DOCS = "https://docs.github.com/rest"


@dataclass
class Call:
    method: str
    path: str  # API-relative: "/repos/o/r/pulls/1"
    query: dict[str, str]
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON or None
    token: Token | None
    params: dict[str, str] = field(default_factory=dict)
    api_base: str = ""  # "http://127.0.0.1:PORT/api/v3"
    html_base: str = ""  # "http://127.0.0.1:PORT"


@dataclass
class Reply:
    status: int
    body: Any = None  # dict/list -> JSON; str -> text
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json; charset=utf-8"


def error(status: int, message: str, **extra: Any) -> Reply:
    return Reply(status, {"message": message, "documentation_url": DOCS, **extra})


def validation_failed(resource: str, fld: str, message: str) -> Reply:
    errs = [{"resource": resource, "code": "custom", "field": fld, "message": message}]
    return Reply(422, {"message": "Validation Failed", "errors": errs, "documentation_url": DOCS})


class HttpError(Exception):
    def __init__(self, reply: Reply) -> None:
        super().__init__(reply.status)
        self.reply = reply


# --------------------------------------------------------------------------- JSON shapes


def _sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def user_json(c: Call, login: str) -> dict[str, Any]:
    is_bot = login.endswith("[bot]")
    uid = int(_sha(login)[:7], 16)
    return {
        "login": login,
        "id": uid,
        "node_id": f"U_{uid}",
        "type": "Bot" if is_bot else "User",
        "site_admin": False,
        "avatar_url": f"{c.html_base}/avatars/{login}",
        "url": f"{c.api_base}/users/{login}",
        "html_url": f"{c.html_base}/{login}" if not is_bot else f"{c.html_base}/apps/{login[:-5]}",
    }


def repo_json(c: Call, repo: Repo) -> dict[str, Any]:
    base = f"{c.api_base}/repos/{repo.full_name}"
    perms = {"admin": False, "maintain": False, "push": False, "triage": False, "pull": True}
    return {
        "id": repo.id,
        "node_id": f"R_{repo.id}",
        "name": repo.name,
        "full_name": repo.full_name,
        "owner": user_json(c, repo.owner),
        "private": repo.private,
        "archived": repo.archived,
        "disabled": False,
        "fork": False,
        "default_branch": repo.default_branch,
        "html_url": f"{c.html_base}/{repo.full_name}",
        "url": base,
        "issues_url": base + "/issues{/number}",
        "pulls_url": base + "/pulls{/number}",
        "has_issues": True,
        "has_discussions": bool(repo.discussion_categories),
        "permissions": perms,
    }


def label_json(c: Call, repo: Repo, label: Label) -> dict[str, Any]:
    return {
        "id": label.id,
        "node_id": f"LA_{label.id}",
        "url": f"{c.api_base}/repos/{repo.full_name}/labels/{label.name}",
        "name": label.name,
        "color": label.color,
        "description": label.description,
        "default": False,
    }


def _item_labels(c: Call, repo: Repo, item: Issue) -> list[dict[str, Any]]:
    return [label_json(c, repo, ensure_label(repo, name, c)) for name in item.labels]


def ensure_label(repo: Repo, name: str, c: Call | None = None) -> Label:
    key = name.lower()
    if key not in repo.labels:
        repo.labels[key] = Label(id=int(_sha(repo.full_name + name)[:7], 16), name=name)
    return repo.labels[key]


def reactions_json(c: Call, url: str, reactions: list[Reaction]) -> dict[str, Any]:
    counts = {k: 0 for k in ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")}
    for r in reactions:
        counts[r.content] = counts.get(r.content, 0) + 1
    return {"url": url + "/reactions", "total_count": len(reactions), **counts}


def author_association(repo: Repo, login: str) -> str:
    if login == repo.owner:
        return "OWNER"
    if login in repo.associations:  # set explicitly, e.g. CONTRIBUTOR for a member whose membership is private
        return repo.associations[login]
    if repo.permissions.get(login) in ("admin", "maintain", "write"):
        return "MEMBER"
    return "NONE"


def comment_json(c: Call, repo: Repo, item: Issue, cm: IssueComment) -> dict[str, Any]:
    url = f"{c.api_base}/repos/{repo.full_name}/issues/comments/{cm.id}"
    kind = "pull" if item.is_pull_request else "issues"
    return {
        "id": cm.id,
        "node_id": f"IC_{cm.id}",
        "url": url,
        "html_url": f"{c.html_base}/{repo.full_name}/{kind}/{item.number}#issuecomment-{cm.id}",
        "issue_url": f"{c.api_base}/repos/{repo.full_name}/issues/{item.number}",
        "body": cm.body,
        "user": user_json(c, cm.user),
        "created_at": cm.created_at,
        "updated_at": cm.updated_at,
        "author_association": author_association(repo, cm.user),
        "reactions": reactions_json(c, url, cm.reactions),
        "performed_via_github_app": None,
    }


def issue_json(c: Call, repo: Repo, item: Issue) -> dict[str, Any]:
    base = f"{c.api_base}/repos/{repo.full_name}/issues/{item.number}"
    kind = "pull" if item.is_pull_request else "issues"
    data: dict[str, Any] = {
        "id": item.id,
        "node_id": f"I_{item.id}",
        "number": item.number,
        "title": item.title,
        "body": item.body,
        "user": user_json(c, item.user),
        "labels": _item_labels(c, repo, item),
        "state": item.state,
        "state_reason": item.state_reason,
        "locked": item.locked,
        "active_lock_reason": "resolved" if item.locked else None,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": len(item.comments),
        "created_at": item.created_at,
        "updated_at": item.updated_at,
        "closed_at": item.closed_at,
        "author_association": author_association(repo, item.user),
        "url": base,
        "repository_url": f"{c.api_base}/repos/{repo.full_name}",
        "labels_url": base + "/labels{/name}",
        "comments_url": base + "/comments",
        "events_url": base + "/events",
        "html_url": f"{c.html_base}/{repo.full_name}/{kind}/{item.number}",
        "reactions": reactions_json(c, base, []),
    }
    if isinstance(item, PullRequest):
        pulls = f"{c.api_base}/repos/{repo.full_name}/pulls/{item.number}"
        data["pull_request"] = {
            "url": pulls,
            "html_url": data["html_url"],
            "diff_url": data["html_url"] + ".diff",
            "patch_url": data["html_url"] + ".patch",
            "merged_at": item.merged_at,
        }
        data["draft"] = item.draft
    return data


def _branch_json(c: Call, repo: Repo, ref: str, sha: str, head_repo: str = "") -> dict[str, Any]:
    owner = head_repo.split("/")[0] if head_repo else repo.owner
    return {
        "label": f"{owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_json(c, owner),
        "repo": repo_json(c, repo) if not head_repo else None,
    }


def pull_json(c: Call, repo: Repo, pr: PullRequest) -> dict[str, Any]:
    base = f"{c.api_base}/repos/{repo.full_name}"
    html = f"{c.html_base}/{repo.full_name}/pull/{pr.number}"
    return {
        "id": pr.id,
        "node_id": f"PR_{pr.id}",
        "number": pr.number,
        "title": pr.title,
        "body": pr.body,
        "state": pr.state,
        "locked": pr.locked,
        "active_lock_reason": "resolved" if pr.locked else None,
        "draft": pr.draft,
        "merged": pr.merged,
        "mergeable": None if pr.merged else True,
        "merged_at": pr.merged_at,
        "merged_by": user_json(c, pr.merged_by) if pr.merged_by else None,
        "merge_commit_sha": _sha(pr.head_sha + "merge") if pr.merged else None,
        "user": user_json(c, pr.user),
        "labels": _item_labels(c, repo, pr),
        "head": _branch_json(c, repo, pr.head_ref, pr.head_sha, pr.head_repo),
        "base": _branch_json(c, repo, pr.base_ref, pr.base_sha),
        "created_at": pr.created_at,
        "updated_at": pr.updated_at,
        "closed_at": pr.closed_at,
        "author_association": author_association(repo, pr.user),
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "comments": len(pr.comments),
        "review_comments": len(pr.review_comments()),
        "commits": len(pr.commits),
        "additions": pr.additions,
        "deletions": pr.deletions,
        "changed_files": len(pr.files),
        "url": f"{base}/pulls/{pr.number}",
        "html_url": html,
        "diff_url": html + ".diff",
        "patch_url": html + ".patch",
        "issue_url": f"{base}/issues/{pr.number}",
        "commits_url": f"{base}/pulls/{pr.number}/commits",
        "review_comments_url": f"{base}/pulls/{pr.number}/comments",
        "comments_url": f"{base}/issues/{pr.number}/comments",
        "statuses_url": f"{base}/statuses/{pr.head_sha}",
    }


def file_json(c: Call, repo: Repo, pr: PullRequest, f: PRFile) -> dict[str, Any]:
    blob = _sha(f.filename + pr.head_sha)
    data: dict[str, Any] = {
        "sha": blob,
        "filename": f.filename,
        "status": f.status,
        "additions": f.additions,
        "deletions": f.deletions,
        "changes": f.additions + f.deletions,
        "blob_url": f"{c.html_base}/{repo.full_name}/blob/{pr.head_sha}/{f.filename}",
        "raw_url": f"{c.html_base}/{repo.full_name}/raw/{pr.head_sha}/{f.filename}",
        "contents_url": f"{c.api_base}/repos/{repo.full_name}/contents/{f.filename}?ref={pr.head_sha}",
    }
    if f.patch is not None and not f.binary and not f.patch_omitted:
        data["patch"] = f.patch
    if f.previous_filename:
        data["previous_filename"] = f.previous_filename
    return data


def commit_json(c: Call, repo: Repo, cm: Any) -> dict[str, Any]:
    person = {"name": cm.author_name or cm.author or "unknown", "email": f"{cm.author}@example.com", "date": cm.date}
    return {
        "sha": cm.sha,
        "node_id": f"C_{cm.sha[:12]}",
        "url": f"{c.api_base}/repos/{repo.full_name}/commits/{cm.sha}",
        "html_url": f"{c.html_base}/{repo.full_name}/commit/{cm.sha}",
        "commit": {
            "message": cm.message,
            "author": person,
            "committer": person,
            "tree": {"sha": _sha(cm.sha), "url": f"{c.api_base}/repos/{repo.full_name}/git/trees/{_sha(cm.sha)}"},
            "url": f"{c.api_base}/repos/{repo.full_name}/git/commits/{cm.sha}",
            "comment_count": 0,
        },
        "author": user_json(c, cm.author) if cm.author else None,
        "committer": user_json(c, cm.author) if cm.author else None,
        "parents": [],
    }


def review_json(c: Call, repo: Repo, pr: PullRequest, rv: Any) -> dict[str, Any]:
    return {
        "id": rv.id,
        "node_id": f"PRR_{rv.id}",
        "user": user_json(c, rv.user),
        "body": rv.body,
        "state": rv.state,
        "html_url": f"{c.html_base}/{repo.full_name}/pull/{pr.number}#pullrequestreview-{rv.id}",
        "pull_request_url": f"{c.api_base}/repos/{repo.full_name}/pulls/{pr.number}",
        "submitted_at": rv.submitted_at,
        "commit_id": rv.commit_id or pr.head_sha,
        "author_association": author_association(repo, rv.user),
    }


def review_comment_json(c: Call, repo: Repo, pr: PullRequest, th: Any, rc: Any) -> dict[str, Any]:
    url = f"{c.api_base}/repos/{repo.full_name}/pulls/comments/{rc.id}"
    return {
        "id": rc.id,
        "node_id": f"PRRC_{rc.id}",
        "url": url,
        "pull_request_review_id": rc.review_id,
        "diff_hunk": th.diff_hunk,
        "path": th.path,
        "position": None if th.outdated else (th.line or 1),
        "original_position": th.original_line or th.line or 1,
        "commit_id": pr.head_sha,
        "original_commit_id": pr.head_sha,
        "in_reply_to_id": rc.in_reply_to,
        "user": user_json(c, rc.user),
        "body": rc.body,
        "created_at": rc.created_at,
        "updated_at": rc.created_at,
        "html_url": f"{c.html_base}/{repo.full_name}/pull/{pr.number}#discussion_r{rc.id}",
        "pull_request_url": f"{c.api_base}/repos/{repo.full_name}/pulls/{pr.number}",
        "author_association": author_association(repo, rc.user),
        "line": None if th.outdated else th.line,
        "original_line": th.original_line or th.line,
        "side": th.side,
        "start_line": None,
        "subject_type": "line",
        "reactions": reactions_json(c, url, []),
    }


# --------------------------------------------------------------------------- helpers


def paginate(c: Call, items: list[Any], default: int = 30) -> tuple[list[Any], dict[str, str]]:
    """GitHub-style page/per_page with a Link header (next, last, first, prev)."""
    try:
        per_page = max(1, min(100, int(c.query.get("per_page", default))))
        page = max(1, int(c.query.get("page", 1)))
    except ValueError:
        raise HttpError(validation_failed("Query", "page", "page and per_page must be integers")) from None
    last = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page : page * per_page]

    def link(p: int) -> str:
        q = {k: v for k, v in c.query.items() if k != "page"} | {"page": str(p)}
        return f"<{c.api_base}{c.path}?{urlencode(q)}>"

    rels = []
    if page < last:
        rels += [f'{link(page + 1)}; rel="next"', f'{link(last)}; rel="last"']
    if page > 1:
        rels += [f'{link(page - 1)}; rel="prev"', f'{link(1)}; rel="first"']
    return chunk, ({"Link": ", ".join(rels)} if rels else {})


def list_reply(c: Call, items: list[Any], render: Callable[[Any], dict[str, Any]]) -> Reply:
    chunk, headers = paginate(c, items)
    return Reply(200, [render(i) for i in chunk], headers)


def get_repo(state: State, c: Call) -> Repo:
    repo = state.repo(f"{c.params['owner']}/{c.params['repo']}")
    if repo is None:
        raise HttpError(error(404, "Not Found"))
    return repo


def get_item(state: State, c: Call, pulls_only: bool = False) -> tuple[Repo, Issue]:
    repo = get_repo(state, c)
    item = repo.items.get(int(c.params["number"]))
    if item is None or (pulls_only and not isinstance(item, PullRequest)):
        raise HttpError(error(404, "Not Found"))
    return repo, item


def get_pull(state: State, c: Call) -> tuple[Repo, PullRequest]:
    repo, item = get_item(state, c, pulls_only=True)
    assert isinstance(item, PullRequest)
    return repo, item


def check_write(c: Call, repo: Repo) -> None:
    """GitHub's refusals for writes, in the order GitHub applies them."""
    if c.token is None:
        raise HttpError(error(401, "Requires authentication"))
    if c.token.read_only:
        raise HttpError(error(403, "Resource not accessible by integration"))
    if repo.archived:
        raise HttpError(error(403, "Repository was archived so is read-only."))


def check_body(c: Call, resource: str) -> str:
    body = (c.body or {}).get("body")
    if not isinstance(body, str) or not body:
        raise HttpError(validation_failed(resource, "body", "body cannot be blank"))
    if len(body) > COMMENT_MAX:
        raise HttpError(validation_failed(resource, "body", f"body is too long (maximum is {COMMENT_MAX} characters)"))
    return body


def unified_diff(pr: PullRequest) -> str:
    """The `application/vnd.github.diff` rendering of a PR's files."""
    out: list[str] = []
    for f in pr.files:
        old = f.previous_filename or f.filename
        out.append(f"diff --git a/{old} b/{f.filename}")
        if f.status == "renamed":
            out += [f"rename from {old}", f"rename to {f.filename}"]
        if f.status == "added":
            out.append("new file mode 100644")
        if f.status == "removed":
            out.append("deleted file mode 100644")
        a = "/dev/null" if f.status == "added" else f"a/{old}"
        b = "/dev/null" if f.status == "removed" else f"b/{f.filename}"
        if f.binary:
            out.append(f"Binary files {a} and {b} differ")
            continue
        if f.patch:
            out += [f"--- {a}", f"+++ {b}", f.patch.rstrip("\n")]
    return "\n".join(out) + "\n"


def decode_json_body(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


CONTENT_MAX_BYTES = 1024 * 1024  # larger files: the JSON answer has `encoding: "none"` and no content


def content_json(c: Call, repo: Repo, path: str, ref: str, text: str) -> dict[str, Any]:
    raw = text.encode()
    sha = _sha(f"blob {len(raw)}\0{text}")
    too_large = len(raw) > CONTENT_MAX_BYTES
    return {
        "type": "file",
        "encoding": "none" if too_large else "base64",
        "size": len(raw),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": "" if too_large else base64.encodebytes(raw).decode(),
        "sha": sha,
        "url": f"{c.api_base}/repos/{repo.full_name}/contents/{path}?ref={ref}",
        "html_url": f"{c.html_base}/{repo.full_name}/blob/{ref}/{path}",
        "git_url": f"{c.api_base}/repos/{repo.full_name}/git/blobs/{sha}",
        "download_url": f"{c.html_base}/raw/{repo.full_name}/{ref}/{path}",
    }


SEARCH_TERM = re.compile(r'(\w+):("[^"]*"|\S+)|("[^"]*"|\S+)')
