"""The test GitHub server's git refs, as GitHub's REST API answers them (PyGithub over real HTTP)."""

from __future__ import annotations

import github
import pytest
from servers.github_fixtures import READONLY_TOKEN, github_client
from servers.github_server import GitHubServer


def test_a_ref_is_created_once_listed_by_prefix_and_deleted(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r")
    pr = github_server.add_pr("o/r", "A change")
    repo = github_client(github_server).get_repo("o/r")
    repo.create_git_ref("refs/readworthy/a/0001", pr.base_sha)
    with pytest.raises(github.GithubException) as exists:
        repo.create_git_ref("refs/readworthy/a/0001", pr.head_sha)
    assert exists.value.status == 422 and "already exists" in str(exists.value.data)
    repo.create_git_ref("refs/readworthy/a/0002", pr.head_sha)
    assert [r.ref for r in repo.get_git_matching_refs("readworthy/a/")] == ["refs/readworthy/a/0001",
                                                                            "refs/readworthy/a/0002"]
    assert list(repo.get_git_matching_refs("readworthy/none/")) == []
    repo.get_git_ref("readworthy/a/0001").delete()
    assert [r.ref for r in repo.get_git_matching_refs("readworthy/")] == ["refs/readworthy/a/0002"]


def test_bad_names_unknown_objects_and_tokens_that_may_not_write_are_refused(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r")
    pr = github_server.add_pr("o/r", "A change")
    repo = github_client(github_server).get_repo("o/r")
    for name, sha in (("refs/x", pr.base_sha), ("readworthy/a/1", pr.base_sha), ("refs/readworthy/a/1", "f" * 40)):
        with pytest.raises(github.GithubException) as refused:
            repo.create_git_ref(name, sha)
        assert refused.value.status == 422, name
    github_server.add_token("ghs_contents_read", "github-actions[bot]", kind="workflow",
                            permissions={"contents": "read"})
    for token in (READONLY_TOKEN, "ghs_contents_read"):
        with pytest.raises(github.GithubException) as forbidden:
            github_client(github_server, token).get_repo("o/r").create_git_ref("refs/readworthy/a/1", pr.base_sha)
        assert forbidden.value.status == 403
