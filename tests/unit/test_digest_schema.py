"""The Digest as response_format: strict-subset schema, and lenient-but-validated parsing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from readworthy.models import Digest
from readworthy.prompts.schema import FIELD_GUIDE, AnswerError, digest_json_schema, extract_json, parse_digest


def _objects(node: Any) -> list[dict]:
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


@pytest.mark.parametrize("bounded", [True, False])
def test_schema_is_in_the_strict_subset(bounded: bool) -> None:
    schema = digest_json_schema(bounded=bounded)
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text and '"default"' not in text
    assert '"title": "' not in text  # the keyword; `title` as a property name of a decision is fine
    objects = _objects(schema)
    assert len(objects) == 2  # the digest and a decision
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])
    assert schema["properties"]["verdict"]["enum"] == ["deep-read", "skim", "skip"]
    assert ("maxLength" in text) is bounded and ("maxItems" in text) is bounded
    # the bounds are still stated in words for endpoints that refuse the keywords
    assert "at most 400 characters" in schema["properties"]["reason"]["description"]


def test_field_guide_covers_every_digest_field() -> None:
    assert [f.name for f in FIELD_GUIDE] == list(Digest.model_fields)


def test_extraction_from_fences_and_prose() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Sure:\n```json\n{"a": "}"}\n```') == {"a": "}"}
    assert extract_json('noise {"a": {"b": "x\\"}"}} trailing') == {"a": {"b": 'x"}'}}
    with pytest.raises(AnswerError):
        extract_json("no json here")


def test_parse_forgives_cosmetics_and_clips_overlong_text() -> None:
    digest = parse_digest(json.dumps({
        "verdict": "Deep Read", "reason": "x" * 1000, "headline": "h",
        "open_items": [f"item {i}" for i in range(20)], "related": ["#12", 13],
    }))
    assert digest.verdict.value == "deep-read"
    assert len(digest.reason) == 400 and digest.reason.endswith("…")
    assert len(digest.open_items) == 5
    assert digest.related == [12, 13]


@pytest.mark.parametrize("text, problem", [
    ("", "empty"),
    ("[1, 2]", "JSON object"),
    ('{"verdict": "maybe", "reason": "r", "headline": "h"}', "verdict"),
    ('{"verdict": "skip", "reason": "r"}', "headline"),
    ('{"verdict": "skip", "reason": "r", "headline": "h", "mood": "sad"}', "mood"),
    ('{"verdict": "skip", "reason": "r", "headline": "h", "related": ["soon"]}', "related"),
])
def test_invalid_answers_name_the_problem(text: str, problem: str) -> None:
    with pytest.raises(AnswerError, match=problem):
        parse_digest(text)
