"""pytest fixtures for the OpenAI-compatible test server (see openai_server.py for the scripting API)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from servers.openai_server import OpenAIServer

__all__ = ["openai_server"]


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A fresh scripted server per test on 127.0.0.1 (starting one costs about a millisecond)."""
    server = OpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()
