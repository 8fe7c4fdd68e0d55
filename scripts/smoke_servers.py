"""Run one `pull_request` event end to end inside the built image, against the test servers on loopback.

Called by scripts/container-smoke (which builds the image and creates the working container):

    .venv/bin/python scripts/smoke_servers.py --container NAME --image readworthy:test [--storage-driver vfs]

It starts the tests' GitHub-compatible and OpenAI-compatible servers on 127.0.0.1 (buildah's chroot
isolation shares the host's network namespace, so the container reaches them), seeds one pull request,
writes the event payload and the runner's file-command files into a directory mounted at /github (as
GitHub's runner does for Docker actions), sets GITHUB_* and INPUT_* (hyphens kept, defaults taken from
action.yml) and runs the image's own ENTRYPOINT. Then it checks what the servers recorded: exactly one
comment carrying the marker, by the workflow token's login; one model call; the step outputs; no
secret (API key, token) in the container's output. A second, forced run must edit that comment, not
add another.
Exit 0 on success, 1 with a message naming what failed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import yaml
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_LOGIN, WORKFLOW_TOKEN, PRCommit, PRFile
from servers.openai_server import OpenAIServer

MARKER = "<!-- readworthy:"
REPO = "octo/widgets"
API_KEY = "sk-smoke-7f3a9c1e5b2d4a6f8e0c"  # fake; must never appear in the container's output

PATCH_CACHE = (
    "@@ -0,0 +1,14 @@\n"
    "+class LayoutCache:\n"
    "+    \"\"\"Computed layouts keyed by (widget id, width); invalidated on theme change.\"\"\"\n"
    "+\n"
    "+    def __init__(self):\n"
    "+        self._entries = {}\n"
    "+\n"
    "+    def get(self, widget_id, width, compute):\n"
    "+        key = (widget_id, width)\n"
    "+        if key not in self._entries:\n"
    "+            self._entries[key] = compute()\n"
    "+        return self._entries[key]\n"
    "+\n"
    "+    def invalidate(self):\n"
    "+        self._entries.clear()\n"
)
PATCH_RENDER = (
    "@@ -10,7 +10,8 @@ def render(widget, width):\n"
    "-    layout = compute_layout(widget, width)\n"
    "+    layout = CACHE.get(widget.id, width, lambda: compute_layout(widget, width))\n"
    "     return paint(layout)\n"
)
PATCH_TEST = (
    "@@ -0,0 +1,6 @@\n"
    "+def test_layout_computed_once_per_width():\n"
    "+    calls = []\n"
    "+    cache = LayoutCache()\n"
    "+    cache.get(1, 80, lambda: calls.append(1))\n"
    "+    cache.get(1, 80, lambda: calls.append(1))\n"
    "+    assert len(calls) == 1\n"
)

MODEL_ANSWER: dict[str, Any] = {
    "verdict": "deep-read",
    "reason": "Introduces a layout cache whose invalidation rule every widget author now depends on.",
    "headline": "Layouts are computed once per widget and width, and dropped on theme change",
    "audience": ["rendering"],
    "decisions": [
        {
            "title": "Cache keyed by widget id and width",
            "explanation": "`LayoutCache.get` memoises `compute_layout`; a theme change clears everything.",
            "references": ["widgets/layout_cache.py::LayoutCache.get", "widgets/render.py::render"],
        }
    ],
    "start_reading": ["widgets/layout_cache.py", "tests/test_layout_cache.py"],
    "discussion": "bob asked whether width belongs in the key; alice showed wrapped text differs per width.",
    "linked_issue_findings": ["#1 measured 40% of frame time in repeated layout."],
    "open_items": [],
    "related": [1],
}


def seed(server: GitHubServer) -> int:
    """One realistic PR: three files, a linked issue, a review and a short discussion."""
    server.add_repo(REPO, files={"main": {".github/CODEOWNERS": "/widgets/ @octo/rendering\n"}})
    issue = server.add_issue(REPO, "Frame time dominated by layout", "Profiling: 40% of frame time in layout.",
                             comments=[("carol", "Same layout computed 6 times per frame for one widget.")])
    pr = server.add_pr(
        REPO,
        "Cache widget layouts per width",
        f"Layouts were recomputed on every paint.\n\nFixes #{issue.number}\n",
        user="alice",
        files=[
            PRFile("widgets/layout_cache.py", status="added", additions=14, patch=PATCH_CACHE),
            PRFile("widgets/render.py", additions=1, deletions=1, patch=PATCH_RENDER),
            PRFile("tests/test_layout_cache.py", status="added", additions=6, patch=PATCH_TEST),
        ],
        commits=[PRCommit(sha="a" * 40, message="Add LayoutCache", author="alice"),
                 PRCommit(sha="b" * 40, message="Use the cache in render()", author="alice")],
    )
    server.add_comment(REPO, pr.number, "bob", "Why is width part of the key?")
    server.add_comment(REPO, pr.number, "alice", "Wrapped text lays out differently per width.")
    server.add_review(REPO, pr.number, "bob", "APPROVED", "Makes sense now.")
    return pr.number


def event_payload(number: int, head_sha: str) -> dict[str, Any]:
    owner, name = REPO.split("/")
    repository = {"full_name": REPO, "name": name, "owner": {"login": owner, "type": "Organization"},
                  "default_branch": "main"}
    return {
        "action": "opened",
        "number": number,
        "pull_request": {
            "number": number,
            "title": "Cache widget layouts per width",
            "draft": False,
            "locked": False,
            "state": "open",
            "user": {"login": "alice", "type": "User"},
            "labels": [],
            "base": {"ref": "main", "repo": repository},
            "head": {"ref": "feature", "sha": head_sha, "repo": repository},
            "author_association": "MEMBER",
        },
        "repository": repository,
        "sender": {"login": "alice", "type": "User"},
    }


def action_inputs(overrides: dict[str, str]) -> dict[str, str]:
    """INPUT_* as GitHub's runner sets them for a Docker action: every declared input, hyphens kept."""
    declared = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    env: dict[str, str] = {}
    for name, spec in declared.items():
        value = overrides.get(name, str(spec.get("default", "") or ""))
        if value == "${{ github.token }}":
            value = WORKFLOW_TOKEN
        env[f"INPUT_{name.upper()}"] = value
    unknown = set(overrides) - set(declared)
    if unknown:
        raise SystemExit(f"smoke: inputs not declared in action.yml: {sorted(unknown)}")
    return env


def image_entrypoint(image: str, storage: list[str]) -> list[str]:
    out = subprocess.run(["buildah", *storage, "inspect", "--type", "image", image],
                         check=True, capture_output=True, text=True)
    entrypoint = json.loads(out.stdout)["OCIv1"]["config"].get("Entrypoint")
    if entrypoint != ["readworthy", "action"]:
        raise SystemExit(f"smoke: the image's ENTRYPOINT is {entrypoint}, expected ['readworthy', 'action']")
    return list(entrypoint)


def run_in_container(args: argparse.Namespace, mount: Path, env: dict[str, str], command: list[str]
                     ) -> subprocess.CompletedProcess[str]:
    cmd = ["buildah", *args.storage, "run", "--isolation", "chroot", "-v", f"{mount}:/github"]
    for key, value in env.items():
        cmd += ["--env", f"{key}={value}"]
    cmd += [args.container, "--", *command]
    return subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)


def runner_env(gh: GitHubServer, run_id: int) -> dict[str, str]:
    return {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "HOME": "/github/home",
        "GITHUB_WORKSPACE": "/github/workspace",
        "RUNNER_TEMP": "/github/runner_temp",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_OUTPUT": f"/github/file_commands/set_output_{run_id}",
        "GITHUB_STEP_SUMMARY": f"/github/file_commands/step_summary_{run_id}",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_REPOSITORY_OWNER": REPO.split("/")[0],
        "GITHUB_API_URL": gh.api_url,
        "GITHUB_GRAPHQL_URL": gh.graphql_url,
        "GITHUB_SERVER_URL": gh.html_url,
        "GITHUB_RUN_ID": str(1000 + run_id),
        "GITHUB_ACTOR": "alice",
    }


def parse_outputs(path: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT lines: `name=value` or the heredoc form `name<<DELIM` ... `DELIM`."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            outputs[name] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


def marker_comments(gh: GitHubServer, number: int) -> list[Any]:
    item = gh.state.repo(REPO).items[number]
    return [c for c in item.comments if MARKER in c.body]


class SmokeFailure(Exception):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def one_run(args: argparse.Namespace, gh: GitHubServer, mount: Path, run_id: int, inputs: dict[str, str],
            entrypoint: list[str]) -> tuple[subprocess.CompletedProcess[str], dict[str, str], float]:
    env = runner_env(gh, run_id) | action_inputs(inputs)
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):  # the runner creates both files before the step
        (mount / env[name].removeprefix("/github/")).touch()
    started = time.perf_counter()
    proc = run_in_container(args, mount, env, entrypoint)
    elapsed = time.perf_counter() - started
    if args.verbose or proc.returncode != 0:
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
    check(proc.returncode == 0, f"run {run_id}: `readworthy action` exited {proc.returncode} inside the container")
    # `::add-mask::SECRET` is the one line that must carry it: the runner masks it everywhere after.
    shown = [line for line in (proc.stdout + proc.stderr).splitlines() if not line.startswith("::add-mask::")]
    for secret, what in ((API_KEY, "the openai-api-key"), (WORKFLOW_TOKEN, "the github-token")):
        check(not any(secret in line for line in shown), f"run {run_id}: {what} appeared in the container's output")
    outputs = parse_outputs(mount / "file_commands" / f"set_output_{run_id}")
    return proc, outputs, elapsed


def smoke(args: argparse.Namespace) -> None:
    entrypoint = image_entrypoint(args.image, args.storage)
    with GitHubServer() as gh, tempfile.TemporaryDirectory(prefix="readworthy-smoke-") as tmp:
        ai = OpenAIServer().start()
        try:
            number = seed(gh)
            head_sha = gh.state.repo(REPO).items[number].head_sha
            mount = Path(tmp) / "github"
            for sub in ("workflow", "file_commands", "home", "workspace", "runner_temp"):
                (mount / sub).mkdir(parents=True)
            (mount / "workflow" / "event.json").write_text(json.dumps(event_payload(number, head_sha)))

            # Loopback first, so a network problem is named as such rather than as a failed review.
            probe = run_in_container(args, mount, {}, [
                "python3", "-c", f"import urllib.request; urllib.request.urlopen({ai.url + '/models'!r}, timeout=5)"])
            check(probe.returncode == 0, "the container cannot reach the host's 127.0.0.1 (is buildah using "
                                         f"--isolation chroot?): {probe.stderr.strip()[-300:]}")

            inputs = {"openai-api-key": API_KEY, "openai-base-url": ai.url, "model": "gpt-4.1-mini"}
            ai.add_json(MODEL_ANSWER)
            _, outputs, first_s = one_run(args, gh, mount, 1, inputs, entrypoint)
            comments = marker_comments(gh, number)
            check(len(comments) == 1, f"run 1: expected exactly one comment with {MARKER!r}, found {len(comments)}")
            check(comments[0].user == WORKFLOW_LOGIN,
                  f"run 1: the comment was written by {comments[0].user}, not {WORKFLOW_LOGIN}")
            check(len(ai.chat_requests) == 1, f"run 1: expected one model call, got {len(ai.chat_requests)}")
            auth = ai.chat_requests[0].headers.get("authorization", "")
            check(auth == f"Bearer {API_KEY}", "run 1: the model call did not carry the openai-api-key input")
            check(outputs.get("verdict") == "deep-read", f"run 1: output verdict={outputs.get('verdict')!r}")
            check(str(number) in outputs.get("comment-url", ""), f"run 1: output comment-url={outputs.get('comment-url')!r}")
            summary = mount / "file_commands" / "step_summary_1"
            check(summary.exists() and summary.stat().st_size > 0, "run 1: no job summary written")
            first_id, first_body = comments[0].id, comments[0].body

            # A forced re-run edits the same comment: still exactly one.
            ai.add_json(MODEL_ANSWER | {"verdict": "skim", "reason": "Second look: the cache is small."})
            _, outputs2, second_s = one_run(args, gh, mount, 2, inputs | {"force": "true"}, entrypoint)
            comments = marker_comments(gh, number)
            check(len(comments) == 1, f"run 2: expected still one marker comment, found {len(comments)}")
            check(comments[0].id == first_id, "run 2: a new comment was created instead of editing the first")
            check(comments[0].body != first_body, "run 2: the forced re-run did not edit the comment")
            check(outputs2.get("verdict") == "skim", f"run 2: output verdict={outputs2.get('verdict')!r}")
        finally:
            ai.stop()
    print(f"smoke: pull_request event end to end OK: one comment {MARKER}...> created then edited "
          f"(run 1 {first_s:.1f} s, run 2 {second_s:.1f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--container", required=True, help="buildah working container made from the image")
    parser.add_argument("--image", required=True, help="the image (for its ENTRYPOINT)")
    parser.add_argument("--storage-driver", default="vfs")
    parser.add_argument("--verbose", action="store_true", help="show the container's output of each run")
    args = parser.parse_args()
    args.storage = ["--storage-driver", args.storage_driver]
    if shutil.which("buildah") is None:
        print("smoke: buildah is not installed (apt-get install -y buildah)", file=sys.stderr)
        return 1
    try:
        smoke(args)
    except SmokeFailure as exc:
        print(f"smoke: FAILED: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
