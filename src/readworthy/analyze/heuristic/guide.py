"""The reading guide of the heuristic comment: design points in the authors' words, where to start, who reads.

Design points are passages (authors.py) picked by weight, at most two per definition and four in
all; a passage too weak to teach anything is left out: the guide says less rather than list names.
Each point's title is the passage's first clause, its explanation says who wrote it where, about
which definition, and quotes the rest.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from ...models import Decision, PRContext
from ...pack.classify import FileKind
from ..ground import ContextIndex
from .authors import (
    Anchors,
    Passage,
    code_passages,
    description_passages,
    issue_passages,
    review_passages,
    split_lead,
    title_passage,
)
from .centre import RankedDefinition
from .signals import MECHANICAL_KINDS, Signals
from .wording import phrase

MAX_POINTS = 4
MIN_WEIGHT = 5.0  # below this a passage is too generic to be a design point
TITLE_POINT_MAX_OTHERS = 1  # the title mapped to a definition only when the authors said little else
_DEBATE = frozenset({"issue", "review", "review_request"})


def design_passages(ctx: PRContext, sig: Signals) -> list[Passage]:
    """The passages worth a design point, strongest first."""
    anchors = Anchors(sig.centre)
    if anchors.centre is None:
        return []
    pool = [*description_passages(ctx, anchors), *issue_passages(ctx, anchors),
            *review_passages(ctx, anchors), *code_passages(anchors, module_docs=sig.module_docs)]
    pool.sort(key=lambda p: -p.weight)
    chosen: list[Passage] = []
    per_anchor: Counter[str] = Counter()
    for p in pool:
        if len(chosen) == MAX_POINTS or p.weight < MIN_WEIGHT:
            break
        key = p.anchor.reference
        # one account of what a definition is (description or code comments); the issue and the
        # review may add why it had to be so
        told = [c for c in chosen if c.anchor.reference == key and not _evidence(c)]
        if per_anchor[key] >= 2 or (told and not _evidence(p)) or any(_overlap(p.text, c.text) for c in chosen):
            continue
        chosen.append(p)
        per_anchor[key] += 1
    if len(chosen) <= TITLE_POINT_MAX_OTHERS:
        title = title_passage(headline_of(ctx.title), anchors)
        if title is not None and all(c.anchor.reference != title.anchor.reference for c in chosen):
            chosen.append(title)
    return chosen


def _evidence(p: Passage) -> bool:
    """Why it had to be so, or what it measured: the issue, the review, the description's results."""
    return p.source in _DEBATE or p.role == "result"


def _overlap(a: str, b: str) -> bool:
    """Two quotes that share most of their words say the same thing (a docstring the description repeats)."""
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return bool(wa and wb) and len(wa & wb) >= 0.6 * min(len(wa), len(wb))


def headline_of(title: str) -> str:
    """A PR title without its `[Tag]` prefixes and squash-merge `(#1234)` suffix."""
    title = title.strip()
    while title.startswith("[") and "]" in title:
        title = title[title.index("]") + 1 :].strip()
    if title.endswith(")") and "(#" in title:
        title = title[: title.rindex("(#")].strip()
    return title


def _file_label(path: str, paths: Sequence[str]) -> str:
    """The file name when it is unique among the changed files, else the whole path."""
    name = path.rsplit("/", 1)[-1]
    return name if sum(1 for p in paths if p.rsplit("/", 1)[-1] == name) == 1 else path


def _facts(anchor: RankedDefinition, language: str, wanted: bool = True) -> str:
    """What the diff shows about the definition: a kernel entry, its callers, its test (said once)."""
    if not wanted:
        return ""
    d = anchor.definition
    parts = []
    if d.kernel_entry:
        parts.append(phrase(language, "f_kernel_entry"))
    if len(anchor.caller_files) >= 2:
        parts.append(phrase(language, "f_callers", n=len(anchor.caller_files)))
    tests = [t.rsplit("::", 1)[-1] for t in anchor.tests if "::" in t]
    tests = [t for t in tests if t.rsplit(".", 1)[-1].lower().startswith("test")]
    if tests:
        parts.append(phrase(language, "f_tested", test=tests[0]))
    return phrase(language, "f_sentence", facts=phrase(language, "f_sep").join(parts)) if parts else ""


