"""Bench: what each kind of `readworthy action` run costs, against the tests' GitHub and OpenAI servers.

    .venv/bin/python bench/action_runs.py

For a realistic discussed PR, one row per run of a typical PR's life: GitHub reads and writes, model
calls and tokens, our comments on the PR afterwards, and wall time; the check-run writes (create/update
of the `readworthy` check run) and how many check runs each head commit has afterwards (issue 22: one).
Every review run reads the taste memory once (one GraphQL request); a `/readworthy verdict` also writes it. The cost goal (issue #6): a push
that does not change the content makes 0 model calls; every run leaves exactly one comment.

Last, two runs started at once on one PR (a push's and the label's, two processes, the model answering in 3 s),
without and with `contents: write`: without it no analysis lease can be taken, which is how every run behaved
before issue 23's lease (both calls paid); with it one run asks the model and the other reuses its analysis.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "src"))

from action_run import GOOD_DIGEST, KEY, REPO, action_env, comment_payload, own_comments, pr_payload, small_pr
from servers.github_fixtures import seed_discussed_pr
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN, PRFile
from servers.openai_server import OpenAIServer

from readworthy.action import run_action


def run_once(gh: GitHubServer, ai: OpenAIServer, workdir: Path, event: str, payload: Any) -> dict[str, Any]:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "event.json").write_text(json.dumps(payload))
    (workdir / "out").write_text("")
    (workdir / "summary.md").write_text("")
    for key in [k for k in os.environ if k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))]:
        del os.environ[key]
    os.environ.update({
        "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(workdir / "event.json"), "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": gh.api_url, "GITHUB_GRAPHQL_URL": gh.graphql_url, "GITHUB_OUTPUT": str(workdir / "out"),
        "GITHUB_STEP_SUMMARY": str(workdir / "summary.md"), "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN,
        "INPUT_OPENAI-API-KEY": KEY, "INPUT_OPENAI-BASE-URL": ai.url, "INPUT_MODEL": "gpt-4.1-mini",
    })
    gh.clear_log()
    calls_before = len(ai.chat_requests)
    start = time.perf_counter()
    devnull = open(os.devnull, "w")  # noqa: SIM115  (the action's ::commands:: are not the bench's output)
    stdout, sys.stdout = sys.stdout, devnull
    try:
        code = run_action(os.environ)
    finally:
        sys.stdout = stdout
        devnull.close()
    wall = time.perf_counter() - start
    writes = sum(1 for r in gh.requests if r.is_write)
    head = (payload.get("pull_request") or {}).get("head", {}).get("sha") or ""
    runs = gh.check_runs(REPO, head) if head else gh.check_runs(REPO)
    return {"code": code, "reads": len(gh.requests) - writes, "writes": writes,
            "model_calls": len(ai.chat_requests) - calls_before, "wall": wall,
            "check_writes": gh.count("POST", r"/check-runs$") + gh.count("PATCH", r"/check-runs/\d+$"),
            "checks": len(runs), "annotations": sum(len(r.annotations) for r in runs)}


def two_at_once(gh: GitHubServer, ai: OpenAIServer, workdir: Path, lease: bool) -> dict[str, Any]:
    """A push's run and the label's run of one PR, started together as two `readworthy action` processes."""
    (gh.grant if lease else gh.deny)(WORKFLOW_TOKEN, "contents")
    pr = small_pr(gh)
    pr.labels.append("readworthy")
    ai.clear()  # no reply left over from the rows above: both answers take 3 s
    ai.add_json(GOOD_DIGEST, times=2, delay=3.0)
    gh.clear_log()
    script = Path(sys.executable).parent / "readworthy"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))}
    events = {"push": pr_payload(pr, "synchronize"), "label": pr_payload(pr, "labeled", label={"name": "readworthy"})}
    start = time.perf_counter()
    procs = [subprocess.Popen([str(script), "action"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=clean | action_env(gh, workdir / name, "pull_request_target", payload,
                                                     openai_url=ai.url, inputs={"model-timeout": "30"}))
             for name, payload in events.items()]
    codes = [proc.wait(timeout=300) for proc in procs]
    lease = [f"{r.method} {r.status}" for r in gh.requests
             if r.is_write and "readworthy/lease/" in r.path + json.dumps(r.body)]
    gh.grant(WORKFLOW_TOKEN, "contents")
    return {"codes": codes, "model_calls": len(ai.chat_requests), "lease_writes": ", ".join(sorted(lease)),
            "comments": len(own_comments(gh, pr.number)), "wall": time.perf_counter() - start}


def main() -> None:
    gh = GitHubServer().start()
    ai = OpenAIServer().start()
    try:
        seeded = seed_discussed_pr(gh)
        gh.repo(REPO).permissions["maya"] = "write"
        ai.add_json(GOOD_DIGEST, prompt_tokens=9000, completion_tokens=500, times=4)
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            rows: list[tuple[str, dict[str, Any]]] = []
            rows.append(("opened", run_once(gh, ai, work / "1", "pull_request_target", pr_payload(seeded.pr, "opened"))))
            for i in range(3):
                seeded.pr.head_sha = f"{i + 1:x}" * 40  # rebases / force-pushes with the same patch
                sync = pr_payload(seeded.pr, "synchronize")
                rows.append((f"synchronize, same patch #{i + 1}", run_once(gh, ai, work / f"s{i}", "pull_request_target", sync)))
            seeded.pr.files.append(PRFile("vllm/v1/worker/gpu_worker.py", additions=1, patch="@@ -1 +1,2 @@\n x\n+y\n"))
            rows.append(("synchronize, new commit", run_once(gh, ai, work / "c", "pull_request_target",
                                                              pr_payload(seeded.pr, "synchronize"))))
            seeded.pr.labels.append("readworthy")
            rows.append(("labeled readworthy (forced)", run_once(gh, ai, work / "l", "pull_request_target",
                                                                  pr_payload(seeded.pr, "labeled", label={"name": "readworthy"}))))
            cmd = gh.add_comment(REPO, seeded.number, "rita", "/readworthy refresh")
            rows.append(("/readworthy by a reader", run_once(gh, ai, work / "r", "issue_comment",
                                                              comment_payload(seeded.number, "rita", cmd.body, cmd.id))))
            cmd = gh.add_comment(REPO, seeded.number, "maya", "/readworthy")
            rows.append(("/readworthy by a writer", run_once(gh, ai, work / "w", "issue_comment",
                                                              comment_payload(seeded.number, "maya", cmd.body, cmd.id))))
            # the team's taste: the first correction opens the memory issue, a second one edits its record
            # (#3: a reason of several words; until issue 23 the command itself changed the discussion, so the
            # inputs' hash, and every such verdict re-analysed)
            for n, text in enumerate(("/readworthy verdict skim too narrow", "/readworthy verdict skip routine",
                                      "/readworthy verdict skim a mechanical rename across the workers")):
                cmd = gh.add_comment(REPO, seeded.number, "maya", text)
                rows.append((f"/readworthy verdict #{n + 1}", run_once(gh, ai, work / f"v{n}", "issue_comment",
                                                                      comment_payload(seeded.number, "maya", cmd.body,
                                                                                      cmd.id))))
            cmd = gh.add_comment(REPO, seeded.number, "rita", "/readworthy verdict deep-read")
            rows.append(("/readworthy verdict by a reader", run_once(gh, ai, work / "vr", "issue_comment",
                                                                      comment_payload(seeded.number, "rita", cmd.body,
                                                                                      cmd.id))))
        print(f"{'run':32} {'exit':>4} {'GH reads':>8} {'GH writes':>9} {'check writes':>12} {'model calls':>11} "
              f"{'wall s':>7}")
        for name, r in rows:
            print(f"{name:32} {r['code']:>4} {r['reads']:>8} {r['writes']:>9} {r['check_writes']:>12} "
                  f"{r['model_calls']:>11} {r['wall']:>7.2f}")
        print(f"our comments on the PR afterwards: {len(own_comments(gh, seeded.number))}")
        heads = sorted({r.head_sha for r in gh.check_runs(REPO)})
        per_head = [len(gh.check_runs(REPO, h)) for h in heads]
        print(f"check runs afterwards: {sum(per_head)} on {len(heads)} head commits (per head: {max(per_head, default=0)} "
              f"at most); annotations on the last head: {sum(len(r.annotations) for r in gh.check_runs(REPO, heads[-1]))}"
              if heads else "check runs afterwards: none")
        print(f"model calls in total: {len(ai.chat_requests)} for {len(rows)} runs")
        with tempfile.TemporaryDirectory() as tmp:
            before, after = (two_at_once(gh, ai, Path(tmp) / str(lease), lease) for lease in (False, True))
        print(f"two runs at once (a push and the label, same inputs, the model answering in 3 s), without -> with the "
              f"analysis lease: model calls {before['model_calls']} -> {after['model_calls']}; lease writes "
              f"[{before['lease_writes']}] -> [{after['lease_writes']}]; comments {before['comments']} -> "
              f"{after['comments']}; exit codes {before['codes']} -> {after['codes']}; wall "
              f"{before['wall']:.1f} s -> {after['wall']:.1f} s")
    finally:
        gh.stop()
        ai.stop()


if __name__ == "__main__":
    main()
