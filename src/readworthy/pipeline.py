"""One PR through the middle of the pipeline: pack the context into a prompt, then analyze it.

    review_context(ctx, settings, client) -> Report

`client=None` means no model (the heuristic analyzer). Entry points (cli, action,
digest) gather the context before and render/publish the Report after.
"""

from __future__ import annotations

import openai

from .analyze.model import analyze
from .config import Settings
from .models import PRContext, Report
from .pack.prompt import pack_prompt, prepare_material


def review_context(ctx: PRContext, settings: Settings, client: openai.OpenAI | None) -> Report:
    prompt = pack_prompt(ctx, settings)
    # The analyzer (model grounding, the heuristic, the Report's title) gets the same cleaned,
    # redacted context the model saw: a secret in a PR title must not reach the comment or its state.
    clean = prepare_material(ctx).ctx
    return analyze(prompt, clean, settings, client)
