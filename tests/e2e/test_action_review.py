"""`readworthy action` end to end on pull_request events, against the GitHub and OpenAI test servers."""

from __future__ import annotations

from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, own_comments, pr_payload, run
from servers.github_fixtures import seed_discussed_pr
from servers.github_server import GitHubServer
from servers.github_state import PRFile
from servers.openai_server import OpenAIServer

from readworthy.render.state import decode_state


def test_opened_posts_exactly_one_comment_and_rerun_edits_it(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(seeded.pr, "opened"))
    first = run(monkeypatch, capsys, env)
    assert first.code == 0, first.stdout
    ours = own_comments(github_server, seeded.number)
    assert len(ours) == 1
    body = ours[0].body
    assert body.startswith("<!-- readworthy:v1 ")
    assert "Heuristic — no model was called" in body
    report = decode_state(body)
    assert report is not None and report.number == seeded.number
    assert first.outputs["verdict"] == report.digest.verdict.value
    assert first.outputs["comment-id"] == str(ours[0].id)
    assert first.outputs["comment-url"].endswith(f"#issuecomment-{ours[0].id}")
    assert first.outputs["prompt-tokens"] == "0" and first.outputs["skipped-reason"] == ""
    assert "## readworthy" in first.summary and report.digest.reason[:20] in first.summary

    # The seeded marker-looking comment by github-actions[bot] from an "earlier run" is ours too by login;
    # after the run exactly one of our comments remains.
    second = run(monkeypatch, capsys, env)
    assert second.code == 0
    again = own_comments(github_server, seeded.number)
    assert [c.id for c in again] == [ours[0].id]
    assert second.outputs["comment-id"] == str(ours[0].id)


