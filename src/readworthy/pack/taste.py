"""The repository's own taste (`.github/readworthy.yml` `taste`) as text for the system message.

It follows the default rubric there, fenced like the PR material (prompts/messages.py): the file
comes from the base branch, but its words still only calibrate the verdict, never steer the task.
Bounded in tokens and counted inside the prompt budget like everything else: at most
TASTE_MAX_TOKENS, and never more than TASTE_MAX_BUDGET_SHARE of a small budget, so a long file
cannot crowd out the code. Cleaned (hidden text) and redacted (secrets) like PR prose.
"""

from __future__ import annotations

from ..config import Taste
from .redact import redact_secrets
from .sanitize import clean_prose
from .tokens import TokenCounter, truncate_to_tokens

TASTE_MAX_TOKENS = 500
TASTE_MAX_BUDGET_SHARE = 0.08
EXAMPLES_HEAD = "Verdicts this repository's maintainers gave to some of its pull requests:"


def taste_limit(budget: int) -> int:
    return min(TASTE_MAX_TOKENS, int(budget * TASTE_MAX_BUDGET_SHARE))


def render_taste(taste: Taste, limit: int, counter: TokenCounter) -> str:
    """Guidance, then examples, inside `limit` tokens: when everything does not fit, the guidance keeps
    at most half of the limit and the examples follow while whole ones fit (a cut example misleads)."""
    if taste.empty or limit <= 0:
        return ""
    guidance = _clean(taste.guidance)
    examples = [f"- #{e.pr} {e.verdict}: {_clean(e.reason)}" for e in taste.examples]
    whole = "\n".join([guidance, *([EXAMPLES_HEAD, *examples] if examples else [])]).strip("\n")
    if counter.count(whole) <= limit:
        return whole
    if guidance:
        guidance = truncate_to_tokens(counter, guidance, limit // 2 if examples else limit, " [...]")
    lines = [guidance] if guidance else []
    used = counter.count(guidance) + 1 if guidance else 0
    head_cost = counter.count(EXAMPLES_HEAD) + 1
    kept: list[str] = []
    for line in examples:
        cost = counter.count(line) + 1
        if used + head_cost + cost > limit:
            break
        kept.append(line)
        used += cost
    if kept:
        lines += [EXAMPLES_HEAD, *kept]
    return "\n".join(lines)


def _clean(text: str) -> str:
    redacted, _ = redact_secrets(clean_prose(text))
    return redacted.strip()
