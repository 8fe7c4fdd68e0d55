"""The decisions a review makes before any work, all pure: whether a PR is skipped, whether the
stored analysis still answers, and whether this PR gets a model analysis now (cost and abuse control
for public repositories, where anyone can open a PR and push to it as often as they like).

    skip_reason(info, settings, explicit)            config rules: drafts, bots, labels, authors, branches
    paths_skip_reason(ctx, settings)                 every changed path matches `skip_paths`
    cache_hit(previous, settings, input_hash)        the stored Report can be reused as it is
    model_withheld(ctx, settings, explicit, recent)  why the model is not asked this time ("" = ask it)
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from .analyze.client import model_name
from .config import Settings
from .event import PullRequestInfo
from .models import PRContext, Report
from .notes import note
from .prompts.messages import PROMPT_VERSION

MEMBERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
CONTRIBUTORS = MEMBERS | {"CONTRIBUTOR"}
DAY = timedelta(hours=24)
_ASSOCIATION_WORDS = {  # reason_texts.py keys
    "FIRST_TIME_CONTRIBUTOR": "first_time_contributor",
    "FIRST_TIMER": "first_timer",
    "NONE": "not_a_contributor",
    "CONTRIBUTOR": "past_contributor",
    "MANNEQUIN": "mannequin",
}


def skip_reason(info: PullRequestInfo, settings: Settings, explicit: bool) -> tuple[str, str]:
    """(code, message) when the PR should be skipped by the config rules, else ("", "")."""
    cfg = settings.repo_config
    if info.draft and not cfg.include_drafts and not explicit:
        return "draft", "the pull request is a draft (set `include_drafts: true` or add the trigger label)"
    if info.author_is_bot and not cfg.include_bots and not explicit:
        return "bot-author", f"the author {info.author} is a bot (set `include_bots: true` to review bot PRs)"
    skip_labels = {name.lower() for name in cfg.skip_labels}
    hit = [name for name in info.labels if name.lower() in skip_labels]
    if hit:
        return "skip-label", f"the pull request has the skip label `{hit[0]}`"
    if info.author.lower() in {a.lower() for a in cfg.skip_authors}:
        return "skip-author", f"the author {info.author} is in `skip_authors`"
    if any(fnmatch.fnmatchcase(info.base_ref, pattern) for pattern in cfg.skip_base_branches):
        return "skip-base-branch", f"the base branch `{info.base_ref}` is in `skip_base_branches`"
    return "", ""


def paths_skip_reason(ctx: PRContext, settings: Settings) -> tuple[str, str]:
    patterns = settings.repo_config.skip_paths
    if not patterns or not ctx.files:
        return "", ""
    if all(any(fnmatch.fnmatch(f.path, p) for p in patterns) for f in ctx.files):
        return "skip-paths", "every changed path matches `skip_paths`"
    return "", ""


def cache_hit(previous: Report | None, settings: Settings, current_hash: str) -> bool:
    """True when the stored analysis answers the same question with the same means."""
    if previous is None or not current_hash or previous.input_hash != current_hash:
        return False
    if previous.language != settings.language:
        return False
    if previous.prompt_version != PROMPT_VERSION:
        return False
    if previous.analyzer == "model":
        return bool(settings.has_model) and previous.model == model_name(settings)
    # A heuristic report is reusable only while there is still no model and it was not a fallback.
    return not previous.fallback_reason and not settings.has_model


def analysis_terms(settings: Settings, current_hash: str) -> str:
    """What cache_hit compares, as one string: two runs with the same terms make the same analysis (the key of
    spend/lease.py's analysis lease)."""
    return f"{current_hash}\n{model_name(settings)}\n{settings.language}\n{PROMPT_VERSION}"


def recent_model_runs(previous: Report | None, now: datetime) -> list[datetime]:
    """When this PR's model analyses of the last 24 hours ran, from the stored state (oldest first)."""
    runs: list[datetime] = []
    for stamp in previous.model_runs if previous is not None else []:
        try:
            moment = datetime.fromisoformat(stamp)
        except ValueError:
            continue  # a state written by hand or by a bug: not a reason to stop
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        if now - DAY < moment <= now:
            runs.append(moment)
    return sorted(runs)


def model_withheld(ctx: PRContext, settings: Settings, explicit: bool, recent: list[datetime],
                   can_write: Callable[[str], bool] = lambda login: False) -> str:
    """Why this PR gets the heuristic instead of a model analysis now, or "" when the model is asked.

    `author_association` is the payload's hint: an organization member whose membership is private shows as
    CONTRIBUTOR (or NONE). Before withholding, `can_write(author)` asks the collaborator permission API (the
    caller caches it per login): a writer always counts as a member.

    A maintainer's explicit request (`/readworthy`, the trigger label, a dispatch) is always honoured:
    the permission check already happened, and they chose to spend. The run's cost cap (`max-cost`)
    is applied by the caller, which holds the run's spending.
    """
    if explicit or not settings.has_model:
        return ""
    if settings.model_for != "everyone":
        allowed = MEMBERS if settings.model_for == "members" else CONTRIBUTORS
        association = ctx.author_association.upper()
        if association and association not in allowed and not (ctx.author and can_write(ctx.author)):
            words = _ASSOCIATION_WORDS.get(association)
            return note("model_for", who=note("who_members" if settings.model_for == "members" else "who_contributors"),
                        mode=settings.model_for, author=ctx.author or note("the_author"),
                        association=note(words) if words else association.lower())
    cap = settings.max_analyses_per_day
    if cap and len(recent) >= cap:
        next_at = recent[0] + DAY
        return note("daily_cap", n=len(recent), cap=cap, when=f"{next_at:%Y-%m-%d %H:%M}")
    return ""
