"""pack: PRContext + Settings -> Prompt, inside the token budget. Pure: no network, no settings writes.

Budget contract: `settings.budget` is the PROMPT budget. The final messages — every role, counted
with the model's encoding, plus PER_MESSAGE_TOKENS per message and REPLY_PRIMING_TOKENS, the way
OpenAI bills chat input — never exceed it. `settings.output_reserve` is separate: it is what the
model may write back (max_tokens), not carved out of the prompt. The context window must hold
budget + output_reserve; that is the caller's choice of budget.

Order of work:
  1. clean PR prose (sanitize.clean_prose) and redact secrets everywhere (redact.redact_secrets),
     BEFORE anything is counted, so a secret can neither be sent nor change what fits; render the
     repository's own taste (taste.py) into the instructions, bounded;
  2. rank the files (classify tables, rank.rank_files);
  3. split the room left after the instructions between sections by their shares (DEFAULT_SHARES,
     overridable by repo config `section_shares`); a section that needs less than its share gives
     the rest to the others. Code first: the diff has the largest share; the index may take from
     it what naming every changed file costs, up to NAMING_MAX_SHARE of the room;
  4. render the diff, then the prose, then the index with what is left (if the index needed less,
     the diff grows into it once); assemble the messages with prompts.build_messages, count them
     exactly, and shrink the diff (then any section) until the total fits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..config import Settings
from ..errors import ConfigError
from ..models import (
    CorrectionMatch,
    Coverage,
    FileStatus,
    Message,
    PRContext,
    Prompt,
)
from ..notes import DAMAGE_NOTES, is_note, note
from ..prompts.messages import build_messages
from .classify import NAME_ONLY_KINDS, Classifier
from .corrections import CorrectionsText, limit_for, render_corrections
from .diff import pack_diff
from .index import naming_tokens, render_file_list
from .material import input_hash, prepare_material
from .prose import SectionText, render_commits, render_discussion, render_linked_issues, render_pr
from .rank import RankedFile, rank_files
from .taste import render_taste, taste_limit
from .tokens import TokenCounter, get_token_counter, truncate_to_tokens

SECTIONS = ("pr", "commits", "linked_issues", "discussion", "files", "diff")
PROSE_SECTIONS = ("pr", "commits", "linked_issues", "discussion")
# Code first: the model learns the design from the code, the index only tells it where to look
# (bench/packing.py, code recall alone + in noise: 4k 0.29 -> 0.46, 8k 0.57 -> 0.66 from moving the
# diff from 20% to 55% and the index from 46% to 13%, before any change to the diff itself).
DEFAULT_SHARES: Mapping[str, float] = {
    "pr": 0.10,
    "commits": 0.04,
    "linked_issues": 0.08,
    "discussion": 0.10,
    "files": 0.13,
    "diff": 0.55,
}
NAMING_MAX_SHARE = 0.25  # the index may take this much of the room from the diff to name every file
REGROW_MARGIN_TOKENS = 48  # room the index keeps when the diff grows into what it left unused
PER_MESSAGE_TOKENS = 4  # role and separators of one chat message
REPLY_PRIMING_TOKENS = 3  # the assistant reply header every request carries
SECTION_SLACK_TOKENS = 4  # per section: token merges at the fence boundaries
MIN_CONTENT_TOKENS = 200  # below this the PR material cannot be described at all
OMITTED_LIST_MAX = 100  # Coverage.omitted keeps at most this many paths
INCOMPLETE_LIST_MAX = 20  # Coverage.incomplete_patches keeps at most this many paths


def pack_prompt(ctx: PRContext, settings: Settings, counter: TokenCounter | None = None,
                corrections: Sequence[CorrectionMatch] = ()) -> Prompt:
    """The messages for the model, at most settings.budget tokens, with what was seen (Coverage).
    `corrections`: the team's past corrections most like this PR (pack/corrections.py), in a bounded
    section of their own that counts in the budget like any other."""
    counter = counter or get_token_counter(settings.model, settings.openai_base_url)
    material = prepare_material(ctx)
    clean = material.ctx
    ranked = rank_files(clean.files, Classifier(settings.repo_config.file_kinds))
    shares = section_shares(settings.repo_config.section_shares)
    team = render_corrections(corrections, limit_for(settings.budget), counter)
    extra = {"team_corrections": team.text} if team.text else {}
    # the repository's own taste goes into the instructions; it is bounded and counted like the rest
    taste = render_taste(settings.repo_config.taste, taste_limit(settings.budget), counter)
    # instructions, the corrections, and the fences of all six sections, each holding one character
    fixed = messages_tokens(build_messages({**extra, **dict.fromkeys(SECTIONS, "x")}, settings.language, taste),
                            counter)
    room = settings.budget - fixed - SECTION_SLACK_TOKENS * len(SECTIONS)
    if extra and room < MIN_CONTENT_TOKENS:  # a budget this tight keeps the PR, never the team's examples
        team, extra = CorrectionsText("", []), {}
        fixed = messages_tokens(build_messages(dict.fromkeys(SECTIONS, "x"), settings.language, taste), counter)
        room = settings.budget - fixed - SECTION_SLACK_TOKENS * len(SECTIONS)
    if room < MIN_CONTENT_TOKENS:
        raise ConfigError(
            f"budget {settings.budget} leaves {max(room, 0)} tokens for the PR after the {fixed}-token "
            f"instructions; raise the budget to at least {minimum_budget(fixed)}"
        )
    ignore = frozenset(a.lower() for a in settings.repo_config.ignore_authors)
    renderer = _Renderer(clean, ranked, ignore, counter)
    rendered = renderer.render_all(room, shares)
    sections, diff = {**extra, **rendered.sections}, rendered.diff

    messages = build_messages(sections, settings.language, taste)
    total = messages_tokens(messages, counter)
    diff_limit = diff.limit
    for _ in range(4):  # piecewise counts drift a little from the exact total; shrink the diff to fit
        if total <= settings.budget or diff_limit <= 0:
            break
        # diff.limit holds the tokens the rendered diff used; ask for less than that
        diff_limit = max(0, diff_limit - (total - settings.budget) - 16 - diff_limit // 50)
        diff = renderer.diff(diff_limit)
        sections = {**sections, "diff": diff.text, "files": renderer.files(diff, rendered.files_limit)}
        messages = build_messages(sections, settings.language, taste)
        total = messages_tokens(messages, counter)
    if total > settings.budget:
        sections, messages, total = _trim_until_fits(sections, settings, counter, total, taste)

    coverage = _coverage(ctx, ranked, diff, material.secrets, sections, rendered.items)
    return Prompt(
        messages=messages,
        tokens=total,
        budget=settings.budget,
        encoding=counter.name,
        estimated=counter.estimated,
        coverage=coverage,
        input_hash=input_hash(clean, settings),
        material=clean,
        taste_prs=team.prs if sections.get("team_corrections") == team.text else [],
    )


def minimum_budget(fixed: int) -> int:
    """The smallest budget that packs at all, given the fixed instructions' tokens: the number the error
    names must be one that works."""
    return fixed + SECTION_SLACK_TOKENS * len(SECTIONS) + MIN_CONTENT_TOKENS


def messages_tokens(messages: list[Message], counter: TokenCounter) -> int:
    return sum(counter.count(m.content) + PER_MESSAGE_TOKENS for m in messages) + REPLY_PRIMING_TOKENS


def section_shares(overrides: Mapping[str, float]) -> dict[str, float]:
    """DEFAULT_SHARES with the repository's overrides, normalised to sum to 1."""
    unknown = sorted(set(overrides) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"unknown section_shares key(s) {unknown}; valid keys: {', '.join(SECTIONS)}")
    if any(v < 0 for v in overrides.values()):
        raise ConfigError("section_shares values must be zero or positive")
    shares = {**DEFAULT_SHARES, **overrides}
    total = sum(shares.values())
    if total <= 0:
        raise ConfigError("section_shares must not all be zero")
    return {k: v / total for k, v in shares.items()}


