"""The command line as a new user meets it (issue 23): -v anywhere, clear errors for closed and empty
stdin, one budget floor (not enforced when no model is called), usage errors exit 2, errors that name
the CLI's own settings, `digest --dry-run` asks GitHub nothing it does not need, `digest`'s model flags,
and `local --patch` inside a repository reads its CODEOWNERS and `.github/readworthy.yml`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from git_repo import new_repo
from servers.github_fixtures import WORKFLOW_TOKEN
from servers.github_server import GitHubServer
from test_cli import SAMPLE_PATCH, run_cli

from readworthy.cli import build_parser, main
from readworthy.cli_flags import settings_from_flags
from readworthy.config import MIN_BUDGET, build_settings, terminal_settings
from readworthy.errors import ConfigError, GitHubError
from readworthy.gather import github_api
from readworthy.gather.local import LocalSource, local_context
from readworthy.gather.repo_config import parse_repo_config
from readworthy.models import PRContext
from readworthy.pack.prompt import pack_prompt

NO_MODEL_ENV = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GITHUB_TOKEN", "GH_TOKEN", "READWORTHY_GITHUB_MODELS")


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NO_MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


# --------------------------------------------------------------------------- -v


def test_verbose_logs_each_step_of_local_and_demo_before_or_after_the_command() -> None:
    local = run_cli("local", "-v", "--patch", str(SAMPLE_PATCH))  # after the command: was a usage error
    assert local.returncode == 0, local.stderr
    for step in ("DEBUG: read ", "DEBUG: repository:", "DEBUG: packed:", "DEBUG: model: none", "DEBUG: verdict:"):
        assert step in local.stderr, step
    demo = run_cli("-v", "demo")
    assert demo.returncode == 0, demo.stderr
    for step in ("DEBUG: demo:", "DEBUG: packed:", "DEBUG: verdict:"):
        assert step in demo.stderr, step
    quiet = run_cli("demo")
    assert "DEBUG" not in quiet.stderr


# --------------------------------------------------------------------------- stdin


def test_closed_stdin_is_a_clear_error_not_a_traceback() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "GITHUB_"))}
    proc = subprocess.run([sys.executable, "-m", "readworthy.cli", "local", "--patch", "-"],
                          capture_output=True, text=True, env=env, timeout=300,
                          preexec_fn=lambda: os.close(0))  # noqa: PLW1509 -- `<&-`, as a shell does it
    assert proc.returncode == 1, proc.stderr
    assert "standard input is closed" in proc.stderr and "Traceback" not in proc.stderr


def test_empty_stdin_says_there_were_no_changes() -> None:
    proc = run_cli("local", "--patch", "-", stdin="")
    assert proc.returncode == 1
    assert "no changes" in proc.stderr and "no diff found" not in proc.stderr


# --------------------------------------------------------------------------- the budget floor


def test_the_floor_packs_in_the_worst_case_and_is_the_one_stated() -> None:
    """zh-CN, the longest taste a repository may give, a non-OpenAI model (counted with a safety factor)."""
    taste = ("taste:\n  guidance: " + ("Kernels and CI caching are copied across backends. " * 30)[:1450]
             + "\n  examples:\n" + "".join(f'    - {{pr: {4500 + i}, verdict: skim, reason: "{"word " * 40}"}}\n'
                                             for i in range(12)))
    config, problems = parse_repo_config(taste)
    assert not problems and not config.taste.empty
    settings = terminal_settings({"language": "zh-CN", "budget": MIN_BUDGET, "openai_api_key": "k",
                                  "openai_base_url": "http://127.0.0.1:9/v1", "model": "llama"}, environ={})
    prompt = pack_prompt(PRContext(title="t", body="b"), settings.with_repo_config(config))
    assert prompt.tokens <= MIN_BUDGET
    with pytest.raises(ConfigError, match=f"below {MIN_BUDGET:,}"):
        build_settings({"budget": MIN_BUDGET - 1, "openai_api_key": "k"})
    assert f"at least {MIN_BUDGET:,}" in build_parser()._subparsers._group_actions[0].choices["local"].format_help()


def test_a_small_budget_is_fine_when_no_model_is_called(no_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["local", "--patch", str(SAMPLE_PATCH), "--budget", "500", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["analyzer"] == "heuristic"


def test_a_small_budget_with_a_model_is_a_usage_error(no_model: None, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["local", "--patch", str(SAMPLE_PATCH), "--budget", "500"]) == 2
    assert f"below {MIN_BUDGET:,}" in capsys.readouterr().err


# --------------------------------------------------------------------------- usage errors exit 2


@pytest.mark.parametrize("argv", [
    ["local"],
    ["local", "--patch", str(SAMPLE_PATCH), "--head", "main"],
    ["local", "--patch", str(SAMPLE_PATCH), "--show-prompt", "--format", "json"],
    ["pr", "not-a-ref"],
    ["digest", "--repo", "no-slash"],
    ["digest", "--repo", "o/r", "--since", "1d", "--from", "2026-01-01"],
    ["digest", "--repo", "o/r", "--max-prs", "none"],
    ["digest", "--repo", "o/r", "--list-chunks", "many"],
    ["digest", "--repo", "o/r", "--prs", "1,x"],
])
def test_usage_errors_exit_2_as_argparse_does(argv: list[str], no_model: None,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "readworthy: error:" in err and "Traceback" not in err


@pytest.mark.parametrize("flags", [["--budget", "many"], ["--budget", "0"], ["--model-timeout", "0"],
                                   ["--model-timeout", "soon"]])
def test_a_bad_flag_value_is_argparse_usage_error(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["local", "--patch", str(SAMPLE_PATCH), *flags])
    assert exit_.value.code == 2 and "usage:" in capsys.readouterr().err


# --------------------------------------------------------------------------- errors name the CLI's settings


def test_own_login_failure_names_the_environment_variable_from_a_terminal(github_server: GitHubServer) -> None:
    github_server.inject("POST", r"/graphql$", status=502, times=None)
    github_server.inject("GET", r"/user$", status=502, times=None)
    settings = terminal_settings({"github_token": "t", "github_api_url": github_server.api_url,
                                  "github_graphql_url": github_server.graphql_url}, environ={})
    with pytest.raises(GitHubError) as error:
        github_api.own_login(github_api.make_github(settings), settings)
    assert "READWORTHY_OWN_LOGIN" in str(error.value) and "own-login" not in str(error.value)
    assert settings.model_copy(update={"own_login": None}).own_login is None
    assert terminal_settings({}, environ={"READWORTHY_OWN_LOGIN": "bot[bot]"}).own_login == "bot[bot]"


def test_a_bad_pr_list_names_the_flag_not_the_actions_input(no_model: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", "--repo", "o/r", "--prs", "12,x"]) == 2
    err = capsys.readouterr().err
    assert "--prs: 'x' is not a pull request number" in err and "pr-number" not in err


# --------------------------------------------------------------------------- digest


def test_digest_dry_run_does_not_ask_who_the_token_is(digest_env: GitHubServer, no_model: None,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from readworthy.gather.queries import VIEWER_QUERY

    monkeypatch.setenv("GITHUB_TOKEN", WORKFLOW_TOKEN)  # digest_env's, set again after no_model
    digest_env.add_pr("vllm-project/vllm", "A change", "Body.", user="alice")
    code = main(["digest", "--repo", "vllm-project/vllm", "--state", "open", "--since", "1d", "--dry-run",
                 "--no-github-models", "--model-timeout", "5", "--format", "json"])
    assert code == 0, capsys.readouterr().err
    viewer = [r for r in digest_env.requests if r.path == "/graphql" and "viewer" in json.dumps(r.body or {})
              and VIEWER_QUERY.split("{")[0] in json.dumps(r.body or {})]
    assert viewer == [] and digest_env.count("GET", r"^/user$") == 0


def test_digest_takes_the_model_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NO_MODEL_ENV:
        monkeypatch.delenv(name, raising=False)
    args = build_parser().parse_args(["digest", "--repo", "o/r", "--no-github-models", "--model-timeout", "7", "-v"])
    settings = settings_from_flags(args)
    assert settings.github_models is False and settings.model_timeout == 7 and args.verbose


# --------------------------------------------------------------------------- local --patch in a repository


def test_local_patch_inside_a_repository_reads_its_codeowners_and_config(
    tmp_path: Path, no_model: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = new_repo(repo)
    (repo / ".github").mkdir()
    (repo / ".github" / "CODEOWNERS").write_text("kvpool/cache/ @example-org/cache-team\n")
    (repo / ".github" / "readworthy.yml").write_text('language: zh-CN\nareas:\n  "kvpool/**": "KV pool"\n')
    git("add", "-A")
    git("commit", "-qm", "config")
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")  # anywhere inside the working tree
    assert main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "cache-team" in " ".join(data["digest"]["audience"])
    assert data["language"] == "zh-CN"
    ctx, found = local_context(LocalSource(patch=str(SAMPLE_PATCH)), repo / "sub")
    assert found.codeowners_path == ".github/CODEOWNERS" and "KV pool" in ctx.areas
    # an explicit flag still wins over the file
    assert main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json", "--language", "en"]) == 0
    assert json.loads(capsys.readouterr().out)["language"] == "en"
    # outside a repository nothing is read
    monkeypatch.chdir(tmp_path)
    assert main(["local", "--patch", str(SAMPLE_PATCH), "--format", "json"]) == 0
    assert "cache-team" not in " ".join(json.loads(capsys.readouterr().out)["digest"]["audience"])
