"""pytest fixtures for the GitHub-compatible test server (filled in by the gather work)."""
