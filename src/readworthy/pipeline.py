"""One PR through the middle of the pipeline: pack the context into a prompt, then analyze it.

    review_context(ctx, settings, client) -> Report

`client=None` means no model (the heuristic analyzer). Entry points (cli, action,
digest) gather the context before and render/publish the Report after.
"""

from __future__ import annotations

import openai

from .analyze import analyze
from .config import Settings
from .models import PRContext, Report
from .pack import pack_prompt


def review_context(ctx: PRContext, settings: Settings, client: openai.OpenAI | None) -> Report:
    return analyze(pack_prompt(ctx, settings), ctx, settings, client)
