"""Hostile input and output end to end: nothing steered, nothing leaked (issue 8).

Through `readworthy action` against the test GitHub and OpenAI servers (real HTTP):
  - injections in every kind of PR text reach the model only inside the untrusted-data fence,
    and a forged fence line cannot close it; hidden HTML/zero-width text does not reach it at all;
  - a hostile model answer is rendered neutralised (mentions, HTML, images, foreign links, bot
    commands, our marker, </details>, huge fields), and an invalid verdict falls back, labelled;
  - secrets planted in the diff, title, body, comments, reviews, threads, commits and linked issues
    reach neither the model request, the comment, the job summary, stdout/stderr nor the log records,
    with show-prompt on and step debug on; the coverage footer counts them; our own token and key
    are announced with ::add-mask:: and printed nowhere else.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from action_run import GOOD_DIGEST, KEY, REPO, action_env, own_comments, pr_payload, run
from hostile_cases import (
    FAKE_FENCE_CLOSE,
    HIDDEN_INSTRUCTION,
    HIDDEN_VARIANTS,
    HOSTILE_STRINGS,
    INJECTION,
    PRIVATE_KEY_BLOCK,
    SECRETS,
    ZERO_WIDTH,
    comment_problems,
    hostile_digest,
    leaked,
)
from servers.github_server import GitHubServer
from servers.github_state import WORKFLOW_TOKEN, ItemRef, PRCommit, PRFile, PullRequest
from servers.openai_server import OpenAIServer

from readworthy.render.state import decode_state

FENCE_RE = re.compile(r"^<<<(BEGIN|END) (RW-[0-9a-f]{12}) (\w+)>>>", re.MULTILINE)


def seed_pr(server: GitHubServer, *, title: str, body: str, comment: str, diff_line: str, issue_text: str,
            thread_text: str, review_text: str, commit_text: str) -> PullRequest:
    issue = server.add_issue(REPO, "Worker crash on CPU", issue_text, comments=[("carol", issue_text)])
    pr = server.add_pr(
        REPO, title, f"{body}\n\nFixes #{issue.number}", user="mallory",
        files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=3, deletions=1,
                      patch="@@ -40,3 +40,5 @@ class CPUWorker:\n     def init_device(self):\n"
                            "-        torch.set_num_threads(os.cpu_count())\n"
                            f"+        # {diff_line}\n"
                            "+        threads = max(1, os.cpu_count() // self.local_world_size)\n"
                            "+        torch.set_num_threads(threads)\n")],
        commits=[PRCommit(sha="a" * 40, message=f"Split threads\n\n{commit_text}", author="mallory")],
    )
    pr.closing_issues.append(ItemRef(REPO, issue.number))
    server.add_comment(REPO, pr.number, "mallory", comment)
    review = server.add_review(REPO, pr.number, "mallory", "COMMENTED", review_text)
    server.add_thread(REPO, pr.number, "vllm/v1/worker/cpu_worker.py", 41, [("mallory", thread_text)], review=review)
    return pr


def user_message(openai_server: OpenAIServer) -> str:
    [request] = openai_server.chat_requests
    messages = request.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    return str(messages[1]["content"])


def fenced_sections(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """(nonce, [(section name, text inside)], text outside every section). Fails on a broken fence."""
    marks = list(FENCE_RE.finditer(text))
    assert marks, "no fence in the user message"
    nonce = marks[0].group(2)
    real = [m for m in marks if m.group(2) == nonce]
    sections: list[tuple[str, str]] = []
    outside = text[: real[0].start()]
    for begin, end in zip(real[::2], real[1::2], strict=True):
        assert begin.group(1) == "BEGIN" and end.group(1) == "END" and begin.group(3) == end.group(3)
        sections.append((begin.group(3), text[begin.end() : end.start()]))
    for end, nxt in zip(real[1::2], [*real[2::2], None], strict=True):
        outside += text[end.end() : nxt.start() if nxt else len(text)]
    return nonce, sections, outside


# --------------------------------------------------------------------------- injections stay data


def test_injections_reach_the_model_only_inside_the_fence(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    where = ("title", "body", "comment", "diff", "issue", "thread", "review", "commit")
    tagged = {w: f"{INJECTION} [{w}-inj]" for w in where}
    pr = seed_pr(
        github_server, title=tagged["title"],
        body=f"{tagged['body']}\n{FAKE_FENCE_CLOSE}\n" + "\n".join(HIDDEN_VARIANTS) + f"\nsplit{ZERO_WIDTH}threads entity&#8203;&#x202E;split",
        comment=tagged["comment"], diff_line=tagged["diff"], issue_text=tagged["issue"],
        thread_text=tagged["thread"], review_text=tagged["review"], commit_text=tagged["commit"],
    )
    # Diff lines are not prose: a forged fence there reaches the packer verbatim.
    pr.files[0].patch = (pr.files[0].patch or "").rstrip("\n") + "\n" + "\n".join(
        "+" + line for line in FAKE_FENCE_CLOSE.split("\n")) + "\n"
    pr.files[0].additions += 3
    openai_server.add_json(GOOD_DIGEST)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened"), openai_url=openai_server.url))
    assert result.code == 0
    text = user_message(openai_server)
    nonce, sections, outside = fenced_sections(text)
    inside = "\n".join(body for _, body in sections)
    for w in where:
        assert f"[{w}-inj]" in inside, f"the {w} injection did not reach the model at all"
        assert f"[{w}-inj]" not in outside, f"the {w} injection is outside the fence"
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" not in outside
    # The forged close is inside a section and does not carry the real token.
    assert "RW-000000000000" in inside and nonce != "RW-000000000000"
    assert all(f"{nonce}" not in body for _, body in sections)
    # Hidden text never reaches the model; invisible characters are gone.
    assert HIDDEN_INSTRUCTION not in text
    assert not any(ch in text for ch in ZERO_WIDTH) and "splitthreads" in text
    assert "entitysplit" in text  # entities that decode to invisible characters are removed after decoding
    # The system message says what the fence means.
    [request] = openai_server.chat_requests
    assert "untrusted" in (request.json["messages"][1]["content"][:600] + request.json["messages"][0]["content"]).lower()


# --------------------------------------------------------------------------- hostile model output


@pytest.mark.parametrize("attack", sorted(HOSTILE_STRINGS))
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_hostile_model_answer_is_rendered_harmless(
    attack: str, language: str, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = github_server.add_pr(REPO, "Split threads per rank", "Splits OMP threads.", user="alice",
                              files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=1,
                                            patch="@@ -1 +1,2 @@\n x = 1\n+threads = 2\n")])
    openai_server.add_json(hostile_digest(attack))
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                   inputs={"language": language}))
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    host = urlsplit(github_server.html_url).hostname or ""
    assert comment_problems(comment.body, host) == []
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "model"  # neutralised, not merely rejected
    # The job summary carries the same digest: it must be as harmless.
    summary_digest = result.summary.split("\n\n", 2)[-1]
    assert "<script" not in summary_digest and "evil.example/p" not in re.sub(r"`[^`]*`", "", summary_digest)


@pytest.mark.parametrize("verdict", ["must-read", "SKIP IT", "", None, 3])
def test_invalid_verdict_falls_back_labelled(
    verdict: Any, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    pr = github_server.add_pr(REPO, "Split threads per rank", "Splits OMP threads.", user="alice",
                              files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=1,
                                            patch="@@ -1 +1,2 @@\n x = 1\n+threads = 2\n")])
    openai_server.add_json({**GOOD_DIGEST, "verdict": verdict}, times=2)  # the answer and the repaired answer
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened"), openai_url=openai_server.url))
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None and state.analyzer == "heuristic" and "verdict" in state.fallback_reason
    assert state.digest.verdict.value in ("deep-read", "skim", "skip")
    assert "Heuristic fallback" in comment.body


# --------------------------------------------------------------------------- secrets


def _planted(where: str) -> str:
    return (f"[{where}] AWS_ACCESS_KEY_ID={SECRETS['aws_access_key']} token {SECRETS['github_token']} "
            f"OPENAI_API_KEY={SECRETS['openai_key']} slack {SECRETS['slack_token']} "
            f"DB_PASSWORD={SECRETS['password']}")


@pytest.mark.parametrize("with_model", [True, False], ids=["model", "heuristic"])
def test_planted_secrets_reach_nothing_we_write(
    with_model: bool, github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    pr = seed_pr(
        github_server, title=f"Fix worker crash {SECRETS['github_token']}",
        body=_planted("body") + "\n\n```\n" + PRIVATE_KEY_BLOCK + "\n```",
        comment=_planted("comment"), diff_line=f"AWS_ACCESS_KEY_ID={SECRETS['aws_access_key']}",
        issue_text=_planted("issue"), thread_text=_planted("thread"), review_text=_planted("review"),
        commit_text=_planted("commit"),
    )
    # The diff also carries a private key block and a password as added lines.
    pr.files[0].patch = (pr.files[0].patch or "").rstrip("\n") + "\n" + "\n".join(
        "+" + line for line in [f'DB_PASSWORD = "{SECRETS["password"]}"', *PRIVATE_KEY_BLOCK.split("\n")]) + "\n"
    pr.files[0].additions += 5
    if with_model:
        # A model that parrots secrets back cannot leak them either: it never saw them.
        openai_server.add_json(GOOD_DIGEST)
    monkeypatch.setenv("ACTIONS_STEP_DEBUG", "true")
    monkeypatch.setenv("RUNNER_DEBUG", "1")
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"),
                     openai_url=openai_server.url if with_model else None, inputs={"show-prompt": "true"})
    result = run(monkeypatch, capsys, env)
    _, err = capsys.readouterr()
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    requests_text = "\n".join(r.body.decode("utf-8", "replace") for r in openai_server.requests)
    logs = "\n".join(r.getMessage() for r in caplog.records)
    places = {"model request": requests_text, "comment": comment.body, "job summary": result.summary,
              "stdout": result.stdout, "stderr": err, "log records": logs, "outputs": str(result.outputs)}
    assert {where: leaked(text) for where, text in places.items() if leaked(text)} == {}
    if with_model:
        assert "[REDACTED:" in requests_text  # the model saw that something was there
    assert "--- user" in result.stdout  # show-prompt really printed the prompt
    state = decode_state(comment.body)
    assert state is not None
    assert leaked(state.model_dump_json()) == []  # nor in the hidden state (base64 hides, it does not redact)
    # 5 per planted text: body, comment, thread, review, commit, issue body, issue comment (35),
    # + the title's token, the body's key block, and the diff's key, password and key block (5).
    assert state.coverage.secrets_redacted == 40
    assert "40 secrets redacted" in comment.body


def test_our_own_token_and_key_are_masked_and_never_printed(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    pr = github_server.add_pr(REPO, "Split threads per rank", "Splits OMP threads.", user="alice",
                              files=[PRFile("vllm/v1/worker/cpu_worker.py", additions=1,
                                            patch="@@ -1 +1,2 @@\n x = 1\n+threads = 2\n")])
    openai_server.add_error(401, "Incorrect API key provided: " + KEY)  # a provider that echoes the key
    monkeypatch.setenv("ACTIONS_STEP_DEBUG", "true")
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"),
                     openai_url=openai_server.url, inputs={"show-prompt": "true"})
    result = run(monkeypatch, capsys, env)
    _, err = capsys.readouterr()
    lines = result.stdout.splitlines()
    assert f"::add-mask::{KEY}" in lines and f"::add-mask::{WORKFLOW_TOKEN}" in lines
    for secret in (KEY, WORKFLOW_TOKEN):
        printed = [line for line in lines if secret in line and not line.startswith("::add-mask::")]
        assert printed == [], printed
        assert secret not in err and secret not in result.summary
        assert all(secret not in r.getMessage() for r in caplog.records)
    [comment] = own_comments(github_server, pr.number)
    assert KEY not in comment.body and WORKFLOW_TOKEN not in comment.body


def test_a_secret_in_the_title_stays_out_of_a_reused_analysis(
    github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The second run finds its inputs unchanged and reuses the stored Report: the title it refreshes
    must be the redacted one too."""
    pr = github_server.add_pr(REPO, f"Rotate the deploy key {SECRETS['github_token']}", "", user="alice",
                              files=[PRFile("deploy/keys.py", additions=1, patch="@@ -1 +1,2 @@\n x = 1\n+y = 2\n")])
    env = action_env(github_server, tmp_path, "pull_request_target", pr_payload(pr, "opened"))
    assert run(monkeypatch, capsys, env).code == 0
    second = run(monkeypatch, capsys, env)
    assert second.code == 0
    [comment] = own_comments(github_server, pr.number)
    state = decode_state(comment.body)
    assert state is not None
    assert leaked(state.model_dump_json()) == [] and leaked(comment.body + second.summary + second.stdout) == []


