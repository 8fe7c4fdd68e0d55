"""Where the digest goes (issue, rolling issue, discussion), both languages, the matrix backfill and
the action's `mode: digest` - end to end against the test GitHub (REST + GraphQL) and OpenAI servers."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from digest_seeding import REPO, add_pr_at, model_reply
from servers.github_fixtures import READONLY_TOKEN, WORKFLOW_LOGIN, WORKFLOW_TOKEN
from servers.github_server import GitHubServer
from servers.openai_server import OpenAIServer

from readworthy.action import run_action
from readworthy.cli import main
from readworthy.digest.render import DIGEST_MARKER
from readworthy.render.state import MARKER

NOW = datetime.now(UTC)



def _seed(server: GitHubServer, count: int = 3) -> list[int]:
    return [
        add_pr_at(server, f"Change {i}", created=NOW - timedelta(hours=10), merged=NOW - timedelta(hours=9 - i),
                  user=f"dev{i}").number
        for i in range(count)
    ]


def _digest(*args: str) -> int:
    return main(["digest", "--repo", REPO, *args])


def _issues(server: GitHubServer) -> list:
    repo = server.state.repo(REPO)
    assert repo is not None
    return [i for i in repo.items.values() if not i.is_pull_request]


def test_new_issue_per_digest_carries_the_label_and_the_reading_list(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    numbers = _seed(digest_env)
    assert _digest("--since", "1d", "--publish", "issue", "--label", "reading-list") == 0
    assert _digest("--since", "1d", "--publish", "issue", "--label", "reading-list") == 0
    issues = _issues(digest_env)
    assert len(issues) == 2  # one issue per digest
    for issue in issues:
        assert issue.labels == ["reading-list"] and issue.user == WORKFLOW_LOGIN
        assert issue.body.startswith(DIGEST_MARKER)
        assert all(f"#{n}" in issue.body for n in numbers)
        assert issue.title.startswith(f"Reading list: {REPO} — ")
    assert "#" in capsys.readouterr().out


def test_rolling_issue_is_found_by_label_and_edited_in_place_never_someone_elses(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _seed(digest_env, 2)
    # someone else's issue with the same label, even with our marker text, is never edited
    decoy = digest_env.add_issue(REPO, "Our reading list (manual)", f"{DIGEST_MARKER}v1 repo=x end=_ -->\nmine",
                          user="mallory", labels=["readworthy-digest"])
    assert _digest("--since", "1d", "--publish", "rolling-issue") == 0
    rolling = [i for i in _issues(digest_env) if i.user == WORKFLOW_LOGIN]
    assert len(rolling) == 1
    first_body = rolling[0].body
    later = add_pr_at(digest_env, "A later change", created=NOW - timedelta(hours=1), merged=NOW - timedelta(minutes=30))
    digest_env.clear_log()
    assert _digest("--since", "1d", "--publish", "rolling-issue") == 0
    ours = [i for i in _issues(digest_env) if i.user == WORKFLOW_LOGIN]
    assert len(ours) == 1 and ours[0].number == rolling[0].number
    assert f"#{later.number}" in ours[0].body and ours[0].body != first_body
    assert digest_env.count("PATCH", rf"/issues/{ours[0].number}$") == 1 and digest_env.count("POST", r"/issues$") == 0
    assert decoy.body.endswith("mine") and decoy.title == "Our reading list (manual)"
    capsys.readouterr()


def test_discussion_in_the_chosen_category_via_graphql(digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]) -> None:
    numbers = _seed(digest_env)
    assert _digest("--since", "1d", "--publish", "discussion", "--discussion-category", "reading list") == 0
    repo = digest_env.state.repo(REPO)
    assert repo is not None and len(repo.discussions) == 1
    discussion = repo.discussions[0]
    assert discussion.category_id == "DIC_reading-list"
    assert all(f"#{n}" in discussion.body for n in numbers)
    assert digest_env.count("POST", "/graphql") >= 3  # viewer, categories, createDiscussion
    capsys.readouterr()


def test_unknown_discussion_category_names_the_choices_and_still_writes_output(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _seed(digest_env, 1)
    out_file = tmp_path / "d.md"
    code = _digest("--since", "1d", "--publish", "discussion", "--discussion-category", "Nope",
                   "--output", str(out_file))
    err = caplog.text
    assert code == 1
    assert "Nope" in err and "General, Reading list" in err
    assert out_file.read_text().startswith(DIGEST_MARKER)  # the digest is not lost


def test_read_only_token_cannot_publish_but_the_digest_still_reaches_summary_and_file(
    digest_env: GitHubServer, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _seed(digest_env, 2)
    monkeypatch.setenv("GITHUB_TOKEN", READONLY_TOKEN)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code = _digest("--since", "1d", "--publish", "issue", "--output", str(tmp_path / "d.json"))
    err = capsys.readouterr().err + caplog.text
    assert code == 1 and "Traceback" not in err and "grant `issues: write`" in err
    assert "Reading list" in summary.read_text()
    data = json.loads((tmp_path / "d.json").read_text())
    assert len(data["entries"]) == 2
    assert any("not written" in w for w in data["warnings"])  # PR comments refused, said so
    assert _issues(digest_env) == []


def test_chinese_digest_uses_chinese_verdict_words_and_reuses_chinese_analyses(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    numbers = _seed(digest_env, 3)
    replies = [("deep-read", "每步只算一次旋转表"), ("skim", "拆分运行器步骤"), ("skip", "修正文档拼写")]
    for verdict, headline in replies:
        openai_server.add_json(model_reply(verdict, headline, "理由：见代码。"))
    assert _digest("--since", "1d", "--language", "zh-CN") == 0
    out = capsys.readouterr().out
    assert "# 📚 阅读清单" in out
    for word in ("值得精读", "值得快速浏览", "可以跳过"):
        assert word in out
    assert out.index("值得精读") < out.index("值得快速浏览") < out.index("可以跳过")
    assert "复用已保存的分析 0 个" in out and "模型调用 3 次" in out
    # the stored analyses are Chinese: a Chinese digest reuses them, an English one does not
    assert _digest("--since", "1d", "--language", "zh-CN") == 0
    assert "复用已保存的分析 3 个" in capsys.readouterr().out
    openai_server.add_json(model_reply(), times=3)
    assert _digest("--since", "1d", "--language", "en") == 0
    assert len(openai_server.chat_requests) == 6
    # ... and the English run leaves the Chinese comments alone
    item = digest_env.state.item(REPO, numbers[0])
    assert item is not None
    ours = [c for c in item.comments if MARKER in c.body]
    assert len(ours) == 1 and "lang=zh-CN" in ours[0].body
    capsys.readouterr()


def test_matrix_backfill_chunks_then_analyse_then_assemble_with_zero_model_calls(
    digest_env: GitHubServer, openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What examples/digest-backfill.yml does, job by job."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    numbers = _seed(digest_env, 5)
    draft = add_pr_at(digest_env, "WIP", created=NOW - timedelta(hours=2), draft=True)
    window = ["--from", (NOW - timedelta(days=1)).strftime("%Y-%m-%d"), "--state", "all"]

    # job 1: list and split
    assert _digest(*window, "--list-chunks", "2") == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["count"] == 5 and draft.number not in map(int, listing["prs"].split(","))
    assert sorted(int(n) for chunk in listing["chunks"] for n in chunk.split(",")) == sorted(numbers)
    assert len(listing["chunks"]) == 2

    # matrix jobs: each analyses its chunk, writing each PR's comment (the cache)
    openai_server.add_json(model_reply(), times=5)
    for chunk in listing["chunks"]:
        assert _digest("--prs", chunk, "--publish", "none") == 0
    assert len(openai_server.chat_requests) == 5
    capsys.readouterr()

    # final job: assemble from the cache only, no model, even with a key configured
    assert _digest("--prs", listing["prs"], "--cached-only", "--publish", "rolling-issue", "--format", "json") == 0
    final = json.loads(capsys.readouterr().out)
    assert len(openai_server.chat_requests) == 5
    assert final["usage"]["model_calls"] == 0 and final["cached"] == 5 and final["left_out"] == []
    assert len(_issues(digest_env)) == 1


def test_cached_only_lists_what_has_no_stored_analysis(digest_env: GitHubServer, capsys: pytest.CaptureFixture[str]) -> None:
    numbers = _seed(digest_env, 2)
    assert _digest("--prs", str(numbers[0])) == 0  # heuristic analysis, comment written
    capsys.readouterr()
    assert _digest("--prs", ",".join(map(str, numbers)), "--cached-only", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["number"] for e in data["entries"]] == [numbers[0]]
    assert [(x["number"], x["reason"]) for x in data["left_out"]] == [(numbers[1], "not-cached")]


def _action_env(server: GitHubServer, tmp_path: Path, **inputs: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"schedule": "0 7 * * *"}))
    environ = {
        "GITHUB_EVENT_NAME": "schedule",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": server.api_url,
        "GITHUB_GRAPHQL_URL": server.graphql_url,
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "INPUT_GITHUB-TOKEN": WORKFLOW_TOKEN,
    }
    environ.update({f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()})
    return environ


def test_action_schedule_posts_a_rolling_digest_and_the_next_run_starts_where_it_ended(
    digest_env: GitHubServer, tmp_path: Path
) -> None:
    numbers = _seed(digest_env, 2)
    assert run_action(_action_env(digest_env, tmp_path, digest_since="2d")) == 0
    issues = _issues(digest_env)
    assert len(issues) == 1 and all(f"#{n}" in issues[0].body for n in numbers)
    assert "Reading list" in (tmp_path / "summary.md").read_text()
    # no digest-since: the window starts where the previous digest ended -> the old PRs are not repeated
    time.sleep(1.1)  # GitHub timestamps have whole seconds
    later = add_pr_at(digest_env, "After the last digest", created=NOW, merged=datetime.now(UTC))
    assert run_action(_action_env(digest_env, tmp_path)) == 0
    issues = _issues(digest_env)
    assert len(issues) == 1
    assert f"#{later.number}" in issues[0].body and f"#{numbers[0]}" not in issues[0].body


def test_action_digest_with_bad_inputs_fails_clearly(digest_env: GitHubServer, tmp_path: Path) -> None:
    assert run_action(_action_env(digest_env, tmp_path, digest_target="slack")) == 1
    assert "digest-target" in (tmp_path / "summary.md").read_text()
