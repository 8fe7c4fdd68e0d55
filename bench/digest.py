"""Bench: a 30-PR digest of the real vLLM diffs, cold then warm, against the tests' servers.

    .venv/bin/python bench/digest.py [--sample FILE]

Seeds the tests' GitHub server with the 30 real vLLM pull requests in ../shared/fixtures/vllm
(merged over the last 24 hours), then runs `readworthy digest --since 24h` four times:

    model cold      every PR analysed through the OpenAI-compatible test server, comments written
    model warm      every analysis reused from the PR comments: 0 model calls
    heuristic cold  no key: the heuristic analyzer (a fresh repository)
    heuristic warm

and prints wall time, GitHub requests (reads / writes) and model calls for each. Wall time
includes PyGithub's 1 s spacing between writes (github_api.SECONDS_BETWEEN_WRITES, GitHub's
advice against secondary rate limits): a cold run writes one comment per PR.
`--sample FILE` also saves the heuristic digest's Markdown (e.g. /work/notes/sample-digest.md).
Skips cleanly (exit 0, a message) where the fixtures are absent.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "src"))

from digest_seeding import REPO, load_vllm_prs, model_reply, seed_vllm  # noqa: E402
from servers.github_fixtures import WORKFLOW_TOKEN  # noqa: E402
from servers.github_server import GitHubServer  # noqa: E402
from servers.openai_server import OpenAIServer  # noqa: E402

from readworthy.cli import main  # noqa: E402

VLLM = ROOT.parent / "shared" / "fixtures" / "vllm"


def _run(server: GitHubServer, ai: OpenAIServer | None, out: Path, label: str) -> dict[str, object]:
    # No key means the heuristic here, never GitHub Models over the internet (the default since issue 13).
    env = {"GITHUB_TOKEN": WORKFLOW_TOKEN, "GITHUB_API_URL": server.api_url,
           "GITHUB_GRAPHQL_URL": server.graphql_url, "READWORTHY_GITHUB_MODELS": "false"}
    if ai is not None:
        env |= {"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": ai.url}
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_STEP_SUMMARY"):
        os.environ.pop(key, None)
    os.environ.update(env)
    server.clear_log()
    calls_before = len(ai.chat_requests) if ai else 0
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):
        code = main(["digest", "--repo", REPO, "--since", "24h", "--output", str(out)])
    seconds = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"{label}: readworthy digest exited {code}")
    data = json.loads(out.read_text()) if out.suffix == ".json" else {}
    writes = sum(1 for r in server.requests if r.is_write)
    return {
        "run": label,
        "seconds": round(seconds, 2),
        "github_requests": len(server.requests),
        "github_writes": writes,
        "model_calls": (len(ai.chat_requests) - calls_before) if ai else 0,
        "listed": len(data.get("entries", [])),
        "reused": data.get("cached", ""),
        "analysed": data.get("analysed", ""),
        "left_out": len([x for x in data.get("left_out", []) if x.get("reason") != "skipped-rule"]),
        "skipped_by_rule": len([x for x in data.get("left_out", []) if x.get("reason") == "skipped-rule"]),
    }


def _seeded_server(now: datetime) -> GitHubServer:
    server = GitHubServer().start()
    seed_vllm(server, load_vllm_prs(VLLM), now)
    return server


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=Path, help="save the heuristic digest's Markdown here")
    args = parser.parse_args()
    if not (VLLM / "index.json").is_file():
        print(f"skipped: the real vLLM fixtures are not present at {VLLM}")
        return 0
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"readworthy-bench-digest-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    rows = []

    server = _seeded_server(now)
    ai = OpenAIServer().start()
    try:
        ai.add_json(model_reply("skim"), times=200)  # more than enough; extra calls would show as model_calls
        rows.append(_run(server, ai, tmp / "model-cold.json", "model cold"))
        rows.append(_run(server, ai, tmp / "model-warm.json", "model warm"))
    finally:
        ai.stop()
        server.stop()

    server = _seeded_server(now)
    try:
        rows.append(_run(server, None, tmp / "heuristic-cold.json", "heuristic cold"))
        rows.append(_run(server, None, tmp / "heuristic-warm.json", "heuristic warm"))
        _run(server, None, tmp / "heuristic.md", "heuristic markdown")
        if args.sample:
            args.sample.write_text((tmp / "heuristic.md").read_text(), encoding="utf-8")
    finally:
        server.stop()

    header = ("run", "seconds", "github_requests", "github_writes", "model_calls", "listed", "reused",
              "analysed", "left_out", "skipped_by_rule")
    widths = [max(len(h), *(len(str(r[h])) for r in rows)) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        print("  ".join(str(row[h]).ljust(w) for h, w in zip(header, widths, strict=True)))
    warm = next(r for r in rows if r["run"] == "model warm")
    print(f"\nwarm run model calls: {warm['model_calls']} (must be 0)")
    if args.sample:
        print(f"sample digest saved to {args.sample}")
    return 0 if warm["model_calls"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main_bench())
