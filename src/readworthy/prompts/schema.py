"""The Digest as the model sees it: field guide, JSON schema for `response_format`, parsing.

One source for the output contract: the system prompt lists `FIELD_GUIDE`, the
json_schema response format carries the same words as descriptions, and
`parse_digest` accepts exactly what `models.Digest` validates.

Strict structured output (OpenAI, Azure) needs every property listed in
`required` and `additionalProperties: false` on every object, and refuses some
keywords; length keywords are the ones providers disagree on, so the schema can
be built with or without them (`bounded`). Whatever the endpoint enforced, the
answer is clipped to the pydantic bounds and validated here.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..models import Digest, Verdict

SCHEMA_NAME = "readworthy_digest"


@dataclass(frozen=True)
class FieldGuide:
    name: str
    type: str
    guide: str


FIELD_GUIDE: tuple[FieldGuide, ...] = (
    FieldGuide(
        "verdict", '"deep-read" | "skim" | "skip"',
        "an engineer would copy or extend this code (deep-read), borrow one idea (skim), or take nothing "
        "(skip); judged by what the change does, not its size or title.",
    ),
    FieldGuide(
        "reason", "string",
        "one sentence: what carries over (pattern, mechanism, lesson), or why nothing does.",
    ),
    FieldGuide("headline", "string", "what the PR does, in the reader's words; do not copy the PR title."),
    FieldGuide(
        "audience", "list of strings",
        "who should read it: the owners of which areas (from the owners/areas given, or the code areas "
        "touched); no @.",
    ),
    FieldGuide(
        "decisions", "list of {title, explanation, references}",
        "2-4 key design decisions (0-1 for a skip). `references` lists the exact files, functions, classes or "
        "tests from this PR the decision lives in (path, or path::Symbol).",
    ),
    FieldGuide(
        "start_reading", "list of strings",
        "where to start reading, in order: paths or path::Symbol from this PR (what to copy or extend, then "
        "its test).",
    ),
    FieldGuide(
        "discussion", "string",
        "what reviewers argued about and how it settled (names without @); empty if there was no discussion.",
    ),
    FieldGuide(
        "linked_issue_findings", "list of strings",
        "what the linked issues established (root cause, measurements); empty if none were given.",
    ),
    FieldGuide(
        "open_items", "list of strings",
        "follow-ups, open questions and things to confirm, as the material states them.",
    ),
    FieldGuide("related", "list of integers", "issue/PR numbers from the material that a reader should open."),
)

_GUIDE = {f.name: f.guide for f in FIELD_GUIDE}
_DECISION_GUIDE = {
    "title": "the decision in a few words.",
    "explanation": "what was decided and why it matters, naming the code in backticks.",
    "references": "exact paths, symbols (path::Symbol) or tests from this PR.",
}


class AnswerError(ValueError):
    """The model's text is not a valid Digest. The message is short enough to send back for a repair."""


# --------------------------------------------------------------------------- schema


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            target = defs[node["$ref"].rsplit("/", 1)[-1]]
            return _inline_refs(copy.deepcopy(target), defs)
        return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


_BOUND_WORDS = {"maxLength": "at most {} characters", "maxItems": "at most {} items"}


