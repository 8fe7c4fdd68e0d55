"""No confident verdict on a fragment: when a patch is cut off or damaged (gather/diffparse.py flags it,
pack counts it in Coverage.incomplete_patches), "safe to skip" would rest on what was never seen. The
verdict is then at least `skim`, and the reason says the guide rests on an incomplete patch — for the
heuristic's verdict and the model's alike."""

from __future__ import annotations

from ..models import Coverage, Digest, Verdict
from .heuristic.wording import code_names, phrase

MAX_REASON = 400


def guard_fragment(digest: Digest, coverage: Coverage, language: str) -> Digest:
    paths = coverage.incomplete_patches
    if not paths:
        return digest
    files = code_names([p.rsplit("/", 1)[-1] for p in paths], 3, language)
    if digest.verdict is Verdict.SKIP:
        reason = phrase(language, "fragment_not_skip", n=len(paths), files=files, reason=digest.reason)
        return digest.model_copy(update={"verdict": Verdict.SKIM, "reason": _clip(reason)})
    reason = phrase(language, "fragment", n=len(paths), files=files, reason=digest.reason)
    return digest.model_copy(update={"reason": _clip(reason)})


def _clip(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"