def test_synchronize_unchanged_makes_no_model_call_and_changed_does(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    openai_server.add_json(GOOD_DIGEST, prompt_tokens=3000, completion_tokens=200)
    env = action_env(github_server, tmp_path / "1", "pull_request_target", pr_payload(seeded.pr, "opened"),
                     openai_url=openai_server.url)
    first = run(monkeypatch, capsys, env)
    assert first.code == 0 and len(openai_server.chat_requests) == 1
    assert first.outputs["prompt-tokens"] == "3000" and float(first.outputs["cost-usd"]) > 0
    comment_id = own_comments(github_server, seeded.number)[0].id

    # A force-push with the same patch: new head SHA, same content -> 0 model calls.
    seeded.pr.head_sha = "f" * 40
    sync = pr_payload(seeded.pr, "synchronize", before="0" * 40, after="f" * 40)
    env = action_env(github_server, tmp_path / "2", "pull_request_target", sync, openai_url=openai_server.url)
    unchanged = run(monkeypatch, capsys, env)
    assert unchanged.code == 0
    assert len(openai_server.chat_requests) == 1  # no new call
    assert unchanged.outputs["skipped-reason"] == "unchanged" and unchanged.outputs["prompt-tokens"] == "0"
    body = own_comments(github_server, seeded.number)[0].body
    state = decode_state(body)
    assert state is not None and state.head_sha == "f" * 40 and state.analyzer == "model"
    assert "head fffffff" in body  # the cheap part was refreshed

    # A one-line push is new content but not material: the analysis stays and says which head it describes.
    seeded.pr.files.append(PRFile("vllm/v1/worker/gpu_worker.py", additions=1, patch="@@ -1 +1,2 @@\n x\n+y\n"))
    seeded.pr.head_sha = "e" * 40
    sync = pr_payload(seeded.pr, "synchronize", before="f" * 40, after="e" * 40)
    env = action_env(github_server, tmp_path / "3", "pull_request_target", sync, openai_url=openai_server.url)
    small = run(monkeypatch, capsys, env)
    assert small.code == 0 and len(openai_server.chat_requests) == 1
    assert small.outputs["skipped-reason"] == "not-material"
    body = own_comments(github_server, seeded.number)[0].body
    assert "This analysis describes fffffff" in body and "now `eeeeeee`" in body

    # Material new content (a new 40-line module) -> one new model call, same comment edited.
    added = "".join(f"+def step_{i}(x):\n+    return x + {i}\n" for i in range(20))
    seeded.pr.files.append(PRFile("vllm/v1/worker/steps.py", status="added", additions=40,
                                  patch=f"@@ -0,0 +1,40 @@\n{added}"))
    openai_server.add_json(GOOD_DIGEST | {"verdict": "skim"})
    env = action_env(github_server, tmp_path / "4", "pull_request_target", sync, openai_url=openai_server.url)
    changed = run(monkeypatch, capsys, env)
    assert changed.code == 0 and len(openai_server.chat_requests) == 2
    assert "This analysis describes" not in own_comments(github_server, seeded.number)[0].body
    ours = own_comments(github_server, seeded.number)
    assert [c.id for c in ours] == [comment_id]
    assert changed.outputs["verdict"] == "skim"


def test_trigger_label_forces_a_fresh_analysis_and_is_removed(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = seed_discussed_pr(github_server)
    openai_server.add_json(GOOD_DIGEST, times=2)
    env = action_env(github_server, tmp_path / "1", "pull_request_target", pr_payload(seeded.pr, "opened"),
                     openai_url=openai_server.url)
    assert run(monkeypatch, capsys, env).code == 0
    seeded.pr.labels.append("readworthy")
    payload = pr_payload(seeded.pr, "labeled", label={"name": "readworthy"})
    env = action_env(github_server, tmp_path / "2", "pull_request_target", payload, openai_url=openai_server.url)
    rerun = run(monkeypatch, capsys, env)
    assert rerun.code == 0
    assert len(openai_server.chat_requests) == 2  # same inputs, but the label forces a fresh call
    assert "readworthy" not in seeded.pr.labels
    assert len(own_comments(github_server, seeded.number)) == 1


def test_other_labels_do_nothing(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    github_server.clear_log()
    payload = pr_payload(seeded.pr, "labeled", label={"name": "performance"})
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target", payload))
    assert result.code == 0 and result.outputs["skipped-reason"] == "other-label"
    assert github_server.count() == 0
    assert "Skipped" in result.summary


def test_dispatch_reviews_three_prs(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    numbers = []
    for i in range(3):
        pr = github_server.add_pr(REPO, f"Fix typo {i}", "Small fix.", user="alice",
                                  files=[PRFile(f"docs/page{i}.md", additions=1, patch="@@ -1 +1 @@\n-teh\n+the\n")])
        numbers.append(pr.number)
    payload = {"inputs": {"pr-number": f"{numbers[0]}, {numbers[1]} {numbers[2]}"}, "repository": {"full_name": REPO}}
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "workflow_dispatch", payload))
    assert result.code == 0
    for number in numbers:
        assert len(own_comments(github_server, number)) == 1
        assert f"### #{number}" in result.summary
    assert result.outputs["verdict"] == ""  # several PRs: no single verdict


def test_draft_and_bot_prs_are_skipped_without_reading_them(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    draft = github_server.add_pr(REPO, "WIP", "", user="alice", draft=True, files=[PRFile("a.py", additions=1)])
    bot = github_server.add_pr(REPO, "Bump torch", "", user="dependabot[bot]", files=[PRFile("requirements.txt")])
    for pr, code in ((draft, "draft"), (bot, "bot-author")):
        result = run(monkeypatch, capsys, action_env(github_server, tmp_path / code, "pull_request_target",
                                                     pr_payload(pr, "opened")))
        assert result.code == 0 and result.outputs["skipped-reason"] == code
        assert own_comments(github_server, pr.number) == [] and f"`{code}`" in result.summary
    assert github_server.count("POST", r"/comments$") == 0


def test_include_drafts_from_base_branch_config(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    github_server.repo(REPO)
    github_server.set_file(REPO, "main", ".github/readworthy.yml", "include_drafts: true\nverdict_labels: true\n")
    draft = github_server.add_pr(REPO, "WIP: new scheduler knob", "", user="alice", draft=True,
                                 files=[PRFile("vllm/core/scheduler.py", additions=3, patch="@@ -1 +1,3 @@\n+a\n+b\n+c\n")])
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(draft, "ready_for_review")))
    assert result.code == 0 and len(own_comments(github_server, draft.number)) == 1
    verdict = result.outputs["verdict"]
    assert draft.labels == [f"readworthy:{verdict}"]


def test_console_script_in_a_subprocess(github_server: GitHubServer, tmp_path: Path) -> None:
    """The Docker image runs `readworthy action`: the real process, real env (INPUT_GITHUB-TOKEN), real exit code."""
    import os
    import subprocess
    import sys

    seeded = seed_discussed_pr(github_server)
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(seeded.pr, "opened"),
                     inputs={"language": "zh-CN"})
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "OPENAI_"))}
    script = Path(sys.executable).parent / "readworthy"
    proc = subprocess.run([str(script), "action"], env=clean | env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    ours = own_comments(github_server, seeded.number)
    assert len(ours) == 1 and "可以跳过" in ours[0].body or "值得" in ours[0].body
    assert "verdict<<" in (tmp_path / "output").read_text() and "## readworthy" in (tmp_path / "summary.md").read_text()
    assert "Traceback" not in proc.stderr


def test_dispatch_all_open_reviews_only_open_prs(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    opened = [github_server.add_pr(REPO, f"Open {i}", "", user="alice",
                                   files=[PRFile(f"vllm/a{i}.py", additions=1, patch="@@ -1 +1 @@\n-a\n+b\n")])
              for i in range(2)]
    closed = github_server.add_pr(REPO, "Closed", "", user="alice", state="closed", files=[PRFile("x.py")])
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "workflow_dispatch",
                                                 {"inputs": {"all-open": "true"}}))
    assert result.code == 0
    assert [len(own_comments(github_server, pr.number)) for pr in opened] == [1, 1]
    assert own_comments(github_server, closed.number) == []


