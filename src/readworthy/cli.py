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
from .config import LANGUAGES, Settings, terminal_settings
from .digest.args import add_digest_parser
from .errors import ConfigError, GitHubError, InputError, ReadworthyError
from .models import Prompt, Report

log = logging.getLogger("readworthy")


# --------------------------------------------------------------------------- shared flags


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--language", choices=LANGUAGES, help="output language (default: en)")
    parser.add_argument("--budget", type=int,
                        help="prompt token budget (default: 16000; with GitHub Models what the model's "
                             "request limit leaves, e.g. 6910)")
    parser.add_argument("--model", help="model name (default: gpt-4.1-mini with OPENAI_API_KEY; openai/gpt-4.1-mini "
                                        "on GitHub Models, used with GITHUB_TOKEN or GH_TOKEN when no key is set)")
    parser.add_argument("--model-timeout", type=float, metavar="SECONDS",
                        help="bound on the whole model step, retries included, before the heuristic stands in "
                             "(default: 120)")
    parser.add_argument("--no-github-models", dest="github_models", action="store_false", default=None,
                        help="with no OPENAI_API_KEY, use the heuristic instead of GitHub Models "
                             "(also READWORTHY_GITHUB_MODELS=false)")
    parser.add_argument(
        "--format", choices=("markdown", "json"), default="markdown", help="what to print"
    )


def _settings_from_args(args: argparse.Namespace, **extra: object) -> Settings:
    names = ("language", "budget", "model", "model_timeout", "github_models")
    # A flag left out must not hide the environment (READWORTHY_GITHUB_MODELS); `extra` may, on purpose.
    flags = {name: value for name in names if (value := getattr(args, name, None)) is not None}
    return terminal_settings({**flags, **extra})


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
    settings = _settings_from_args(args, openai_api_key=None, openai_base_url=None, github_models=False)
    settings = settings.model_copy(update={"openai_api_key": None})
    report = analyze(pack_prompt(load_sample(), settings), settings, client=None)
    _print_report(report, args.format)
    return 0


def cmd_local(args: argparse.Namespace) -> int:
    """Analyze a patch file, stdin, or a git range of the repository in the current directory."""
    from .gather.local import LocalSource, context_from_source
    from .pack.prompt import pack_prompt

    if args.patch is None and args.base is None:
        raise InputError("give --patch FILE (or - for stdin) or --base REF [--head REF]")
    # a flag that would be ignored is refused: the user meant something by it
    if args.patch is not None and args.head is not None:
        raise InputError("--head goes with --base (analyze BASE...HEAD); with --patch the file is the whole "
                         "input")
    if args.show_prompt and args.format == "json":
        raise InputError("--show-prompt prints the model messages as text; drop --format json, or drop "
                         "--show-prompt to get the JSON report")
    body = ""
    if args.body_file:
        try:
            body = Path(args.body_file).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InputError(f"cannot read --body-file {args.body_file}: {exc.strerror}") from None
    source = LocalSource(patch=args.patch, base=args.base, head=args.head or "HEAD", title=args.title or "",
                         body=body)
    ctx = context_from_source(source)
    settings = _settings_from_args(args)
    prompt = pack_prompt(ctx, settings)
    if args.show_prompt:
        sys.stdout.write(prompt_to_text(prompt))
        return 0
    # Imported only now: the openai SDK alone takes half a second, and --show-prompt needs none of it.
    from .analyze.client import make_openai_client
    from .analyze.model import analyze

    report = analyze(prompt, settings, client=make_openai_client(settings))
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
    raise InputError("expected OWNER/REPO#NUMBER or a pull request URL "
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
    return _settings_from_args(args, **extra)


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
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="analyze the bundled sample PR (no key, no network)")
    demo.add_argument("--language", choices=LANGUAGES)
    demo.add_argument("--format", choices=("markdown", "json"), default="markdown")
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
    local.set_defaults(func=cmd_local)

    pr = sub.add_parser("pr", help="review one PR on GitHub, like the action (GITHUB_TOKEN)")
    pr.add_argument("ref", metavar="OWNER/REPO#N|URL", help="OWNER/REPO#N or https://HOST/OWNER/REPO/pull/N")
    pr.add_argument("--dry-run", action="store_true", help="print the comment, post nothing")
    pr.add_argument("--force", action="store_true", help="ignore the cached analysis")
    _add_model_flags(pr)
    pr.set_defaults(func=cmd_pr)

    action = sub.add_parser("action", help="the GitHub Action entry point (reads GITHUB_* / INPUT_*)")
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
