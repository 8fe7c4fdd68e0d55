"""The whole request inside the endpoint's input limit: the repair turn, and the smaller retry after a 413.

GitHub Models counts every request whole: the messages, the JSON schema sent beside them, and on a repair
turn the rejected answer and the correction asked for (the issue measured 6,938 + 788 + 689 = 8,415 tokens
against an 8,000-token limit). The packer leaves room for the schema, the framing and the smallest repair
turn (analyze/limits.py); here the repair turn is built to fit what is left, counted with the packer's own
token counter: the correction request always, the rejected answer only as far as room remains.

    turn = repair_turn(previous, problem, room)       # room: None (no known limit) or tokens left
    budget = smaller_budget(error_text, budget, limit) # after a 413: the one smaller retry's budget
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..pack.prompt import PER_MESSAGE_TOKENS
from ..pack.tokens import TokenCounter, truncate_to_tokens
from .explain import clip
from .limits import FRAMING_TOKENS, MIN_BUDGET, REPAIR_RESERVE_TOKENS, SCHEMA_TOKENS, request_budget

UNBOUNDED_PREVIOUS_CHARS = 6_000  # no known limit: the rejected answer is clipped to this many characters
MIN_PREVIOUS_TOKENS = 120  # less room than this for the rejected answer: send the correction request alone
PROBLEM_CHARS = 240
SHRINK = 0.75  # a 413 that names no limit: the retry packs three quarters of the budget
_MAX_SIZE = re.compile(r"max(?:imum)?\s+size:?\s*([\d,]+)\s*tokens", re.IGNORECASE)


def _short_problem(problem: str) -> str:
    problem = " ".join(problem.split())
    return problem if len(problem) <= PROBLEM_CHARS else problem[: PROBLEM_CHARS - 1] + "…"


def correction(problem: str, with_previous: bool) -> dict[str, str]:
    """The user turn that asks for a corrected answer."""
    problem = _short_problem(problem)
    which = "That answer" if with_previous else "Your previous answer"
    return {
        "role": "user",
        "content": (
            f"{which} cannot be used: {problem}. Reply again with only the complete JSON object described "
            "in the system message, shorter this time (fewer, briefer decisions), with every field present."
        ),
    }


def repair_turn(previous: str, problem: str, room: int | None, counter: TokenCounter) -> list[dict[str, str]]:
    """The messages of a repair turn within `room` tokens (None: no known limit, the answer clipped by length)."""
    previous = clip(previous, UNBOUNDED_PREVIOUS_CHARS) if previous.strip() else ""  # keys out, whitespace folded
    if room is None:
        turn = [{"role": "assistant", "content": previous}] if previous else []
        return [*turn, correction(problem, bool(turn))]
    ask = correction(problem, True)
    left = room - counter.count(ask["content"]) - 2 * PER_MESSAGE_TOKENS
    if previous and left >= MIN_PREVIOUS_TOKENS:
        kept = truncate_to_tokens(counter, previous, left, " [... cut to fit the request limit]")
        return [{"role": "assistant", "content": kept}, ask]
    alone = correction(problem, False)
    over = counter.count(alone["content"]) + PER_MESSAGE_TOKENS - room
    if over > 0:  # a problem text dense in tokens: cut it, so the correction fits the room it has
        short = _short_problem(problem)
        short = truncate_to_tokens(counter, short, max(0, counter.count(short) - over - 2), "…")
        alone = correction(short or "not valid JSON", False)
    return [alone]


def messages_tokens(messages: list[dict[str, str]], counter: TokenCounter) -> int:
    """The packer's count (pack/prompt.py: content + PER_MESSAGE_TOKENS a message) of request messages."""
    return sum(counter.count(m["content"]) + PER_MESSAGE_TOKENS for m in messages)


def schema_tokens(response_format: dict[str, Any] | None, counter: TokenCounter) -> int:
    return counter.count(json.dumps(response_format)) if response_format else 0


def repair_room(limit: int | None, prompt_tokens: int, response_format: dict[str, Any] | None,
                counter: TokenCounter) -> int | None:
    """Tokens a repair turn may add to a request of `prompt_tokens` under the input `limit` (None: no limit).
    Never less than the reserve the packer kept, so the correction request itself always goes."""
    if limit is None:
        return None
    left = limit - prompt_tokens - schema_tokens(response_format, counter) - FRAMING_TOKENS
    return max(REPAIR_RESERVE_TOKENS, left)


def stated_limit(text: str) -> int | None:
    """The input limit a 413 names ("Max size: 4000 tokens"), if it names one."""
    match = _MAX_SIZE.search(text)
    return int(match.group(1).replace(",", "")) if match else None


def smaller_budget(text: str, budget: int, limit: int | None) -> tuple[int, int | None] | None:
    """(budget, input limit) for the one smaller retry after a 413, or None when there is no smaller one."""
    stated = stated_limit(text)
    if stated is not None and (limit is None or stated < limit):
        if stated - (SCHEMA_TOKENS + FRAMING_TOKENS + REPAIR_RESERVE_TOKENS) < MIN_BUDGET:
            return None  # even the smallest prompt a model is asked with would not fit the stated limit
        limit = stated
        smaller = min(request_budget(stated), int(budget * 0.9))
    else:
        smaller = int(budget * SHRINK)
    smaller = max(MIN_BUDGET, smaller)
    return (smaller, limit) if smaller < budget else None

