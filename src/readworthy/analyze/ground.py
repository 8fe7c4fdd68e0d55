"""Grounding: keep only the references a model's digest makes that exist in the gathered context.

A model can name a file, function or issue that is not in the PR. Such a name in
a sticky comment sends a reader looking for something that does not exist, so:

- `references` and `start_reading` entries must be a changed path (or a unique
  path suffix such as `worker/rope_cache.py`), a symbol whose every part occurs in
  the PR's text (diff, description, commits, discussion, linked issues), or
  `path::Symbol`; anything else is dropped;
- a decision left with no grounded reference and no grounded code name is dropped
  (OUTPUT_STYLE: every decision names real code from this PR);
- `related` numbers must be a linked issue, a related item, or a `#N` in the text;
- linked-issue findings need linked issues, and a discussion summary needs a discussion;
- in prose, an unknown `#N` loses its `#` (no link to a made-up issue) and an
  unknown backticked name loses its backticks (not presented as code).

Every removal counts once in the returned number (shown in the comment footer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..models import Decision, Digest, PRContext

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_ISSUE_REF = re.compile(r"(?<![\w&/#])#(\d{1,9})\b")
_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_BRACKETS = re.compile(r"\[[^\]]*\]$")  # pytest parametrisation: test_x[fp8]
# Names that end like a file must be a changed file: `foo_utils.py` is not grounded by `foo_utils` alone.
_FILE_LIKE = re.compile(
    r"\.(py|pyi|pyx|cu|cuh|cpp|cc|cxx|c|h|hh|hpp|hip|rs|go|java|kt|ts|tsx|js|jsx|md|rst|yaml|yml|toml|json|txt"
    r"|sh|proto|cfg|ini|lock|in|j2|html|css|cmake)$"
)
_DASHED = re.compile(r"[A-Za-z_][\w]*(?:-\w+)+")
_CODE_LIKE = re.compile(r"[/._:]|[a-z][A-Z]|\(\)$")


@dataclass(frozen=True)
class ContextIndex:
    """What a reference may point at: changed paths, identifiers in the PR's text, issue numbers."""

    paths: frozenset[str]
    identifiers: frozenset[str]
    numbers: frozenset[int]

    @classmethod
    def from_context(cls, ctx: PRContext) -> ContextIndex:
        paths = {f.path for f in ctx.files} | {f.previous_path for f in ctx.files if f.previous_path}
        identifiers: set[str] = set()
        numbers = {i.number for i in ctx.linked_issues} | {r.number for r in ctx.related}
        for text in _code_texts(ctx):
            identifiers.update(_IDENT.findall(text))
        for text in _prose_texts(ctx):
            identifiers.update(_code_names_in_prose(text))
            numbers.update(int(n) for n in _ISSUE_REF.findall(text))
        for path in paths:
            identifiers.update(_IDENT.findall(path))
        for f in ctx.files:  # the head file's definitions (gather/outline.py): they exist at the head
            for entry in f.outline or ():
                identifiers.update(entry.qualname.split("."))
        numbers.discard(ctx.number)  # a PR pointing readers at itself adds nothing
        return cls(frozenset(paths), frozenset(identifiers), frozenset(numbers))

    def match_path(self, ref: str) -> str | None:
        """The changed path `ref` names: exact, or the unique path it is a /-suffix of."""
        ref = ref.removeprefix("./").removeprefix("a/").removeprefix("b/") if ref not in self.paths else ref
        if ref in self.paths:
            return ref
        if "/" not in ref and "." not in ref:
            return None
        hits = [p for p in self.paths if p.endswith("/" + ref)]
        return hits[0] if len(hits) == 1 else None

    def has_symbol(self, ref: str) -> bool:
        """Every part of a dotted / `::` / `:` symbol occurs as an identifier in the context."""
        ref = _BRACKETS.sub("", ref.removesuffix("()"))
        parts = [p for p in re.split(r"::|\.|:|#", ref) if p]
        if not parts or len(parts) > 8:
            return False
        return all(_IDENT.fullmatch(p) and p in self.identifiers for p in parts)

    def has_reference(self, raw: str) -> str | None:
        """The cleaned reference if it is grounded, else None."""
        ref = raw.strip().strip("`'\"").strip().rstrip(",;.")
        if not ref or len(ref) > 200:
            return None
        if " " in ref:
            # prose around a code name: keep the first grounded backticked or path-like token
            tokens = _BACKTICKED.findall(raw) or [t for t in ref.split() if _CODE_LIKE.search(t)]
            for token in tokens:
                found = self.has_reference(token)
                if found:
                    return found
            return None
        if self.match_path(ref):
            return ref
        if _FILE_LIKE.search(ref):
            return None
        if "::" in ref:
            head, _, symbol = ref.partition("::")
            # in a file, a build stage or target may be named with dashes (`Dockerfile::test-deps`)
            if self.match_path(head) and self.has_symbol(symbol.replace("-", ".") if _DASHED.fullmatch(symbol)
                                                         else symbol):
                return ref
            return None
        return ref if self.has_symbol(ref) else None

    def has_code_span(self, span: str) -> bool:
        """A backticked span in prose: a path, or code whose identifiers all occur in the context."""
        if self.match_path(span.strip()):
            return True
        if _FILE_LIKE.search(span.strip()):
            return False
        names = _IDENT.findall(span)
        return all(n in self.identifiers for n in names)


