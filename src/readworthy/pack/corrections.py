"""The team's past corrections most like this PR, as one prompt section (`team_corrections`). Pure.

Examples of the team's reading taste from the taste memory (memory/similar.py picked them, most similar
first): for each, the PR, what it changed, readworthy's verdict, the team's verdict, who and why. They
were written by people with write access (gather/memory.py) and checked for steering text
(memory/record.py), and they are still data: the section is fenced like the PR material, its text
cleaned and redacted the same way, and it is bounded (MAX_TOKENS, or BUDGET_SHARE of the prompt) so it
never crowds out the PR itself. Examples that do not fit are left out whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import CorrectionMatch
from ..render.safe_markdown import clean_line
from .redact import redact_secrets
from .tokens import TokenCounter

MAX_TOKENS = 600
BUDGET_SHARE = 0.05
MAX_AREAS_SHOWN = 3


@dataclass(frozen=True)
class CorrectionsText:
    text: str
    prs: list[int]  # the examples shown, in order


def limit_for(budget: int) -> int:
    return min(MAX_TOKENS, int(budget * BUDGET_SHARE))


def _example(match: CorrectionMatch) -> str:
    c = match.correction
    title, _ = redact_secrets(clean_line(c.title, 200))
    reason, _ = redact_secrets(clean_line(c.reason, 200))
    areas = ", ".join(f"{area} ({lines} lines)" for area, lines in list(c.areas.items())[:MAX_AREAS_SHOWN])
    kinds = ", ".join(f"{kind} {lines}" for kind, lines in sorted(c.kinds.items(), key=lambda kv: -kv[1]))
    head = f"#{c.pr}" + (f' "{title}"' if title else "") + f" (similarity {match.similarity:.2f})"
    changed = f"  changed: {areas or 'no files'}; file kinds by changed lines: {kinds or 'none'}; {c.lines} lines"
    verdicts = (f"  readworthy's verdict: {c.analysed.value}; the team's verdict: {c.team.value}"
                + (f" ({c.by})" if c.by else "") + (f': "{reason}"' if reason else ""))
    return "\n".join((head, changed, verdicts))


def render_corrections(matches: Sequence[CorrectionMatch], limit: int, counter: TokenCounter) -> CorrectionsText:
    """As many examples as fit in `limit` tokens, most similar first."""
    parts: list[str] = []
    prs: list[int] = []
    for match in matches:
        candidate = "\n\n".join([*parts, _example(match)])
        if counter.count(candidate) > limit:
            break
        parts.append(_example(match))
        prs.append(match.correction.pr)
    return CorrectionsText("\n\n".join(parts), prs)
