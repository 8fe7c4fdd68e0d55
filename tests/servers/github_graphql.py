"""GraphQL for the test GitHub server: queries validated and executed against GitHub's REAL schema.

The schema is GitHub's public `schema.graphql` from the npm package @octokit/graphql-schema, fetched by
`scripts/fetch-graphql-schema` into .cache/graphql-schema/ (or $READWORTHY_GRAPHQL_SCHEMA). A field name
typo in a query therefore fails here exactly as it would against api.github.com. Without the schema,
the endpoint answers 501 and `graphql_schema_or_skip()` skips the tests that need it, naming the fix.

Execution uses graphql-core over views of the in-memory state: plain dicts whose argument-taking
fields are callables `(info, **args)` (graphql-core's default resolver calls them), and abstract types
resolved through a `__typename` key. GitHub's rules enforced on top of the spec:
  * every connection needs `first` or `last`, at most 100;
  * a query may touch at most 500,000 nodes (computed statically, like GitHub);
  * missing objects answer `{"type": "NOT_FOUND"}` errors with data null at that path;
  * `databaseId` is null above 2**31-1 (use `fullDatabaseId`);
  * Bot actors' `login` has no "[bot]" suffix (REST says "github-actions[bot]", GraphQL "github-actions");
  * what a query costs to run (github_graphql_limits.py): over 10 s of modelled work it is cut off with a
    502, and past the objects one query may load it answers partial data with RESOURCE_LIMITS_EXCEEDED;
  * `node(id:)` / `nodes(ids:)` find review threads (`PRRT_…`) and issue comments (`IC_…`).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    build_schema,
    execute,
    parse,
    validate,
    value_from_ast_untyped,
)

from . import github_rest as rest
from .github_graphql_limits import TIMEOUT_BODY, GraphQLLimits, Work, charge_connection, charged_diff_hunk
from .github_state import Discussion, Issue, PullRequest, Repo, State

if TYPE_CHECKING:
    from .github_server import GitHubServer

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCHEMA = REPO_ROOT / ".cache" / "graphql-schema" / "schema.graphql"
FETCH_COMMAND = "python scripts/fetch-graphql-schema"
MAX_NODES = 500_000
INT32_MAX = 2**31 - 1


def schema_path() -> Path:
    return Path(os.environ.get("READWORTHY_GRAPHQL_SCHEMA") or DEFAULT_SCHEMA)


@cache
def _load_schema(path: str) -> GraphQLSchema:
    # GitHub's published SDL breaks two spec rules graphql-core enforces (a duplicated field on
    # EnterpriseOwnerInfo; deprecated implementations of non-deprecated interface fields). GitHub's
    # own server accepts them, so build without SDL validation and mark the schema as validated.
    schema = build_schema(Path(path).read_text(encoding="utf-8"), assume_valid_sdl=True)
    schema._validation_errors = []  # type: ignore[attr-defined]
    return schema


def load_github_schema() -> GraphQLSchema | None:
    path = schema_path()
    return _load_schema(str(path)) if path.is_file() else None


def graphql_schema_or_skip() -> GraphQLSchema:
    schema = load_github_schema()
    if schema is None:
        pytest.skip(f"GitHub GraphQL schema not at {schema_path()}; run `{FETCH_COMMAND}` (needs npm)")
    return schema


class NotFound(GraphQLError):
    def __init__(self, message: str) -> None:
        super().__init__(message, extensions={"type": "NOT_FOUND"})


class Forbidden(GraphQLError):
    def __init__(self, message: str) -> None:
        super().__init__(message, extensions={"type": "FORBIDDEN"})


# --------------------------------------------------------------------------- static checks


def _arg_values(field: FieldNode, variables: dict[str, Any]) -> dict[str, Any]:
    return {a.name.value: value_from_ast_untyped(a.value, variables) for a in field.arguments or ()}


def _check_pagination(
    selection: SelectionSetNode | None,
    fragments: dict[str, FragmentDefinitionNode],
    variables: dict[str, Any],
    multiplier: int,
    connection_fields: set[str],
) -> tuple[int, list[str]]:
    """(node count, errors) for a selection set, the way GitHub's resource limits count."""
    if selection is None:
        return 0, []
    total, errors = 0, []
    for node in selection.selections:
        if isinstance(node, FragmentSpreadNode):
            frag = fragments.get(node.name.value)
            sub = frag.selection_set if frag else None
            n, e = _check_pagination(sub, fragments, variables, multiplier, connection_fields)
        elif isinstance(node, InlineFragmentNode):
            n, e = _check_pagination(node.selection_set, fragments, variables, multiplier, connection_fields)
        elif isinstance(node, FieldNode):
            args = _arg_values(node, variables)
            name = node.name.value
            child_mult = multiplier
            n, e = 0, []
            if name in connection_fields and node.selection_set is not None:
                size = args.get("first") if args.get("first") is not None else args.get("last")
                if size is None:
                    e.append(f"You must provide a `first` or `last` value to properly paginate the `{name}` "
                             "connection.")
                    size = 0
                elif size > 100:
                    which = "first" if args.get("first") is not None else "last"
                    e.append(f"Requesting {size} records on the `{name}` connection exceeds the `{which}` "
                             "limit of 100 records.")
                child_mult = multiplier * int(size)
                n += child_mult
            sn, se = _check_pagination(node.selection_set, fragments, variables, child_mult, connection_fields)
            n, e = n + sn, e + se
        else:
            continue
        total += n
        errors += e
    return total, errors


