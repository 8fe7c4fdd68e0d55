"""Command line: `readworthy demo | local | pr | action | digest`.

A thin layer: parse flags, build Settings once, call the pipeline, print. Exit codes:
0 success, 1 a known failure (message on stderr), 2 bad usage, 3 a bug (traceback kept).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from . import __version__
from .cli_flags import add_model_flags, add_verbose_flag, settings_from_flags
from .config import LANGUAGES, MIN_BUDGET, Settings
from .digest.args import add_digest_parser
from .errors import ConfigError, GitHubError, InputError, ReadworthyError, UsageError
from .models import Prompt, Report

log = logging.getLogger("readworthy")


# --------------------------------------------------------------------------- shared flags


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    add_model_flags(parser)
    parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="what to print"
    )


def report_to_json(report: Report) -> str:
    """The structured digest with the verdict at the top level, then everything else."""
    data = {"verdict": report.verdict.value, **report.model_dump(mode="json")}
    return json.dumps(data, ensure_ascii=False, indent=2)


def prompt_to_text(prompt: Prompt) -> str:
    """The exact messages that would be sent, one block per message."""
    return "\n".join(f"--- {m.role} ---\n{m.content}" for m in prompt.messages) + "\n"


def _print_report(report: Report, fmt: str) -> None:
    if fmt == "json":
        print(report_to_json(report))
    else:
        from .render.comment import render_markdown

        # The hidden state is for the sticky comment's re-runs; a terminal reader gets the guide only.
        print(render_markdown(report))


# --------------------------------------------------------------------------- commands


def cmd_demo(args: argparse.Namespace) -> int:
    """Analyze the bundled sample PR with the heuristic analyzer: no key, no network."""
    from .analyze.model import analyze
    from .gather.sample import load_sample
    from .pack.prompt import pack_prompt

    # No model whatever the environment holds: no key, no base URL, no GitHub Models.
    settings = settings_from_flags(args, openai_api_key=None, openai_base_url=None, github_models=False)
    settings = settings.model_copy(update={"openai_api_key": None})
    ctx = load_sample()
    log.debug("demo: the bundled sample PR %r, %d files", ctx.title, len(ctx.files))
    prompt = pack_prompt(ctx, settings.for_packing())
    _log_prompt(prompt)
    log.debug("no model (the demo never calls one): the heuristic analyzer answers")
    report = analyze(prompt, settings, client=None)
    log.debug("verdict: %s", report.verdict.value)
    _print_report(report, args.format)
    return 0


def _log_prompt(prompt: Prompt) -> None:
    cov = prompt.coverage
    log.debug("packed: %d of %d prompt tokens (%s); of %d changed files %d in full, %d in part, %d by name; "
              "%d secrets redacted", prompt.tokens, prompt.budget, prompt.encoding, cov.files_total, cov.files_full,
              cov.files_partial, cov.files_name_only, cov.secrets_redacted)


def cmd_local(args: argparse.Namespace) -> int:
    """Analyze a patch file, stdin, or a git range of the repository in the current directory."""
    from .gather.local import LocalSource, local_context
    from .pack.prompt import pack_prompt

    if args.patch is None and args.base is None:
        raise UsageError("give --patch FILE (or - for stdin) or --base REF [--head REF]")
    # a flag that would be ignored is refused: the user meant something by it
    if args.patch is not None and args.head is not None:
        raise UsageError("--head goes with --base (analyze BASE...HEAD); with --patch the file is the whole "
                         "input")
    if args.show_prompt and args.format == "json":
        raise UsageError("--show-prompt prints the model messages as text; drop --format json, or drop "
                         "--show-prompt to get the JSON report")
    if args.show_prompt and args.budget is not None and args.budget < MIN_BUDGET:
        raise UsageError(f"--show-prompt prints the messages a model would get, and a model is asked with at "
                         f"least {MIN_BUDGET:,} tokens: raise --budget")
    body = ""
    if args.body_file:
        try:
            body = Path(args.body_file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"cannot read --body-file {args.body_file}: {exc.strerror}") from None
    source = LocalSource(patch=args.patch, base=args.base, head=args.head or "HEAD", title=args.title or "",
                         body=body)
    settings = settings_from_flags(args)  # flag errors before any reading
    ctx, repo = local_context(source)
    log.debug("read %s: %d files (+%d -%d), %d commits", "stdin" if args.patch == "-" else args.patch or
              f"{args.base}...{args.head or 'HEAD'}", len(ctx.files), ctx.additions, ctx.deletions, len(ctx.commits))
    if repo.config_found:
        settings = settings.with_repo_config(repo.config)
    log.debug("repository: %s; CODEOWNERS: %s; .github/readworthy.yml: %s", repo.root or "none here",
              repo.codeowners_path or "none", "read" if repo.config_found else "none")
    prompt = pack_prompt(ctx, settings.for_packing())
    _log_prompt(prompt)
    if args.show_prompt:
        sys.stdout.write(prompt_to_text(prompt))
        return 0
    # Imported only now: the openai SDK alone takes half a second, and --show-prompt needs none of it.
    from .analyze.client import make_openai_client
    from .analyze.model import analyze

    client = make_openai_client(settings)
    endpoint = settings.endpoint
    log.debug("model: %s", f"{endpoint.kind} ({settings.model})" if client is not None else
              f"none, the heuristic answers{': ' + endpoint.problem if endpoint.problem else ''}")
    report = analyze(prompt, settings, client=client)
    log.debug("verdict: %s (%s)", report.verdict.value, report.model or "heuristic")
    _print_report(report, args.format)
    return 0


_PR_SHORT_RE = re.compile(r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#(\d+)$")
_PR_URL_RE = re.compile(
    r"^(https?://[^/\s?#]+)/([^/\s?#]+/[^/\s?#]+)/pull/(\d+)(?:[/?#]\S*)?$", re.IGNORECASE
)
_GITHUB_COM = ("github.com", "www.github.com", "api.github.com")


def parse_pr_ref(ref: str) -> tuple[str, int, str | None]:
    """OWNER/REPO#N or a PR URL (github.com or a GHES host, with or without /files etc.) ->
    (owner/repo, number, the web root `https://host` of a URL or None)."""
    ref = ref.strip()
    short = _PR_SHORT_RE.match(ref)
    if short:
        return short.group(1), int(short.group(2)), None
    url = _PR_URL_RE.match(ref)
    if url:
        return url.group(2).removesuffix(".git"), int(url.group(3)), url.group(1).lower()
    raise UsageError("expected OWNER/REPO#NUMBER or a pull request URL "
                     f"(https://github.com/OWNER/REPO/pull/N), got {ref!r}")


def _pr_settings(args: argparse.Namespace, repo: str, web_root: str | None,
                 environ: Mapping[str, str] = os.environ) -> Settings:
    """Settings for `readworthy pr`: the API of the URL's host, and a token, checked before any request."""
    extra: dict[str, object] = {"force": args.force or None}
    if not environ.get("GITHUB_TOKEN"):
        if not environ.get("GH_TOKEN"):
            raise ConfigError(f"GITHUB_TOKEN is not set: `readworthy pr` reads {repo} through the GitHub "
                              "API. Export a token that can read it, e.g. GITHUB_TOKEN=$(gh auth token) "
                              "(GH_TOKEN is read too)")
        extra["github_token"] = environ["GH_TOKEN"]
    if web_root is not None:
        extra.update(_api_for_host(web_root, environ.get("GITHUB_API_URL", "")))
    return settings_from_flags(args, **extra)


