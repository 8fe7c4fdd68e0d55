"""The repair turn within the room a request has left, and the one smaller budget after a 413 (fitting.py)."""

from __future__ import annotations

from readworthy.analyze.fitting import messages_tokens, repair_room, repair_turn, smaller_budget, stated_limit
from readworthy.analyze.limits import REPAIR_RESERVE_TOKENS, request_budget
from readworthy.pack.tokens import get_token_counter
from readworthy.prompts.schema import response_format

COUNTER = get_token_counter("gpt-4.1-mini", None)
REJECTED = "Here is my analysis. " + "The routes move into modules and keep their handlers. " * 80  # ~900 tokens
PROBLEM = "Expecting value: line 1 column 1 (char 0)"


def test_with_room_the_rejected_answer_goes_back_whole() -> None:
    turn = repair_turn(REJECTED, PROBLEM, 5_000, COUNTER)
    assert [m["role"] for m in turn] == ["assistant", "user"]
    assert turn[0]["content"] == " ".join(REJECTED.split()) and PROBLEM in turn[1]["content"]


def test_with_little_room_the_answer_is_cut_to_fit() -> None:
    turn = repair_turn(REJECTED, PROBLEM, 400, COUNTER)
    assert [m["role"] for m in turn] == ["assistant", "user"]
    assert messages_tokens(turn, COUNTER) <= 400
    assert turn[0]["content"].startswith("Here is my analysis.") and "cut to fit" in turn[0]["content"]


def test_with_only_the_reserve_the_correction_goes_alone_and_fits_it() -> None:
    turn = repair_turn(REJECTED, PROBLEM * 20, REPAIR_RESERVE_TOKENS, COUNTER)  # a long problem is clipped too
    assert [m["role"] for m in turn] == ["user"] and turn[0]["content"].startswith("Your previous answer")
    assert messages_tokens(turn, COUNTER) <= REPAIR_RESERVE_TOKENS


def test_a_problem_dense_in_tokens_is_cut_to_the_reserve() -> None:
    dense = "{[<|>]}#" * 40  # many tokens per character, clipped at 240 characters
    turn = repair_turn(REJECTED, dense, REPAIR_RESERVE_TOKENS, COUNTER)
    assert [m["role"] for m in turn] == ["user"] and messages_tokens(turn, COUNTER) <= REPAIR_RESERVE_TOKENS


def test_no_known_limit_keeps_the_old_length_clip() -> None:
    turn = repair_turn("x" * 10_000, PROBLEM, None, COUNTER)
    assert len(turn[0]["content"]) == 6_000 and turn[1]["role"] == "user"
    assert repair_turn("", PROBLEM, None, COUNTER)[0]["role"] == "user"  # an empty answer is not sent back


def test_the_room_is_what_the_limit_leaves_and_never_less_than_the_reserve() -> None:
    fmt = response_format("json_schema", bounded=False)
    assert repair_room(None, 7_000, fmt, COUNTER) is None
    assert repair_room(8_000, 6_000, fmt, COUNTER) == 8_000 - 6_000 - 788 - 160
    assert repair_room(8_000, 7_900, fmt, COUNTER) == REPAIR_RESERVE_TOKENS
    # a full budget's prompt + schema + the reserve fits: the repair turn never takes a request over the limit
    assert request_budget(8_000) + 788 + 160 + REPAIR_RESERVE_TOKENS <= 8_000


def test_the_smaller_budget_after_a_413() -> None:
    assert stated_limit("Request body too large for gpt-5-mini model. Max size: 4000 tokens.") == 4_000
    assert stated_limit("payload too large") is None
    assert smaller_budget("... Max size: 4000 tokens.", 6_910, 8_000) == (request_budget(4_000), 4_000)
    assert smaller_budget("payload too large", 6_910, 8_000) == (5_182, 8_000)  # three quarters
    assert smaller_budget("... Max size: 6000 tokens.", 3_000, 8_000) == (2_700, 6_000)  # always smaller
    assert smaller_budget("... Max size: 3000 tokens.", 6_910, 8_000) is None  # the floor itself would not fit
    assert smaller_budget("payload too large", 1_000, None) is None  # nothing smaller than the floor
