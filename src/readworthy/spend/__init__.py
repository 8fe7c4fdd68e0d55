"""Where the model's requests go: the repository's daily budget (ledger.py), the order of who gets the
model when it is short (priority.py), whether a push is material (material.py), the queue of PRs waiting
for a model analysis (queue.py) and the catch-up run that works it off (catch_up.py)."""