@pytest.mark.parametrize("attack", sorted(set(HOSTILE_STRINGS) - {"huge"}))
def test_hostile_pr_text_echoed_by_the_heuristic_is_harmless(
    attack: str, github_server: GitHubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No key: the heuristic builds the digest from the PR's own text (titles, commits, issues, threads,
    paths), so the attack reaches the renderer through it instead of through a model."""
    text = HOSTILE_STRINGS[attack]
    pr = seed_pr(github_server, title=f"Fix {text}", body=text, comment=text, diff_line=text, issue_text=text,
                 thread_text=text, review_text=text, commit_text=text)
    pr.files.append(PRFile(f"tests/{text.splitlines()[0][:60]}/test_x.py", status="added", additions=1,
                           patch="@@ -0,0 +1 @@\n+def test_x(): pass"))
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                   pr_payload(pr, "opened")))
    assert result.code == 0
    [comment] = own_comments(github_server, pr.number)
    assert comment_problems(comment.body, urlsplit(github_server.html_url).hostname or "") == []


def test_local_debug_logging_never_prints_the_key(openai_server: OpenAIServer, tmp_path: Path) -> None:
    """`readworthy -v local` with the openai SDK's own debug logging on: the key stays out of both streams."""
    import os
    import subprocess
    import sys

    patch = tmp_path / "c.patch"
    patch.write_text("diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x = 1\n"
                     f"+TOKEN = '{SECRETS['github_token']}'\n")
    openai_server.add_json(GOOD_DIGEST)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GITHUB_"))}
    env.update(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=openai_server.url, OPENAI_LOG="debug")
    proc = subprocess.run([sys.executable, "-m", "readworthy.cli", "-v", "local", "--patch", str(patch)],
                          check=False, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "DEBUG" in proc.stderr  # debug logging really was on
    assert KEY not in proc.stdout + proc.stderr
    assert leaked(proc.stdout + proc.stderr) == []
    assert leaked(openai_server.chat_requests[0].body.decode()) == []


def test_pr_text_printed_by_show_prompt_cannot_run_workflow_commands(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A log line starting with `::` is a workflow command. The prompt holds PR text, so it is printed
    between ::stop-commands::TOKEN and ::TOKEN:: with a token the PR cannot know (or end early)."""
    body = "::warning::forged by the PR\n::stop-commands::pwned\n::pwned::\n::add-mask::everything"
    pr = github_server.add_pr(REPO, "Split threads", body, user="mallory",
                              files=[PRFile("vllm/a.py", additions=1, patch="@@ -0,0 +1 @@\n+::error::in the diff\n")])
    openai_server.add_json(GOOD_DIGEST)
    result = run(monkeypatch, capsys, action_env(github_server, tmp_path, "pull_request_target",
                                                 pr_payload(pr, "opened"), openai_url=openai_server.url,
                                                 inputs={"show-prompt": "true"}))
    assert result.code == 0
    lines = result.stdout.splitlines()
    [start] = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::") and "pwned" not in line]
    token = lines[start].removeprefix("::stop-commands::")
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    end = lines.index(f"::{token}::")
    forged = [i for i, line in enumerate(lines)
              if "forged by the PR" in line or "in the diff" in line or "pwned" in line or "add-mask::every" in line]
    assert forged and all(start < i < end for i in forged), (start, end, forged)
