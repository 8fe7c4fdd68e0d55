"""Pure parts of gathering: issue references in text, discussion noise, commit de-duplication."""

from __future__ import annotations

import pytest

from readworthy.gather.links import IssueRef, find_issue_refs
from readworthy.gather.nodes import actor, commits_from_nodes
from readworthy.gather.noise import noise_kind
from readworthy.models import LinkKind

C, M = LinkKind.CLOSING, LinkKind.MENTIONED


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fixes #12", [IssueRef("o/r", 12, C)]),
        ("closes: #3 and resolved #4", [IssueRef("o/r", 3, C), IssueRef("o/r", 4, C)]),
        ("FIXED vllm-project/vllm#3001", [IssueRef("vllm-project/vllm", 3001, C)]),
        ("Resolves https://github.com/a/b/issues/9", [IssueRef("a/b", 9, C)]),
        ("see https://ghe.corp/a/b/pull/10 and #11", [IssueRef("a/b", 10, M), IssueRef("o/r", 11, M)]),
        ("related to #5, fixes #5", [IssueRef("o/r", 5, C)]),  # a closing mention wins
        ("`Fixes #1` and\n```\nfixes #2\n```\n", []),  # code is not a link on GitHub
        ("<!-- Fixes #123 (template hint) -->", []),
        ("page#3 &#39; #0 fixes#4", []),
        ("prefix (#44)", [IssueRef("o/r", 44, M)]),
        ("Fix #7.", [IssueRef("o/r", 7, C)]),
    ],
)
def test_find_issue_refs(text: str, expected: list[IssueRef]) -> None:
    assert find_issue_refs(text, "o/r") == expected


@pytest.mark.parametrize(
    ("author", "body", "is_bot", "kind"),
    [
        ("alice", "<!-- readworthy:state v1 -->\nold digest", False, "own"),
        ("github-actions[bot]", "CI passed", True, "bot"),
        ("mergify", "Queued", False, "bot"),  # from ignore_authors
        ("bob", "/ci run cpu-tests", False, "command"),
        ("bob", "/retest", False, "command"),
        ("dave", "LGTM!", False, "lgtm"),
        ("dave", "  👍 ", False, "lgtm"),
        ("dave", "", False, "empty"),
        ("dave", "LGTM, but the lock in cache.py is held across the await: deadlock risk.", False, None),
        ("bob", "/ci run is broken for ROCm since #12, see logs:\nline", False, None),
    ],
)
def test_noise_kind(author: str, body: str, is_bot: bool, kind: str | None) -> None:
    assert noise_kind(author, body, author_is_bot=is_bot, ignore_authors=["Mergify"]) == kind


def test_graphql_bot_logins_are_normalised_to_rest_form() -> None:
    assert actor({"__typename": "Bot", "login": "github-actions"}) == ("github-actions[bot]", True)
    assert actor({"__typename": "User", "login": "alice"}) == ("alice", False)
    assert actor(None) == ("ghost", False)


def test_commit_messages_are_deduplicated_against_title_body_and_each_other() -> None:
    def node(msg: str) -> dict[str, object]:
        return {"commit": {"oid": "a" * 40, "message": msg, "author": {"name": "A", "user": {"login": "alice"}}}}

    nodes = [node("Cap threads"), node("fix\n\nSigned-off-by: A <a@x>"), node("fix"), node("Explained in body"),
             node("Handle local_world_size\n\nCo-authored-by: B <b@x>")]
    commits = commits_from_nodes(nodes, "Cap threads", "Intro.\nExplained in body\n")
    assert [c.message for c in commits] == ["fix", "Handle local_world_size"]
    assert commits[0].author == "alice"
