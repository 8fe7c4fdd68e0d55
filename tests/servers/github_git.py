"""Git references of the test GitHub server, as GitHub's "Git references" REST endpoints behave.

    POST   /repos/{o}/{r}/git/refs                 {"ref": "refs/...", "sha": ...}  201; 422 "Reference
                                                   already exists"; 422 for a name that does not start
                                                   with `refs/` and have two slashes, or an unknown object
    GET    /repos/{o}/{r}/git/matching-refs/{ref}  every ref starting with `refs/{ref}` (may be empty: 200 [])
    GET    /repos/{o}/{r}/git/ref/{ref}            one ref; 404 when there is none
    DELETE /repos/{o}/{r}/git/refs/{ref}           204; 422 "Reference does not exist"

Creating and deleting need `contents: write` (403 "Resource not accessible by integration" otherwise, and
always for a fork PR's read-only token). The create is atomic: the server's state lock makes two
concurrent creates of one name end in one 201 and one 422, as on GitHub. Branch heads are the refs
`refs/heads/<branch>` of every branch the repository's files or PRs name, at their seeded SHAs.
"""

from __future__ import annotations

from typing import Any

from . import github_rest as rest
from .github_rest import Call, HttpError, Reply, error
from .github_routes import route
from .github_state import PullRequest, Repo, State, _sha_for


def _check_contents_write(c: Call, repo: Repo) -> None:
    rest.check_write(c, repo)
    assert c.token is not None
    if not c.token.may_write("contents"):
        raise HttpError(error(403, "Resource not accessible by integration"))


def _branch_refs(repo: Repo) -> dict[str, str]:
    branches = {repo.default_branch, *repo.files}
    for item in repo.items.values():
        if isinstance(item, PullRequest):
            branches.add(item.base_ref)
    return {f"refs/heads/{b}": _sha_for(f"{repo.full_name}:{b}") for b in branches}


def _known_objects(repo: Repo) -> set[str]:
    shas = set(_branch_refs(repo).values()) | set(repo.refs.values())
    for item in repo.items.values():
        if isinstance(item, PullRequest):
            shas |= {item.base_sha, item.head_sha, *(c.sha for c in item.commits)}
    return shas


def _all_refs(repo: Repo) -> dict[str, str]:
    return _branch_refs(repo) | repo.refs


def _ref_json(c: Call, repo: Repo, name: str, sha: str) -> dict[str, Any]:
    base = f"{c.api_base}/repos/{repo.full_name}/git"
    return {"ref": name, "node_id": f"REF_{_sha_for(name)[:12]}", "url": f"{base}/{name}",
            "object": {"type": "commit", "sha": sha, "url": f"{base}/commits/{sha}"}}


@route("POST", "{repo}/git/refs")
def create_ref(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    _check_contents_write(c, repo)
    body = c.body if isinstance(c.body, dict) else {}
    name, sha = body.get("ref"), body.get("sha")
    if not isinstance(name, str) or not name.startswith("refs/") or name.count("/") < 2 or name.endswith("/") \
            or ".." in name or "//" in name:
        return error(422, f"{name!r} is not a valid ref name.")
    if not isinstance(sha, str) or sha not in _known_objects(repo):
        return error(422, "Object does not exist")
    if name in _all_refs(repo):
        return error(422, "Reference already exists")
    repo.refs[name] = sha
    return Reply(201, _ref_json(c, repo, name, sha), {"Location": f"{c.api_base}/repos/{repo.full_name}/git/{name}"})


@route("GET", "{repo}/git/matching-refs/(?P<ref>.*)")
def matching_refs(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    prefix = "refs/" + c.params["ref"]
    names = sorted(n for n in _all_refs(repo) if n.startswith(prefix))
    refs = _all_refs(repo)
    return rest.list_reply(c, names, lambda n: _ref_json(c, repo, n, refs[n]))


@route("GET", "{repo}/git/ref/(?P<ref>.+)")
def get_ref(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    name = "refs/" + c.params["ref"]
    sha = _all_refs(repo).get(name)
    return Reply(200, _ref_json(c, repo, name, sha)) if sha else error(404, "Not Found")


@route("DELETE", "{repo}/git/refs/(?P<ref>.+)")
def delete_ref(state: State, c: Call) -> Reply:
    repo = rest.get_repo(state, c)
    _check_contents_write(c, repo)
    name = "refs/" + c.params["ref"]
    if repo.refs.pop(name, None) is None:
        return error(422, "Reference does not exist")
    return Reply(204)