def _api_for_host(web_root: str, api_url: str) -> dict[str, object]:
    """The API URLs for a PR URL's host. GITHUB_API_URL, when set, must be that host's API."""
    host = urlsplit(web_root).netloc
    on_dotcom = host in _GITHUB_COM
    if api_url:
        api_host = urlsplit(api_url).netloc.lower()
        if (api_host in _GITHUB_COM) != on_dotcom or (not on_dotcom and api_host != host):
            raise ConfigError(f"the pull request is on {host} but GITHUB_API_URL is {api_url}; unset "
                              f"GITHUB_API_URL or point it at {host}'s API")
        return {}
    if on_dotcom:
        return {}
    # GitHub Enterprise Server serves its APIs under the web host
    return {"github_api_url": f"{web_root}/api/v3", "github_graphql_url": f"{web_root}/api/graphql"}


def cmd_pr(args: argparse.Namespace) -> int:
    """The action's review for one PR, from a terminal (GITHUB_TOKEN from the environment)."""
    from .review import review_pull_request

    repo, number, web_root = parse_pr_ref(args.ref)
    settings = _pr_settings(args, repo, web_root)
    outcome = review_pull_request(repo, number, settings, dry_run=args.dry_run)
    for problem in outcome.config_problems:
        log.warning("%s", problem)
    if outcome.status == "failed":
        raise GitHubError(outcome.message)
    if outcome.status in ("skipped", "blocked"):
        log.warning("#%d %s: %s", number, outcome.status, outcome.message)
    if outcome.report is not None:
        _print_report(outcome.report, args.format)
    if outcome.comment_url:
        print(f"comment: {outcome.comment_url}", file=sys.stderr)
    return 0


