"""The hidden, machine-readable state at the top of our comment.

One HTML comment carries what a later run needs to skip paying the model again
(input hash, model, prompt version, language) and what the digest reuses (the
whole Report). The readable `key=value` part is for humans looking at the raw
comment; only the `data=` payload is trusted by `decode_state`, and only when it
validates as a Report.

Shape (one line):

    <!-- readworthy:v1 verdict=skim head=1a2b3c4 model=gpt-4.1-mini prompt=3 tokens=1200/300
         hash=ab12... data=<base64url(zlib(json))> -->

The payload alphabet (A-Z a-z 0-9 - _ =) cannot spell `-->`, so the comment
cannot be closed early, and the visible fields are reduced to a safe alphabet.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from pydantic import ValidationError

from ..models import Report

MARKER = "<!-- readworthy:"
STATE_VERSION = "v1"
# Enough for any Report we produce; a bigger payload is not ours (or was tampered with).
MAX_PAYLOAD_CHARS = 48_000
# The omitted-files list of a 3,000-file PR would bloat the state; the count stays in Coverage.
MAX_STORED_OMITTED = 200
MAX_STATE_BYTES = 1_000_000

_STATE_RE = re.compile(
    re.escape(MARKER) + STATE_VERSION + r"\b[^\n>]*?\bdata=([A-Za-z0-9_\-]+=*) -->"
)
_UNSAFE_FIELD_CHARS = re.compile(r"[^A-Za-z0-9._:/+@-]")


def _field(value: object, limit: int = 80) -> str:
    """A visible key=value field: safe alphabet only, no `--` (which could start `-->`)."""
    text = _UNSAFE_FIELD_CHARS.sub("_", str(value))[:limit]
    while "--" in text:
        text = text.replace("--", "-_")
    return text or "_"


def _compact(report: Report) -> Report:
    omitted = report.coverage.omitted
    if len(omitted) <= MAX_STORED_OMITTED:
        return report
    coverage = report.coverage.model_copy(update={"omitted": omitted[:MAX_STORED_OMITTED]})
    return report.model_copy(update={"coverage": coverage})


def encode_state(report: Report) -> str:
    """The hidden HTML comment for `report`, on one line, safe to put at the top of a comment."""
    payload = json.dumps(
        _compact(report).model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")
    data = base64.urlsafe_b64encode(zlib.compress(payload, 9)).decode("ascii")
    usage = report.usage
    fields = [
        f"verdict={_field(report.digest.verdict.value)}",
        f"head={_field(report.head_sha[:12])}",
        f"model={_field(report.model or report.analyzer)}",
        f"prompt={_field(report.prompt_version)}",
        f"lang={_field(report.language)}",
        f"tokens={usage.prompt_tokens}/{usage.completion_tokens}",
        f"hash={_field(report.input_hash, 64)}",
    ]
    if report.team is not None:
        fields.insert(1, f"team={_field(report.team.verdict.value)}")
    return f"{MARKER}{STATE_VERSION} {' '.join(fields)} data={data} -->"


def has_marker(body: str) -> bool:
    """True when `body` contains our marker text at all (parsable or not)."""
    return MARKER in (body or "")


def decode_state(body: str) -> Report | None:
    """The Report stored in `body`'s hidden state, or None when absent or unparsable.

    Text edited by humans around the state does not matter; a damaged state is
    ignored (the next run then simply analyses afresh).
    """
    if not body or MARKER not in body:
        return None
    match = _STATE_RE.search(body)
    if match is None:
        return None
    data = match.group(1)
    if len(data) > MAX_PAYLOAD_CHARS:
        return None
    try:
        inflater = zlib.decompressobj()
        # Bounded inflate: a crafted payload must not expand into gigabytes.
        raw = inflater.decompress(base64.urlsafe_b64decode(data.encode("ascii")), MAX_STATE_BYTES)
        if inflater.unconsumed_tail or not inflater.eof:
            return None
        return Report.model_validate(json.loads(raw.decode("utf-8")))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError, ValidationError):
        # ValueError covers json.JSONDecodeError and bad base64 padding.
        return None
