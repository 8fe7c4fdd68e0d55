"""Fixtures shared by the e2e tests."""

from __future__ import annotations

import pytest
from digest_seeding import REPO, use_wall_clock
from servers.github_fixtures import WORKFLOW_TOKEN
from servers.github_server import GitHubServer


@pytest.fixture
def digest_env(github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch) -> GitHubServer:
    """The digest tests' world: the repository (with discussion categories), the workflow token in the
    environment the CLI reads, and the server on the wall clock so merge windows are 'recent'."""
    monkeypatch.setenv("GITHUB_TOKEN", WORKFLOW_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    github_server.add_repo(REPO, discussion_categories=["General", "Reading list"])
    use_wall_clock(github_server)
    return github_server
