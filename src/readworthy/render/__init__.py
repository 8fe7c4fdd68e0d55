"""render: Report -> Markdown and the hidden state. Pure; the wording lives in `templates/`."""
