"""prompts: the contract between pack and analyze — the messages (`messages` + `*.j2`) and the
model's output schema (`schema`)."""
