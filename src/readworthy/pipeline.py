"""One PR through the middle of the pipeline: pack the context into a prompt, then analyze it.

    review_context(ctx, settings, client) -> Report

`client=None` means no model (the heuristic analyzer). Entry points (cli, action,
digest) gather the context before and render/publish the Report after.
"""

from __future__ import annotations

import openai

from .analyze.model import analyze
from .config import Settings
from .models import Coverage, PRContext, Report
from .pack.prompt import pack_prompt, prepare_material


def review_context(ctx: PRContext, settings: Settings, client: openai.OpenAI | None) -> Report:
    prompt = pack_prompt(ctx, settings)
    prompt = prompt.model_copy(update={"coverage": with_incomplete_patches(prompt.coverage, ctx)})
    # The analyzer (model grounding, the heuristic, the Report's title) gets the same cleaned,
    # redacted context the model saw: a secret in a PR title must not reach the comment or its state.
    clean = prepare_material(ctx).ctx
    return analyze(prompt, clean, settings, client)


MAX_INCOMPLETE_LISTED = 20


def with_incomplete_patches(coverage: Coverage, ctx: PRContext) -> Coverage:
    """Coverage that names the files whose diff is cut off or damaged, so the analyzer and the
    comment can say the guide rests on a fragment (gather/diffparse.py decides what is damaged)."""
    paths = [f.path for f in ctx.files if f.patch_incomplete]
    if not paths:
        return coverage
    notes = list(coverage.notes)
    if len(paths) > MAX_INCOMPLETE_LISTED:
        notes.append(f"{len(paths) - MAX_INCOMPLETE_LISTED} more files with an incomplete patch")
    return coverage.model_copy(update={"incomplete_patches": paths[:MAX_INCOMPLETE_LISTED], "notes": notes})
