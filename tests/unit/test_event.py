"""event: every trigger we handle, the ones we skip, and bad payloads as clear EventErrors (fuzzed)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readworthy.errors import ConfigError, EventError, ReadworthyError
from readworthy.event import parse_event, parse_pr_numbers


def pr_payload(action: str, **pr: Any) -> dict[str, Any]:
    pull = {
        "number": 7,
        "draft": False,
        "user": {"login": "alice", "type": "User"},
        "base": {"ref": "main", "repo": {"full_name": "o/r"}},
        "head": {"sha": "abc", "repo": {"full_name": "o/r"}},
        "labels": [{"name": "documentation"}],
    }
    pull.update(pr)
    return {"action": action, "pull_request": pull, "repository": {"full_name": "o/r"}, "sender": {"login": "alice"}}


def parse(name: str, payload: Any, **inputs: str) -> Any:
    return parse_event(name, json.dumps(payload), inputs)


@pytest.mark.parametrize("name", ["pull_request", "pull_request_target"])
@pytest.mark.parametrize("action", ["opened", "reopened", "ready_for_review"])
def test_pull_request_actions_review(name: str, action: str) -> None:
    event = parse(name, pr_payload(action))
    assert event.kind == "review" and event.pr_numbers == (7,) and not event.force
    assert event.repo == "o/r" and event.pr is not None and event.pr.labels == ("documentation",)


def test_synchronize_carries_before_and_after() -> None:
    payload = pr_payload("synchronize") | {"before": "b1", "after": "a2"}
    event = parse("pull_request", payload)
    assert (event.kind, event.before_sha, event.after_sha) == ("review", "b1", "a2")


def test_payload_facts_for_early_skips() -> None:
    payload = pr_payload("opened", draft=True, user={"login": "dependabot[bot]", "type": "Bot"},
                         head={"sha": "x", "repo": {"full_name": "fork/r"}})
    info = parse("pull_request", payload).pr
    assert info is not None and info.draft and info.author_is_bot and info.is_fork


def test_trigger_label_forces_and_other_labels_skip() -> None:
    event = parse("pull_request", pr_payload("labeled") | {"label": {"name": "readworthy"}})
    assert event.kind == "review" and event.force and event.label == "readworthy"
    event = parse("pull_request", pr_payload("labeled") | {"label": {"name": "please-read"}}, **{"trigger-label": "please-read"})
    assert event.kind == "review" and event.force
    event = parse("pull_request", pr_payload("labeled") | {"label": {"name": "readworthy:skim"}})
    assert event.kind == "skip" and "not the trigger label" in event.reason


@pytest.mark.parametrize("action", ["closed", "edited", "assigned", "unlabeled"])
def test_other_pr_actions_skip(action: str) -> None:
    event = parse("pull_request", pr_payload(action))
    assert event.kind == "skip" and "not one readworthy handles" in event.reason


def test_dispatch_with_lists_and_all_open() -> None:
    event = parse("workflow_dispatch", {"inputs": {"pr-number": "3, 5 #8"}})
    assert event.kind == "review" and event.pr_numbers == (3, 5, 8)
    event = parse("workflow_dispatch", {"inputs": {}}, **{"pr-number": "9", "force": "true"})
    assert event.pr_numbers == (9,) and event.force
    event = parse("workflow_dispatch", {"inputs": {"all-open": "true"}})
    assert event.all_open and event.pr_numbers == ()
    assert parse("workflow_dispatch", {}).kind == "skip"


@pytest.mark.parametrize("bad", ["x", "0", "-3", "3.5", "١٢"])
def test_bad_pr_numbers_name_the_input(bad: str) -> None:
    with pytest.raises(ConfigError, match="pr-number"):
        parse_pr_numbers(bad)


def comment_payload(body: str, on_pr: bool = True, action: str = "created") -> dict[str, Any]:
    issue: dict[str, Any] = {"number": 12}
    if on_pr:
        issue["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/12"}
    return {"action": action, "issue": issue, "comment": {"id": 99, "body": body, "user": {"login": "bob"}}}


def test_comment_commands() -> None:
    event = parse("issue_comment", comment_payload("/readworthy"))
    assert (event.kind, event.command, event.pr_numbers, event.commenter, event.comment_id) == ("review", "review", (12,), "bob", 99)
    event = parse("issue_comment", comment_payload("/readworthy refresh\nthanks"))
    assert event.command == "refresh" and event.force
    event = parse("issue_comment", comment_payload("  /readworthy lang zh-CN"))
    assert event.command == "lang" and event.language == "zh-CN" and not event.force


@pytest.mark.parametrize(("body", "on_pr", "action", "why"), [
    ("/readworthy", False, "created", "not a pull request"),
    ("/readworthy", True, "edited", "not a new comment"),
    ("please /readworthy", True, "created", "not a /readworthy command"),
    ("/readworthyx", True, "created", "not a /readworthy command"),
    ("/readworthy lang fr", True, "created", "unknown command"),
])
def test_comments_that_are_ignored(body: str, on_pr: bool, action: str, why: str) -> None:
    event = parse("issue_comment", comment_payload(body, on_pr, action))
    assert event.kind == "skip" and why in event.reason


def test_schedule_and_digest_mode() -> None:
    assert parse("schedule", {"schedule": "0 7 * * *"}).kind == "digest"
    assert parse("workflow_dispatch", {}, mode="digest").kind == "digest"


def test_unknown_event_is_a_notice_not_an_error() -> None:
    event = parse("push", {"ref": "refs/heads/main"})
    assert event.kind == "skip" and "`push`" in event.reason


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ('{"action": "opened", "pull_request": {"numb', "not valid JSON"),
    ("[1, 2]", "JSON object"),
    ('{"action": "opened"}', "pull_request.number"),
    ('{"pull_request": {"number": 7}}', "no `action`"),
    ('{"action": "opened", "pull_request": {"number": "7"}}', "pull_request.number"),
])
def test_malformed_payloads_are_clear_event_errors(text: str, message: str) -> None:
    with pytest.raises(EventError, match=message):
        parse_event("pull_request", text, {})


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["action", "pull_request", "number", "issue", "comment", "body", "label", "name",
                         "inputs", "pr-number", "user", "login", "labels", "draft", "head", "repo"]), children, max_size=5),
    max_leaves=20,
)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "400")), deadline=None)
@given(
    name=st.sampled_from(["pull_request", "pull_request_target", "workflow_dispatch", "issue_comment", "schedule", "push"]),
    payload=JSON,
    cut=st.integers(min_value=0, max_value=200),
)
def test_fuzz_parser_only_raises_readworthy_errors(name: str, payload: Any, cut: int) -> None:
    text = json.dumps(payload)
    for candidate in (text, text[:cut]):
        try:
            event = parse_event(name, candidate, {})
        except ReadworthyError as exc:
            assert str(exc)
        else:
            assert event.kind in ("review", "digest", "skip")
            assert all(isinstance(n, int) and n > 0 for n in event.pr_numbers)
            assert event.kind != "skip" or (event.reason and event.skip_code)