def allocate(room: int, shares: Mapping[str, float], demands: Mapping[str, int]) -> dict[str, int]:
    """Water-filling: sections needing less than their share get what they need; the rest is split
    among the others in proportion to their shares, repeatedly."""
    alloc: dict[str, int] = {}
    active = [s for s in SECTIONS if demands.get(s, 0) > 0]
    left = room
    while active:
        total_share = sum(shares[s] for s in active) or 1.0
        satisfied = [s for s in active if demands[s] <= left * shares[s] / total_share]
        if not satisfied:
            for s in active:
                alloc[s] = int(left * shares[s] / total_share)
            break
        for s in satisfied:
            alloc[s] = demands[s]
            left -= demands[s]
            active.remove(s)
    return alloc


# --------------------------------------------------------------------------- rendering sections


@dataclass(frozen=True)
class _Diff:
    text: str
    full: frozenset[str]
    partial: frozenset[str]
    limit: int


@dataclass(frozen=True)
class _Rendered:
    """What one allocation produced: the sections, the diff behind them, and the facts coverage needs."""

    sections: dict[str, str]
    diff: _Diff
    files_limit: int  # tokens the file list was given; a re-rendered diff re-renders the list at this size
    items: dict[str, int]  # prose section -> items it shows (linked issues, discussion comments)


