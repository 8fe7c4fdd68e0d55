"""Reuse the analysis stored in each PR's own readworthy comment: the digest's cache.

A PR's comment carries its whole Report in hidden state (state.py). The digest reads it
back instead of paying the model again when it still describes this PR as it is now:
same head commit, same prompt version, same language, and - when a model is configured -
the same model. Only our own comments count: one written by anyone else that happens to
contain the marker text is ignored (gather.rest.find_existing_body checks the author).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analyze.client import model_name
from ..config import Settings
from ..gather.github_api import GitHub
from ..gather.rest import find_existing_body
from ..models import PullSummary, Report
from ..prompts.messages import PROMPT_VERSION
from ..render.state import decode_state


@dataclass(frozen=True)
class Lookup:
    report: Report | None  # the stored Report, reusable or not
    reusable: bool
    why_not: str = ""  # for the log, when a stored Report exists but cannot be reused
    comment_url: str = ""


def stored_report(gh: GitHub, repo: str, number: int, own_login: str) -> tuple[Report | None, str]:
    """(Report, comment URL) from our comment on PR `number`, or (None, "") when there is none to read.

    One request (the comment list). Raises GitHubError when listing fails.
    """
    comment, body = find_existing_body(gh, repo, number, own_login)
    return decode_state(body), (comment.html_url if comment is not None else "")


def reuse_verdict(
    report: Report | None, candidate: PullSummary, settings: Settings, cached_only: bool
) -> tuple[bool, str]:
    """(reusable, why not). Pure.

    `cached_only` (the final job of a backfill) takes any analysis of the current head in the
    digest's language: a slightly older prompt version beats leaving the PR out.
    """
    if report is None:
        return False, "no stored analysis"
    if report.head_sha and candidate.head_sha and report.head_sha != candidate.head_sha:
        return False, f"stored for head {report.head_sha[:7]}, now {candidate.head_sha[:7]}"
    if report.language != settings.language:
        return False, f"stored in {report.language}, digest in {settings.language}"
    if cached_only:
        return True, ""
    if report.prompt_version != PROMPT_VERSION:
        return False, f"stored with prompt version {report.prompt_version}, now {PROMPT_VERSION}"
    if not settings.has_model:
        return True, ""  # no model now: any stored analysis (model or heuristic) is the best we have
    if report.analyzer != "model":
        return False, "stored analysis is heuristic and a model is configured now"
    if report.model != model_name(settings):
        return False, f"stored by model {report.model}, now {model_name(settings)}"
    return True, ""


def lookup(
    gh: GitHub, repo: str, candidate: PullSummary, settings: Settings, own_login: str, cached_only: bool
) -> Lookup:
    report, url = stored_report(gh, repo, candidate.number, own_login)
    ok, why = reuse_verdict(report, candidate, settings, cached_only)
    return Lookup(report, ok, why, url)
