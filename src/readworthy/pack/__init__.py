"""pack: PRContext + budget -> Prompt, noting what was left out. Pure: no I/O.

Ranking and file kinds (`rank`, `classify`), the diff sections (`diff`), the file index (`index`),
the prose sections (`prose`), hidden-text cleaning and secret redaction (`sanitize`, `redact`),
exact token counts (`tokens`); `prompt` puts them together inside the budget.
"""
