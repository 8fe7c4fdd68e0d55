"""`.github/readworthy.yml` from the base branch: problems reported, defaults used, never a crash."""

from __future__ import annotations

import pytest
from servers.github_fixtures import READONLY_TOKEN, WORKFLOW_TOKEN, GitHubServer

from readworthy.config import RepoConfig, build_settings
from readworthy.gather.github_api import make_github
from readworthy.gather.repo_config import load_repo_config, parse_repo_config

GOOD = """\
language: zh-CN
budget: 24000
areas:
  "vllm/v1/worker/**": "MRV2 / worker"
ignore_authors: [mergify]
"""


def _load(server: GitHubServer, ref: str = "main", token: str = WORKFLOW_TOKEN) -> tuple[RepoConfig, list[str]]:
    settings = build_settings({"github_api_url": server.api_url, "github_token": token})
    return load_repo_config(make_github(settings), "o/r", ref)


def test_reads_the_base_branch_not_the_head(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", files={"main": {".github/readworthy.yml": GOOD},
                                         "evil": {".github/readworthy.yml": "skip_authors: [attacker]\n"}})
    config, problems = _load(github_server, "main")
    assert problems == []
    assert (config.language, config.budget, config.ignore_authors) == ("zh-CN", 24_000, ["mergify"])
    assert config.areas == {"vllm/v1/worker/**": "MRV2 / worker"}
    assert github_server.requests[-1].query == {"ref": "main"}


def test_absent_file_means_defaults_without_problems(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r")
    assert _load(github_server) == (RepoConfig(), [])


def test_readable_by_a_read_only_token(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", files={"main": {".github/readworthy.yml": GOOD}})
    assert _load(github_server, token=READONLY_TOKEN)[0].budget == 24_000


def test_unreadable_file_is_a_problem_not_a_crash(github_server: GitHubServer) -> None:
    github_server.add_repo("o/r", files={"main": {".github/readworthy.yml": GOOD}})
    github_server.inject("GET", r"/contents/", status=403, body={"message": "Resource not accessible"}, times=None)
    config, problems = _load(github_server)
    assert config == RepoConfig()
    assert problems == [".github/readworthy.yml: could not be read from main (GitHub answered 403); using defaults"]


@pytest.mark.parametrize(
    ("text", "expected", "problem"),
    [
        ("language: [unclosed", RepoConfig(), "not valid YAML at line 1"),
        ("- a\n- b\n", RepoConfig(), "must be a mapping of settings, got list"),
        ("budgett: 5000\nlanguage: en\n", RepoConfig(language="en"),
         "budgett: Extra inputs are not permitted (unknown setting — check the spelling); ignored"),
        ("budget: 5\nlanguage: zh-CN\n", RepoConfig(language="zh-CN"), "budget: Input should be greater than"),
        ("language: fr\n", RepoConfig(), "language: Input should be 'en' or 'zh-CN'; ignored"),
    ],
)
def test_invalid_config_keeps_what_is_valid(text: str, expected: RepoConfig, problem: str) -> None:
    config, problems = parse_repo_config(text, source="cfg")
    assert config == expected
    assert len(problems) == 1 and problem in problems[0] and problems[0].startswith("cfg: ")


def test_empty_file_is_defaults() -> None:
    assert parse_repo_config("# nothing\n") == (RepoConfig(), [])
