"""One correction <-> the comment on the taste-memory issue that holds it. Pure.

A record is a comment with a one-line summary for people and a fenced JSON block for readworthy:

    <!-- readworthy-taste:v1 -->
    #123 "Cache test deps before install": readworthy said deep-read, the team says skim (alice): too narrow

    ```json readworthy-correction
    {"pr": 123, "title": "...", "areas": {"docker": 61}, "kinds": {"build": 61}, "lines": 61,
     "analysed": "deep-read", "team": "skim", "reason": "too narrow", "by": "alice", "head": "1a2b3c4", "at": "..."}
    ```

The team may edit the JSON (a writer's edit counts, gather/memory.py checks who edited) or delete the
comment to forget the correction. A record is the data of a few fields, never instructions: a comment
whose block is broken, whose body is huge, or whose text tries to steer a model is unusable
(`RecordProblem` names why) and the run goes on without it. A comment without any block is
conversation, not a record, and is passed over quietly.
"""

from __future__ import annotations

import json
import re

from pydantic import ValidationError

from ..models import Correction, Verdict
from ..pack.classify import FileKind
from ..render import safe_markdown as sm

MARKER = "<!-- readworthy-taste:v1 -->"
FENCE_INFO = "json readworthy-correction"
MAX_BODY_CHARS = 4_000  # a record is a few hundred characters; more is not one of ours
MAX_JSON_DEPTH = 4
_BLOCK = re.compile(r"^```" + re.escape(FENCE_INFO) + r"[ \t]*\n(.*?)\n```[ \t]*$", re.MULTILINE | re.DOTALL)
# Text that addresses a model instead of describing a PR: instructions to drop the rules, role or fence
# markers, our own HTML markers. A reason such as "we read every Docker cache change closely" is taste,
# not steering, and passes.
_STEERING = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:instructions?|rules?|prompts?|guidelines?"
    r"|above|previous|prior|earlier)\b"
    r"|\b(?:system|developer)\s+(?:prompt|message|instructions?)\b|^\s*(?:system|assistant|user)\s*:"
    r"|\byou\s+are\s+(?:now|no longer)\b|\bnew\s+instructions?\b|\bjailbreak"
    r"|<<<|>>>|<\|[^|>]{0,30}\|>|\[/?INST\]|```|<!--|-->",
    re.IGNORECASE | re.MULTILINE,
)
KINDS = frozenset(kind.value for kind in FileKind)
_WORDS = {
    "en": "{pr} {title}: readworthy said **{analysed}**, the team says **{team}** ({by}){reason}",
    "zh-CN": "{pr} {title}：自动分析判为 **{analysed}**，团队判为 **{team}**（{by}）{reason}",
}


class RecordProblem(ValueError):
    """Why a comment on the memory issue cannot be used as a correction (shown in a notice)."""


def steering(text: str) -> bool:
    """True when `text` reads as instructions to a model rather than a title or a reason."""
    return bool(_STEERING.search(text or ""))


def format_record(correction: Correction, language: str = "en") -> str:
    """The comment body for `correction`. A title or reason that would make the record unusable is the
    caller's to leave out (see `steering`); here it is only kept out of the fence."""
    payload = json.dumps(correction.model_dump(mode="json"), ensure_ascii=False, separators=(", ", ": "))
    payload = payload.replace("`", "\\u0060")  # JSON's escape: the block can never close early
    summary = _WORDS.get(language, _WORDS["en"]).format(
        pr=f"#{correction.pr}",
        title=sm.inline(f'"{correction.title}"', 160) if correction.title else "",
        analysed=correction.analysed.value,
        team=correction.team.value,
        by=sm.inline(correction.by, 60) or "?",
        reason=(": " if language == "en" else "：") + sm.inline(correction.reason, 200) if correction.reason else "",
    )
    return f"{MARKER}\n{sm.guard_line_start(summary)}\n\n```{FENCE_INFO}\n{payload}\n```\n"


def _depth(value: object, level: int = 1) -> int:
    if isinstance(value, dict):
        return max([level, *(_depth(v, level + 1) for v in value.values())])
    if isinstance(value, list):
        return max([level, *(_depth(v, level + 1) for v in value)])
    return level


def parse_record(body: str) -> Correction | None:
    """The correction a comment holds; None for a comment that holds none (conversation).
    Raises RecordProblem for one that tries to and cannot be used."""
    text = body or ""
    if len(text) > MAX_BODY_CHARS:
        raise RecordProblem(f"the comment is {len(text):,} characters long; a record is at most {MAX_BODY_CHARS:,}")
    blocks = _BLOCK.findall(text.replace("\r\n", "\n"))
    if not blocks:
        if MARKER in text or "readworthy-correction" in text:
            raise RecordProblem("the readworthy-correction block is missing or not closed")
        return None
    if len(blocks) > 1:
        raise RecordProblem(f"the comment holds {len(blocks)} readworthy-correction blocks; one comment, one record")
    try:
        data = json.loads(blocks[0])
    except (ValueError, RecursionError) as exc:
        raise RecordProblem(f"the readworthy-correction block is not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict) or _depth(data) > MAX_JSON_DEPTH:
        raise RecordProblem("the readworthy-correction block is not a flat JSON object")
    for key in ("title", "reason"):
        if isinstance(data.get(key), str):
            data[key] = sm.clean_line(data[key], 10_000)  # invisible characters never count; length is checked next
    try:
        correction = Correction.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "the block"
        raise RecordProblem(f"`{where[:40]}`: {str(first.get('msg', 'invalid'))[:100]}") from None
    unknown = sorted(set(correction.kinds) - KINDS)
    if unknown:
        raise RecordProblem(f"unknown file kind(s) {', '.join(unknown)[:60]}; known: {', '.join(sorted(KINDS))}")
    for key, value in (("title", correction.title), ("reason", correction.reason),
                       ("areas", " ".join(a.replace("/", " ") for a in correction.areas))):
        if steering(value):
            raise RecordProblem(f"its {key} read as instructions to a model, not as {key}" if key == "areas" else
                                f"its {key} reads as instructions to a model, not as a {key}")
    return correction


def verdict_from_word(word: str) -> Verdict | None:
    """`deep-read`, `skim`, `skip` (any case) -> the Verdict; anything else None."""
    try:
        return Verdict(word.strip().lower())
    except ValueError:
        return None