@pytest.mark.parametrize(("config", "pr_kwargs", "code"), [
    ("skip_labels: [no-readworthy]\n", {"labels": ["no-readworthy"]}, "skip-label"),
    ("skip_authors: [release-bot]\n", {"user": "release-bot"}, "skip-author"),
    ("skip_base_branches: ['release/*']\n", {"base_ref": "release/v0.9"}, "skip-base-branch"),
    ("skip_paths: ['docs/**']\n", {}, "skip-paths"),
])
def test_config_skips_from_the_base_branch(
    config: str, pr_kwargs: dict[str, object], code: str, github_server: GitHubServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    github_server.repo(REPO)
    base = str(pr_kwargs.get("base_ref", "main"))
    github_server.set_file(REPO, base, ".github/readworthy.yml", config)
    pr = github_server.add_pr(REPO, "Docs: fix a link", "", **{"user": "alice", **pr_kwargs},  # type: ignore[arg-type]
                              files=[PRFile("docs/usage/cpu.md", additions=1, patch="@@ -1 +1 @@\n-a\n+b\n")])
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened")))
    assert result.code == 0 and result.outputs["skipped-reason"] == code
    assert own_comments(github_server, pr.number) == [] and f"`{code}`" in result.summary


def test_pr_command_from_a_terminal_dry_run_then_post(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`readworthy pr OWNER/REPO#N` is the same review as the action: --dry-run prints and writes nothing."""
    from servers.github_state import PERSONAL_TOKEN

    from readworthy.cli import main

    seeded = seed_discussed_pr(github_server)
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    github_server.clear_log()
    assert main(["pr", f"{REPO}#{seeded.number}", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "## " in out and "Heuristic — no model was called" in out
    assert [r for r in github_server.requests if r.is_write] == []
    assert main(["pr", f"{REPO}#{seeded.number}"]) == 0
    item = github_server.state.item(REPO, seeded.number)
    assert item is not None
    mine = [c for c in item.comments if c.user == "octocat" and "<!-- readworthy:v1" in c.body]
    assert len(mine) == 1