class _Renderer:
    """Renders sections for one context. Full renderings of the prose sections are computed once."""

    def __init__(self, ctx: PRContext, ranked: list[RankedFile], ignore: frozenset[str], counter: TokenCounter):
        self.ctx, self.ranked, self.ignore, self.counter = ctx, ranked, ignore, counter
        self._full: dict[str, tuple[SectionText, int]] = {}  # name -> (full rendering, its tokens)

    def prose(self, name: str, limit: int) -> SectionText:
        """A prose section in at most `limit` tokens; the full rendering whenever it fits."""
        full, tokens = self._full_prose(name)
        return full if tokens <= limit else self._render_prose(name, limit)

    def _full_prose(self, name: str) -> tuple[SectionText, int]:
        if name not in self._full:
            text = self._render_prose(name, 10**9)
            self._full[name] = (text, self.counter.count(text.text))
        return self._full[name]

    def _render_prose(self, name: str, limit: int) -> SectionText:
        ctx, counter = self.ctx, self.counter
        if name == "pr":
            return SectionText(render_pr(ctx, limit, counter), 0)
        if name == "commits":
            return SectionText(render_commits(ctx.commits, ctx.title, ctx.body, limit, counter), 0)
        if name == "linked_issues":
            return render_linked_issues(ctx.linked_issues, limit, counter)
        return render_discussion(ctx.reviews, ctx.threads, ctx.comments, self.ignore, limit, counter)

    def diff(self, limit: int) -> _Diff:
        packed = pack_diff(self.ranked, limit, self.counter)
        return _Diff(packed.text, packed.full, packed.partial, limit)

    def files(self, diff: _Diff, limit: int) -> str:
        missing = max(0, self.ctx.changed_files - len(self.ctx.files))
        return render_file_list(self.ranked, diff.full, diff.partial, limit, self.counter, missing, diff.text)

    def render_all(self, room: int, shares: Mapping[str, float]) -> _Rendered:
        huge = 10**9
        demands = {name: self._full_prose(name)[1] for name in PROSE_SECTIONS}
        everything = _Diff("", frozenset(), frozenset(), 0)
        demands["files"] = self.counter.count(self.files(everything, huge))
        demands["diff"] = self._diff_demand()
        alloc = allocate(room, shares, demands)
        # breadth where it costs little: the index may take from the diff what naming every changed
        # file needs, up to NAMING_MAX_SHARE of the room
        naming = min(naming_tokens(self.ranked, self.counter), int(room * NAMING_MAX_SHARE))
        short = min(naming - alloc.get("files", 0), alloc.get("diff", 0))
        if short > 0:
            alloc["files"] = alloc.get("files", 0) + short
            alloc["diff"] -= short
        # the diff is rendered first: if it is complete, what it leaves unused flows to the others
        diff = self.diff(alloc.get("diff", 0)) if demands["diff"] else everything
        used_diff = self.counter.count(diff.text)
        if used_diff < alloc.get("diff", 0) and self._complete(diff):
            demands["diff"] = used_diff
            alloc = allocate(room, shares, demands)
        prose = {name: self.prose(name, alloc.get(name, 0)) for name in PROSE_SECTIONS}
        sections = {name: rendered.text for name, rendered in prose.items() if rendered.text}
        # the file list takes its share plus whatever the other sections left unused
        used_prose = sum(self.counter.count(v) + 1 for v in sections.values())
        files_limit = max(0, room - used_prose - used_diff)
        files_text = self.files(diff, files_limit)
        spare = files_limit - self.counter.count(files_text) - REGROW_MARGIN_TOKENS
        if spare > 0 and diff.text and not self._complete(diff):
            # the index needed less than its share: the diff grows into the rest, once
            grown = self.diff(used_diff + spare)
            grown_tokens = self.counter.count(grown.text)
            grown_files = self.files(grown, max(0, room - used_prose - grown_tokens))
            if grown_tokens > used_diff and self.counter.count(grown_files) + grown_tokens + used_prose <= room:
                diff, used_diff, files_text = grown, grown_tokens, grown_files
                files_limit = max(0, room - used_prose - used_diff)
        if files_text:
            sections["files"] = files_text
        if diff.text:
            sections["diff"] = diff.text
        items = {name: rendered.items for name, rendered in prose.items()}
        return _Rendered(sections, _Diff(diff.text, diff.full, diff.partial, used_diff), files_limit, items)

    def _diff_demand(self) -> int:
        """An upper estimate of the whole diff (2 characters per token; code averages 3-4): counting
        150,000 lines exactly would cost more than the rest of the run. The diff is rendered first and
        gives back what it did not use, so over-estimating costs nothing."""
        chars = sum(len(r.change.patch or "") + len(r.change.path) + 40 for r in self.ranked)
        return chars // 2 + 1 if chars else 0

    def _complete(self, diff: _Diff) -> bool:
        """Every file that could be shown in full is."""
        return all(
            r.change.path in diff.full
            for r in self.ranked
            if r.kind not in NAME_ONLY_KINDS and r.repeat_of is None and r.change.patch
            and r.change.status != FileStatus.REMOVED
        )


