"""digest: the reading list over many PRs — select, reuse stored analyses or analyse, render, publish."""
