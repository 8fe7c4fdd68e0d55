"""`readworthy digest` end to end: the CLI against the test GitHub and OpenAI servers over real HTTP."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from digest_seeding import REPO, add_pr_at, model_reply, use_wall_clock
from servers.github_fixtures import PERSONAL_TOKEN, WORKFLOW_LOGIN
from servers.github_server import GitHubServer
from servers.openai_server import OpenAIServer

from readworthy.cli import main
from readworthy.render.state import MARKER, decode_state

NOW = datetime.now(UTC)



def _model(monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)


def _seed_day(server: GitHubServer) -> dict[str, int]:
    """Three PRs merged in the last day, one merged last week, one open, one bot PR, one closed unmerged."""
    hours = lambda h: NOW - timedelta(hours=h)  # noqa: E731
    a = add_pr_at(server, "Split the runner step", created=hours(50), merged=hours(20), user="alice")
    b = add_pr_at(server, "Fix a typo in the docs", created=hours(30), merged=hours(10), user="bob")
    c = add_pr_at(server, "Cache rotary tables", created=hours(5), merged=hours(2), user="carol")
    old = add_pr_at(server, "Old change", created=hours(300), merged=hours(200), user="dave")
    opened = add_pr_at(server, "Open work", created=hours(3), user="erin")
    bot = add_pr_at(server, "Bump torch", created=hours(6), merged=hours(4), user="dependabot[bot]")
    closed = add_pr_at(server, "Abandoned", created=hours(8), user="frank", state="closed")
    closed.closed_at = closed.updated_at
    return {"a": a.number, "b": b.number, "c": c.number, "old": old.number, "open": opened.number,
            "bot": bot.number, "closed": closed.number}


def _own_comments(server: GitHubServer, number: int) -> list[str]:
    item = server.state.item(REPO, number)
    assert item is not None
    return [c.body for c in item.comments if c.user == WORKFLOW_LOGIN and MARKER in c.body]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["digest", "--repo", REPO, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_heuristic_digest_of_the_last_day_lists_merged_prs_and_writes_their_comments(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="readworthy")
    n = _seed_day(digest_env)
    code, out, err = _run(capsys, "--since", "24h", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    listed = {e["number"] for e in data["entries"]}
    assert listed == {n["a"], n["b"], n["c"]}  # not the old one, not the open one, not the bot's
    assert {x["number"]: x["reason"] for x in data["left_out"]} == {n["bot"]: "skipped-rule"}
    assert data["considered"] == 4
    assert all(e["analyzer"] == "heuristic" and e["source"] == "analysed" for e in data["entries"])
    assert data["usage"]["model_calls"] == 0
    # each analysed PR got its own sticky comment: the cache for the next digest
    for key in ("a", "b", "c"):
        bodies = _own_comments(digest_env, n[key])
        assert len(bodies) == 1
        stored = decode_state(bodies[0])
        assert stored is not None and stored.number == n[key]
    progress = [r.getMessage() for r in caplog.records if "running cost" in r.getMessage()]
    assert len(progress) == 3 and progress[-1].startswith("[3/3] #")  # progress in the log


def test_state_open_and_all_and_closed_select_their_own_prs(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    n = _seed_day(digest_env)
    for state, expected in (
        ("open", {n["open"]}),
        ("all", {n["a"], n["b"], n["c"], n["open"]}),
        ("closed", {n["a"], n["b"], n["c"], n["closed"]}),
    ):
        code, out, err = _run(capsys, "--since", "1d", "--state", state, "--format", "json", "--dry-run")
        assert code == 0, err
        assert {e["number"] for e in json.loads(out)["entries"]} == expected, state


def test_from_to_window_and_explicit_pr_list(digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]) -> None:
    n = _seed_day(digest_env)
    start = (NOW - timedelta(hours=25)).strftime("%Y-%m-%dT%H:%M:%SZ")
    end = (NOW - timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    code, out, err = _run(capsys, "--from", start, "--to", end, "--format", "json", "--dry-run")
    assert code == 0, err
    assert {e["number"] for e in json.loads(out)["entries"]} == {n["a"], n["b"]}

    # an explicit list takes drafts and bots too (someone asked for them), and reports unknown numbers
    code, out, err = _run(capsys, "--prs", f"{n['bot']},{n['old']},9999", "--format", "json", "--dry-run")
    assert code == 0, err
    data = json.loads(out)
    assert {e["number"] for e in data["entries"]} == {n["bot"], n["old"]}
    assert [x["reason"] for x in data["left_out"]] == ["not-found"]
    assert _own_comments(digest_env, n["old"]) == []  # --dry-run wrote nothing

    # with --prs a window only labels the digest: the old PR is still listed
    code, out, err = _run(capsys, "--prs", str(n["old"]), "--since", "1d", "--dry-run")
    assert code == 0, err
    assert f"#{n['old']}" in out and "**Window:**" in out


def test_model_digest_second_run_reuses_every_stored_analysis_with_zero_model_calls(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _model(monkeypatch, openai_server)
    n = _seed_day(digest_env)
    openai_server.add_json(model_reply("deep-read", "Introduces a per-step cache"), times=3)
    code, out, err = _run(capsys, "--since", "24h", "--format", "json")
    assert code == 0, err
    cold = json.loads(out)
    assert len(openai_server.chat_requests) == 3
    assert cold["usage"]["model_calls"] == 3 and cold["usage"]["cost_usd"] > 0
    assert {e["source"] for e in cold["entries"]} == {"analysed"}

    digest_env.clear_log()
    code, out, err = _run(capsys, "--since", "24h", "--format", "json")
    assert code == 0, err
    warm = json.loads(out)
    assert len(openai_server.chat_requests) == 3  # no new model call
    assert warm["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "model_calls": 0}
    assert {e["source"] for e in warm["entries"]} == {"cached"}
    assert [e["number"] for e in warm["entries"]] == [e["number"] for e in cold["entries"]]
    assert digest_env.count("PATCH") == 0 and digest_env.count("POST", r"/comments$") == 0  # nothing rewritten
    assert len(_own_comments(digest_env, n["a"])) == 1


def test_a_new_head_commit_invalidates_the_stored_analysis(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _model(monkeypatch, openai_server)
    pr = add_pr_at(digest_env, "Open work", created=NOW - timedelta(hours=2), user="erin")
    openai_server.add_json(model_reply("skim"), times=1)
    assert _run(capsys, "--state", "open", "--since", "1d")[0] == 0
    # a push: new head, new diff, material (30 new lines; a one-line push keeps the analysis, spend/material.py)
    pr.head_sha = "f" * 40
    body = "".join(f"+    y{i} = {i}\n" for i in range(30))
    pr.files[0].patch = f"@@ -1,2 +1,32 @@\n def run():\n-    return 1\n{body}+    return y0\n"
    pr.files[0].additions, pr.files[0].deletions = 31, 1
    openai_server.add_json(model_reply("deep-read", "Now a real change"), times=1)
    code, out, err = _run(capsys, "--state", "open", "--since", "1d", "--format", "json")
    assert code == 0, err
    assert len(openai_server.chat_requests) == 2
    entry = json.loads(out)["entries"][0]
    assert entry["source"] == "analysed" and entry["verdict"] == "deep-read"
    assert decode_state(_own_comments(digest_env, pr.number)[0]).head_sha == "f" * 40  # type: ignore[union-attr]


def test_max_prs_stops_cleanly_and_names_what_was_left_out(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _model(monkeypatch, openai_server)
    n = _seed_day(digest_env)
    openai_server.add_json(model_reply(), times=3)
    code, out, err = _run(capsys, "--since", "24h", "--max-prs", "2")
    assert code == 0, err
    assert len(openai_server.chat_requests) == 2
    assert "Not in this list (1)" in out
    assert f"#{n['a']}" in out.split("Not in this list")[1]  # the oldest merge is the one left out
    assert "per-run PR limit" in out


def test_max_cost_never_starts_an_analysis_that_could_pass_the_cap(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _model(monkeypatch, openai_server)
    _seed_day(digest_env)
    # each answer reports 15,000 tokens in / 1,500 out: $0.0084 at gpt-4.1-mini prices
    openai_server.add_json(model_reply(), times=3, prompt_tokens=15_000, completion_tokens=1_500)
    # one analysis may cost up to $0.0096 (16,000-token budget + 2,000 out): a $0.02 cap starts two;
    # after them $0.0168 is spent and a third could pass the cap, so it never starts
    code, out, err = _run(capsys, "--since", "24h", "--max-cost", "0.02", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert len(openai_server.chat_requests) == 2
    assert data["usage"]["cost_usd"] == pytest.approx(0.0168)
    assert [x["reason"] for x in data["left_out"] if x["reason"] != "skipped-rule"] == ["max-cost"]

    # a cap below one analysis starts none, and says so; a dry run asks nobody who the token is, so the
    # stored analyses are ours by READWORTHY_OWN_LOGIN
    monkeypatch.setenv("READWORTHY_OWN_LOGIN", WORKFLOW_LOGIN)
    code, out, err = _run(capsys, "--since", "24h", "--max-cost", "0.001", "--dry-run")
    assert code == 0, err
    assert len(openai_server.chat_requests) == 2
    assert "Not in this list (1)" in out and "the cost cap was reached" in out  # the two others are cached


def test_unknown_price_with_a_cost_cap_is_a_clear_error(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _model(monkeypatch, openai_server)
    _seed_day(digest_env)
    code, out, err = _run(capsys, "--since", "24h", "--max-cost", "1", "--model", "my-local-model")
    assert code == 1
    assert "price" in err and "my-local-model" in err and "Traceback" not in err
    assert openai_server.chat_requests == []


def test_output_file_json_by_suffix_and_markdown_job_summary(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed_day(digest_env)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, err = _run(capsys, "--since", "24h", "--output", str(tmp_path / "digest.json"))
    assert code == 0, err
    assert out == ""
    data = json.loads((tmp_path / "digest.json").read_text())
    assert data["counts"] and sum(data["counts"].values()) == 3
    assert "# 📚 Reading list" in summary.read_text()
    code, out, err = _run(capsys, "--since", "24h", "--output", str(tmp_path / "digest.md"))
    assert (tmp_path / "digest.md").read_text().startswith("<!-- readworthy-digest:v1")


def test_bad_flags_are_clear_errors(digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]) -> None:
    for args, words in (
        (["--since", "yesterday"], "24h"),
        (["--from", "2026-13-01"], "YYYY-MM-DD"),
        (["--from", "2026-01-01", "--since", "1d"], "not both"),
        (["--max-cost", "lots"], "US dollars"),
        (["--to", "2026-01-01"], "--to needs --from"),
    ):
        code, _, err = _run(capsys, *args)
        assert code == 2 and words in err and "Traceback" not in err, args  # usage errors, as argparse's


def test_a_personal_token_works_too(github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    github_server.add_repo(REPO)
    use_wall_clock(github_server)
    pr = add_pr_at(github_server, "One", created=NOW - timedelta(hours=3), merged=NOW - timedelta(hours=1))
    code, out, err = _run(capsys, "--since", "6h")
    assert code == 0, err
    assert f"#{pr.number}" in out
    item = github_server.state.item(REPO, pr.number)
    assert item is not None and [c.user for c in item.comments] == ["octocat"]


def test_the_default_branch_config_sets_rules_and_language_unless_a_flag_does(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    n = _seed_day(digest_env)
    item = digest_env.state.item(REPO, n["b"])
    assert item is not None
    item.labels.append("no-digest")
    digest_env.set_file(REPO, "main", ".github/readworthy.yml", "language: zh-CN\nskip_labels: [no-digest]\n")
    code, out, err = _run(capsys, "--since", "24h", "--dry-run")
    assert code == 0, err
    assert "# 📚 阅读清单" in out and f"#{n['b']}]" not in out and f"#{n['a']}]" in out
    code, out, err = _run(capsys, "--since", "24h", "--dry-run", "--language", "en")
    assert "# 📚 Reading list" in out