def _trim_until_fits(
    sections: dict[str, str], settings: Settings, counter: TokenCounter, total: int, taste: str
) -> tuple[dict[str, str], list[Message], int]:
    """Last resort: cut the largest section by the overflow until the messages fit."""
    sections = dict(sections)
    for _ in range(20):
        over = total - settings.budget
        if over <= 0:
            break
        name = max(sections, key=lambda k: counter.count(sections[k]), default=None)
        if name is None:
            break
        size = counter.count(sections[name])
        sections[name] = truncate_to_tokens(counter, sections[name], max(0, size - over - 8))
        if not sections[name]:
            del sections[name]
        messages = build_messages(sections, settings.language, taste)
        total = messages_tokens(messages, counter)
    messages = build_messages(sections, settings.language, taste)
    total = messages_tokens(messages, counter)
    if total > settings.budget:
        raise ConfigError(
            f"the fixed instructions alone need {total} tokens, more than the budget of {settings.budget}; "
            "raise the budget"
        )
    return sections, messages, total


# --------------------------------------------------------------------------- coverage and hash


def _coverage(
    original: PRContext,
    ranked: list[RankedFile],
    diff: _Diff,
    secrets: int,
    sections: Mapping[str, str],
    items: Mapping[str, int],
) -> Coverage:
    full, partial = diff.full, diff.partial
    diff_text = sections.get("diff", "")
    if diff_text != diff.text:
        # the last-resort trim cut the diff: count only files whose header is still there
        full = frozenset(p for p in full if f"### {p}" in diff_text)
        partial = frozenset(p for p in partial if p in diff_text) - full
    omitted = [r.change.path for r in ranked if r.change.path not in full and r.change.path not in partial]
    missing = max(0, original.changed_files - len(original.files))
    # gather/diffparse.py flags a diff that is cut off or damaged: the guide then rests on a fragment,
    # and the analyzer and the comment must say so.
    incomplete = [f.path for f in original.files if f.patch_incomplete]
    # what gathering could not read (capped lists, refused diffs, unread pages); damaged patches are
    # left out here because the comment lists those files itself
    notes = [n for n in original.gather_notes if not is_note(n, *DAMAGE_NOTES)]
    if len(omitted) > OMITTED_LIST_MAX:
        notes.append(note("omitted_truncated", n=len(omitted) - OMITTED_LIST_MAX))
    if len(incomplete) > INCOMPLETE_LIST_MAX:
        notes.append(note("more_incomplete", n=len(incomplete) - INCOMPLETE_LIST_MAX))
    return Coverage(
        files_total=max(len(original.files), original.changed_files),
        files_full=len(full),
        files_partial=len(partial),
        files_name_only=len(omitted) + missing,
        omitted=omitted[:OMITTED_LIST_MAX],
        secrets_redacted=secrets,
        linked_issues=items.get("linked_issues", 0) if "linked_issues" in sections else 0,
        review_comments=items.get("discussion", 0) if "discussion" in sections else 0,
        incomplete_patches=incomplete[:INCOMPLETE_LIST_MAX],
        notes=notes,
    )
