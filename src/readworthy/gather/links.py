"""Issue references in PR text: which issues a PR says it closes, and which it merely mentions.

GitHub's forms: `#123`, `owner/repo#123`, and full URLs `https://HOST/owner/repo/issues/123` (or
`/pull/123`). A closing keyword (close/fix/resolve and their -s/-d forms, optional colon) in front
makes it a closing reference. References inside code (fenced blocks, inline backticks) are not links
on GitHub, so they are not links here either. Pure functions: text in, references out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import LinkKind

_KEYWORDS = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
# owner/repo#N | #N | https://host/owner/repo/(issues|pull)/N
# Possessive quantifiers (`++`) and an owner that starts where its run of name characters starts: a
# long run of dots, dashes or letters is read once, not once from each of its positions.
_TARGET = (
    r"(?:(?P<url>https?://[^\s/]++/(?P<uowner>[\w.-]++)/(?P<urepo>[\w.-]++)/(?:issues|pull)/(?P<unum>\d++))"
    r"|(?:(?<![.-])(?P<owner>[\w.-]++)/(?P<repo>[\w.-]++))?#(?P<num>\d++))"
)
_REFERENCE = re.compile(
    rf"(?<![\w/&#])(?:(?P<kw>{_KEYWORDS})(?:\s*+:\s++|\s++))?{_TARGET}(?![\w/])",
    re.IGNORECASE,
)
_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)  # unclosed, it hides the rest (as on GitHub)


@dataclass(frozen=True)
class IssueRef:
    repo: str  # "owner/name"
    number: int
    kind: LinkKind  # CLOSING or MENTIONED


def _without_code(text: str) -> str:
    text = _HTML_COMMENT.sub(" ", text)  # PR templates keep their instructions in comments
    text = _FENCED.sub(" ", text)
    return _INLINE_CODE.sub(" ", text)


def find_issue_refs(text: str, default_repo: str) -> list[IssueRef]:
    """References in `text`, in order of first appearance; a closing mention wins over a plain one."""
    found: dict[tuple[str, int], IssueRef] = {}
    for m in _REFERENCE.finditer(_without_code(text or "")):
        if m.group("url"):
            repo, number = f"{m.group('uowner')}/{m.group('urepo')}", int(m.group("unum"))
        else:
            owner, name = m.group("owner"), m.group("repo")
            repo = f"{owner}/{name}" if owner and name else default_repo
            number = int(m.group("num"))
        if number == 0:
            continue
        key = (repo.lower(), number)
        kind = LinkKind.CLOSING if m.group("kw") else LinkKind.MENTIONED
        previous = found.get(key)
        if previous is None or (kind is LinkKind.CLOSING and previous.kind is not LinkKind.CLOSING):
            found[key] = IssueRef(repo=repo, number=number, kind=kind)
    return list(found.values())


def same_repo(a: str, b: str) -> bool:
    return a.lower() == b.lower()
