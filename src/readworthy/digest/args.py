"""The `readworthy digest` command line. Kept apart from digest/run.py so that building the CLI's parser
(and so `readworthy --version`) does not import PyGithub and the openai SDK."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..cli_flags import add_model_flags, add_verbose_flag
from ..config import MIN_BUDGET
from .models import DEFAULT_CATEGORY, DEFAULT_CONCURRENCY, DEFAULT_LABEL, PR_STATES, PUBLISH_TARGETS


def add_digest_parser(sub: Any, func: Callable[[argparse.Namespace], int]) -> None:
    p = sub.add_parser("digest", help="a reading list of a repository's recent PRs (GITHUB_TOKEN)",
                       description="Build a reading list of many PRs, reusing each PR's stored analysis.")
    p.add_argument("--repo", required=True, metavar="OWNER/REPO")
    which = p.add_argument_group("which pull requests (default: --since 24h)")
    which.add_argument("--since", metavar="DURATION", help="e.g. 24h, 7d, 2w, 90m (window ending now)")
    which.add_argument("--from", dest="date_from", metavar="DATE", help="window start, YYYY-MM-DD or ISO time")
    which.add_argument("--to", dest="date_to", metavar="DATE", help="window end (a bare date includes that day)")
    which.add_argument("--prs", metavar="N,N,...", help="exactly these PRs (a window given too only labels the digest)")
    which.add_argument("--state", choices=(*PR_STATES, "closed"), default="merged",
                       help="merged (default), open, closed or all")
    limits = p.add_argument_group("limits")
    limits.add_argument("--max-prs", metavar="N", help="analyse at most N PRs this run (stored ones are free)")
    limits.add_argument("--max-cost", metavar="USD", help="never start an analysis that could exceed this cost")
    limits.add_argument("--cached-only", action="store_true",
                        help="only stored analyses: 0 model calls (the final job of a backfill)")
    limits.add_argument("--concurrency", metavar="N", help=f"analyses at a time (default {DEFAULT_CONCURRENCY})")
    out = p.add_argument_group("output")
    add_model_flags(out, budget_help=f"prompt token budget per PR (at least {MIN_BUDGET:,} when a model is asked)")
    out.add_argument("--output", metavar="FILE", help="write the digest here (.json -> JSON) instead of stdout")
    out.add_argument("--format", choices=("markdown", "json"), help="default: from --output's suffix, else markdown")
    out.add_argument("--publish", choices=PUBLISH_TARGETS, default="none",
                     help="also post it: a new issue, a rolling issue (found by --label) or a discussion")
    out.add_argument("--label", help=f"label of the digest issue (default {DEFAULT_LABEL})")
    out.add_argument("--discussion-category", help=f"category for --publish discussion (default {DEFAULT_CATEGORY})")
    out.add_argument("--dry-run", action="store_true",
                     help="write nothing to GitHub (no PR comments, no digest) and do not ask who the token is: "
                          "stored analyses are reused only with READWORTHY_OWN_LOGIN set")
    out.add_argument("--list-chunks", metavar="N|auto",
                     help='print {"prs": "1,2,...", "chunks": [...], "count": n, ...} for a workflow matrix and exit; '
                          "`auto` plans only what GitHub's remaining request budget allows now (the rest is "
                          '"deferred" to a later run) in chunks of about 25')
    add_verbose_flag(p)
    p.set_defaults(func=func)