def _code_texts(ctx: PRContext) -> Iterator[str]:
    """Text that is code: every identifier in it is a name a reader can find."""
    for f in ctx.files:
        if f.patch:
            yield f.patch
    for thread in ctx.threads:
        yield thread.diff_hunk


def _prose_texts(ctx: PRContext) -> Iterator[str]:
    """Text written by people: only code-shaped names in it count (not every English word)."""
    yield ctx.title
    yield ctx.body
    for c in ctx.commits:
        yield c.message
    for comment in ctx.comments:
        yield comment.body
    for review in ctx.reviews:
        yield review.body
    for thread in ctx.threads:
        for tc in thread.comments:
            yield tc.body
    for issue in ctx.linked_issues:
        yield issue.title
        yield issue.body
        for comment in issue.comments:
            yield comment.body
    for item in ctx.related:
        yield item.title
    yield from ctx.owners
    yield from ctx.areas


_CODE_BLOCK = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)+")
_CODE_SHAPED = re.compile(r"[A-Za-z$]*[_\d$][\w$]*|[a-z]+[A-Z][\w$]*|[A-Z][a-z\d]+[A-Z][\w$]*|[A-Z][A-Z\d_]{2,}")


def _code_names_in_prose(text: str) -> set[str]:
    """Names from backticks and code blocks, parts of dotted names, and snake/camel-case words."""
    names: set[str] = set()
    for block in _CODE_BLOCK.findall(text):
        names.update(_IDENT.findall(block))
    for chain in _DOTTED.findall(text):
        names.update(_IDENT.findall(chain))
    names.update(w for w in _IDENT.findall(text) if _CODE_SHAPED.fullmatch(w))
    return names


class _Grounder:
    def __init__(self, index: ContextIndex) -> None:
        self.index = index
        self.dropped = 0

    def references(self, refs: Iterable[str]) -> list[str]:
        kept: list[str] = []
        for raw in refs:
            ref = self.index.has_reference(raw)
            if ref is None:
                self.dropped += 1
            elif ref not in kept:
                kept.append(ref)
        return kept

    def prose(self, text: str) -> str:
        def issue(match: re.Match[str]) -> str:
            if int(match.group(1)) in self.index.numbers:
                return match.group(0)
            self.dropped += 1
            return match.group(1)

        def code(match: re.Match[str]) -> str:
            if self.index.has_code_span(match.group(1)):
                return match.group(0)
            self.dropped += 1
            return match.group(1)

        return _BACKTICKED.sub(code, _ISSUE_REF.sub(issue, text))

    def decision(self, decision: Decision) -> Decision | None:
        refs = self.references(decision.references)
        title, explanation = self.prose(decision.title), self.prose(decision.explanation)
        grounded_code = [s for s in _BACKTICKED.findall(title + "\n" + explanation) if _IDENT.search(s)]
        if not refs and not grounded_code:
            self.dropped += 1
            return None
        return Decision(title=title, explanation=explanation, references=refs)

    def numbers(self, numbers: Iterable[int]) -> list[int]:
        kept: list[int] = []
        for n in numbers:
            if n in self.index.numbers and n not in kept:
                kept.append(n)
            else:
                self.dropped += 1
        return kept


def ground_digest(digest: Digest, ctx: PRContext) -> tuple[Digest, int]:
    """The digest with ungrounded references removed, and how many were removed."""
    g = _Grounder(ContextIndex.from_context(ctx))
    decisions = [d for d in (g.decision(d) for d in digest.decisions) if d is not None]
    # Findings about linked issues, or a summary of a discussion, need those to exist.
    findings = [g.prose(x) for x in digest.linked_issue_findings] if ctx.linked_issues else []
    had_discussion = bool(ctx.comments or ctx.threads or any(r.body.strip() for r in ctx.reviews))
    discussion = g.prose(digest.discussion) if had_discussion else ""
    g.dropped += len(digest.linked_issue_findings) - len(findings) + (bool(digest.discussion) and not discussion)
    grounded = Digest(
        verdict=digest.verdict,
        reason=g.prose(digest.reason),
        headline=g.prose(digest.headline),
        audience=[g.prose(a) for a in digest.audience],
        decisions=decisions,
        start_reading=g.references(digest.start_reading),
        discussion=discussion,
        linked_issue_findings=findings,
        open_items=[g.prose(x) for x in digest.open_items],
        related=g.numbers(digest.related),
    )
    return grounded, g.dropped
