"""A stateful GitHub-compatible HTTP server on 127.0.0.1 for tests and benches.

Laid out like GitHub Enterprise Server so that every URL derivation is exercised:
    REST     {server.api_url}      = http://127.0.0.1:PORT/api/v3
    GraphQL  {server.graphql_url}  = http://127.0.0.1:PORT/api/graphql
    web      {server.html_url}     = http://127.0.0.1:PORT   (html_url of issues, PRs, comments)
PyGithub `Github(base_url=server.api_url)` derives the same GraphQL URL as `Settings.graphql_url`.

Seeding (see github_fixtures.py for a realistic-PR helper):
    repo = server.add_repo("o/r", files={"main": {".github/CODEOWNERS": "..."}})
    pr = server.add_pr("o/r", title=..., body=..., files=[PRFile(...)], commits=[...])
    server.add_comment("o/r", pr.number, "alice", "text")
    server.add_review("o/r", pr.number, "bob", "APPROVED", "ship it")
    server.add_thread("o/r", pr.number, "a.py", 10, [("bob", "why?"), ("alice", "because")])
    issue = server.add_issue("o/r", title=..., body=..., comments=[("carol", "root cause: ...")])
    pr.closing_issues.append(ItemRef("o/r", issue.number)); server.add_cross_reference(...)
Tokens (github_state): WORKFLOW_TOKEN (github-actions[bot]; 403 on GET /user), PERSONAL_TOKEN
(octocat), READONLY_TOKEN (fork PR: every write 403). `server.add_token(...)` adds more;
`server.deny(token, "checks")` / `grant` take a permission away or give it back.
Checks API (github_checks.py): `server.check_runs("o/r", sha)` lists what was written.

Fault injection: `server.inject("POST", r"/issues/\\d+/comments$", status=502, times=1)`; also
`delay=` seconds before answering (or before the real answer when status is None) and `drop=True`
(close the connection without an answer). Faults match the API-relative path ("/repos/...",
"/graphql") with re.search, are consumed in order, `times=None` means forever.

Request log: `server.requests` lists every `RecordedRequest` (method, API-relative path, query,
headers, body, status); `server.count(method, path_regex)` counts them; `server.clear_log()`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qsl, unquote, urlsplit

from . import github_git  # noqa: F401  (registers the git refs routes)
from . import github_checks  # noqa: F401  (registers the Checks API routes)
from . import github_rest as rest
from .github_graphql_limits import GraphQLLimits
from .github_routes import ROUTES
from .github_state import (
    CheckRun,
    DiscussionCategory,
    Issue,
    IssueComment,
    ItemRef,
    PRCommit,
    PRFile,
    PullRequest,
    Repo,
    Review,
    ReviewComment,
    ReviewThread,
    State,
    Token,
    _sha_for,
)

API_PREFIX = "/api/v3"
GRAPHQL_PATHS = ("/api/graphql", "/graphql")


@dataclass
class Fault:
    method: str
    path_regex: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None
    times: int | None = 1
    delay: float = 0.0
    drop: bool = False


@dataclass
class RecordedRequest:
    method: str
    path: str  # API-relative ("/repos/o/r/pulls/1", "/graphql")
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    status: int = 0  # 0: the connection was dropped without an answer

    @property
    def is_write(self) -> bool:
        return self.method in ("POST", "PATCH", "PUT", "DELETE") and self.path != "/graphql"


class GitHubServer:
    def __init__(self) -> None:
        self.state = State()
        self.requests: list[RecordedRequest] = []
        self._faults: list[Fault] = []
        self._fault_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._base = ""
        self._budget: dict[str, int | None] = {}
        self._budget_limit: dict[str, int | None] = {}
        self._budget_reset = 0
        self.graphql_limits = GraphQLLimits()  # GitHub's execution limits (timeout, resources): lower to test

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        handler = type("Handler", (_Handler,), {"server_obj": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True, name="github-server")
        self._thread.start()
        host, port = self._httpd.server_address[:2]
        self._base = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def html_url(self) -> str:
        assert self._base, "server not started"
        return self._base

    @property
    def api_url(self) -> str:
        return self.html_url + API_PREFIX

    @property
    def graphql_url(self) -> str:
        return self.html_url + "/api/graphql"

    # ------------------------------------------------------------------ the hourly rate budget

    def set_rate_budget(self, core: int | None, graphql: int | None = None, reset_in: int = 3600) -> None:
        """Count requests against GitHub's hourly budgets like GitHub does: every answer says what is
        left (`X-RateLimit-Remaining`, per resource), and a request with nothing left gets GitHub's
        primary rate-limit answer (403, remaining 0, reset time). None: no budget (the default)."""
        with self._fault_lock:
            self._budget = {"core": core, "graphql": graphql}
            self._budget_limit = {"core": core, "graphql": graphql}
            self._budget_reset = int(time.time()) + reset_in

    def _spend(self, resource: str) -> tuple[dict[str, str], bool]:
        """Headers for one request of `resource`, and whether the budget allowed it."""
        with self._fault_lock:
            left = self._budget.get(resource)
            if left is None:
                return {}, True
            limit = self._budget_limit[resource] or 0
            allowed = left > 0
            if allowed:
                left -= 1
                self._budget[resource] = left
            return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(left),
                    "X-RateLimit-Used": str(limit - left), "X-RateLimit-Reset": str(self._budget_reset),
                    "X-RateLimit-Resource": resource}, allowed

    def rate_left(self, resource: str = "core") -> int | None:
        with self._fault_lock:
            return self._budget.get(resource)

    # ------------------------------------------------------------------ faults and log

    def inject(
        self,
        method: str,
        path_regex: str,
        status: int | None = 500,
        headers: dict[str, str] | None = None,
        body: Any = None,
        times: int | None = 1,
        delay: float = 0.0,
        drop: bool = False,
    ) -> Fault:
        fault = Fault(method.upper(), path_regex, status, dict(headers or {}), body, times, delay, drop)
        with self._fault_lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._fault_lock:
            self._faults.clear()

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._fault_lock:
            for fault in self._faults:
                if fault.method in (method, "*") and re.search(fault.path_regex, path):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    def count(self, method: str | None = None, path_regex: str | None = None) -> int:
        return sum(
            1
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (path_regex is None or re.search(path_regex, r.path))
        )

    def clear_log(self) -> None:
        self.requests.clear()

    def comments(self, full_name: str, number: int) -> list[IssueComment]:
        """The conversation comments of an issue or PR, as stored (what a write left behind)."""
        return list(self._item(full_name, number).comments)

    def check_runs(self, full_name: str, head_sha: str | None = None) -> list[CheckRun]:
        """The check runs of a repository (on one commit), as stored: every annotation every update added."""
        return [r for r in self.repo(full_name).check_runs if head_sha is None or r.head_sha == head_sha]

    # ------------------------------------------------------------------ seeding

    def add_token(self, token: str, login: str, kind: str = "personal", read_only: bool = False,
                  permissions: dict[str, str] | None = None) -> Token:
        tok = Token(token, login, kind, read_only, dict(permissions or {}))
        self.state.tokens[token] = tok
        return tok

    def deny(self, token: str, permission: str) -> None:
        """Leave `permission` (e.g. "checks") out of `token`'s grant, as a workflow's `permissions:` block
        that does not list it: writes that need it answer 403. `grant` undoes it."""
        self.state.tokens[token].permissions[permission] = "none"

    def grant(self, token: str, permission: str) -> None:
        self.state.tokens[token].permissions[permission] = "write"

    def add_repo(
        self,
        full_name: str,
        *,
        archived: bool = False,
        default_branch: str = "main",
        files: dict[str, dict[str, str]] | None = None,
        permissions: dict[str, str] | None = None,
        discussion_categories: Iterable[str] = (),
    ) -> Repo:
        owner, name = full_name.split("/", 1)
        with self.state.lock:
            repo = Repo(owner=owner, name=name, id=self.state.new_id(), archived=archived,
                        default_branch=default_branch)
            repo.files = {ref: dict(paths) for ref, paths in (files or {}).items()}
            repo.permissions = dict(permissions or {})
            for cat in discussion_categories:
                slug = cat.lower().replace(" ", "-")
                repo.discussion_categories.append(DiscussionCategory(id=f"DIC_{slug}", name=cat, slug=slug))
            self.state.repos[full_name.lower()] = repo
        return repo

    def repo(self, full_name: str) -> Repo:
        repo = self.state.repo(full_name)
        if repo is None:
            repo = self.add_repo(full_name)
        return repo

    def set_file(self, full_name: str, ref: str, path: str, text: str | None) -> None:
        files = self.repo(full_name).files.setdefault(ref, {})
        if text is None:
            files.pop(path, None)
        else:
            files[path] = text

    def add_issue(
        self,
        full_name: str,
        title: str,
        body: str = "",
        *,
        number: int | None = None,
        user: str = "octocat",
        state: str = "open",
        labels: Iterable[str] = (),
        comments: Iterable[tuple[str, str]] = (),
        locked: bool = False,
    ) -> Issue:
        repo = self.repo(full_name)
        with self.state.lock:
            now = self.state.now()
            issue = Issue(number=number or repo.next_number(), id=self.state.new_id(), title=title, body=body,
                          user=user, state=state, labels=list(labels), created_at=now, updated_at=now,
                          locked=locked, closed_at=now if state == "closed" else None)
            repo.items[issue.number] = issue
            for login, text in comments:
                self.add_comment(full_name, issue.number, login, text)
        return issue

    def add_pr(
        self,
        full_name: str,
        title: str = "A change",
        body: str = "",
        *,
        number: int | None = None,
        user: str = "octocat",
        state: str = "open",
        draft: bool = False,
        locked: bool = False,
        merged: bool = False,
        merged_at: str | None = None,
        labels: Iterable[str] = (),
        base_ref: str = "main",
        head_ref: str = "feature",
        head_repo: str = "",
        files: Iterable[PRFile] = (),
        commits: Iterable[PRCommit | str] = (),
        created_at: str | None = None,
    ) -> PullRequest:
        repo = self.repo(full_name)
        with self.state.lock:
            now = created_at or self.state.now()
            num = number or repo.next_number()
            commit_list = [
                c if isinstance(c, PRCommit) else PRCommit(sha=_sha_for(f"{full_name}#{num}:{i}"), message=c,
                                                           author=user, date=now)
                for i, c in enumerate(commits)
            ] or [PRCommit(sha=_sha_for(f"{full_name}#{num}"), message=title, author=user, date=now)]
            if merged:
                state = "closed"
                merged_at = merged_at or now
            pr = PullRequest(
                number=num, id=self.state.new_id(), title=title, body=body, user=user, state=state, draft=draft,
                locked=locked, labels=list(labels), created_at=now, updated_at=now, base_ref=base_ref,
                head_ref=head_ref, head_repo=head_repo, base_sha=_sha_for(f"{full_name}:{base_ref}"),
                head_sha=commit_list[-1].sha, merged=merged, merged_at=merged_at, files=list(files),
                commits=commit_list, closed_at=merged_at if state == "closed" else None,
                merged_by=repo.owner if merged else None,
            )
            repo.items[num] = pr
        return pr

    def add_comment(self, full_name: str, number: int, user: str, body: str) -> IssueComment:
        item = self._item(full_name, number)
        with self.state.lock:
            now = self.state.now()
            cm = IssueComment(id=self.state.new_id(), user=user, body=body, created_at=now, updated_at=now)
            item.comments.append(cm)
        return cm

    def edit_comment(self, comment_id: int, editor: str, body: str) -> IssueComment:
        """`editor` edits a comment as GitHub records it: new body, `updated_at`, and the last editor."""
        with self.state.lock:
            found = self.state.find_issue_comment(comment_id)
            assert found is not None, f"no issue comment {comment_id}"
            cm = found[2]
            cm.body, cm.updated_at, cm.editor = body, self.state.now(), editor
        return cm

    def add_review(self, full_name: str, number: int, user: str, state: str, body: str = "") -> Review:
        pr = self._pull(full_name, number)
        with self.state.lock:
            rv = Review(id=self.state.new_id(), user=user, state=state, body=body, submitted_at=self.state.now(),
                        commit_id=pr.head_sha)
            pr.reviews.append(rv)
        return rv

    def add_thread(
        self,
        full_name: str,
        number: int,
        path: str,
        line: int | None,
        comments: Iterable[tuple[str, str]],
        *,
        diff_hunk: str = "",
        resolved: bool = False,
        outdated: bool = False,
        review: Review | None = None,
    ) -> ReviewThread:
        """An inline thread: the first comment opens it (part of `review` if given), the rest reply."""
        pr = self._pull(full_name, number)
        with self.state.lock:
            th = ReviewThread(id=self.state.new_id(), path=path, line=None if outdated else line,
                              original_line=line, diff_hunk=diff_hunk or _hunk_for(pr, path, line),
                              resolved=resolved, outdated=outdated)
            first_id: int | None = None
            for i, (login, text) in enumerate(comments):
                rc = ReviewComment(id=self.state.new_id(), user=login, body=text, created_at=self.state.now(),
                                   review_id=review.id if (review and i == 0) else None, in_reply_to=first_id)
                if first_id is None:
                    first_id = rc.id
                th.comments.append(rc)
            if resolved:
                th.resolved_by = th.comments[0].user if th.comments else None
            pr.threads.append(th)
        return th

    def add_cross_reference(self, full_name: str, number: int, source_repo: str, source_number: int) -> None:
        """`source_repo#source_number` mentioned this PR (a CROSS_REFERENCED_EVENT on its timeline)."""
        pr = self._pull(full_name, number)
        pr.cross_references.append((ItemRef(source_repo, source_number), self.state.now()))

    def _item(self, full_name: str, number: int) -> Issue:
        item = self.state.item(full_name, number)
        if item is None:
            raise KeyError(f"no issue or PR {full_name}#{number} seeded")
        return item

    def _pull(self, full_name: str, number: int) -> PullRequest:
        item = self._item(full_name, number)
        if not isinstance(item, PullRequest):
            raise KeyError(f"{full_name}#{number} is an issue, not a PR")
        return item

    # ------------------------------------------------------------------ dispatch

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes) -> rest.Reply:
        parts = urlsplit(raw_path)
        path = parts.path
        is_graphql = path in GRAPHQL_PATHS
        if is_graphql:
            path = "/graphql"
        elif path.startswith(API_PREFIX):
            path = path[len(API_PREFIX) :] or "/"
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        body = rest.decode_json_body(raw_body)
        record = RecordedRequest(method, path, query, headers, body)
        self.requests.append(record)

        auth = headers.get("authorization", "")
        token_text = auth.split(None, 1)[1].strip() if " " in auth else ""
        token = self.state.tokens.get(token_text) if token_text else None
        call = rest.Call(method, path, query, headers, body, token, api_base=self.api_url, html_base=self.html_url)
        if token_text and token is None:
            reply = rest.error(401, "Bad credentials")
        elif is_graphql:
            reply = self._graphql(call)
        else:
            reply = self._rest(call)
        record.status = reply.status
        return reply

    def _rest(self, call: rest.Call) -> rest.Reply:
        allowed = False
        for method, regex, fn in ROUTES:
            m = regex.match(call.path)
            if not m:
                continue
            if method != call.method:
                allowed = True
                continue
            # Like GitHub, path parameters arrive percent-encoded (labels/readworthy%3Askim).
            call.params = {k: unquote(v) if isinstance(v, str) else v for k, v in m.groupdict().items()}
            try:
                with self.state.lock:
                    return fn(self.state, call)
            except rest.HttpError as exc:
                return exc.reply
        return rest.error(405 if allowed else 404, "Not Found" if not allowed else "Method Not Allowed")

    def _graphql(self, call: rest.Call) -> rest.Reply:
        if call.method != "POST":
            return rest.error(404, "Not Found")
        if call.token is None:
            return rest.error(401, "This endpoint requires you to be authenticated.")
        from .github_graphql import execute_graphql

        with self.state.lock:
            return execute_graphql(self, call)


def _hunk_for(pr: PullRequest, path: str, line: int | None) -> str:
    """The first hunk of `path`'s patch, as GitHub shows above an inline comment."""
    for f in pr.files:
        if f.filename == path and f.patch:
            lines = f.patch.splitlines()
            end = next((i for i in range(1, len(lines)) if lines[i].startswith("@@")), len(lines))
            return "\n".join(lines[: min(end, 12)])
    return f"@@ -{line or 1},1 +{line or 1},1 @@"


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that time out or drop (fault tests) are expected; anything else is a server bug.
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server_obj: GitHubServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without NODELAY, delayed ACKs add ~40 ms per request.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        srv = self.server_obj
        parts = urlsplit(self.path)
        api_path = "/graphql" if parts.path in GRAPHQL_PATHS else parts.path.removeprefix(API_PREFIX)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        fault = srv._take_fault(self.command, api_path)
        if fault is not None:
            if fault.delay:
                time.sleep(fault.delay)
            if fault.drop:
                srv.requests.append(RecordedRequest(self.command, api_path, query, headers, rest.decode_json_body(raw)))
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if fault.status is not None:
                srv.requests.append(
                    RecordedRequest(self.command, api_path, query, headers, rest.decode_json_body(raw), fault.status)
                )
                body = fault.body if fault.body is not None else {"message": f"injected {fault.status}"}
                self._send(rest.Reply(fault.status, body, dict(fault.headers)))
                return
        resource = "graphql" if api_path == "/graphql" else "core"
        budget_headers, allowed = srv._spend(resource)
        if not allowed:
            srv.requests.append(RecordedRequest(self.command, api_path, query, headers, rest.decode_json_body(raw),
                                                403 if resource == "core" else 200))
            message = "API rate limit exceeded for installation ID 1."
            if resource == "core":
                self._send(rest.Reply(403, {"message": message}, budget_headers))
            else:  # GraphQL reports its limit as 200 with an error
                self._send(rest.Reply(200, {"data": None, "errors": [{"type": "RATE_LIMITED", "message": message}]},
                                      budget_headers))
            return
        reply = srv.handle(self.command, self.path, headers, raw)
        reply.headers.update({k: v for k, v in budget_headers.items() if k not in reply.headers})
        self._send(reply)

    def _send(self, reply: rest.Reply) -> None:
        if reply.body is None:
            data = b""
        elif isinstance(reply.body, str | bytes):
            data = reply.body.encode() if isinstance(reply.body, str) else reply.body
        else:
            data = json.dumps(reply.body).encode()
        self.send_response(reply.status)
        if data or reply.status != 204:
            self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(data)))
        defaults = {
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": "1900000000",
            "X-RateLimit-Used": "1",
            "X-RateLimit-Resource": "graphql" if self.path.endswith("graphql") else "core",
            "X-GitHub-Request-Id": f"TEST:{id(reply):x}",
        }
        # A reply's own headers (an injected rate-limit fault) replace the defaults instead of
        # being sent twice: a doubled header reads as "4999, 0" to clients.
        overridden = {k.lower() for k in reply.headers}
        for k, v in defaults.items():
            if k.lower() not in overridden:
                self.send_header(k, v)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve
