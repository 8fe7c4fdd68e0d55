"""The `readworthy` check run end to end: on the PR's head commit for every trigger, edited in place on a
re-run, titled with the verdict that counts, start-here annotations on lines of the diff; without
`checks: write` the comment is still posted and the job summary says which permission to add."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, comment_payload, own_comments, pr_payload, run
from servers.github_fixtures import PERSONAL_TOKEN, READONLY_TOKEN, WORKFLOW_TOKEN, seed_discussed_pr
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest
from servers.openai_server import OpenAIServer

from readworthy.render.state import decode_state

MODEL_DIGEST = GOOD_DIGEST | {
    "decisions": [{"title": "Threads split by local_world_size",
                   "explanation": "`init_device` divides the cores by the ranks on this host.",
                   "references": ["vllm/v1/worker/cpu_worker.py::CPUWorker.init_device",
                                  "tests/v1/worker/test_cpu_threads.py::test_threads_split_per_rank"]}],
    "start_reading": ["tests/v1/worker/test_cpu_threads.py::test_threads_split_per_rank",
                      "vllm/v1/worker/cpu_worker.py"],
}


def new_side_lines(pr: PullRequest) -> dict[str, set[int]]:
    """The lines of each file that the PR's diff shows at its head (added and context lines)."""
    out: dict[str, set[int]] = {}
    for f in pr.files:
        line, lines = 0, set()
        for raw in (f.patch or "").split("\n"):
            hunk = re.match(r"@@ -\S+ \+(\d+)", raw)
            if hunk:
                line = int(hunk.group(1))
            elif raw[:1] in ("+", " "):
                lines.add(line)
                line += 1
        out[f.filename] = lines
    return out


def links_on_the_head(markdown: str, pr: PullRequest, web: str) -> int:
    """Every link to code in `markdown` (rendered by GitHub's parser) names `pr`'s head commit, or its Files
    changed tab, and a file and line of the PR's diff; returns how many there were."""
    import hashlib
    import html

    import cmarkgfm
    from cmarkgfm.cmark import Options

    page = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    lines = new_side_lines(pr)
    anchors = {"diff-" + hashlib.sha256(p.encode()).hexdigest(): p for p in lines}
    found = 0
    for href in (html.unescape(h) for h in re.findall(r'<a href="([^"]*)"', page)):
        assert href.startswith(web + "/"), href
        blob = re.fullmatch(rf"{re.escape(web)}/{REPO}/blob/([0-9a-f]{{40}})/(.+)#L(\d+)(?:-L(\d+))?", href)
        tab = re.fullmatch(rf"{re.escape(web)}/{REPO}/pull/{pr.number}/files#(diff-[0-9a-f]{{64}})R(\d+)", href)
        if blob:
            assert blob.group(1) == pr.head_sha and int(blob.group(3)) in lines[blob.group(2)], href
        elif tab:
            assert int(tab.group(2)) in lines[anchors[tab.group(1)]], href
        else:
            assert re.fullmatch(rf"{re.escape(web)}/{REPO}/(pull|issues)/\d+", href), href
            continue
        found += 1
    return found


def _env(server: GitHubServer, tmp: Path, event: str, payload: object, **kw: object) -> dict[str, str]:
    env = action_env(server, tmp, event, payload, **kw)  # type: ignore[arg-type]
    env["GITHUB_SHA"] = "b" * 40  # what a pull_request_target run is given: not the PR's head
    return env


def test_pull_request_target_puts_one_check_run_on_the_head_and_a_rerun_edits_both(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    pr = seeded.pr
    github_server.repo(REPO).permissions["maya"] = "write"
    openai_server.add_json(MODEL_DIGEST, prompt_tokens=3000, completion_tokens=200)
    env = _env(github_server, tmp_path / "1", "pull_request_target", pr_payload(pr, "opened"),
               openai_url=openai_server.url)
    first = run(monkeypatch, capsys, env)
    assert first.code == 0, first.stdout
    runs = github_server.check_runs(REPO)
    assert len(runs) == 1 and runs[0].head_sha == pr.head_sha != env["GITHUB_SHA"]
    check = runs[0]
    assert (check.name, check.status, check.conclusion, check.app_slug) == ("readworthy", "completed", "neutral",
                                                                            "github-actions")
    assert check.title is not None and check.title.startswith("📖 Worth close reading — ")
    assert "Cap torch threads per worker" in check.title
    comment = own_comments(github_server, pr.number)
    assert len(comment) == 1 and check.details_url == first.outputs["comment-url"]
    first_body = comment[0].body
    assert check.summary is not None and "**Key design decisions**" in check.summary
    assert "<!-- readworthy:" not in check.summary  # the guide, not the hidden state
    lines = new_side_lines(pr)
    assert check.annotations and all(a.annotation_level == "notice" for a in check.annotations)
    assert all(a.start_line in lines[a.path] for a in check.annotations), check.annotations
    test_mark = next(a for a in check.annotations if a.path.endswith("test_cpu_threads.py"))
    assert test_mark.start_line == 1 and "start reading here" in test_mark.message  # the test's definition
    assert "Check run (created) on the head commit" in first.summary
    # Every link in the comment and the check run names the head commit and a line its diff shows.
    for markdown in (comment[0].body, check.summary):
        assert links_on_the_head(markdown, pr, github_server.html_url) >= 3

    # A maintainer's verdict: the comment and the check run are edited, and the title follows the team.
    cmd = github_server.add_comment(REPO, pr.number, "maya", "/readworthy verdict skim too narrow")
    again = run(monkeypatch, capsys, _env(github_server, tmp_path / "2", "issue_comment",
                                          comment_payload(pr.number, "maya", cmd.body, cmd.id),
                                          openai_url=openai_server.url))
    assert again.code == 0, again.stdout
    edited = own_comments(github_server, pr.number)
    assert [c.id for c in edited] == [comment[0].id] and edited[0].body != first_body  # the one comment, edited
    assert "given by maya" in edited[0].body
    runs = github_server.check_runs(REPO)
    assert len(runs) == 1 and runs[0].updates == 1
    assert runs[0].title is not None and runs[0].title.startswith("👀 Worth a skim — ")
    assert len(runs[0].annotations) == len(check.annotations)  # an update appends: nothing sent twice
    assert "Check run (edited)" in again.summary


def test_one_comment_and_one_check_run_per_head_after_any_sequence_of_triggers(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    pr = seeded.pr
    github_server.repo(REPO).permissions["maya"] = "write"
    first_head = pr.head_sha

    def trigger(name: str, event: str, payload: object) -> None:
        result = run(monkeypatch, capsys, _env(github_server, tmp_path / name, event, payload))
        assert result.code == 0, result.stdout

    trigger("opened", "pull_request_target", pr_payload(pr, "opened"))
    trigger("same", "pull_request_target", pr_payload(pr, "synchronize"))
    pr.labels.append("readworthy")
    trigger("label", "pull_request_target", pr_payload(pr, "labeled", label={"name": "readworthy"}))
    trigger("dispatch", "workflow_dispatch", {"inputs": {"pr-number": str(pr.number)}, "repository":
                                              {"full_name": REPO}})
    cmd = github_server.add_comment(REPO, pr.number, "maya", "/readworthy")
    trigger("command", "issue_comment", comment_payload(pr.number, "maya", cmd.body, cmd.id))
    assert len(github_server.check_runs(REPO, first_head)) == 1
    # A push: the new head gets its own check run; the old one stays with its commit.
    pr.head_sha = "c" * 40
    pr.files.append(PRFile("vllm/v1/worker/gpu_worker.py", additions=2,
                           patch="@@ -1,1 +1,3 @@\n import os\n+def pin_threads():\n+    return 1\n"))
    trigger("push", "pull_request_target", pr_payload(pr, "synchronize"))
    trigger("push-again", "pull_request_target", pr_payload(pr, "synchronize"))
    assert len(github_server.check_runs(REPO, first_head)) == 1
    assert len(github_server.check_runs(REPO, "c" * 40)) == 1
    assert len(own_comments(github_server, pr.number)) == 1
    state = decode_state(own_comments(github_server, pr.number)[0].body)
    assert state is not None and state.head_sha == "c" * 40
    assert {loc.ref for loc in state.locations} and all(loc.path for loc in state.locations)


def test_a_push_that_is_not_material_keeps_the_analysis_but_links_and_marks_the_new_heads_lines(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    pr = seeded.pr
    openai_server.add_json(MODEL_DIGEST, prompt_tokens=3000, completion_tokens=200)
    first = run(monkeypatch, capsys, _env(github_server, tmp_path / "1", "pull_request_target",
                                          pr_payload(pr, "opened"), openai_url=openai_server.url))
    assert first.code == 0, first.stdout
    # A review fix: one comment line more, and `init_device` now sits five lines lower (was line 40).
    pr.head_sha = "c" * 40
    pr.files[0] = PRFile("vllm/v1/worker/cpu_worker.py", additions=7, deletions=1,
                         patch="@@ -45,7 +45,13 @@ class CPUWorker:\n     def init_device(self):\n"
                               "-        torch.set_num_threads(os.cpu_count())\n"
                               "+        # one share of the cores per rank on this host\n"
                               "+        local_world_size = self.parallel_config.local_world_size\n"
                               "+        threads = max(1, os.cpu_count() // local_world_size)\n"
                               "+        torch.set_num_threads(threads)\n")
    again = run(monkeypatch, capsys, _env(github_server, tmp_path / "2", "pull_request_target",
                                          pr_payload(pr, "synchronize"), openai_url=openai_server.url))
    assert again.code == 0, again.stdout
    assert len(openai_server.chat_requests) == 1  # the analysis was kept: not material
    comment = own_comments(github_server, pr.number)[0]
    assert "This analysis describes" in comment.body
    runs = github_server.check_runs(REPO, pr.head_sha)
    assert len(runs) == 1 and runs[0].annotations
    lines = new_side_lines(pr)
    assert all(a.start_line in lines[a.path] for a in runs[0].annotations), runs[0].annotations
    assert any((a.path, a.start_line) == ("vllm/v1/worker/cpu_worker.py", 45) for a in runs[0].annotations)
    assert runs[0].summary is not None
    for markdown in (comment.body, runs[0].summary):
        assert links_on_the_head(markdown, pr, github_server.html_url) >= 3


def test_without_checks_write_the_comment_is_posted_and_the_summary_says_why(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    github_server.deny(WORKFLOW_TOKEN, "checks")
    result = run(monkeypatch, capsys, _env(github_server, tmp_path, "pull_request_target",
                                           pr_payload(seeded.pr, "opened")))
    assert result.code == 0, result.stdout
    assert len(own_comments(github_server, seeded.number)) == 1
    assert github_server.check_runs(REPO) == []
    assert "No check run on the pull request" in result.summary and "`checks: write`" in result.summary
    assert "::notice::readworthy: #" in result.stdout and "checks: write" in result.stdout
    assert result.outputs["verdict"]  # the review itself stands


def test_annotations_input_caps_the_marks_and_zero_means_none(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    result = run(monkeypatch, capsys, _env(github_server, tmp_path, "pull_request_target",
                                           pr_payload(seeded.pr, "opened"), inputs={"check-annotations": "0"}))
    assert result.code == 0
    runs = github_server.check_runs(REPO)
    assert len(runs) == 1 and runs[0].annotations == []
    off = seed_discussed_pr(github_server, title="Another change")
    off.pr.head_sha = "d" * 40
    run(monkeypatch, capsys, _env(github_server, tmp_path / "off", "pull_request_target",
                                  pr_payload(off.pr, "opened"), inputs={"check-run": "false"}))
    assert github_server.check_runs(REPO, off.pr.head_sha) == []


def test_a_forks_read_only_token_writes_the_job_summary_as_before(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    before = [c.body for c in own_comments(github_server, seeded.number)]
    result = run(monkeypatch, capsys, _env(github_server, tmp_path, "pull_request", pr_payload(seeded.pr, "opened"),
                                           token=READONLY_TOKEN))
    assert result.code == 0
    assert [c.body for c in own_comments(github_server, seeded.number)] == before  # nothing written
    assert github_server.check_runs(REPO) == []
    assert "Not posted" in result.summary and "**Why:**" in result.summary


def test_a_digest_that_analyses_a_pr_puts_its_check_run_on_the_head_and_links_its_lines(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str],
) -> None:
    from datetime import UTC, datetime, timedelta

    from digest_seeding import add_pr_at

    from readworthy.cli import main

    now = datetime.now(UTC)
    pr = add_pr_at(digest_env, "Split the runner step", created=now - timedelta(hours=5),
                   merged=now - timedelta(hours=2), user="alice")
    # a new interface other code implements: never a skip, so the digest shows its decisions and their lines
    pr.files = [PRFile("vllm/v1/worker/runner.py", status="added", additions=4,
                       patch="@@ -0,0 +1,4 @@\n+class StepRunner(ABC):\n+    @abstractmethod\n"
                             "+    def run(self) -> int:\n+        ...\n")]
    code = main(["digest", "--repo", REPO, "--since", "24h"])
    out, _ = capsys.readouterr()
    assert code == 0
    runs = digest_env.check_runs(REPO, pr.head_sha)
    assert len(runs) == 1 and runs[0].conclusion == "neutral"
    # The digest's references are links to the lines at that head (a permalink or the Files changed tab).
    from readworthy.render.links import diff_anchor

    anchor = diff_anchor("vllm/v1/worker/runner.py")
    assert f"/blob/{pr.head_sha}/vllm/v1/worker/runner.py#L1" in out or f"/pull/{pr.number}/files#{anchor}R1" in out


def test_a_digest_without_checks_write_says_once_which_permission_to_add(
    digest_env: GitHubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import json
    from datetime import UTC, datetime, timedelta

    from digest_seeding import add_pr_at

    from readworthy.cli import main

    now = datetime.now(UTC)
    prs = [add_pr_at(digest_env, f"Change {i}", created=now - timedelta(hours=5), merged=now - timedelta(hours=i),
                     user="alice") for i in (1, 2)]
    digest_env.deny(WORKFLOW_TOKEN, "checks")
    out = tmp_path / "d.json"
    code = main(["digest", "--repo", REPO, "--since", "24h", "--output", str(out)])
    capsys.readouterr()
    assert code == 0
    data = json.loads(out.read_text())
    assert len(data["entries"]) == 2 and all(own_comments(digest_env, pr.number) for pr in prs)  # reviews stand
    assert digest_env.check_runs(REPO) == []
    said = [w for w in data["warnings"] if "no check run" in w]
    assert len(said) == 1 and "`checks: write`" in said[0]


def test_a_persons_token_writes_the_comment_and_says_why_there_is_no_check(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    result = run(monkeypatch, capsys, _env(github_server, tmp_path, "pull_request_target",
                                           pr_payload(seeded.pr, "opened"), token=PERSONAL_TOKEN))
    assert result.code == 0, result.stdout
    assert len(own_comments(github_server, seeded.number, login="octocat")) == 1
    assert github_server.check_runs(REPO) == []
    assert github_server.count(None, r"/check-runs") == 0  # not even asked: a person's token cannot write them
    assert "only a GitHub App or the workflow token" in result.summary