def _strictify(node: Any, guides: dict[str, str], bounded: bool) -> Any:
    """Every object closed and fully required; titles/defaults gone; bounds kept or moved into words."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    notes = []
    for key, value in node.items():
        if key in ("title", "default"):
            continue
        if key in _BOUND_WORDS:
            notes.append(_BOUND_WORDS[key].format(value))
            if not bounded:
                continue
        out[key] = value
    if out.get("type") == "object" and "properties" in out:
        child_guides = _DECISION_GUIDE if set(out["properties"]) == set(_DECISION_GUIDE) else guides
        out["properties"] = {
            name: _with_description(_strictify(schema, child_guides, bounded), child_guides.get(name))
            for name, schema in out["properties"].items()
        }
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
        out.pop("description", None)
    if "items" in out:
        out["items"] = _strictify(out["items"], guides, bounded)
    if notes and out.get("type") != "object":
        out["description"] = (out.get("description", "") + " (" + ", ".join(notes) + ")").strip()
    return out


def _with_description(schema: dict[str, Any], guide: str | None) -> dict[str, Any]:
    if guide:
        bound = schema.get("description", "")
        schema = {**schema, "description": f"{guide} {bound}".strip()}
    return schema


def digest_json_schema(*, bounded: bool = True) -> dict[str, Any]:
    """The Digest schema in the strict subset: inlined, closed, all required; length keywords if `bounded`."""
    raw = Digest.model_json_schema()
    inlined = _inline_refs(raw, raw.get("$defs", {}))
    schema: dict[str, Any] = _strictify(inlined, _GUIDE, bounded)
    return schema


def response_format(mode: str, *, bounded: bool) -> dict[str, Any] | None:
    """The `response_format` argument for a mode: json_schema, json_object, or None for plain text."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": digest_json_schema(bounded=bounded)},
        }
    if mode == "json_object":
        return {"type": "json_object"}
    return None


# --------------------------------------------------------------------------- parsing

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n?```", re.DOTALL)


def extract_json(text: str) -> Any:
    """The JSON object in a model's text: bare, inside a ```json fence, or the first balanced {...}."""
    text = text.strip()
    candidates = [text]
    candidates += [m.group(1) for m in _FENCE.finditer(text)]
    start = text.find("{")
    if start >= 0:
        candidates.append(_balanced_object(text, start))
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise AnswerError("the answer is not a JSON object (reply with only the JSON object, no prose)")


def _balanced_object(text: str, start: int) -> str:
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return ""


_VERDICT_ALIASES = {v.value.replace("-", ""): v.value for v in Verdict}


def _normalise_verdict(value: Any) -> Any:
    if isinstance(value, str):
        key = re.sub(r"[\s_\-]", "", value.strip().lower())
        return _VERDICT_ALIASES.get(key, value)
    return value


def _clip(value: Any, schema: dict[str, Any]) -> Any:
    """Cut strings and lists to their bounds: an over-long sentence is not worth a second model call."""
    if isinstance(value, str) and "maxLength" in schema and len(value) > schema["maxLength"]:
        return value[: schema["maxLength"] - 1].rstrip() + "…"
    if isinstance(value, list):
        items = schema.get("items", {})
        value = [_clip(v, items) for v in value[: schema.get("maxItems", len(value))]]
        return value
    if isinstance(value, dict) and "properties" in schema:
        return {k: _clip(v, schema["properties"].get(k, {})) for k, v in value.items()}
    return value


_BOUNDED_SCHEMA = digest_json_schema(bounded=True)


def _coerce_related(value: Any) -> Any:
    if not isinstance(value, list):
        return value
    out = []
    for item in value:
        if isinstance(item, str) and re.fullmatch(r"\s*#?\d{1,9}\s*", item):
            out.append(int(item.strip().lstrip("#")))
        else:
            out.append(item)
    return out


def parse_digest(text: str | None) -> Digest:
    """Text -> validated Digest, forgiving only what is cosmetic (fences, case, over-long text)."""
    if not text or not text.strip():
        raise AnswerError("the answer was empty")
    data = extract_json(text)
    if not isinstance(data, dict):
        raise AnswerError("the answer must be a JSON object, not a " + type(data).__name__)
    data = dict(data)
    if "verdict" in data:
        data["verdict"] = _normalise_verdict(data["verdict"])
    if "related" in data:
        data["related"] = _coerce_related(data["related"])
    data = _clip(data, _BOUNDED_SCHEMA)
    try:
        return Digest.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:8]
        ]
        raise AnswerError("the JSON does not match the schema: " + "; ".join(problems)) from None
