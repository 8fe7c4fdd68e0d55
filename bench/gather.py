"""Bench: HTTP requests and wall time of gather_pr per PR shape, against the tests' GitHub server.

    .venv/bin/python bench/gather.py [--repeat N]

Targets (issue #3): a PR with <=100 files, <=100 comments and <=3 linked issues in <=6 requests;
a PR with 3,000+ files in <=35. For comparison, pr-agent's GitHub provider needs about
4 + 2*min(files, 50) requests plus pagination (PyGithub's 30 per page) for the same PR, and sleeps
0.25 s between them by default; its review reads no discussion at all.
Wall time includes the local server's work (it validates every GraphQL query against GitHub's schema).
The busy scenario (issue 23) also says how many review threads were read, and FAILED when there is no review.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from servers.github_fixtures import WORKFLOW_TOKEN, GitHubServer, ItemRef, PRFile, seed_discussed_pr
from servers.github_graphql import FETCH_COMMAND, load_github_schema

from readworthy.config import build_settings
from readworthy.errors import GitHubError
from readworthy.gather.diffparse import parse_patch
from readworthy.gather.github_api import make_github
from readworthy.gather.pull import gather_pr
from readworthy.gather.repo_config import load_repo_config

VLLM = next((p / "shared" / "fixtures" / "vllm" for p in ROOT.parents if (p / "shared" / "fixtures" / "vllm").is_dir()),
            ROOT.parent / "shared" / "fixtures" / "vllm")
REPO = "vllm-project/vllm"


def _files(n: int) -> list[PRFile]:
    return [PRFile(f"vllm/mod{i // 50}/f{i}.py", additions=3, deletions=1,
                   patch=f"@@ -1,2 +1,4 @@\n-old{i}\n+new{i}\n+x\n+y\n ctx") for i in range(n)]


def small(server: GitHubServer) -> int:
    return seed_discussed_pr(server).number


def typical(server: GitHubServer) -> int:
    """100 files, 100 comments, 3 linked issues (2 closing references + 1 `Fixes #` only in text)."""
    seeded = seed_discussed_pr(server, files=_files(100))
    extra = server.add_issue(REPO, "Third linked issue", "Details.", comments=[("u", "more")])
    seeded.pr.body += f"\nAlso fixes #{extra.number}.\n"
    for i in range(100 - 6):
        server.add_comment(REPO, seeded.number, f"dev{i % 9}", f"Point {i}: the cache eviction order matters here.")
    return seeded.number


def long_discussion(server: GitHubServer) -> int:
    seeded = seed_discussed_pr(server, files=_files(40))
    for i in range(300):
        server.add_comment(REPO, seeded.number, f"dev{i % 9}", f"comment {i}")
    for i in range(150):
        server.add_thread(REPO, seeded.number, "vllm/mod0/f1.py", 2, [("rev", f"q{i}"), ("alice", f"a{i}")])
    return seeded.number


def busy(server: GitHubServer) -> int:
    """A vLLM-sized review: 400 review threads of 3 comments, one of them 120 long, and 150 comments. The
    test server cuts off a query over GitHub's 10 s and answers partial data past its resource limit."""
    seeded = seed_discussed_pr(server, files=_files(60))
    for i in range(400):
        server.add_thread(REPO, seeded.number, f"vllm/mod0/f{i % 50}.py", 2,
                          [("rev", f"q{i}"), ("alice", f"a{i}"), ("rev", f"ok {i}")])
    server.add_thread(REPO, seeded.number, "vllm/mod0/f1.py", 2, [(f"dev{j % 5}", f"long {j}") for j in range(120)])
    for i in range(150):
        server.add_comment(REPO, seeded.number, f"dev{i % 9}", f"comment {i}")
    return seeded.number


def huge(server: GitHubServer) -> int:
    seeded = seed_discussed_pr(server, files=_files(3_200))
    return seeded.number


