"""Bench rows for issue 23's reading and reporting items, measured the way a user meets them.

    .venv/bin/python bench/robustness_reading.py   (bench/robustness.py and bench/robustness_inputs.py print them too)

  busy PR            `readworthy action` on a PR with 404 review threads (one 120 comments long) and 156
                     comments, against the tests' GitHub server, which cuts off a query over GitHub's 10 s
                     with a 502: is one comment posted, and how much of the review discussion is in it?
  junk memory        five `/readworthy verdict` runs keep five corrections, then a stranger posts 150 junk
                     comments on the memory issue: how many corrections does the next run read?
  locked memory      the memory issue is locked (GitHub refuses new comments: 403): is the next verdict kept?
  locked PR          a `pull_request_target` run for a locked PR: GitHub reads and model calls made, exit code.
  digest failures    `mode: digest` with `fail-on-error: true` and every model call refused (401): exit code,
                     annotation, and whether the digest's banner says the model was asked and failed, and why.
  path in a reason   a reason naming `/tmp/…/52385.json`, rendered: one code span, or /`tmp/…`?
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT / "src", ROOT / "tests", ROOT / "tests" / "e2e"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from action_run import GOOD_DIGEST, REPO, own_comments, pr_payload  # noqa: E402
from action_runner import run_action_once, servers  # noqa: E402
from digest_seeding import add_pr_at, use_wall_clock  # noqa: E402
from rows import Row, print_rows  # noqa: E402
from servers.github_server import GitHubServer  # noqa: E402
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN, PRFile, PullRequest  # noqa: E402
from taste_seeding import command, docker_pr  # noqa: E402

from readworthy.config import build_settings  # noqa: E402
from readworthy.gather.github_api import make_github  # noqa: E402
from readworthy.gather.memory import MEMORY_LABEL, read_memory  # noqa: E402
from readworthy.render import safe_markdown as sm  # noqa: E402
from readworthy.render.state import decode_state  # noqa: E402


def _busy_pr(gh: GitHubServer) -> PullRequest:
    pr = gh.add_pr(REPO, "Overlap the KV transfer with the next prefill", "Moves the transfer onto its own stream.",
                   user="alice", files=[PRFile(f"vllm/distributed/kv_{i}.py", additions=3, deletions=1,
                                               patch="@@ -10,2 +10,4 @@\n-    send(x)\n+    with stream:\n"
                                                     "+        send(x)\n+    stream.wait()\n") for i in range(20)])
    for i in range(403):
        gh.add_thread(REPO, pr.number, f"vllm/distributed/kv_{i % 20}.py", 11,
                      [("reviewer", f"question {i}"), ("alice", f"answer {i}"), ("reviewer", f"ok {i}")])
    gh.add_thread(REPO, pr.number, "vllm/distributed/kv_0.py", 11, [(f"dev{j % 4}", f"long {j}") for j in range(120)])
    for i in range(156):
        gh.add_comment(REPO, pr.number, f"dev{i % 9}", f"benchmark {i}: p50 improved")
    return pr


def busy_pr_row(tmp: Path) -> Row:
    with servers() as (gh, _):
        pr = _busy_pr(gh)
        res = run_action_once(gh, tmp / "busy", pr_payload(pr, "opened"))
        comments = own_comments(gh, pr.number)
        state = decode_state(comments[0].body) if comments else None
        found = re.search(r"([\d,]+) review threads", comments[0].body) if comments else None
        seen = int(found.group(1).replace(",", "")) if found else 0
        notes = state.coverage.notes if state is not None else []
        cut_off = sum(1 for r in gh.requests if r.path == "/graphql" and r.status in (502, 504))
        graphql = sum(1 for r in gh.requests if r.path == "/graphql")
        outcome = (f"exit {res.code}, comment posted: {'yes' if comments else 'no'}, review threads in it: "
                   f"{seen} of 404, {graphql} GraphQL requests ({cut_off} cut off at 10 s)"
                   + (f", notes: {'; '.join(notes)[:80]}" if notes else ""))
        return Row("busy PR (404 review threads)", outcome, bool(comments) and seen == 404)


def _verdict(gh: GitHubServer, tmp: Path, pr: PullRequest, name: str) -> str:
    payload = command(gh, pr.number, "maya", "/readworthy verdict skim too narrow for a close read")
    res = run_action_once(gh, tmp / name, payload, event="issue_comment")
    return res.summary


def _memory_issues(gh: GitHubServer) -> list[int]:
    return sorted(item.number for item in gh.repo(REPO).items.values() if MEMORY_LABEL in item.labels)


def _not_kept(name: str, summary: str) -> Row:
    """No memory issue after a verdict run: a failed row that says why, not a crash of the whole bench."""
    why = next((line for line in summary.splitlines() if "taste memory" in line or line.startswith(("⚠", "❌"))),
               summary.strip().splitlines()[0] if summary.strip() else "the run wrote no job summary")
    return Row(name, f"no correction kept ({why[:120]})", False)


def _memory_records(gh: GitHubServer) -> int:
    settings = build_settings({"github_api_url": gh.api_url, "github_token": WORKFLOW_TOKEN})
    return len(read_memory(make_github(settings), settings, REPO, WORKFLOW_LOGIN).records)


def junk_memory_row(tmp: Path) -> Row:
    with servers() as (gh, _):
        gh.repo(REPO).permissions["maya"] = "write"
        name = "junk memory (5 corrections, then 150 junk comments)"
        summaries = [_verdict(gh, tmp, docker_pr(gh, f"stage{i}"), f"junk-{i}") for i in range(5)]
        memory = _memory_issues(gh)
        if not memory:
            return _not_kept(name, summaries[0])
        kept = _memory_records(gh)
        for i in range(150):
            gh.add_comment(REPO, memory[0], "stranger", f"+1 me too {i}")
        after = _memory_records(gh)
        return Row(name, f"corrections read before the junk: {kept} of 5, after: {after} of 5", after == 5)


def locked_memory_row(tmp: Path) -> Row:
    with servers() as (gh, _):
        gh.repo(REPO).permissions["maya"] = "write"
        name = "locked memory issue, then a verdict"
        first = _verdict(gh, tmp, docker_pr(gh, "first"), "locked-0")
        if not _memory_issues(gh):
            return _not_kept(name, first)
        gh.repo(REPO).items[_memory_issues(gh)[0]].locked = True
        summary = _verdict(gh, tmp, docker_pr(gh, "second"), "locked-1")
        kept = "kept in the taste memory" in summary
        issues = _memory_issues(gh)
        records = _memory_records(gh)
        why = next((line for line in summary.splitlines() if "not in the taste memory" in line), "")
        return Row(name, f"verdict kept: {'yes' if kept else 'no'}, memory issues {issues}, "
                   f"corrections read: {records} of 2" + (f" ({why[:90]})" if why and not kept else ""),
                   kept and records == 2)


def locked_pr_row(tmp: Path) -> Row:
    with servers() as (gh, ai):
        pr = gh.add_pr(REPO, "Retry the model download once on 503", "Retries once.", user="alice", locked=True,
                       files=[PRFile("vllm/download.py", additions=2, patch="@@ -1 +1,2 @@\n-a\n+b\n+c")])
        ai.add_json(GOOD_DIGEST)
        gh.clear_log()
        res = run_action_once(gh, tmp / "locked-pr", pr_payload(pr, "opened"), ai=ai)
        reads = sum(1 for r in gh.requests if f"/pulls/{pr.number}" in r.path or "ReadworthyPullRequest" in str(r.body))
        calls = len(ai.chat_requests)
        outputs = (tmp / "locked-pr" / "out").read_text()
        skipped = "locked" in outputs
        return Row("locked PR", f"exit {res.code}, PR reads {reads}, model calls {calls}, "
                   f"skipped-reason locked: {'yes' if skipped else 'no'}", res.code == 0 and reads == 0 and calls == 0)


def digest_failure_rows(tmp: Path) -> list[Row]:
    with servers() as (gh, ai):
        use_wall_clock(gh)
        now = datetime.now(UTC)
        for i in range(3):
            add_pr_at(gh, f"Split the runner step {i}", created=now - timedelta(hours=5), merged=now - timedelta(hours=2))
        ai.add_error(401, "Incorrect API key provided", times=20)
        workdir = tmp / "digest-fail"
        res = run_action_once(gh, workdir, {"schedule": "0 7 * * *"}, ai=ai, event="schedule",
                              inputs={"mode": "digest", "fail-on-error": "true", "digest-since": "1d",
                                      "digest-target": "issue"})
        annotated = any(line.startswith(("::error::", "::warning::")) and "model" in line.lower()
                        for line in res.stdout.splitlines())
        digests = [item for item in gh.repo(REPO).items.values() if "readworthy-digest" in item.labels]
        body = digests[0].body if digests else res.summary
        banner = next((line for line in body.splitlines() if line.startswith("> ")), "")
        says_failed = "failed" in banner.lower() and "401" in banner
        says_not_called = "no model was called" in banner.lower()
        return [
            Row("digest, every model call failing, fail-on-error: true",
                f"exit {res.code}, annotation: {'yes' if annotated else 'no'}", res.code == 1 and annotated),
            Row("digest banner when every model call failed",
                f"says the calls failed, with the reason: {'yes' if says_failed else 'no'}; "
                f"says no model was called: {'yes' if says_not_called else 'no'}", says_failed and not says_not_called),
        ]


def path_row() -> Row:
    out = sm.inline("could not read the answer file /tmp/rw-3f2a/…/52385.json (permission denied)", 400)
    whole = "`/tmp/rw-3f2a/…/52385.json`" in out
    return Row("path in a reason", f"rendered {out.split('file ', 1)[1].split(' (')[0]}", whole)


def reading_rows(tmp: Path) -> list[Row]:
    return [busy_pr_row(tmp), junk_memory_row(tmp), locked_memory_row(tmp), locked_pr_row(tmp),
            *digest_failure_rows(tmp), path_row()]


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        rows = reading_rows(Path(name))
    print("readworthy robustness: busy PRs, taste memory, locked PRs, digest reports (issue 23)")
    print_rows(rows)
    print(json.dumps([{"row": r.name, "outcome": r.outcome, "ok": r.ok} for r in rows]))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
