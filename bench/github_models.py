"""Bench: does every request fit GitHub Models' limits, and what happens when one does not?

    .venv/bin/python bench/github_models.py [--src PATH]

Each scenario runs readworthy end to end (`readworthy action` for one PR, `readworthy digest` for many)
against the tests' GitHub server and the GitHub Models stand-in (tests/servers/github_models_limits.py),
which counts the whole request (messages + the JSON schema) and answers GitHub's own 413 and 429s:

    repair turn        a PR far over the limit; the first answer is not valid JSON, so a repair turn follows
    4,000-input model  `model: o4-mini` (plan pro), whose requests GitHub caps at 4,000 input tokens
    concurrency 429    another request of the same token holds the only slot for 3 s (UserConcurrentRequests,
                       `retry-after: 0`)
    a smaller limit    the endpoint allows fewer input tokens than the table says (6,000): a 413 first
    digest, high tier  8 PRs with `model: gpt-4.1` (2 at once), each answer taking 0.5 s

For each: the requests sent, the largest whole request in tokens against the limit, the answers, the wait
between attempts, and whether the PR got a model analysis. `--src PATH` runs another checkout's
`src/` (e.g. main's, for the figures before a change) against the same servers and scenarios.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _paths(src: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    sys.path.insert(0, str(src))


def _quiet(fn: Any, *args: Any) -> Any:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return fn(*args)


def _action(environ: Any) -> int:
    """`readworthy action` in process; the stand-in is on loopback, which only the test runner may allow."""
    from readworthy.action import run_action

    allow = "loopback_models" in inspect.signature(run_action).parameters  # older checkouts have no such switch
    return int(_quiet(lambda: run_action(environ, loopback_models=True) if allow else run_action(environ)))


def _env(gh: Any, ai: Any, work: Path, event: str, payload: Any, inputs: dict[str, str]) -> None:
    import json

    from servers.github_state import WORKFLOW_TOKEN

    work.mkdir(parents=True, exist_ok=True)
    (work / "event.json").write_text(json.dumps(payload))
    for name in ("out", "summary.md"):
        (work / name).write_text("")
    for key in [k for k in os.environ if k.startswith(("GITHUB_", "INPUT_", "OPENAI_", "READWORTHY_"))
                and k != "READWORTHY_GRAPHQL_SCHEMA"]:  # the GitHub server's, not the product's
        del os.environ[key]
    os.environ.update({
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(work / "event.json"),
        "GITHUB_REPOSITORY": "vllm-project/vllm", "GITHUB_API_URL": gh.api_url, "GITHUB_GRAPHQL_URL": gh.graphql_url,
        "GITHUB_OUTPUT": str(work / "out"), "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
        "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN, "READWORTHY_GITHUB_MODELS_URL": ai.url,
    })
    os.environ.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})


def _analyzer(gh: Any, number: int) -> str:
    from action_run import own_comments

    from readworthy.render.state import decode_state

    comments = own_comments(gh, number)
    state = decode_state(comments[-1].body) if comments else None
    if state is None:
        return "no comment"
    return state.analyzer + (f" ({state.fallback_reason[:70]}…)" if state.fallback_reason else "")


def _row(name: str, ai: Any, limit: int, gh: Any = None, number: int = 0, extra: str = "") -> dict[str, Any]:
    limiter = ai.limiter
    sizes = [limiter.input_tokens(r.json)[0] for r in ai.chat_requests]
    gaps = [b.time - a.time for a, b in zip(ai.chat_requests, ai.chat_requests[1:], strict=False)]
    refused = dict(limiter.refusals)
    return {"scenario": name, "requests": len(sizes), "largest": max(sizes, default=0), "limit": limit,
            "admitted": limiter.largest_admitted,
            "refused": refused, "gaps": gaps, "result": _analyzer(gh, number) if gh is not None else extra}


def _asked(pr: Any) -> dict[str, Any]:
    """A dispatch for the PR: triage reads the generated-looking big PR as a confident skip, which a push sends
    to no model at all (issue 21); a maintainer's ask always gets one, so the request's size is what is measured."""
    return {"inputs": {"pr-number": str(pr.number)}, "repository": {"full_name": "vllm-project/vllm"}}


def repair_turn(work: Path) -> dict[str, Any]:
    from action_run import GOOD_DIGEST
    from servers.github_models_limits import Limits
    from servers.github_server import GitHubServer
    from servers.openai_server import OpenAIServer


    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        pr = _big_pr(gh)
        ai.github_models(Limits())
        # an answer that is not JSON and long (the issue measured a 689-token rejected answer), then a good one
        ai.add_reply("Here is my analysis of the pull request. " + "The routes move into modules. " * 110)
        ai.add_json(GOOD_DIGEST)
        _env(gh, ai, work, "workflow_dispatch", _asked(pr), {})
        _action(os.environ)
        return _row("repair turn (8,000-input model)", ai, 8_000, gh, pr.number)
    finally:
        gh.stop()
        ai.stop()


def small_model(work: Path) -> dict[str, Any]:
    from action_run import GOOD_DIGEST
    from servers.github_models_limits import Limits
    from servers.github_server import GitHubServer
    from servers.openai_server import OpenAIServer


    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        pr = _big_pr(gh)
        ai.github_models(Limits(), per_model={"openai/o4-mini": Limits(4_000, 4_000, 2, 12, 1)})
        ai.add_json(GOOD_DIGEST, times=4)
        _env(gh, ai, work, "workflow_dispatch", _asked(pr), {"model": "o4-mini", "github-models-plan": "pro"})
        _action(os.environ)
        return _row("4,000-input model (o4-mini)", ai, 4_000, gh, pr.number)
    finally:
        gh.stop()
        ai.stop()


def concurrency(work: Path) -> dict[str, Any]:
    from action_run import GOOD_DIGEST, pr_payload, small_pr
    from servers.github_models_limits import Limits, hold_a_slot
    from servers.github_server import GitHubServer
    from servers.github_state import WORKFLOW_TOKEN
    from servers.openai_server import OpenAIServer


    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        pr = small_pr(gh)
        limiter = ai.github_models(Limits(concurrent=1))
        ai.add_json(GOOD_DIGEST, times=6)
        _env(gh, ai, work, "pull_request_target", pr_payload(pr, "opened"), {})
        other = hold_a_slot(limiter, ai.url, WORKFLOW_TOKEN, 3.0)  # another workflow run of the same token
        started = time.monotonic()
        _action(os.environ)
        other.join()
        row = _row("concurrency 429 (retry-after: 0)", ai, 8_000, gh, pr.number)
        row["gaps"] = row["gaps"][1:]  # the other run's request is first
        row["requests"] -= 1
        row["wall"] = time.monotonic() - started
        return row
    finally:
        gh.stop()
        ai.stop()


def smaller_limit(work: Path) -> dict[str, Any]:
    from action_run import GOOD_DIGEST
    from servers.github_models_limits import Limits
    from servers.github_server import GitHubServer
    from servers.openai_server import OpenAIServer


    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        pr = _big_pr(gh)
        ai.github_models(Limits(input_tokens=6_000))
        ai.add_json(GOOD_DIGEST, times=4)
        _env(gh, ai, work, "workflow_dispatch", _asked(pr), {})
        _action(os.environ)
        return _row("endpoint allows 6,000, not 8,000", ai, 6_000, gh, pr.number)
    finally:
        gh.stop()
        ai.stop()


def digest_high_tier(work: Path) -> dict[str, Any]:
    from action_run import GOOD_DIGEST
    from digest_seeding import add_pr_at, use_wall_clock
    from servers.github_models_limits import Limits
    from servers.github_server import GitHubServer
    from servers.github_state import WORKFLOW_TOKEN
    from servers.openai_server import OpenAIServer

    from readworthy.analyze import attempts
    from readworthy.cli import main

    gh, ai = GitHubServer().start(), OpenAIServer().start()
    try:
        use_wall_clock(gh)
        now = datetime.now(UTC)
        for i in range(8):
            add_pr_at(gh, f"Change {i}", created=now - timedelta(hours=5), merged=now - timedelta(hours=1, minutes=i),
                      user="alice")
        limiter = ai.github_models(Limits(per_minute=10, per_day=50, concurrent=2), latency=0.5)
        ai.set_default_json(GOOD_DIGEST)
        for key in [k for k in os.environ if k.startswith(("GITHUB_", "INPUT_", "OPENAI_", "READWORTHY_"))
                    and k != "READWORTHY_GRAPHQL_SCHEMA"]:  # the GitHub server's, not the product's
            del os.environ[key]
        os.environ.update({"GITHUB_TOKEN": WORKFLOW_TOKEN, "GITHUB_API_URL": gh.api_url,
                           "GITHUB_GRAPHQL_URL": gh.graphql_url, "READWORTHY_GITHUB_MODELS_URL": ai.url})
        attempts.forget_endpoints()
        started = time.monotonic()
        out = work / "digest.json"
        work.mkdir(parents=True, exist_ok=True)
        _quiet(main, ["digest", "--repo", "vllm-project/vllm", "--since", "24h", "--model", "gpt-4.1",
                      "--dry-run", "--format", "json", "--output", str(out)])
        import json

        data = json.loads(out.read_text())
        models = sum(1 for e in data.get("entries", []) if e.get("analyzer") == "model")
        row = _row("digest, 8 PRs, high tier (2 at once)", ai, 8_000,
                   extra=f"{models} of 8 model-written; peak {limiter.peak_in_flight} in flight")
        row["wall"] = time.monotonic() - started
        return row
    finally:
        gh.stop()
        ai.stop()


def _big_pr(gh: Any) -> Any:
    from servers.github_state import PRFile

    files = []
    for i in range(24):
        lines = "".join(f"+def handler_{i}_{j}(request, retries={j}):\n+    return dispatch(request, 'r_{i}_{j}')\n"
                        for j in range(40))
        files.append(PRFile(f"vllm/entrypoints/routes/route_{i:02d}.py", status="added", additions=80,
                            patch=f"@@ -0,0 +1,80 @@\n{lines}"))
    return gh.add_pr("vllm-project/vllm", "Split the OpenAI server's routes into one module per endpoint",
                     "Moves each route handler into its own module.", user="alice", files=files)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the readworthy src/ to run")
    args = parser.parse_args()
    _paths(args.src.resolve())
    from servers.github_graphql import FETCH_COMMAND, load_github_schema

    if load_github_schema() is None:  # without it every review fails to read its PR
        print(f"GitHub's GraphQL schema is missing; run `{FETCH_COMMAND}` first", file=sys.stderr)
        return 1
    import readworthy

    print(f"readworthy from {Path(readworthy.__file__).parent}")
    from readworthy.analyze import attempts

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, scenario in enumerate((repair_turn, small_model, concurrency, smaller_limit, digest_high_tier)):
            attempts.forget_endpoints()
            started = time.monotonic()
            row = scenario(Path(tmp) / str(n))
            row.setdefault("wall", time.monotonic() - started)
            rows.append(row)
    for r in rows:
        gaps = ", ".join(f"{g:.2f}" for g in r["gaps"][:6]) or "-"
        print(f"\n{r['scenario']}\n  requests {r['requests']}, largest whole request {r['largest']:,} tokens "
              f"(limit {r['limit']:,}){' OVER' if r['largest'] > r['limit'] else ''}, largest admitted "
              f"{r['admitted']:,}; refused {r['refused'] or 'none'}"
              f"\n  seconds between requests: {gaps}; wall {r['wall']:.1f} s\n  result: {r['result']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
