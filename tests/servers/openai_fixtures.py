"""pytest fixtures for the OpenAI-compatible test server (filled in by the analysis work)."""
