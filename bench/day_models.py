"""The model side of bench/day.py: one scripted answer per PR, behind GitHub Models' free-tier limits.

`LimitedModels` is the tests' OpenAI-compatible server with its GitHub Models stand-in switched on
(tests/servers/github_models_limits.py: 413 over the per-request input limit, 429 `UserByMinute`,
`UserConcurrentRequests` and `UserByModelByDay` with GitHub's headers; the day is a rolling 86,400 s, the
stricter reading of GitHub's "per 86400s"), on the replay's clock. Each admitted request is answered with
its PR's scripted structured answer (the team's labelled verdict, references into its own files), found by
the PR's title in the prompt.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from servers.github_models_limits import Limits
from servers.openai_server import OpenAIServer, _Step


class LimitedModels(OpenAIServer):
    def __init__(self, clock: Callable[[], datetime], answers: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.answers = answers  # PR title -> its structured answer
        self.calls: list[tuple[datetime, str]] = []  # admitted requests: (when, PR title)
        self._clock = clock
        epoch = clock()
        self.github_models(Limits(), clock=lambda: (clock() - epoch).total_seconds())

    @property
    def refused(self) -> Counter[str]:
        assert self.limiter is not None
        return Counter(self.limiter.refusals)

    def _title_of(self, body: Any) -> str:
        text = json.dumps(body.get("messages", []), ensure_ascii=False) if isinstance(body, dict) else ""
        found = [title for title in self.answers if json.dumps(title, ensure_ascii=False)[1:-1] in text]
        return max(found, key=len) if found else ""

    def _next_step(self, body: Any) -> _Step:
        title = self._title_of(body)
        self.calls.append((self._clock(), title))
        answer = self.answers.get(title)
        if answer is None:
            return _Step(kind="error", status=500, message="no scripted answer for this PR",
                         headers={"x-should-retry": "false"})
        return _Step(kind="reply", content=json.dumps(answer, ensure_ascii=False), prompt_tokens=6_000,
                     completion_tokens=600)
