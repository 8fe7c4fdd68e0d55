"""A stranger's 1 MB description cannot stall a review (issue 23), and its secrets stay redacted.

`readworthy action` on `pull_request_target` against the test GitHub and OpenAI servers (real HTTP),
twice: a PR whose 1 MB description is ordinary prose, then one whose 1 MB description is built to make
text steps quadratic (the issue's "İzmir" + `1.2-` case, long runs of the characters each pattern is
ambiguous about, deep nesting), with the planted secrets in it. Before issue 23 the hostile run did not
finish; now it takes about as long as the benign one (bounded at 3x that like run, not a fixed time).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from action_run import GOOD_DIGEST, REPO, action_env, own_comments, pr_payload, run
from hostile_cases import SECRETS, leaked
from servers.github_server import GitHubServer
from servers.github_state import PRFile, PullRequest
from servers.openai_server import OpenAIServer

SIZE = 1024 * 1024
CHUNK = 40 * 1024
HOSTILE_RUNS = ("1.2-", "a.", "sk-", "eyJ-", " ", "<svg ", "<img ", "![", "![a](", "`", "[", "<", "@", "-", ".",
                "İ", "a-", "#1 ", "(", "-----BEGIN PRIVATE KEY-----\n")


def hostile_body() -> str:
    head = (f"Deployed to İzmir.\nDB_PASSWORD={SECRETS['password']}\ntoken = {SECRETS['github_token']}\n"
            f"api_key: {SECRETS['openai_key']} and {SECRETS['aws_access_key']}\n")
    parts = [head]
    for token in HOSTILE_RUNS:
        prefix = {" ": "[a](", "`": "", "[": "", "(": "fix"}.get(token, "secret_token=")
        parts.append(prefix + token * (CHUNK // len(token)) + "\n")
    parts.append(f"İzmir {SECRETS['slack_token']} " + "1.2-" * (CHUNK // 4) + "\n")
    body = "".join(parts)
    filler = "> " * 2000 + "\n" + "**" * 2000 + "x" + "**" * 2000 + "\n" + "<div hidden>" * 1000 + "\n"
    while len(body) < SIZE:
        body += filler
    return body[:SIZE]


def benign_body() -> str:
    line = ("The cache keeps one entry per model revision so two revisions never share a tokenizer; see the "
            "benchmark below (p50 412 ms -> 138 ms) and the discussion in the linked issue.\n")
    return (line * (SIZE // len(line) + 1))[:SIZE]


def add_pr(server: GitHubServer, body: str) -> PullRequest:
    return server.add_pr(REPO, "Cache the tokenizer per model revision", body, user="mallory",
                         files=[PRFile("vllm/tokenizer_cache.py", additions=2, deletions=1,
                                       patch="@@ -10,3 +10,4 @@ def get_tokenizer(model):\n"
                                             "-    return load(model)\n"
                                             "+    key = (model.name, model.revision)\n"
                                             "+    return _CACHE.setdefault(key, load(model))\n")])


def test_a_1mb_hostile_description_is_reviewed_in_about_the_time_of_a_benign_one(
    github_server: GitHubServer, openai_server: OpenAIServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    seconds = {}
    # a small PR first: the first run in a process pays the imports and the tokenizer's load
    for name, body in (("warm-up", "Splits the cache per revision."), ("benign", benign_body()),
                       ("hostile", hostile_body())):
        pr = add_pr(github_server, body)
        openai_server.add_json(GOOD_DIGEST)
        env = action_env(github_server, tmp_path / name, "pull_request_target", pr_payload(pr, "opened"),
                         openai_url=openai_server.url)
        start = time.perf_counter()
        result = run(monkeypatch, capsys, env)
        seconds[name] = time.perf_counter() - start
        assert result.code == 0, result.stdout
        [comment] = own_comments(github_server, pr.number)
        if name == "hostile":
            request = str(openai_server.chat_requests[-1].json)
            assert "[REDACTED:" in request  # the secrets at the top of the description were packed, redacted
            for where, text in (("the model request", request), ("the comment", comment.body),
                                ("the job summary", result.summary), ("stdout", result.stdout)):
                assert not leaked(text), f"{leaked(text)} leaked into {where}"
    print(f"1 MB description: benign {seconds['benign']:.1f} s, hostile {seconds['hostile']:.1f} s")
    assert seconds["hostile"] <= 3 * seconds["benign"], seconds
