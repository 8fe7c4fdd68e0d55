"""Flags that `local`, `pr` and `digest` share, and the checks of their values.

A bad value is a usage error like any of argparse's own (exit 2, with the usage line): the value is
checked here, when the flag is read, not later as an invalid setting (exit 1). Kept apart from cli.py
so that digest/args.py can use them without importing the commands.
"""

from __future__ import annotations

import argparse

from .config import LANGUAGES, MIN_BUDGET, Settings, terminal_settings
from .errors import UsageError

MAX_BUDGET = 1_000_000
MAX_MODEL_TIMEOUT = 3_600.0


def budget_value(text: str) -> int:
    """--budget: a whole number of tokens, 1 to 1,000,000 (the floor for a model is Settings' to check:
    with no model to ask, any budget will do)."""
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens") from None
    if not 1 <= value <= MAX_BUDGET:
        raise argparse.ArgumentTypeError(f"{value:,} is out of range: a model needs at least {MIN_BUDGET:,} "
                                         f"tokens, and at most {MAX_BUDGET:,} are packed")
    return value


def seconds_value(text: str) -> float:
    """--model-timeout: seconds, more than 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_MODEL_TIMEOUT:
        raise argparse.ArgumentTypeError(f"{text} is out of range: more than 0 and at most {MAX_MODEL_TIMEOUT:.0f}")
    return value


def add_verbose_flag(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """-v / --verbose, before the command or after it (`readworthy local -v ...`). Only the top-level
    parser sets the default, so a subcommand that is not given -v keeps one given before it."""
    parser.add_argument("-v", "--verbose", action="store_true", default=False if top else argparse.SUPPRESS,
                        help="log each step on stderr (debug logging)")


def add_model_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, *, language: bool = True,
                    budget_help: str = "") -> None:
    """--language, --budget, --model, --model-timeout and --no-github-models."""
    if language:
        parser.add_argument("--language", choices=LANGUAGES, help="output language (default: en)")
    parser.add_argument("--budget", type=budget_value, metavar="TOKENS",
                        help=budget_help or f"prompt token budget (default: 16000; with GitHub Models what the "
                                            f"model's request limit leaves, e.g. 6910; at least {MIN_BUDGET:,} when a "
                                            "model is asked)")
    parser.add_argument("--model", help="model name (default: gpt-4.1-mini with OPENAI_API_KEY; openai/gpt-4.1-mini "
                                        "on GitHub Models, used with GITHUB_TOKEN or GH_TOKEN when no key is set)")
    parser.add_argument("--model-timeout", type=seconds_value, metavar="SECONDS",
                        help="bound on the whole model step, retries included, before the heuristic stands in "
                             "(default: 120)")
    parser.add_argument("--no-github-models", dest="github_models", action="store_false", default=None,
                        help="with no OPENAI_API_KEY, use the heuristic instead of GitHub Models "
                             "(also READWORTHY_GITHUB_MODELS=false)")


def model_flag_values(args: argparse.Namespace) -> dict[str, object]:
    """The model flags that were given; a flag left out must not hide the environment (READWORTHY_GITHUB_MODELS)."""
    names = ("language", "budget", "model", "model_timeout", "github_models")
    return {name: value for name in names if (value := getattr(args, name, None)) is not None}


def settings_from_flags(args: argparse.Namespace, **extra: object) -> Settings:
    """Settings from the environment and the model flags (`extra` may override either, on purpose). A
    --budget under the floor is a usage error when a model would be asked with it, and fine when none is."""
    flags = {**model_flag_values(args), **extra}
    budget = flags.get("budget")
    if isinstance(budget, int) and budget < MIN_BUDGET and \
            terminal_settings({k: v for k, v in flags.items() if k != "budget"}).has_model:
        raise UsageError(f"--budget {budget:,} is below {MIN_BUDGET:,}, the smallest budget a model is asked "
                             "with: raise it, or call no model (--no-github-models and no OPENAI_API_KEY) to get "
                             "the heuristic alone")
    return terminal_settings(flags)
