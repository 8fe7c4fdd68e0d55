"""analyze: Prompt -> Report. The model call and its client, grounding, pricing, and the
deterministic heuristic (no key, or the model failed). No GitHub, no Markdown."""
