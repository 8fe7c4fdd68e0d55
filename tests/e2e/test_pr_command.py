"""`readworthy pr` from a terminal against the GitHub test server: PR URLs, the token check, API host checks."""

from __future__ import annotations

import pytest
from action_run import REPO
from servers.github_fixtures import seed_discussed_pr
from servers.github_server import GitHubServer
from servers.github_state import PERSONAL_TOKEN

from readworthy.cli import main, parse_pr_ref
from readworthy.errors import UsageError


@pytest.mark.parametrize(("ref", "expected"), [
    ("vllm-project/vllm#123", ("vllm-project/vllm", 123, None)),
    ("https://github.com/vllm-project/vllm/pull/123", ("vllm-project/vllm", 123, "https://github.com")),
    ("https://github.com/vllm-project/vllm/pull/123/files", ("vllm-project/vllm", 123, "https://github.com")),
    ("https://github.com/o/r.js/pull/9#discussion_r1", ("o/r.js", 9, "https://github.com")),
    ("  https://GHE.corp.example/team/svc/pull/7?w=1 ", ("team/svc", 7, "https://ghe.corp.example")),
    ("http://127.0.0.1:8080/o/r/pull/1", ("o/r", 1, "http://127.0.0.1:8080")),
])
def test_pr_refs_in_both_forms(ref: str, expected: tuple[str, int, str | None]) -> None:
    assert parse_pr_ref(ref) == expected


@pytest.mark.parametrize("ref", [
    "vllm#1", "o/r/5", "o/r#x", "https://github.com/o/r/issues/5", "https://github.com/o/r/pull/",
    "https://github.com/o/pull/5", "ftp://github.com/o/r/pull/5", "github.com/o/r/pull/5",
])
def test_other_refs_are_one_clear_input_error(ref: str) -> None:
    with pytest.raises(UsageError, match="OWNER/REPO#NUMBER or a pull request URL"):
        parse_pr_ref(ref)


def _dry_run(ref: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["pr", ref, "--dry-run"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("suffix", ["", "/files", "/commits?w=1", "#issuecomment-12"])
def test_a_pr_url_on_an_enterprise_host_finds_its_api_without_github_api_url(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    """The test server is laid out like GitHub Enterprise Server: web at the root, REST under /api/v3."""
    seeded = seed_discussed_pr(github_server)
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    code, out, err = _dry_run(f"{github_server.html_url}/{REPO}/pull/{seeded.number}{suffix}", capsys)
    assert code == 0, err
    assert out.startswith("## ") and "Heuristic — no model was called" in out
    assert [r for r in github_server.requests if r.is_write] == []


def test_a_pr_url_with_github_api_url_set_to_the_same_host(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    code, out, err = _dry_run(f"{github_server.html_url}/{REPO}/pull/{seeded.number}", capsys)
    assert code == 0, err
    assert out.startswith("## ")


def test_gh_token_is_accepted_when_github_token_is_not_set(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seeded = seed_discussed_pr(github_server)
    monkeypatch.setenv("GH_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", github_server.graphql_url)
    code, out, err = _dry_run(f"{REPO}#{seeded.number}", capsys)
    assert code == 0, err
    assert out.startswith("## ")


@pytest.mark.parametrize("ref_form", ["short", "url"])
def test_no_token_is_one_clear_error_before_any_request(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ref_form: str
) -> None:
    seeded = seed_discussed_pr(github_server)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    github_server.clear_log()
    ref = f"{REPO}#{seeded.number}" if ref_form == "short" else f"{github_server.html_url}/{REPO}/pull/{seeded.number}"
    code, out, err = _dry_run(ref, capsys)
    assert code == 1 and out == ""
    assert "GITHUB_TOKEN is not set" in err and "GH_TOKEN" in err and "Traceback" not in err
    assert github_server.requests == []


def test_a_url_on_another_host_than_github_api_url_is_refused_before_any_request(
    github_server: GitHubServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", PERSONAL_TOKEN)
    monkeypatch.setenv("GITHUB_API_URL", github_server.api_url)
    github_server.clear_log()
    code, out, err = _dry_run(f"https://github.com/{REPO}/pull/7", capsys)
    assert code == 1 and out == ""
    assert "is on github.com but GITHUB_API_URL is" in err
    assert github_server.requests == []