def decision_of(p: Passage, paths: Sequence[str], language: str, facts: bool = True) -> Decision:
    """One design point: the quote's lead as title, then who said it where and the rest of the quote."""
    d = p.anchor.definition
    values = {"name": d.qualname, "file": _file_label(d.path, paths), "who": p.who, "section": p.who}
    if p.source == "title":
        title = phrase(language, "p_title_title", name=d.name)
        explanation = phrase(language, "p_title", quote=p.text, **values) + phrase(language, "p_end")
        return Decision(title=title[:160], explanation=(explanation + _facts(p.anchor, language, facts))[:900],
                        references=[d.path, p.anchor.reference, *p.anchor.tests[:1]][:8])
    head, rest = split_lead(p.text)
    key = {"comment": "p_comment_above" if p.who == "above" else "p_comment_inside",
           "message": "p_message_" + _message_kind(p.who)}.get(p.source, "p_" + p.source)
    if p.source == "description" and not p.who:
        key = "p_description_plain"
    if p.source == "review":
        values["asker"], values["question"] = p.asker, p.question
    attribution = phrase(language, key, **values)
    explanation = phrase(language, "p_quote", attribution=attribution, quote=rest) if rest else attribution + \
        phrase(language, "p_end")
    return Decision(title=head[:160], explanation=(explanation + _facts(p.anchor, language, facts))[:900],
                    references=list(dict.fromkeys([d.path, p.anchor.reference, *p.anchor.tests[:1]]))[:8])


def _message_kind(call: str) -> str:
    if call in ("raise", "throw", "panic!", "bail!", "torch_check", "assert", "error"):
        return "raise"
    if call.startswith(("logger.", "logging.", "log.", "warnings.", "warn")):
        return "log"
    if call in ("return", "reason"):
        return "return"
    return "text"


class QuoteTidier:
    """Quotes keep only links a reader can follow: `#N` for issues this PR's own text names, backticks
    around file names only for files it changes (a code comment's "(#42082)" is an upstream RFC)."""

    _ISSUE = re.compile(r"(?<![\w&/#])#(\d{1,9})\b")
    _SPAN = re.compile(r"`([^`\n]{1,200})`")
    _FILE = re.compile(r"\.[A-Za-z]{1,6}$")

    def __init__(self, ctx: PRContext) -> None:
        prose = [ctx.title, ctx.body, *(c.message for c in ctx.commits), *(c.body for c in ctx.comments),
                 *(r.body for r in ctx.reviews), *(c.body for t in ctx.threads for c in t.comments),
                 *(i.body for i in ctx.linked_issues), *(c.body for i in ctx.linked_issues for c in i.comments)]
        self.numbers = {i.number for i in ctx.linked_issues} | {r.number for r in ctx.related}
        self.numbers |= {int(n) for text in prose for n in self._ISSUE.findall(text)}
        self.numbers.discard(ctx.number)
        paths = {f.path for f in ctx.files} | {f.previous_path for f in ctx.files if f.previous_path}
        self.index = ContextIndex(frozenset(paths), frozenset(), frozenset(self.numbers))

    def __call__(self, text: str) -> str:
        text = self._ISSUE.sub(lambda m: m.group(0) if int(m.group(1)) in self.numbers else m.group(1), text)
        return self._SPAN.sub(lambda m: m.group(0) if not self._FILE.search(m.group(1))
                              or self.index.match_path(m.group(1)) else m.group(1), text)


def design_points(ctx: PRContext, sig: Signals, language: str) -> list[Decision]:
    paths = [f.path for f in ctx.files]
    tidy = QuoteTidier(ctx)
    out = []
    described: set[str] = set()
    for p in design_passages(ctx, sig):
        tidied = replace(p, text=tidy(p.text), question=tidy(p.question))
        out.append(decision_of(tidied, paths, language, facts=p.anchor.reference not in described))
        described.add(p.anchor.reference)
    return out


def skip_points(sig: Signals, language: str) -> list[Decision]:
    """A skip says in one line what is worth remembering: an excluded release is a practice to keep."""
    if not (sig.version_only and sig.exclusions):
        return []
    first = sig.exclusions[0]
    return [Decision(title=phrase(language, "p_version_exclusion_title"),
                     explanation=phrase(language, "p_version_exclusion", line=first.text[:120], file=first.path),
                     references=list(dict.fromkeys(x.path for x in sig.exclusions)))]


def start_reading(sig: Signals) -> list[str]:
    """The centre of the PR, then its test, then the next central definitions in other files."""
    out: list[str] = []
    files_named: set[str] = set()
    for r in sig.centre[:8]:
        if len(out) >= 4:
            break
        if r.definition.path in files_named and out:
            continue
        out.append(r.reference)
        files_named.add(r.definition.path)
        test = r.tests[0] if r.tests else ""
        if test and test not in out and len(out) < 4 and not any("test" in x.split("::")[0] for x in out):
            out.append(test)
    if out:
        return [x[:200] for x in out]
    readable = [f for f in sig.ranked if f.kind not in MECHANICAL_KINDS and f.kind is not FileKind.DELETED
                and f.change.additions > 0]
    return [f.change.path[:200] for f in readable[:4]]