_CONNECTION_FIELDS: dict[int, set[str]] = {}


def _connection_field_names(schema: GraphQLSchema) -> set[str]:
    """Names of fields that return a *Connection and take `first` (GitHub's paginated fields)."""
    if id(schema) not in _CONNECTION_FIELDS:
        names: set[str] = set()
        for t in schema.type_map.values():
            for fname, f in (getattr(t, "fields", None) or {}).items():
                target = f.type
                while hasattr(target, "of_type"):
                    target = target.of_type
                if getattr(target, "name", "").endswith("Connection") and "first" in f.args:
                    names.add(fname)
        _CONNECTION_FIELDS[id(schema)] = names
    return _CONNECTION_FIELDS[id(schema)]


# --------------------------------------------------------------------------- views of the state


def _cursor(i: int) -> str:
    return base64.b64encode(f"cursor:v2:{i}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return int(base64.b64decode(cursor).decode().rsplit(":", 1)[1]) + 1
    except (ValueError, IndexError):
        raise GraphQLError(f"`{cursor}` does not appear to be a valid cursor.") from None


def connection(items: Callable[[], list[Any]], view: Callable[[Any], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def resolve(info: Any, first: int | None = None, after: str | None = None, last: int | None = None,
                before: str | None = None, **filters: Any) -> dict[str, Any]:
        everything = items()
        if filters.get("itemTypes"):
            everything = [x for x in everything if x.get("__typename", "").upper() in _type_enums(filters)]
        if filters.get("states"):
            everything = [x for x in everything if _state_enum(x) in filters["states"]]
        start = _offset(after)
        end = _offset(before) - 1 if before else len(everything)
        window = everything[start:end]
        if first is not None:
            picked, offset = window[:first], start
        else:
            picked = window[-last:] if last else []
            offset = end - len(picked)
        charge_connection(info, len(picked))
        nodes = [view(x) for x in picked]
        return {
            "totalCount": len(everything),
            "nodes": nodes,
            "edges": [{"cursor": _cursor(offset + i), "node": n} for i, n in enumerate(nodes)],
            "pageInfo": {
                "hasNextPage": offset + len(picked) < len(everything),
                "hasPreviousPage": offset > 0,
                "startCursor": _cursor(offset) if picked else None,
                "endCursor": _cursor(offset + len(picked) - 1) if picked else None,
            },
        }

    return resolve


def _type_enums(filters: dict[str, Any]) -> set[str]:
    return {t.replace("_", "") for t in filters["itemTypes"]}


def _state_enum(x: Any) -> str:
    if isinstance(x, PullRequest) and x.merged:
        return "MERGED"
    return str(getattr(x, "state", "")).upper()


def _id(v: Any) -> Any:
    return v


class Views:
    """Dict views of state objects, built per request."""

    def __init__(self, server: GitHubServer, token_login: str, read_only: bool) -> None:
        self.server = server
        self.state: State = server.state
        self.html = server.html_url
        self.viewer_login = token_login
        self.read_only = read_only

    # -- actors
    def actor(self, login: str | None) -> dict[str, Any] | None:
        if not login:
            return None
        is_bot = login.endswith("[bot]")
        shown = login[: -len("[bot]")] if is_bot else login
        return {
            "__typename": "Bot" if is_bot else "User",
            "login": shown,
            "url": f"{self.html}/{'apps/' + shown if is_bot else shown}",
            "avatarUrl": f"{self.html}/avatars/{shown}",
            "resourcePath": f"/{shown}",
        }

    def user(self, login: str) -> dict[str, Any]:
        return {"__typename": "User", "login": login, "name": login, "url": f"{self.html}/{login}",
                "id": f"U_{login}", "avatarUrl": f"{self.html}/avatars/{login}"}

    # -- repository
    def repository(self, repo: Repo) -> dict[str, Any]:
        def item(number: int, kind: str) -> Issue:
            found = repo.items.get(number)
            if found is None or (kind == "PullRequest" and not isinstance(found, PullRequest)) or (
                kind == "Issue" and isinstance(found, PullRequest)
            ):
                what = {"PullRequest": "a PullRequest", "Issue": "an Issue"}.get(kind, "an issue or pull request")
                raise NotFound(f"Could not resolve to {what} with the number of {number}.")
            return found

        def obj(info: Any, expression: str | None = None, oid: str | None = None) -> dict[str, Any] | None:
            if not expression or ":" not in expression:
                return None
            ref, path = expression.split(":", 1)
            text = repo.files.get(ref, {}).get(path)
            return self.blob(text) if text is not None else None

        def ref(info: Any, qualifiedName: str) -> dict[str, Any] | None:
            name = qualifiedName.removeprefix("refs/heads/")
            return self.ref(repo, name) if name in repo.files or name == repo.default_branch else None

        return {
            "__typename": "Repository",
            "id": f"R_{repo.id}",
            "databaseId": repo.id,
            "name": repo.name,
            "nameWithOwner": repo.full_name,
            "owner": {"__typename": "Organization", "login": repo.owner, "url": f"{self.html}/{repo.owner}",
                      "id": f"O_{repo.owner}"},
            "url": f"{self.html}/{repo.full_name}",
            "isArchived": repo.archived,
            "isPrivate": repo.private,
            "hasDiscussionsEnabled": bool(repo.discussion_categories),
            "defaultBranchRef": self.ref(repo, repo.default_branch),
            "pullRequest": lambda info, number: self.pull(repo, item(number, "PullRequest")),
            "issue": lambda info, number: self.issue(repo, item(number, "Issue")),
            "issueOrPullRequest": lambda info, number: self.any_item(repo, item(number, "any")),
            "object": obj,
            "ref": ref,
            "discussionCategories": connection(lambda: repo.discussion_categories, lambda c: {
                "id": c.id, "name": c.name, "slug": c.slug, "description": "", "emoji": ":books:",
                "isAnswerable": False, "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"}),
            "discussions": connection(lambda: list(reversed(repo.discussions)), lambda d: self.discussion(repo, d)),
            "labels": connection(lambda: list(repo.labels.values()), lambda lb: self.label(lb)),
            "issues": self._issues(repo),
        }

    def _issues(self, repo: Repo) -> Callable[..., dict[str, Any]]:
        """Repository.issues: issues only (no PRs), filtered by labels (all of them) and states, ordered."""

        def resolve(info: Any, labels: list[str] | None = None, states: list[str] | None = None,
                    orderBy: dict[str, Any] | None = None, **page: Any) -> dict[str, Any]:
            items = [i for i in repo.items.values() if not isinstance(i, PullRequest)]
            if labels:
                wanted = {x.lower() for x in labels}
                items = [i for i in items if wanted <= {x.lower() for x in i.labels}]
            if states:
                items = [i for i in items if i.state.upper() in {str(x).upper() for x in states}]
            order = orderBy or {"field": "CREATED_AT", "direction": "ASC"}
            key = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at"}.get(str(order["field"]), "created_at")
            items.sort(key=lambda i: (getattr(i, key), i.number), reverse=str(order["direction"]) == "DESC")
            return connection(lambda: items, lambda i: self.issue(repo, i))(info, **page)

        return resolve

    def ref(self, repo: Repo, name: str) -> dict[str, Any]:
        files = repo.files.get(name, {})
        oid = rest._sha(f"{repo.full_name}:{name}")

        def file(info: Any, path: str) -> dict[str, Any] | None:
            text = files.get(path)
            if text is None:
                return None
            return {"name": path.rsplit("/", 1)[-1], "path": path, "type": "blob", "mode": 33188,
                    "oid": rest._sha(text), "extension": "", "isGenerated": False, "language": None,
                    "lineCount": text.count("\n"), "nameRaw": "", "pathRaw": "", "size": len(text.encode()),
                    "submodule": None, "object": self.blob(text)}

        target = {"__typename": "Commit", "oid": oid, "abbreviatedOid": oid[:7], "message": f"tip of {name}",
                  "url": f"{self.html}/{repo.full_name}/commit/{oid}", "file": file}
        return {"id": f"REF_{name}", "name": name, "prefix": "refs/heads/", "target": target}

    def blob(self, text: str) -> dict[str, Any]:
        raw = text.encode()
        return {"__typename": "Blob", "text": text, "byteSize": len(raw), "isBinary": False,
                "isTruncated": False, "oid": rest._sha(text), "abbreviatedOid": rest._sha(text)[:7]}

    def label(self, lb: Any) -> dict[str, Any]:
        return {"id": f"LA_{lb.id}", "name": lb.name, "color": lb.color, "description": lb.description,
                "isDefault": False}

    def _labels(self, repo: Repo, names: list[str]) -> Callable[..., dict[str, Any]]:
        return connection(lambda: [rest.ensure_label(repo, n) for n in names], self.label)

    def any_item(self, repo: Repo, item: Issue) -> dict[str, Any]:
        return self.pull(repo, item) if isinstance(item, PullRequest) else self.issue(repo, item)

    def _comments(self, repo: Repo, item: Issue) -> Callable[..., dict[str, Any]]:
        return connection(lambda: list(item.comments), lambda cm: self.issue_comment(repo, item, cm))

    def issue_comment(self, repo: Repo, item: Issue, cm: Any) -> dict[str, Any]:
        kind = "pull" if item.is_pull_request else "issues"
        return {
            "__typename": "IssueComment",
            "id": f"IC_{cm.id}",
            "databaseId": cm.id if cm.id <= INT32_MAX else None,
            "fullDatabaseId": str(cm.id),
            "body": cm.body,
            "bodyText": cm.body,
            "createdAt": cm.created_at,
            "updatedAt": cm.updated_at,
            "lastEditedAt": cm.updated_at if cm.updated_at != cm.created_at else None,
            "url": f"{self.html}/{repo.full_name}/{kind}/{item.number}#issuecomment-{cm.id}",
            "author": self.actor(cm.user),
            "editor": self.actor(cm.editor) if cm.editor else None,
            "authorAssociation": rest.author_association(repo, cm.user),
            "isMinimized": False,
            "minimizedReason": None,
            "viewerDidAuthor": cm.user == self.viewer_login,
            "issue": lambda info: self.issue(repo, item),
        }

    def _item_common(self, repo: Repo, item: Issue, kind: str) -> dict[str, Any]:
        return {
            "id": f"{'PR' if kind == 'pull' else 'I'}_{item.id}",
            "databaseId": item.id,
            "fullDatabaseId": str(item.id),
            "number": item.number,
            "title": item.title,
            "body": item.body,
            "bodyText": item.body,
            "url": f"{self.html}/{repo.full_name}/{kind}/{item.number}",
            "resourcePath": f"/{repo.full_name}/{kind}/{item.number}",
            "createdAt": item.created_at,
            "updatedAt": item.updated_at,
            "closedAt": item.closed_at,
            "closed": item.state == "closed",
            "locked": item.locked,
            "author": self.actor(item.user),
            "authorAssociation": rest.author_association(repo, item.user),
            "labels": self._labels(repo, item.labels),
            "comments": self._comments(repo, item),
            "repository": lambda info: self.repository(repo),
        }

    def issue(self, repo: Repo, item: Issue) -> dict[str, Any]:
        return self._item_common(repo, item, "issues") | {
            "__typename": "Issue",
            "state": item.state.upper(),
            "stateReason": (item.state_reason or "COMPLETED").upper() if item.state == "closed" else None,
        }

    def pull(self, repo: Repo, pr: Issue) -> dict[str, Any]:
        assert isinstance(pr, PullRequest)
        state = "MERGED" if pr.merged else pr.state.upper()
        base_ref = self.ref(repo, pr.base_ref)
        return self._item_common(repo, pr, "pull") | {
            "__typename": "PullRequest",
            "state": state,
            "isDraft": pr.draft,
            "merged": pr.merged,
            "mergedAt": pr.merged_at,
            "mergedBy": self.actor(pr.merged_by),
            "baseRefName": pr.base_ref,
            "headRefName": pr.head_ref,
            "baseRefOid": pr.base_sha,
            "headRefOid": pr.head_sha,
            "baseRef": base_ref,
            "headRef": None if pr.head_repo else self.ref(repo, pr.head_ref),
            "isCrossRepository": bool(pr.head_repo),
            "additions": pr.additions,
            "deletions": pr.deletions,
            "changedFiles": len(pr.files),
            "reviewDecision": _review_decision(pr),
            "permalink": f"{self.html}/{repo.full_name}/pull/{pr.number}",
            "commits": connection(lambda: pr.commits[: rest.COMMITS_CAP], lambda c: self.pr_commit(repo, pr, c)),
            "reviews": connection(lambda: list(pr.reviews), lambda rv: self.review(repo, pr, rv)),
            "reviewThreads": connection(lambda: list(pr.threads), lambda th: self.thread(repo, pr, th)),
            "closingIssuesReferences": connection(lambda: self._resolve_refs(pr.closing_issues),
                                                  lambda ri: self.issue(ri[0], ri[1])),
            "timelineItems": connection(lambda: self._cross_refs(repo, pr), _id),
            "files": connection(lambda: pr.files, lambda f: {
                "path": f.filename, "additions": f.additions, "deletions": f.deletions,
                "changeType": {"removed": "DELETED"}.get(f.status, f.status.upper()),
                "viewerViewedState": "UNVIEWED"}),
        }

    def _resolve_refs(self, refs: Iterable[Any]) -> list[tuple[Repo, Issue]]:
        out = []
        for ref in refs:
            repo = self.state.repo(ref.repo)
            item = repo.items.get(ref.number) if repo else None
            if repo and item:
                out.append((repo, item))
        return out

    def _cross_refs(self, repo: Repo, pr: PullRequest) -> list[dict[str, Any]]:
        events = []
        for ref, when in pr.cross_references:
            for src_repo, src in self._resolve_refs([ref]):
                events.append({
                    "__typename": "CrossReferencedEvent",
                    "id": f"CRE_{src.id}_{pr.id}",
                    "referencedAt": when,
                    "createdAt": when,
                    "isCrossRepository": src_repo is not repo,
                    "willCloseTarget": False,
                    "actor": self.actor(src.user),
                    "source": self.any_item(src_repo, src),
                    "target": self.pull(repo, pr),
                    "url": f"{self.html}/{src_repo.full_name}/issues/{src.number}",
                    "resourcePath": "",
                })
        return events

    def pr_commit(self, repo: Repo, pr: PullRequest, c: Any) -> dict[str, Any]:
        headline, _, rest_body = c.message.partition("\n")
        commit = {
            "__typename": "Commit",
            "oid": c.sha,
            "abbreviatedOid": c.sha[:7],
            "message": c.message,
            "messageHeadline": headline,
            "messageBody": rest_body.strip("\n"),
            "authoredDate": c.date or pr.created_at,
            "committedDate": c.date or pr.created_at,
            "url": f"{self.html}/{repo.full_name}/commit/{c.sha}",
            "author": {"name": c.author_name or c.author, "email": f"{c.author}@example.com",
                       "date": c.date or pr.created_at, "user": self.user(c.author) if c.author else None},
        }
        return {"id": f"PRC_{c.sha[:10]}", "commit": commit, "url": commit["url"], "resourcePath": ""}

    def review(self, repo: Repo, pr: PullRequest, rv: Any) -> dict[str, Any]:
        return {
            "id": f"PRR_{rv.id}",
            "databaseId": rv.id if rv.id <= INT32_MAX else None,
            "fullDatabaseId": str(rv.id),
            "author": self.actor(rv.user),
            "authorAssociation": rest.author_association(repo, rv.user),
            "state": rv.state,
            "body": rv.body,
            "bodyText": rv.body,
            "submittedAt": rv.submitted_at,
            "createdAt": rv.submitted_at,
            "url": f"{self.html}/{repo.full_name}/pull/{pr.number}#pullrequestreview-{rv.id}",
            "comments": connection(
                lambda: [(t, c) for t, c in pr.review_comments() if c.review_id == rv.id],
                lambda tc: self.review_comment(repo, pr, tc[0], tc[1]),
            ),
        }

    def review_comment(self, repo: Repo, pr: PullRequest, th: Any, c: Any) -> dict[str, Any]:
        return {
            "id": f"PRRC_{c.id}",
            "databaseId": c.id if c.id <= INT32_MAX else None,
            "fullDatabaseId": str(c.id),
            "author": self.actor(c.user),
            "authorAssociation": rest.author_association(repo, c.user),
            "body": c.body,
            "bodyText": c.body,
            "createdAt": c.created_at,
            "updatedAt": c.created_at,
            "diffHunk": charged_diff_hunk(th.diff_hunk),
            "path": th.path,
            "line": None if th.outdated else th.line,
            "originalLine": th.original_line,
            "startLine": None,
            "outdated": th.outdated,
            "replyTo": {"id": f"PRRC_{c.in_reply_to}"} if c.in_reply_to else None,
            "url": f"{self.html}/{repo.full_name}/pull/{pr.number}#discussion_r{c.id}",
            "isMinimized": False,
            "minimizedReason": None,
        }

    def thread(self, repo: Repo, pr: PullRequest, th: Any) -> dict[str, Any]:
        return {
            "id": f"PRRT_{th.id}",
            "path": th.path,
            "line": None if th.outdated else th.line,
            "originalLine": th.original_line,
            "startLine": None,
            "originalStartLine": None,
            "diffSide": th.side,
            "isResolved": th.resolved,
            "isOutdated": th.outdated,
            "isCollapsed": th.resolved,
            "subjectType": "LINE",
            "resolvedBy": self.user(th.resolved_by) if th.resolved and th.resolved_by else None,
            "comments": connection(lambda: list(th.comments), lambda c: self.review_comment(repo, pr, th, c)),
        }

    def discussion(self, repo: Repo, d: Discussion) -> dict[str, Any]:
        cat = next((c for c in repo.discussion_categories if c.id == d.category_id), None)
        return {"__typename": "Discussion", "id": d.id, "number": d.number, "title": d.title, "body": d.body,
                "url": f"{self.html}/{repo.full_name}/discussions/{d.number}", "createdAt": d.created_at,
                "author": self.actor(d.user),
                "category": {"id": cat.id, "name": cat.name, "slug": cat.slug} if cat else None}

    def node(self, node_id: str, in_list: bool = False) -> Any:
        """Node.node(id:) for the kinds readworthy asks for by id: review threads and issue comments."""
        kind, _, raw = node_id.partition("_")
        found: dict[str, Any] | None = None
        for repo in self.state.repos.values():
            for item in repo.items.values():
                if kind == "PRRT" and isinstance(item, PullRequest):
                    th = next((t for t in item.threads if str(t.id) == raw), None)
                    found = self.thread(repo, item, th) | {"__typename": "PullRequestReviewThread"} if th else None
                elif kind == "IC":
                    cm = next((c for c in item.comments if str(c.id) == raw), None)
                    found = self.issue_comment(repo, item, cm) if cm else None
                if found is not None:
                    return found
        missing = NotFound(f"Could not resolve to a node with the global id of '{node_id}'")
        if in_list:
            return missing
        raise missing

    # -- roots
    def root(self) -> dict[str, Any]:
        def repository(info: Any, owner: str, name: str, followRenames: bool = True) -> dict[str, Any]:
            repo = self.state.repo(f"{owner}/{name}")
            if repo is None:
                raise NotFound(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
            return self.repository(repo)

        def search(info: Any, query: str, type: str, first: int | None = None, after: str | None = None,
                   last: int | None = None, before: str | None = None) -> dict[str, Any]:
            from .github_routes import search_items

            found = search_items(self.state, query) if type in ("ISSUE", "ISSUE_ADVANCED") else []
            conn = connection(lambda: found, lambda ri: self.any_item(ri[0], ri[1]))(info, first=first, after=after,
                                                                                        last=last, before=before)
            return conn | {"issueCount": len(found), "codeCount": 0, "discussionCount": 0, "repositoryCount": 0,
                           "userCount": 0, "wikiCount": 0}

        return {
            "viewer": self.user(self.viewer_login),
            "repository": repository,
            "node": lambda info, id: self.node(id),
            # An unknown id is null in the list with a NOT_FOUND error at its index (graphql-core raises
            # an Exception found among a list's items at that item).
            "nodes": lambda info, ids: [self.node(i, in_list=True) for i in ids],
            "search": search,
            "rateLimit": lambda info, dryRun=False: {
                "cost": 1, "limit": 5000, "remaining": 4999, "used": 1, "nodeCount": 0,
                "resetAt": "2030-01-01T00:00:00Z"},
        }

    def mutations(self) -> dict[str, Any]:
        def create_discussion(info: Any, input: dict[str, Any]) -> dict[str, Any]:
            repo = next((r for r in self.state.repos.values() if f"R_{r.id}" == input["repositoryId"]), None)
            if repo is None:
                raise NotFound(f"Could not resolve to a node with the global id of '{input['repositoryId']}'")
            if self.read_only:
                raise Forbidden("Resource not accessible by integration")
            if not any(c.id == input["categoryId"] for c in repo.discussion_categories):
                raise NotFound(f"Could not resolve to a node with the global id of '{input['categoryId']}'")
            number = repo.next_number()
            d = Discussion(number=number, id=f"D_{repo.id}_{number}", title=input["title"], body=input["body"],
                           category_id=input["categoryId"], user=self.viewer_login, created_at=self.state.now())
            repo.discussions.append(d)
            return {"clientMutationId": input.get("clientMutationId"), "discussion": self.discussion(repo, d)}

        return {"createDiscussion": create_discussion}


def _review_decision(pr: PullRequest) -> str | None:
    latest: dict[str, str] = {}
    for rv in pr.reviews:
        if rv.state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            latest[rv.user] = rv.state
    if "CHANGES_REQUESTED" in latest.values():
        return "CHANGES_REQUESTED"
    if "APPROVED" in latest.values():
        return "APPROVED"
    return "REVIEW_REQUIRED"


# --------------------------------------------------------------------------- endpoint


def _error_json(err: GraphQLError) -> dict[str, Any]:
    data: dict[str, Any] = {"message": err.message}
    if err.locations:
        data["locations"] = [{"line": loc.line, "column": loc.column} for loc in err.locations]
    if err.path:
        data["path"] = list(err.path)
    original = err.original_error if isinstance(err.original_error, GraphQLError) else err
    if original.extensions and "type" in original.extensions:
        data["type"] = original.extensions["type"]
    return data


@lru_cache(maxsize=512)
def _parsed(text: str) -> tuple[DocumentNode | None, list[dict[str, Any]]]:
    """The query parsed and validated against the schema, or its errors. Cached by text: parsing and
    validating a PR query against GitHub's schema takes most of a request's time, and a run sends the
    same few query texts again and again (bench/day.py replays hundreds of runs)."""
    schema = load_github_schema()
    assert schema is not None
    try:
        document = parse(text)
    except GraphQLError as exc:
        return None, [_error_json(exc)]
    return document, [_error_json(e) for e in validate(schema, document)]


def execute_graphql(server: GitHubServer, call: rest.Call) -> rest.Reply:
    schema = load_github_schema()
    if schema is None:
        return rest.error(501, f"test server has no GitHub GraphQL schema; run `{FETCH_COMMAND}`")
    body = call.body if isinstance(call.body, dict) else {}
    text = body.get("query")
    variables = body.get("variables") or {}
    if not isinstance(text, str):
        return rest.Reply(200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]})
    document, problems = _parsed(text)
    if document is None or problems:
        return rest.Reply(200, {"errors": problems})

    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    limit_errors: list[str] = []
    nodes = 0
    for op in document.definitions:
        if isinstance(op, OperationDefinitionNode):
            n, errs = _check_pagination(op.selection_set, fragments, variables, 1, _connection_field_names(schema))
            nodes += n
            limit_errors += errs
    if limit_errors:
        return rest.Reply(200, {"errors": [{"type": "MISSING_PAGINATION_BOUNDARIES", "message": m}
                                           for m in limit_errors]})
    if nodes > MAX_NODES:
        return rest.Reply(200, {"errors": [{"type": "MAX_NODE_LIMIT_EXCEEDED", "message": (
            f"This query requests up to {nodes:,} possible nodes which exceeds the maximum limit of "
            f"{MAX_NODES:,}.")}]})

    assert call.token is not None
    views = Views(server, call.token.login, call.token.read_only)
    is_mutation = any(isinstance(d, OperationDefinitionNode) and d.operation.value == "mutation"
                      for d in document.definitions)
    root = views.mutations() if is_mutation else views.root()
    work = Work(getattr(server, "graphql_limits", None) or GraphQLLimits())
    result = execute(schema, document, root_value=root, variable_values=variables,
                     operation_name=body.get("operationName"), context_value=work)
    if work.timed_out:
        # GitHub's gateway cuts a query off after 10 s: a 502 with an HTML page, no GraphQL at all.
        return rest.Reply(502, TIMEOUT_BODY, content_type="text/html")
    out: dict[str, Any] = {"data": result.data}
    if result.errors:
        out["errors"] = _dedupe([_error_json(e) for e in result.errors])
    return rest.Reply(200, out)


def _dedupe(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One resource-limit error, like GitHub (every field after the limit fails the same way)."""
    out, seen_limit = [], False
    for e in errors:
        if e.get("type") == "RESOURCE_LIMITS_EXCEEDED":
            if seen_limit:
                continue
            seen_limit = True
        out.append(e)
    return out