def cmd_action(args: argparse.Namespace) -> int:
    from .action import run_action

    return run_action(os.environ)


def cmd_digest(args: argparse.Namespace) -> int:
    from .digest.run import run_digest_command

    return run_digest_command(args)


# --------------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="readworthy",
        description="Say whether a pull request is worth reading, and why.",
    )
    parser.add_argument("--version", action="version", version=f"readworthy {__version__}")
    add_verbose_flag(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="analyze the bundled sample PR (no key, no network)")
    demo.add_argument("--language", choices=LANGUAGES)
    demo.add_argument("--format", choices=("markdown", "json"), default="markdown")
    add_verbose_flag(demo)
    demo.set_defaults(func=cmd_demo)

    local = sub.add_parser("local", help="analyze a unified diff or a git range, without GitHub")
    src = local.add_mutually_exclusive_group()
    src.add_argument("--patch", metavar="FILE", help="git diff / git show / format-patch output; - for stdin")
    src.add_argument("--base", metavar="REF", help="analyze BASE...HEAD of the git repository here")
    local.add_argument("--head", metavar="REF", help="with --base: the tip to analyze (default: HEAD)")
    local.add_argument("--title", help="PR title (default: the first commit subject)")
    local.add_argument("--body-file", metavar="FILE", help="file holding the PR description")
    local.add_argument("--show-prompt", action="store_true", help="print the model messages and exit")
    _add_model_flags(local)
    add_verbose_flag(local)
    local.set_defaults(func=cmd_local)

    pr = sub.add_parser("pr", help="review one PR on GitHub, like the action (GITHUB_TOKEN)")
    pr.add_argument("ref", metavar="OWNER/REPO#N|URL", help="OWNER/REPO#N or https://HOST/OWNER/REPO/pull/N")
    pr.add_argument("--dry-run", action="store_true", help="print the comment, post nothing")
    pr.add_argument("--force", action="store_true", help="ignore the cached analysis")
    _add_model_flags(pr)
    add_verbose_flag(pr)
    pr.set_defaults(func=cmd_pr)

    action = sub.add_parser("action", help="the GitHub Action entry point (reads GITHUB_* / INPUT_*)")
    add_verbose_flag(action)
    action.set_defaults(func=cmd_action)

    add_digest_parser(sub, cmd_digest)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="readworthy: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return func(args)
    except ReadworthyError as exc:
        print(f"readworthy: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception:  # noqa: BLE001 -- a bug: keep the traceback for the report
        traceback.print_exc()
        print("readworthy: internal error (exit 3); please report it with the traceback above", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