def vllm_real(server: GitHubServer) -> int:
    parsed = parse_patch((VLLM / "48472" / "diff.patch").read_text(errors="replace"))
    files = [PRFile(f.path, status=f.status.value, additions=f.additions, deletions=f.deletions,
                    patch=None if f.binary else f.patch, previous_filename=f.previous_path, binary=f.binary)
             for f in parsed.files]
    seeded = seed_discussed_pr(server, files=files, extra_commit_messages=[c.message for c in parsed.commits])
    seeded.pr.closing_issues.append(ItemRef(REPO, seeded.mentioned_issue))
    return seeded.number


SCENARIOS: list[tuple[str, Callable[[GitHubServer], int], int | None]] = [
    ("small PR, full discussion", small, 6),
    ("100 files, 100 comments, 3 issues", typical, 6),
    ("300 comments, 150 threads", long_discussion, None),
    ("vLLM #48472 (253 files, real diff)", vllm_real, None),
    ("busy: 404 review threads, 156 comments", busy, None),
    ("3,200 files", huge, 35),
]


def _pr_agent_estimate(files: int, comments: int) -> int:
    # get_diff_files: 4 setup requests + 2 per file up to 50 (contents of base and head), files paged by 30;
    # publishing and reading its own comments paged by 30 as well.
    return 4 + 2 * min(files, 50) + math.ceil(min(files, 3_000) / 30) + math.ceil(max(comments, 1) / 30)


def main() -> int:
    parser = argparse.ArgumentParser(description="gather_pr request counts and wall time")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if load_github_schema() is None:
        print(f"GitHub's GraphQL schema is missing; run `{FETCH_COMMAND}` first", file=sys.stderr)
        return 1
    rows = []
    print(f"{'scenario':38} {'files':>6} {'reqs':>5} {'+cfg':>5} {'target':>7} {'wall ms':>8} "
          f"{'pr-agent≈':>10} {'pr-agent sleep s':>16} {'threads':>8}")
    failed = False
    for name, seed, target in SCENARIOS:
        if seed is vllm_real and not (VLLM / "48472" / "diff.patch").is_file():
            print(f"{name:38} skipped: {VLLM} absent")
            continue
        walls, requests, files, comments, threads = [], 0, 0, 0, 0
        with_config = 0
        for _ in range(args.repeat):
            with GitHubServer() as server:
                number = seed(server)
                settings = build_settings({"github_api_url": server.api_url, "github_token": WORKFLOW_TOKEN})
                gh = make_github(settings)
                server.clear_log()
                start = time.perf_counter()
                try:
                    ctx = gather_pr(gh, REPO, number, settings)
                except GitHubError as exc:  # what a user gets then: no review at all
                    print(f"{name:38} FAILED after {len(server.requests)} requests: {str(exc)[:90]}")
                    failed = True
                    break
                walls.append((time.perf_counter() - start) * 1000)
                requests = len(server.requests)
                load_repo_config(gh, REPO, ctx.base_ref)
                with_config = len(server.requests)
                files = ctx.changed_files
                comments = len(ctx.comments) + sum(ctx.noise_counts.values())
                threads = len(ctx.threads)
        if not walls:
            continue
        estimate = _pr_agent_estimate(files, comments)
        ok = target is None or requests <= target
        failed |= not ok
        print(f"{name:38} {files:>6} {requests:>5} {with_config:>5} {('<=' + str(target)) if target else '-':>7} "
              f"{statistics.median(walls):>8.0f} {estimate:>10} {estimate * 0.25:>16.1f} {threads:>8}"
              + ("" if ok else "  OVER") + (f"  notes: {'; '.join(ctx.gather_notes)[:80]}" if ctx.gather_notes else ""))
        rows.append({"scenario": name, "files": files, "requests": requests, "requests_with_config": with_config,
                     "target": target, "wall_ms_median": round(statistics.median(walls), 1),
                     "pr_agent_estimate": estimate, "threads_read": threads})
    print(json.dumps(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
