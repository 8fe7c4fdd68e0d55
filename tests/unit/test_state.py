"""The hidden state: round trip, robustness to edits around it, rejection of damage and forgery."""

from __future__ import annotations

import base64
import json
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from readworthy.models import Coverage, Decision, Digest, Report, Usage
from readworthy.render.state import MARKER, decode_state, encode_state, has_marker


def make_report(**changes: object) -> Report:
    digest = Digest(
        verdict="skim",
        reason="one caching trick worth a look",
        headline="cache the wheel build between CI jobs",
        decisions=[Decision(title="Cache key from lockfile", explanation="uses `uv.lock` hash", references=["ci.yml"])],
    )
    report = Report(
        digest=digest,
        analyzer="model",
        model="gpt-4.1-mini",
        prompt_version="3",
        usage=Usage(prompt_tokens=1200, completion_tokens=300, cost_usd=0.001, model_calls=1),
        coverage=Coverage(files_total=3, files_full=3),
        head_sha="0123456789abcdef0123456789abcdef01234567",
        input_hash="f" * 64,
    )
    return report.model_copy(update=changes)


def test_round_trip_and_visible_fields() -> None:
    report = make_report()
    state = encode_state(report)
    assert state.startswith(MARKER) and state.endswith("-->")
    assert "\n" not in state
    assert state.count("-->") == 1
    for fragment in ("verdict=skim", "head=0123456789ab", "model=gpt-4.1-mini", "prompt=3", "tokens=1200/300"):
        assert fragment in state
    assert decode_state(state) == report


def test_survives_human_edits_around_it() -> None:
    report = make_report()
    body = "Edited by a maintainer:\n\n" + encode_state(report) + "\n## 👀 heading changed by hand\n<!-- other -->"
    assert decode_state(body) == report


def test_hostile_values_cannot_close_the_comment() -> None:
    nasty = "--> <script> -- ->"
    report = make_report(model=nasty, prompt_version=nasty, input_hash=nasty, head_sha=nasty)
    state = encode_state(report)
    assert state.count("-->") == 1 and "<script>" not in state
    assert decode_state(state) == report  # the payload carries the exact values


def test_damaged_or_missing_state_is_ignored() -> None:
    state = encode_state(make_report())
    assert decode_state("") is None
    assert decode_state("no state here") is None
    assert decode_state(state.replace("data=", "data=!!")) is None
    cut = state[: len(state) // 2] + " -->"
    assert decode_state(cut) is None
    not_a_report = base64.urlsafe_b64encode(zlib.compress(json.dumps({"x": 1}).encode())).decode()
    assert decode_state(f"{MARKER}v1 data={not_a_report} -->") is None
    assert has_marker(cut) and not has_marker("plain")


def test_zip_bomb_is_refused() -> None:
    bomb = base64.urlsafe_b64encode(zlib.compress(b"{" + b" " * 5_000_000 + b"}", 9)).decode()
    assert decode_state(f"{MARKER}v1 data={bomb} -->") is None


def test_huge_omitted_list_is_capped_in_state() -> None:
    report = make_report(coverage=Coverage(files_total=3000, omitted=[f"f{i}.py" for i in range(3000)]))
    decoded = decode_state(encode_state(report))
    assert decoded is not None and len(decoded.coverage.omitted) == 200
    assert decoded.coverage.files_total == 3000


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300), st.text(max_size=300))
def test_fuzz_text_round_trip(headline: str, before: str) -> None:
    report = make_report(title=headline, fallback_reason=headline)
    state = encode_state(report)
    assert state.count("-->") == 1 and "\n" not in state
    assert decode_state(before.replace(MARKER, "") + "\n" + state) == report
