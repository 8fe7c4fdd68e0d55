"""Bench: the issue-8 robustness matrix, run programmatically, with the figures the closing note needs.

    .venv/bin/python bench/robustness.py
    .venv/bin/python bench/robustness.py --only "github models"   # one stage (names as printed)

Runs `readworthy action` (and, for timeouts and lost writes, `review_one` with a 1 s GitHub timeout)
against the tests' GitHub and OpenAI servers over real HTTP, using the same fault and hostile-case
tables as tests/e2e/test_faults_github.py, test_faults_model.py and tests/hostile_cases.py, and prints:

  faults injected / survived     survived = recovered (one comment published) when the fault is
                                 transient; a clean failure when it persists (documented exit code,
                                 a warning line, the existing comment byte-identical, bounded time)
  hostile cases tried / neutralised   injections fenced as data; hostile model answers rendered harmless
  secrets planted / leaked       leaked = found in the model request, comment, hidden state, job summary,
                                 stdout or log records (must be 0)
  duplicate comments             readworthy comments beyond one per PR, over every run (must be 0)
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT / "src", ROOT / "tests", ROOT / "tests" / "e2e"):
    sys.path.insert(0, str(extra))

import requests
from action_run import GOOD_DIGEST, KEY, REPO, comment_payload, own_comments, pr_payload
from hostile_cases import (
    FAKE_FENCE_CLOSE,
    HIDDEN_INSTRUCTION,
    HIDDEN_VARIANTS,
    HOSTILE_STRINGS,
    INJECTION,
    PRIVATE_KEY_BLOCK,
    SECRETS,
    comment_problems,
    hostile_digest,
    leaked,
)
from action_runner import run_action_once, servers
from robustness_inputs import input_rows, print_rows
from robustness_reading import reading_rows
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN, ItemRef, PRCommit, PRFile, PullRequest
from test_faults_github import (
    EDIT_COMMENT,
    EDIT_FAULTS,
    LIST_COMMENTS,
    PERSISTENT_FAULTS,
    TRANSIENT_FAULTS,
    primary_headers,
)
from test_faults_model import FAULTS as MODEL_FAULTS
from test_faults_model import NOT_A_COMPLETION

from readworthy.config import build_settings
from readworthy.errors import GitHubError
from readworthy.gather import github_api
from readworthy.render.state import decode_state
from readworthy.review import Request, ReviewSession, review_one

RUN_BOUND_S = 20.0


@dataclass
class Tally:
    tried: int = 0
    ok: int = 0
    failures: list[str] = field(default_factory=list)

    def record(self, name: str, ok: bool, why: str = "") -> None:
        self.tried += 1
        self.ok += ok
        if not ok:
            self.failures.append(f"{name}: {why}")


@dataclass
class Figures:
    github: Tally = field(default_factory=Tally)
    model: Tally = field(default_factory=Tally)
    hostile: Tally = field(default_factory=Tally)
    secrets_planted: int = 0
    secrets_leaked: int = 0
    leak_details: list[str] = field(default_factory=list)
    prs_checked: int = 0
    duplicate_comments: int = 0
    endpoint_lines: list[str] = field(default_factory=list)  # what each endpoint row did, in words


def simple_pr(gh: GitHubServer, title: str = "Retry the model download once on 503") -> PullRequest:
    return gh.add_pr(REPO, title, "Retries once on 503.", user="alice",
                     files=[PRFile("vllm/model_executor/download.py", additions=2, deletions=1,
                                   patch="@@ -10,2 +10,3 @@ def fetch(url):\n-    return get(url)\n"
                                         "+    for attempt in range(2):\n+        return get(url)\n")])


def count_duplicates(figures: Figures, gh: GitHubServer, pr: PullRequest) -> None:
    figures.prs_checked += 1
    figures.duplicate_comments += max(0, len(own_comments(gh, pr.number)) - 1)


def _resolve(fault: dict[str, Any]) -> dict[str, Any]:
    fault = dict(fault)
    if isinstance(fault.get("headers"), str):  # "primary:N": a primary rate limit resetting in N seconds
        fault["headers"] = primary_headers(float(fault["headers"].split(":")[1]))
    return fault


# --------------------------------------------------------------------------- GitHub faults


def github_matrix(figures: Figures, tmp: Path) -> None:
    for name, method, path, fault in TRANSIENT_FAULTS:
        with servers() as (gh, _):
            pr = simple_pr(gh)
            gh.inject(method, path, **_resolve(fault))
            res = run_action_once(gh, tmp / f"gh-t-{name}", pr_payload(pr, "opened"))
            n = len(own_comments(gh, pr.number))
            figures.github.record(f"github transient {name}", res.code == 0 and n == 1 and res.seconds < RUN_BOUND_S,
                                  f"exit {res.code}, {n} comments, {res.seconds:.1f}s")
            count_duplicates(figures, gh, pr)
    for name, method, path, fault, words in PERSISTENT_FAULTS:
        with servers() as (gh, _):
            pr = simple_pr(gh)
            run_action_once(gh, tmp / f"gh-p-{name}-0", pr_payload(pr, "opened"))
            before = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            pr.title = "Retry the model download up to three times"
            gh.inject(method, path, times=None, **_resolve(fault))
            res = run_action_once(gh, tmp / f"gh-p-{name}", pr_payload(pr, "synchronize"), inputs={"force": "true"})
            after = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            warned = any(line.startswith("::warning::readworthy:") and words in line.lower()
                         for line in res.stdout.splitlines())
            ok = res.code == 0 and after == before and len(before) == 1 and warned and res.seconds < RUN_BOUND_S
            figures.github.record(f"github persistent {name}", ok,
                                  f"exit {res.code}, kept={after == before}, warned={warned}, {res.seconds:.1f}s")
            count_duplicates(figures, gh, pr)
    for name, fault, status in EDIT_FAULTS:
        with servers() as (gh, _):
            pr = simple_pr(gh)
            settings = build_settings({"github_token": WORKFLOW_TOKEN, "github_api_url": gh.api_url,
                                       "github_graphql_url": gh.graphql_url, "github_timeout": 1,
                                       "github_models": False})
            session = ReviewSession(github_api.make_github(settings), None, REPO, settings, WORKFLOW_LOGIN)
            review_one(session, pr.number, Request(force=True))
            before = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            pr.title = "A different title, so the comment must be edited"
            gh.inject("PATCH", EDIT_COMMENT, times=None, **fault)
            outcome = review_one(session, pr.number, Request(force=True))
            after = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            figures.github.record(f"github {name}", outcome.status == status and after == before,
                                  f"{outcome.status}, kept={after == before}")
            count_duplicates(figures, gh, pr)
    # Timeouts and a create whose answer is lost (1 s client timeout).
    for name, method, path, delay, times, expect in [
        ("timeout-once", "POST", r"^/graphql$", 1.5, 1, "published"),
        ("timeout-always", "GET", r"/pulls/\d+/files$", 1.5, None, "failed"),
        ("lost-create-answer", "POST", LIST_COMMENTS, 1.6, 1, "published"),
        ("create-502-once", "POST", LIST_COMMENTS, 0.0, 1, "published"),
    ]:
        with servers() as (gh, _):
            pr = simple_pr(gh)
            settings = build_settings({"github_token": WORKFLOW_TOKEN, "github_api_url": gh.api_url,
                                       "github_graphql_url": gh.graphql_url, "github_timeout": 1,
                                       "github_models": False})
            if delay:
                gh.inject(method, path, status=None, delay=delay, times=times)
            else:
                gh.inject(method, path, status=502, times=times)
            started = time.monotonic()
            session = ReviewSession(github_api.make_github(settings), None, REPO, settings, WORKFLOW_LOGIN)
            outcome = review_one(session, pr.number, Request(force=True))
            seconds = time.monotonic() - started
            time.sleep(max(0.0, delay - 1.0) + 0.2)  # let a slow original request land
            n = len(own_comments(gh, pr.number))
            ok = outcome.status == expect and n == (1 if expect == "published" else 0) and seconds < RUN_BOUND_S
            figures.github.record(f"github {name}", ok, f"{outcome.status}, {n} comments, {seconds:.1f}s")
            count_duplicates(figures, gh, pr)


    # A proxy or login page answered with 200: a clean failure, never "a PR without files" or a crash.
    for name, method, path in [("proxy-page-graphql", "POST", r"^/graphql$"),
                               ("proxy-page-files", "GET", r"/pulls/\d+/files$"),
                               ("proxy-page-comments", "GET", LIST_COMMENTS),
                               ("proxy-page-pull", "GET", r"/pulls/\d+$"),
                               ("proxy-page-create", "POST", LIST_COMMENTS)]:
        with servers() as (gh, _):
            pr = simple_pr(gh)
            settings = build_settings({"github_token": WORKFLOW_TOKEN, "github_api_url": gh.api_url,
                                       "github_graphql_url": gh.graphql_url, "github_timeout": 1,
                                       "github_models": False})
            gh.inject(method, path, status=200, body="<html>Sign in to continue</html>", times=None)
            try:
                session = ReviewSession(github_api.make_github(settings), None, REPO, settings, WORKFLOW_LOGIN)
                outcome = review_one(session, pr.number, Request(force=True))
                ok, why = outcome.status == "failed" and not own_comments(gh, pr.number), outcome.status
            except Exception as exc:  # noqa: BLE001  (a crash is exactly what this row measures)
                ok, why = False, repr(exc)
            figures.github.record(f"github {name}", ok, why)
            count_duplicates(figures, gh, pr)


    with servers() as (gh, _):  # a GraphQL mutation answered 502 is reported, not repeated
        settings = build_settings({"github_token": WORKFLOW_TOKEN, "github_api_url": gh.api_url,
                                   "github_graphql_url": gh.graphql_url, "github_timeout": 1,
                                       "github_models": False})
        gh.inject("POST", r"^/graphql$", status=502, times=1)
        try:
            github_api.graphql(github_api.make_github(settings), settings,
                               'mutation { addComment(input: {subjectId: "x", body: "y"}) { clientMutationId } }',
                               {}, "posting")
            ok, why = False, "no error reported"
        except GitHubError:
            ok, why = gh.count("POST", r"^/graphql$") == 1, f"{gh.count('POST', r'^/graphql$')} POSTs"
        figures.github.record("github mutation-502-not-repeated", ok, why)
    with servers() as (gh, _):  # /readworthy: the permission check answered by a proxy page
        pr = simple_pr(gh)
        gh.inject("GET", r"/collaborators/[^/]+/permission$", status=200, body="<html>login</html>", times=None)
        try:
            res = run_action_once(gh, tmp / "proxy-permission", comment_payload(pr.number, "alice", "/readworthy", 77),
                                  event="issue_comment", inputs={"fail-on-error": "true"})
            ok, why = res.code == 1 and not own_comments(gh, pr.number), f"exit {res.code}"
        except Exception as exc:  # noqa: BLE001  (a crash is exactly what this row measures)
            ok, why = False, repr(exc)
        figures.github.record("github proxy-page-permission", ok, why)
        count_duplicates(figures, gh, pr)
    transient_graphql = {"data": None, "errors": [{"message": "Something went wrong while executing your query."}]}
    with servers() as (gh, _):  # HTTP 200, no data, GitHub's own error, on the very first query
        pr = simple_pr(gh)
        gh.inject("POST", r"^/graphql$", status=200, body=transient_graphql, times=1)
        res = run_action_once(gh, tmp / "transient-graphql", pr_payload(pr, "opened"))
        n = len(own_comments(gh, pr.number))
        figures.github.record("github transient-graphql-first-query", res.code == 0 and n == 1,
                              f"exit {res.code}, {n} comments, {gh.count('POST', r'^/graphql$')} GraphQL POSTs")
        count_duplicates(figures, gh, pr)


# --------------------------------------------------------------------------- model faults


def model_matrix(figures: Figures, tmp: Path) -> None:
    for name, transient, persistent, words in MODEL_FAULTS:
        if transient is not None:
            with servers() as (gh, ai):
                pr = simple_pr(gh)
                transient(ai)
                ai.add_json(GOOD_DIGEST)
                res = run_action_once(gh, tmp / f"m-t-{name}", pr_payload(pr, "opened"), ai=ai)
                comments = own_comments(gh, pr.number)
                state = decode_state(comments[0].body) if comments else None
                ok = res.code == 0 and state is not None and state.analyzer == "model" and res.seconds < RUN_BOUND_S
                figures.model.record(f"model transient {name}", ok, f"exit {res.code}, {state and state.analyzer}")
                count_duplicates(figures, gh, pr)
        with servers() as (gh, ai):  # no previous comment: a labelled heuristic fallback is posted
            pr = simple_pr(gh)
            persistent(ai)
            res = run_action_once(gh, tmp / f"m-p-{name}", pr_payload(pr, "opened"), ai=ai)
            comments = own_comments(gh, pr.number)
            state = decode_state(comments[0].body) if comments else None
            ok = (res.code == 0 and state is not None and state.analyzer == "heuristic"
                  and words in state.fallback_reason.lower() and "Heuristic fallback" in comments[0].body
                  and res.seconds < RUN_BOUND_S)
            figures.model.record(f"model persistent {name}", ok,
                                 f"exit {res.code}, {state and (state.analyzer, state.fallback_reason)}")
            count_duplicates(figures, gh, pr)
        with servers() as (gh, ai):  # a model comment exists for the same inputs: it is kept
            pr = simple_pr(gh)
            ai.add_json(GOOD_DIGEST)
            run_action_once(gh, tmp / f"m-k-{name}-0", pr_payload(pr, "opened"), ai=ai)
            before = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            persistent(ai)
            res = run_action_once(gh, tmp / f"m-k-{name}", pr_payload(pr, "opened"), ai=ai, inputs={"force": "true"})
            after = [(c.id, c.body) for c in own_comments(gh, pr.number)]
            ok = res.code == 0 and after == before and len(before) == 1 and "previous comment was kept" in res.summary
            figures.model.record(f"model keeps-comment {name}", ok, f"exit {res.code}, kept={after == before}")
            count_duplicates(figures, gh, pr)


    for name, (body, content_type) in NOT_A_COMPLETION.items():  # 200 answers that are not completions
        with servers() as (gh, ai):
            pr = simple_pr(gh)
            ai.add_raw(200, body, content_type=content_type, times=6)
            try:
                res = run_action_once(gh, tmp / f"m-raw-{name}", pr_payload(pr, "opened"), ai=ai)
                comments = own_comments(gh, pr.number)
                state = decode_state(comments[0].body) if comments else None
                ok = res.code == 0 and state is not None and state.analyzer == "heuristic" and bool(state.fallback_reason)
                why = f"exit {res.code}, {state and state.analyzer}"
            except Exception as exc:  # noqa: BLE001  (a crash is exactly what this row measures)
                ok, why = False, repr(exc)
            figures.model.record(f"model answer {name}", ok, why)
            count_duplicates(figures, gh, pr)
    for name, _, persistent, _words in MODEL_FAULTS[:2]:  # fail-on-error: true turns an outage into exit 1
        with servers() as (gh, ai):
            pr = simple_pr(gh)
            persistent(ai)
            res = run_action_once(gh, tmp / f"m-f-{name}", pr_payload(pr, "opened"), ai=ai,
                                  inputs={"fail-on-error": "true"})
            comments = own_comments(gh, pr.number)
            ok = res.code == 1 and len(comments) == 1 and "Heuristic fallback" in comments[0].body
            figures.model.record(f"model fail-on-error {name}", ok, f"exit {res.code}")
            count_duplicates(figures, gh, pr)


# --------------------------------------------------------------------------- endpoint trouble (issue 16)

STUCK_BOUND_S = 150.0  # issue 16: a stuck endpoint ends in the labelled fallback within this, with defaults
STUCK_RUN_PRS, STUCK_RUN_BOUND_S = 5, 10


def endpoint_matrix(figures: Figures, tmp: Path) -> None:
    """A stuck endpoint with the default settings, and configuration errors that must not be retried."""
    with servers() as (gh, ai):  # accepts the connection, never answers; no model-timeout input
        pr = simple_pr(gh)
        ai.add_stall(times=20)
        res = run_action_once(gh, tmp / "stuck", pr_payload(pr, "opened"), ai=ai, inputs={"model-timeout": ""})
        comments = own_comments(gh, pr.number)
        state = decode_state(comments[0].body) if comments else None
        ok = (res.code == 0 and state is not None and state.analyzer == "heuristic"
              and "Heuristic fallback" in comments[0].body and res.seconds <= STUCK_BOUND_S)
        reason = state.fallback_reason if state else "no comment"
        figures.model.record("model stuck-endpoint (defaults)", ok, f"{res.seconds:.0f}s, {reason}")
        figures.endpoint_lines.append(f"stuck endpoint, defaults: {res.seconds:.1f}s to the end of the run, "
                                      f"{len(ai.chat_requests)} request(s); reason: {reason}")
        count_duplicates(figures, gh, pr)
    with servers() as (gh, ai):  # one run over several PRs: only the first SILENT_LIMIT wait for the bound
        prs = [simple_pr(gh) for _ in range(STUCK_RUN_PRS)]
        ai.add_stall(times=20)
        res = run_action_once(gh, tmp / "stuck-run", {"inputs": {"pr-number": " ".join(str(p.number) for p in prs)}},
                              ai=ai, event="workflow_dispatch", inputs={"model-timeout": str(STUCK_RUN_BOUND_S)})
        states = [decode_state(c[0].body) if c else None for c in (own_comments(gh, p.number) for p in prs)]
        ok = res.code == 0 and all(st is not None and st.analyzer == "heuristic" for st in states)
        figures.model.record("model stuck-endpoint (one run, several PRs)", ok,
                             f"{res.seconds:.0f}s, {len(ai.chat_requests)} requests")
        figures.endpoint_lines.append(
            f"stuck endpoint, one run over {STUCK_RUN_PRS} PRs with model-timeout {STUCK_RUN_BOUND_S} s: "
            f"{res.seconds:.1f}s, {len(ai.chat_requests)} request(s), all {STUCK_RUN_PRS} comments heuristic")
        for p in prs:
            count_duplicates(figures, gh, p)
    with servers() as (gh, ai):  # OPENAI_BASE_URL="not a url" (issue 16)
        pr = simple_pr(gh)
        res = run_action_once(gh, tmp / "bad-url", pr_payload(pr, "opened"), ai=ai,
                              inputs={"openai-base-url": "not a url"})
        said = res.summary + res.stdout
        named = "openai-base-url" in said and "not a url" in said.lower()
        ok = named and res.seconds < 5.0
        figures.model.record("model bad-base-url", ok, f"exit {res.code}, {res.seconds:.1f}s, named={named}")
        first = next((ln for ln in res.summary.splitlines() if "url" in ln.lower()), res.summary[:160])
        figures.endpoint_lines.append(f"base URL 'not a url': exit {res.code} after {res.seconds:.1f}s; "
                                      f"summary: {first.strip()[:200]}")
        count_duplicates(figures, gh, pr)
    for name, status, message, fix in [("401", 401, "Incorrect API key provided", "openai-api-key"),
                                       ("404-model", 404, "The model does not exist", "gpt-4.1-mini")]:
        with servers() as (gh, ai):  # configuration errors: one request, the reason names the input to fix
            pr = simple_pr(gh)
            ai.add_error(status, message, times=4)
            res = run_action_once(gh, tmp / f"cfg-{name}", pr_payload(pr, "opened"), ai=ai)
            comments = own_comments(gh, pr.number)
            state = decode_state(comments[0].body) if comments else None
            reason = state.fallback_reason if state else ""
            ok = len(ai.chat_requests) == 1 and fix in reason and res.seconds < 5.0
            figures.model.record(f"model config {name}", ok, f"{len(ai.chat_requests)} requests, {reason!r}")
            figures.endpoint_lines.append(f"{name}: {len(ai.chat_requests)} request(s), {res.seconds:.1f}s; "
                                          f"reason: {reason}")
            count_duplicates(figures, gh, pr)


def github_models_matrix(figures: Figures, tmp: Path) -> None:
    """No key: GitHub Models (the test server stands in) with the workflow token; its refusals end at once."""
    for name, script, want in [
        ("default", lambda ai: ai.add_json(GOOD_DIGEST), "model"),
        ("403-no-models-permission", lambda ai: ai.add_error(403, "models permission required", times=4),
         "models: read"),
        ("429-day-quota", lambda ai: ai.add_error(429, "UserByModelByDay exceeded", times=4, headers={
            "Retry-After": "30000", "x-ratelimit-type": "UserByModelByDay"}), "daily request quota"),
        # issue 23: the 403s a workflow with `models: read` still gets, told apart by what they say
        ("403-models-disabled", lambda ai: ai.add_error(403, "GitHub Models is disabled for this organization.",
                                                        times=4), "is not enabled for this repository"),
        ("403-model-not-allowed", lambda ai: ai.add_error(403, "No access to model: openai/gpt-4.1-mini", times=4),
         "does not allow the model openai/gpt-4.1-mini"),
        ("403-no-body", lambda ai: ai.add_raw(403, "", content_type="application/json", times=4),
         "with no message"),
    ]:
        with servers() as (gh, ai):
            pr = simple_pr(gh)
            script(ai)
            res = run_action_once(gh, tmp / f"ghm-{name}", pr_payload(pr, "opened"), env_extra={
                "READWORTHY_GITHUB_MODELS": "true", "READWORTHY_GITHUB_MODELS_URL": ai.url})
            comments = own_comments(gh, pr.number)
            state = decode_state(comments[0].body) if comments else None
            bearer = [r.headers.get("authorization") for r in ai.chat_requests] == [f"Bearer {WORKFLOW_TOKEN}"]
            if want == "model":
                ok = state is not None and state.analyzer == "model"
            else:
                ok = state is not None and state.analyzer == "heuristic" and want in comments[0].body
                # a 403 with `models: read` granted must not be blamed on `models: read` alone
                ok = ok and (name == "403-no-models-permission" or not name.startswith("403")
                             or "grant it with `permissions: models: read`" not in comments[0].body)
            ok = ok and bearer and res.code == 0 and res.seconds < 5.0
            reason = state.fallback_reason if state else "no comment"
            figures.model.record(f"github-models {name}", ok, f"{res.seconds:.1f}s, bearer={bearer}, {reason!r}")
            figures.endpoint_lines.append(f"GitHub Models {name}: {len(ai.chat_requests)} request(s), "
                                          f"{res.seconds:.1f}s; {state.analyzer if state else '?'}"
                                          f"{'; reason: ' + reason if reason else ''}")
            count_duplicates(figures, gh, pr)
    with servers() as (gh, ai):  # a custom base URL and no key (a fork's run): the GitHub token stays home
        pr = simple_pr(gh)
        ai.add_json(GOOD_DIGEST, times=3)
        res = run_action_once(gh, tmp / "ghm-custom", pr_payload(pr, "opened"), inputs={"openai-base-url": ai.url},
                              env_extra={"READWORTHY_GITHUB_MODELS": "true"})
        leaked_token = any(WORKFLOW_TOKEN in json.dumps(r.headers) for r in ai.requests)
        figures.model.record("github-models token-not-sent-to-custom-url", not ai.requests and not leaked_token,
                             f"{len(ai.requests)} requests")
        figures.endpoint_lines.append(f"custom base URL without a key: {len(ai.requests)} request(s) to it")
        count_duplicates(figures, gh, pr)
    for name, url in [("http-proxy", "http://proxy.invalid/inference"), ("loopback", None)]:
        with servers() as (gh, ai):  # issue 23: READWORTHY_GITHUB_MODELS_URL cannot take the token elsewhere
            pr = simple_pr(gh)
            ai.add_json(GOOD_DIGEST)
            res = run_action_once(gh, tmp / f"ghm-url-{name}", pr_payload(pr, "opened"), loopback=False, env_extra={
                "READWORTHY_GITHUB_MODELS": "true", "READWORTHY_GITHUB_MODELS_URL": url or ai.url})
            ok = res.code == 1 and not ai.requests and "READWORTHY_GITHUB_MODELS_URL" in res.summary
            figures.model.record(f"github-models url {name} refused in the action", ok,
                                 f"exit {res.code}, {len(ai.requests)} requests")
            figures.endpoint_lines.append(f"GitHub Models URL {name} in the action: exit {res.code}, "
                                          f"{len(ai.requests)} request(s) sent")


# --------------------------------------------------------------------------- hostile input and output


def hostile_matrix(figures: Figures, tmp: Path) -> None:
    # Injections: every kind of PR text, fenced as data; a forged fence line does not close it.
    where = ("title", "body", "comment", "diff", "issue", "thread", "review", "commit")
    with servers() as (gh, ai):
        pr = seed_hostile_pr(gh, {w: f"{INJECTION} [{w}-inj]" for w in where})
        pr.files[0].patch = (pr.files[0].patch or "") + "".join("+" + x + "\n" for x in FAKE_FENCE_CLOSE.split("\n"))
        ai.add_json(GOOD_DIGEST)
        run_action_once(gh, tmp / "inj", pr_payload(pr, "opened"), ai=ai)
        text = ai.chat_requests[-1].json["messages"][1]["content"] if ai.chat_requests else ""
        nonce, inside, outside = split_fence(text)
        for w in where:
            figures.hostile.record(f"injection in {w}", f"[{w}-inj]" in inside and f"[{w}-inj]" not in outside,
                                   "not fenced")
        figures.hostile.record("forged fence close", "RW-000000000000" in inside and nonce not in inside,
                               "fence closable")
        for i, variant in enumerate(HIDDEN_VARIANTS):
            figures.hostile.record(f"hidden text {variant[:24]!r}", f"{HIDDEN_INSTRUCTION}-{i}" not in text,
                                   "reached the model")
        count_duplicates(figures, gh, pr)
    # A PR body line that is a workflow command, printed to the log by show-prompt: fenced by stop-commands.
    with servers() as (gh, ai):
        plain = dict.fromkeys(("title", "body", "comment", "diff", "issue", "thread", "review", "commit"), "text")
        pr = seed_hostile_pr(gh, {**plain, "body": "::warning::forged by the PR\n::add-mask::x\n::stop-commands::pwned"})
        ai.add_json(GOOD_DIGEST)
        res = run_action_once(gh, tmp / "workflow-command", pr_payload(pr, "opened"), ai=ai,
                              inputs={"show-prompt": "true"})
        lines = res.stdout.splitlines()
        starts = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
        token = lines[starts[0]].split("::")[2] if starts else ""
        end = lines.index(f"::{token}::") if token and f"::{token}::" in lines else -1
        forged = [i for i, line in enumerate(lines) if line == "::warning::forged by the PR"]
        ok = bool(forged) and token != "pwned" and all(starts[0] < i < end for i in forged)
        figures.hostile.record("workflow command in PR text (show-prompt)", ok,
                               "printed outside ::stop-commands::" if forged else "prompt not printed")
    # Hostile model answers: every attack in every field, in both languages.
    for attack in sorted(HOSTILE_STRINGS):
        for language in ("en", "zh-CN"):
            with servers() as (gh, ai):
                pr = simple_pr(gh)
                ai.add_json(hostile_digest(attack))
                run_action_once(gh, tmp / f"h-{attack}-{language}", pr_payload(pr, "opened"), ai=ai,
                                inputs={"language": language})
                comments = own_comments(gh, pr.number)
                problems = comment_problems(comments[0].body, urlsplit(gh.html_url).hostname or "") \
                    if comments else ["no comment"]
                figures.hostile.record(f"model answer {attack} ({language})", problems == [], "; ".join(problems))
                count_duplicates(figures, gh, pr)
    # No key: the heuristic echoes the PR's own hostile text; it must come out as harmless.
    for attack in sorted(set(HOSTILE_STRINGS) - {"huge"}):
        with servers() as (gh, _):
            text = HOSTILE_STRINGS[attack]
            pr = seed_hostile_pr(gh, dict.fromkeys(
                ("title", "body", "comment", "diff", "issue", "thread", "review", "commit"), text))
            run_action_once(gh, tmp / f"hh-{attack}", pr_payload(pr, "opened"))
            comments = own_comments(gh, pr.number)
            problems = comment_problems(comments[0].body, urlsplit(gh.html_url).hostname or "") \
                if comments else ["no comment"]
            figures.hostile.record(f"PR text via heuristic {attack}", problems == [], "; ".join(problems))
            count_duplicates(figures, gh, pr)
    for verdict in ("must-read", "", None):
        with servers() as (gh, ai):
            pr = simple_pr(gh)
            ai.add_json({**GOOD_DIGEST, "verdict": verdict}, times=2)
            run_action_once(gh, tmp / f"v-{verdict}", pr_payload(pr, "opened"), ai=ai)
            comments = own_comments(gh, pr.number)
            state = decode_state(comments[0].body) if comments else None
            figures.hostile.record(f"invalid verdict {verdict!r}", state is not None and state.analyzer == "heuristic",
                                   "not a labelled fallback")
            count_duplicates(figures, gh, pr)


def seed_hostile_pr(gh: GitHubServer, text: dict[str, str]) -> PullRequest:
    issue = gh.add_issue(REPO, "Worker crash on CPU", text["issue"], comments=[("carol", text["issue"])])
    hidden = "\n".join(v.replace(HIDDEN_INSTRUCTION, f"{HIDDEN_INSTRUCTION}-{i}") for i, v in enumerate(HIDDEN_VARIANTS))
    pr = gh.add_pr(REPO, text["title"], f"{text['body']}\n{hidden}\n\nFixes #{issue.number}",
                   user="mallory",
                   files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=2, deletions=1,
                                 patch="@@ -40,2 +40,3 @@ class CPUWorker:\n     def init_device(self):\n"
                                       f"-        torch.set_num_threads(os.cpu_count())\n+        # {text['diff']}\n"
                                       "+        torch.set_num_threads(2)\n")],
                   commits=[PRCommit(sha="a" * 40, message=f"Split threads\n\n{text['commit']}", author="mallory")])
    pr.closing_issues.append(ItemRef(REPO, issue.number))
    gh.add_comment(REPO, pr.number, "mallory", text["comment"])
    review = gh.add_review(REPO, pr.number, "mallory", "COMMENTED", text["review"])
    gh.add_thread(REPO, pr.number, "vllm/v1/worker/cpu_worker.py", 41, [("mallory", text["thread"])], review=review)
    return pr


def split_fence(text: str) -> tuple[str, str, str]:
    import re

    marks = list(re.finditer(r"^<<<(BEGIN|END) (RW-[0-9a-f]{12}) (\w+)>>>", text, re.MULTILINE))
    if not marks:
        return "", "", text
    nonce = marks[0].group(2)
    real = [m for m in marks if m.group(2) == nonce]
    inside = "".join(text[b.end() : e.start()] for b, e in zip(real[::2], real[1::2], strict=False))
    outside = text[: real[0].start()] + "".join(
        text[e.end() : (n.start() if n else len(text))] for e, n in zip(real[1::2], [*real[2::2], None], strict=False))
    return nonce, inside, outside


# --------------------------------------------------------------------------- secrets


def secrets_matrix(figures: Figures, tmp: Path) -> None:
    planted_text = (f"AWS_ACCESS_KEY_ID={SECRETS['aws_access_key']} token {SECRETS['github_token']} "
                    f"OPENAI_API_KEY={SECRETS['openai_key']} slack {SECRETS['slack_token']} "
                    f"DB_PASSWORD={SECRETS['password']}")
    places = ("body", "comment", "issue body", "issue comment", "thread", "review", "commit")
    for mode in ("model", "heuristic", "model-failed"):
        with servers() as (gh, ai):
            pr = seed_hostile_pr(gh, {"title": f"Fix crash {SECRETS['github_token']}", "body": planted_text,
                                      "comment": planted_text, "diff": f"AWS_ACCESS_KEY_ID={SECRETS['aws_access_key']}",
                                      "issue": planted_text, "thread": planted_text, "review": planted_text,
                                      "commit": planted_text})
            pr.files[0].patch = (pr.files[0].patch or "") + f'+DB_PASSWORD = "{SECRETS["password"]}"\n' + "".join(
                "+" + line + "\n" for line in PRIVATE_KEY_BLOCK.split("\n"))
            # 5 per planted text in 7 places, the title's token, the diff's key, password and key block
            planted = 5 * len(places) + 1 + 3
            if mode == "model":
                ai.add_json(GOOD_DIGEST)
            elif mode == "model-failed":
                ai.add_error(500, "down", times=4)
            res = run_action_once(gh, tmp / f"s-{mode}", pr_payload(pr, "opened"),
                                  ai=None if mode == "heuristic" else ai, inputs={"show-prompt": "true"})
            comments = own_comments(gh, pr.number)
            body = comments[0].body if comments else ""
            state = decode_state(body)
            outputs = {"model request": "\n".join(r.body.decode("utf-8", "replace") for r in ai.requests),
                       "comment": body, "hidden state": state.model_dump_json() if state else "",
                       "job summary": res.summary, "stdout": res.stdout, "logs": res.logs}
            figures.secrets_planted += planted
            figures.secrets_leaked += sum(1 for text in outputs.values() for _ in leaked(text))
            figures.leak_details += [f"{mode}: {where} has {leaked(text)}" for where, text in outputs.items() if leaked(text)]
            counted = state.coverage.secrets_redacted if state else -1
            if counted != planted:
                figures.leak_details.append(f"{mode}: footer counts {counted}, planted {planted}")
            count_duplicates(figures, gh, pr)
    # Our own secrets: ::add-mask:: first, then never printed, even with show-prompt and step debug.
    with servers() as (gh, ai):
        pr = simple_pr(gh)
        ai.add_error(401, "Incorrect API key provided: " + KEY)
        res = run_action_once(gh, tmp / "own", pr_payload(pr, "opened"), ai=ai,
                              inputs={"show-prompt": "true"})
        for secret in (KEY, WORKFLOW_TOKEN):
            figures.secrets_planted += 1
            masked = f"::add-mask::{secret}" in res.stdout.splitlines()
            printed = [ln for ln in res.stdout.splitlines() if secret in ln and not ln.startswith("::add-mask::")]
            if not masked or printed or secret in res.summary or secret in res.logs:
                figures.secrets_leaked += 1
                figures.leak_details.append(f"own secret {secret[:6]}…: masked={masked}, printed={len(printed)}")
        count_duplicates(figures, gh, pr)


# --------------------------------------------------------------------------- report


def main() -> int:
    # Runs outside run_action_once (review_one calls) log too; the figures are the output, not the logs.
    logging.getLogger().addHandler(logging.NullHandler())
    logging.getLogger().setLevel(logging.WARNING)
    # GitHub's GraphQL schema loads once per process (~2 s); do it before anything is timed.
    warm = GitHubServer().start()
    requests.post(warm.graphql_url, json={"query": "query { viewer { login } }"},
                  headers={"Authorization": f"token {WORKFLOW_TOKEN}"}, timeout=60)
    warm.stop()
    figures = Figures()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        stages: list[tuple[str, Callable[[Figures, Path], None]]] = [
            ("github faults", github_matrix), ("model faults", model_matrix), ("endpoint trouble", endpoint_matrix),
            ("github models", github_models_matrix),
            ("hostile cases", hostile_matrix), ("secrets", secrets_matrix),
        ]
        # `--only "github models,secrets"`: just those stages (no input rows), e.g. while iterating on one
        only = {name.strip() for arg in sys.argv[2:3] if sys.argv[1:2] == ["--only"] for name in arg.split(",")}
        inputs = [] if only else input_rows(tmp)  # issue 16: broken patches, link titles, secret look-alikes
        inputs += [] if only else reading_rows(tmp)  # issue 23: busy PRs, taste memory, locked PRs, digest reports
        for label, stage in stages:
            if only and label not in only:
                continue
            t = time.monotonic()
            stage(figures, tmp)
            print(f"  ran {label} in {time.monotonic() - t:.1f}s", file=sys.stderr)
    g, m, h = figures.github, figures.model, figures.hostile
    print("readworthy robustness matrix (issue 8)")
    print(f"  GitHub faults injected / survived : {g.tried} / {g.ok}")
    print(f"  model faults injected / survived  : {m.tried} / {m.ok}")
    print(f"  faults injected / survived (all)  : {g.tried + m.tried} / {g.ok + m.ok}")
    print(f"  hostile cases tried / neutralised : {h.tried} / {h.ok}")
    print(f"  secrets planted / leaked          : {figures.secrets_planted} / {figures.secrets_leaked}")
    print(f"  duplicate comments                : {figures.duplicate_comments} (over {figures.prs_checked} PRs)")
    if inputs:
        print_rows(inputs)
    print(f"  wall time                         : {time.monotonic() - started:.1f}s")
    for line in figures.endpoint_lines:
        print(f"  endpoint: {line}")
    problems = g.failures + m.failures + h.failures + figures.leak_details
    problems += [f"{row.name}: {row.outcome}" for row in inputs if not row.ok]
    for line in problems:
        print(f"  ! {line}")
    ok = not problems and figures.secrets_leaked == 0 and figures.duplicate_comments == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
