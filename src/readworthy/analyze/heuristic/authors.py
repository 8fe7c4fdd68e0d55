"""What the authors wrote about their change, quoted briefly and tied to the definition it describes.

Sources, in the authors' own words:
  - the PR description's sections (Purpose / Motivation / Test Plan / Test Result / Results ...),
    and commit message bodies when there is no description (`readworthy local`);
  - the linked issue's sentence that carries the analysis (a root cause, a bisection, numbers);
  - the review: the reply that settled a resolved thread, and a change request that was approved after;
  - the code's own comments: docstrings, the comment above a definition, comments added in its body,
    and the messages it raises, logs or returns.

The title is not a source: it says what the PR announces, not how it decided.

Every passage is anchored to a ranked definition: the one its text names, the one a review thread
sits on, or, for text about the PR as a whole, the centre of the PR. Nothing is paraphrased here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...models import PRContext
from .centre import RankedDefinition
from .definitions import is_prose
from .shapes import bracket_depth, diff_lines

_WHY = re.compile(r"\b(?:because|so that|so|otherwise|instead|avoid\w*|must|never|only|ensur\w+|guarantee\w*|requires?"
                  r"|since|keeps?|fall(?:s|ing)? ?back|overflow\w*|fast path|hot path|invariant|cannot|can't|unlike"
                  r"|rather than|without|prevent\w*|race|deadlock|leak\w*|instead of|root cause|caused by)\b",
                  re.IGNORECASE)
_NUMBER = re.compile(r"\b\d[\d,.]*\s?(?:%|x\b|ms\b|us\b|µs|s\b|GB|GiB|MB|MiB|KB|KiB|tok/s|tokens?/s|req/s|QPS|threads"
                     r"|blocks|tokens|steps|CTAs)|\b\d[\d,.]*\s?(?:->|→)\s?\d|\b2\s?\*\*\s?\d+|2\^\d+", re.IGNORECASE)
_ANALYSIS = re.compile(r"root[- ]cause|\bbisect|\bprofil|\bregress|caused by|\bbecause\b|\btraced?\b", re.IGNORECASE)
_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+(?P<h1>.+?)\s*#*\s*$|\*\*(?P<h2>[^*]{2,60})\*\*\s*:?\s*$"
                      r"|(?P<h3>[A-Z][A-Za-z /]{2,40}):\s*$)")
_CHECKBOX = re.compile(r"^\s*[-*]\s*\[[ xX]\]")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_DETAILS = re.compile(r"<details>.*?(?:</details>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_TRAILER = re.compile(r"^\s*(?:Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Change-Id|Cc):",
                      re.IGNORECASE)
_ISSUE_ONLY = re.compile(r"^(?:(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related|part of|see|ref)\b\W*)?"
                         r"(?:[\w.-]+/[\w.-]+)?#\d+\W*$", re.IGNORECASE)
# A sentence that only sends the reader elsewhere ("See module docstring.", "See above for details.") says
# nothing a design point can quote.
_POINTER_ONLY = re.compile(r"^(?:see|refer to|cf\.?)\b(?:\s+\S+){0,5}?\s*\.?$", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^(?:n/?a|none|tbd|todo|-+|\.+|see above|see title)\.?$", re.IGNORECASE)
_STRING = re.compile(r"""[rfbu]{0,2}("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""", re.IGNORECASE)
_ONLY_STRING = re.compile(r"""^\s*(?:\+\s*)?[rfbu]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*[,)+]*\s*$""",
                          re.IGNORECASE)
_MESSAGE_CALL = re.compile(r"\b(?:raise|throw|panic!|bail!|TORCH_CHECK|assert|(?:logger|logging|log|warnings)\.\w+"
                           r"|warn\w*|error|return|reason)\b", re.IGNORECASE)
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A sentence ends at . ! ? before a capital or a code name, but not after "e.g." and its kin.
# an abbreviation, a list number or an ellipsis ("`a` ... `b`") ends no sentence
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?<!\bcf\.)(?<![\s(:]\d\.)(?<!\.\.\.)"
                           r"(?<=[.!?])\s+(?=[A-Z`\"']|[a-z]\w*_\w|[a-z]\w*\()")
# "`LastAccessEvictor` (new, `x.py`): a min-heap ..." - a bullet that labels what it describes.
_LABEL = re.compile(r"^`?(?P<name>[A-Za-z_][\w.]*)(?:\(\))?`?\s*+(?:\([^)]{0,80}\)\s*+)?(?::|—|–|-)\s+(?P<text>\S.*)$")
_RST_CODE = re.compile(r"``([^`]+)``")

# Sections of a PR description, by the words their headings use.
_SECTION_ROLES = (
    ("result", re.compile(r"result|benchmark|perf|number|evaluat|accura|measure", re.IGNORECASE)),
    ("test", re.compile(r"test|verif|validat|how .*tested", re.IGNORECASE)),
    ("followup", re.compile(r"follow|todo|future|limitation|known issue|caveat|next step", re.IGNORECASE)),
    ("purpose", re.compile(r"purpose|motivat|summary|descri|why|background|problem|context|overview|what|change"
                           r"|design|approach|implement|detail|root cause|solution|fix", re.IGNORECASE)),
)
SOURCE_WEIGHT = {"issue": 6.0, "review": 5.5, "review_request": 5.0, "description": 4.5, "commit": 4.0,
                 "docstring": 3.5, "module": 3.0, "comment": 2.5, "message": 1.0}
# A message that states what a configuration needs is a contract; "must be one of" is input checking.
_CONTRACT = re.compile(r"not supported|unsupported|requires?|only supports?|incompatible|falls? back", re.IGNORECASE)


@dataclass(frozen=True)
class Passage:
    """A brief quote of the authors, the definition it belongs to, and who said it where."""

    source: str  # a SOURCE_WEIGHT key
    text: str
    anchor: RankedDefinition
    who: str = ""  # a reviewer, "#812", a description section, a message kind ("raises")
    question: str = ""  # for a settled review thread: what was asked, and by whom
    asker: str = ""
    role: str = ""  # for a description: the section's role (purpose, test, result, followup, other)
    weight: float = 0.0


_BENCHMARK = re.compile(r"benchmark|throughput|latency|speed-?up|\bTTFT\b|\bTPOT\b|\bITL\b|tok/s|tokens?/s|req/s"
                        r"|\bQPS\b|hit rate|accuracy|\bp\d\d\b|faster|slower|memory (?:use|usage|saving)",
                        re.IGNORECASE)


_BEFORE_AFTER = re.compile(r"\d[\d,.]*\s?[%a-zA-Z/]{0,6}\s?(?:->|→)\s?\d"
                           r"|\d[\d,.]*\s?(?:%|ms|us|µs|s|x|GB|GiB|MB|MiB)\s+to\s+\d")


def is_measurement(text: str) -> bool:
    """A measured result (a benchmark line, numbers before and after), not a decision."""
    return bool(_BEFORE_AFTER.search(text)) or (bool(_NUMBER.search(text)) and bool(_BENCHMARK.search(text)))


# `**` and `__` around words; a dunder name (`__init__`, `__call__`) is a name, kept whole.
_EMPHASIS = re.compile(r"(?P<name>(?<![\w`])__[A-Za-z]\w*?__(?![\w`]))|\*\*|(?<![\w*_])__(?=\w)|(?<=\w)__(?![\w*_])")


def clean(text: str) -> str:
    """One line of prose: markdown emphasis, bullets and RST double backticks removed."""
    text = _RST_CODE.sub(r"`\1`", text)
    text = _EMPHASIS.sub(lambda m: m.group("name") or "", text)
    text = re.sub(r"^\s*(?:[-*+>]|\d+[.)])\s+", "", text)
    return " ".join(text.split()).strip()


# a sentence end or a clause break, not a list item's number nor an abbreviation ("e.g. rejected")
_CUT_AT = re.compile(r"(?<!\b\d)(?<!\b\d\d)(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)(?<!\bcf)\. |; ")


def brief(text: str, limit: int = 220) -> str:
    """At most `limit` characters, cut at a sentence end or a word, never inside a code span."""
    text = clean(text)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    # the last sentence end, not a list item's number ("... needed 1. Local ...")
    end = max((m.start() for m in _CUT_AT.finditer(cut)), default=-1)
    cut = cut[: end + 1] if end >= limit // 2 else cut[: cut.rfind(" ")] + "…"
    if cut.count("`") % 2:
        cut = cut[: cut.rfind("`")].rstrip() + "…"
    return cut


_LIST_AFTER_COLON = re.compile(r":\s+(?:\(?\d{1,2}[.)]|[-*•])\s")


def _quoted_sentences(text: str) -> list[str]:
    """The sentences of a quote worth quoting: not a heading-like opener, not one that only points elsewhere."""
    sentences = [x for x in _SENTENCE_END.split(clean(text)) if x]
    sentences = [x for x in sentences if not _POINTER_ONLY.match(x)] or sentences
    while len(sentences) > 1 and len(sentences[0].split()) < 4:
        sentences = sentences[1:]
    return sentences


def split_lead(text: str, limit: int = 140) -> tuple[str, str]:
    """(title, rest) of a quote: its first sentence as the title and the rest to quote after it.
    A heading-like first sentence (a few words) is skipped; a first sentence too long for a title is
    clipped for the title and quoted whole."""
    sentences = _quoted_sentences(text)
    if not sentences:
        return "", ""
    first, rest = sentences[0], " ".join(sentences[1:])
    listed = _LIST_AFTER_COLON.search(first)
    if listed and len(first[: listed.start()].split()) >= 3:  # "Load X with a fallback chain: 0. ... 1. ..."
        return first[: listed.start()], " ".join([first[listed.start() + 1:].strip(), *sentences[1:]]).strip()
    if len(first) <= limit:
        return first.rstrip(".:;,"), rest
    title = brief(first, limit - 10).rstrip(";,: ")
    return title, " ".join(sentences)


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)", text):
        flat = " ".join(paragraph.split())
        out.extend(s for s in _SENTENCE_END.split(flat) if s)
    return out


def _informative(sentence: str) -> bool:
    s = clean(sentence)
    return len(s.split()) >= 4 and not _ISSUE_ONLY.match(s) and not _PLACEHOLDER.match(s) and is_prose(s)


def _score(text: str) -> float:
    words = len(text.split())
    return (1.5 * min(len(_WHY.findall(text)), 3) + 2.0 * min(len(_NUMBER.findall(text)), 2)
            - (2.0 if words < 6 else 0.0) - (1.0 if words > 70 else 0.0))


class Anchors:
    """Find the ranked definition a text is about."""

    def __init__(self, ranked: Sequence[RankedDefinition]) -> None:
        self.ranked = list(ranked)
        self.by_name: dict[str, RankedDefinition] = {}
        for r in ranked:  # most central first: the first definition of a name wins
            self.by_name.setdefault(r.definition.name, r)
            self.by_name.setdefault(r.definition.qualname, r)

    @property
    def centre(self) -> RankedDefinition | None:
        return self.ranked[0] if self.ranked else None

    def named_in(self, text: str) -> RankedDefinition | None:
        hits = [self.by_name[w] for w in dict.fromkeys(_IDENT.findall(text)) if w in self.by_name and len(w) >= 4]
        return min(hits, key=self.ranked.index) if hits else None

    def at(self, path: str, line: int | None) -> RankedDefinition | None:
        """The definition a review thread sits on: the closest start above its line in its file."""
        in_file = [r for r in self.ranked if r.definition.path == path]
        above = [r for r in in_file if line and 0 < r.definition.line <= line]
        if not above:
            return in_file[0] if in_file else None
        best = max(above, key=lambda r: (r.definition.line, not r.definition.is_type))
        if best.definition.dunder:  # a thread on `__init__` is about its class
            return next((r for r in in_file if r.definition.qualname == best.definition.parent), best)
        return best

    def rank_bonus(self, anchor: RankedDefinition) -> float:
        index = self.ranked.index(anchor)
        return max(0.0, 3.0 - index * 0.5)


def _sections(body: str) -> list[tuple[str, str, str]]:
    """(role, heading, text) for each section of a PR description; template leftovers removed."""
    body = _HTML_COMMENT.sub("", body)
    body = _DETAILS.sub(lambda m: "" if re.search(r"checklist|template|essential", m.group(0)[:300], re.IGNORECASE)
                        else m.group(0), body)
    body = _FENCE.sub("", body)
    out: list[tuple[str, str, str]] = []
    heading, role = "", "purpose"  # text before the first heading says what the PR is for
    lines: list[str] = []
    for line in body.split("\n"):
        m = _HEADING.match(line)
        if m:
            if lines:
                out.append((role, heading, "\n".join(lines)))
            heading = (m.group("h1") or m.group("h2") or m.group("h3") or "").strip()
            role = next((r for r, pattern in _SECTION_ROLES if pattern.search(heading)), "other")
            lines = []
            continue
        if re.search(r"BEFORE SUBMITTING|PLEASE READ", line):
            break  # a template's footer; what follows is boilerplate
        if not _CHECKBOX.match(line):
            lines.append(line)
    if lines:
        out.append((role, heading, "\n".join(lines)))
    return out


def description_passages(ctx: PRContext, anchors: Anchors) -> list[Passage]:
    centre = anchors.centre
    if centre is None:
        return []
    body, source = ctx.body, "description"
    if not body.strip():  # a local range or a squash commit: the commit bodies are the description
        source = "commit"
        body = "\n\n".join("\n".join(x for x in c.message.split("\n")[1:] if not _TRAILER.match(x))
                           for c in ctx.commits[:20])
    out = []
    for role, heading, text in _sections(body):
        if role in ("followup", "other") and not heading:
            continue
        for sentence in _sentences(text):
            if not _informative(sentence):
                continue
            named = anchors.named_in(sentence)
            label = _LABEL.match(clean(sentence))
            if label and label.group("name").rsplit(".", 1)[-1] in anchors.by_name:
                named = anchors.by_name[label.group("name").rsplit(".", 1)[-1]]
                sentence = label.group("text")[:1].upper() + label.group("text")[1:]
            anchor = named or centre
            bonus = (1.5 if role in ("purpose", "result") else 0.0) + (1.0 if named else 0.0)
            who = heading if source == "description" else ""
            out.append(Passage(source, brief(sentence), anchor, who=who, role=role,
                               weight=SOURCE_WEIGHT[source] + _score(sentence) + bonus + anchors.rank_bonus(anchor)))
    return out


def issue_passages(ctx: PRContext, anchors: Anchors) -> list[Passage]:
    centre = anchors.centre
    out: list[Passage] = []
    for issue in ctx.linked_issues[:4]:
        texts = [issue.body, *(c.body for c in issue.comments if not c.author_is_bot)]
        candidates = [s for text in texts for s in _sentences(_FENCE.sub("", text)) if _informative(s)]
        scored = [(2.0 * bool(_ANALYSIS.search(s)) + _score(s), s) for s in candidates]
        scored = [(w, s) for w, s in scored if w >= 2.0]
        if not scored or centre is None:
            continue
        weight, sentence = max(scored, key=lambda x: x[0])
        anchor = anchors.named_in(sentence) or centre
        out.append(Passage("issue", brief(sentence), anchor, who=f"#{issue.number}",
                           weight=SOURCE_WEIGHT["issue"] + weight + anchors.rank_bonus(anchor)))
    return out


def review_passages(ctx: PRContext, anchors: Anchors) -> list[Passage]:
    out: list[Passage] = []
    for thread in ctx.threads:
        comments = [c for c in thread.comments if c.body.strip() and c.author]
        if not (thread.is_resolved or thread.is_outdated) or len(comments) < 2:
            continue
        asker = comments[0].author
        replies = [c for c in comments[1:] if c.author != asker and _informative(c.body)]
        if not replies:
            continue
        answer = replies[-1]
        anchor = anchors.at(thread.path, thread.line) or anchors.named_in(answer.body)
        if anchor is None:
            continue
        out.append(Passage("review", brief(answer.body), anchor, who=answer.author,
                           question=brief(comments[0].body, 140), asker=asker,
                           weight=SOURCE_WEIGHT["review"] + _score(answer.body) + anchors.rank_bonus(anchor)))
    approved_after = {r.author for r in ctx.reviews if r.state.value == "APPROVED"}
    for review in ctx.reviews:
        if review.state.value != "CHANGES_REQUESTED" or review.author not in approved_after:
            continue
        if not _informative(review.body):
            continue
        anchor = anchors.named_in(review.body) or anchors.centre
        if anchor is None:
            continue
        out.append(Passage("review_request", brief(review.body), anchor, who=review.author,
                           weight=SOURCE_WEIGHT["review_request"] + _score(review.body) + anchors.rank_bonus(anchor)))
    return out


def _messages(code: Iterable[str]) -> list[tuple[str, str]]:
    """(kind, text) of the prose strings in added code: errors raised, warnings logged, reasons returned."""
    out: list[tuple[str, str]] = []
    parts: list[str] = []
    kind = ""
    for line in [*code, ""]:
        only = bool(_ONLY_STRING.match(line))
        if parts and not only:
            text = "".join(parts)
            if is_prose(text) and len(text.split()) >= 5:
                out.append((kind or "message", text))
            parts, kind = [], ""
        call = _MESSAGE_CALL.search(line)
        if call and not only:
            kind = call.group(0).lower()
        elif not only:
            kind = ""  # a bare `return` above a message says nothing of it
        strings = [_as_read(m) for m in _STRING.finditer(line)]
        opens = not only and bracket_depth(line) > 0  # `msg = (f"...` goes on below: the message starts here
        if strings and (only or call or opens):
            parts.extend(strings)
            if not only and not opens:  # a call with its message on one line
                text = "".join(parts)
                if is_prose(text) and len(text.split()) >= 5:
                    out.append((kind or "message", text))
                parts, kind = [], ""
    return out


def _as_read(string: re.Match[str]) -> str:
    """A string literal's words: an f-string's `{expression}` reads as "…" (the value is not known)."""
    text = string.group(1)[1:-1]
    return _PLACEHOLDER.sub("…", text) if "f" in string.group(0)[:2].lower() else text


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


_COMMENT_MARK = re.compile(r"^\s*(?:#+|//+!?|/\*+!?|\*+/?|[rbu]?\"\"\"|[rbu]?\'\'\')\s?", re.IGNORECASE)
_CODE_SOURCES = frozenset({"docstring", "module", "comment", "message"})


def _words(text: str) -> str:
    return " ".join(text.split())


def removed_prose(ctx: PRContext) -> str:
    """Every line the PR removes, comment marks dropped, as one text: what the code said before."""
    return _words(" ".join(_COMMENT_MARK.sub("", line) for change in ctx.files
                           for line in diff_lines(change.patch)[1]))


def is_moved(p: Passage, removed: str) -> bool:
    """A comment or docstring the PR also removes elsewhere moved with its code: it explains a decision
    made before this PR, not one of its own (a class split out of a file keeps its old comments)."""
    if p.source not in _CODE_SOURCES:
        return False
    text = _words(p.text.removesuffix("…"))
    return len(text) >= 20 and text in removed


def code_passages(anchors: Anchors, limit: int = 25,
                  module_docs: Sequence[tuple[str, str]] = ()) -> list[Passage]:
    out: list[Passage] = []
    # a new file's module docstring speaks for its most central definition when that has no words of its
    # own (a definition's own docstring says more about it than the file's summary)
    for path, doc in module_docs:
        home = next((r for r in anchors.ranked[:limit] if r.definition.path == path and not r.definition.dunder),
                    None)
        if home is not None and not home.definition.doc:
            weight = SOURCE_WEIGHT["module"] + _score(doc) + anchors.rank_bonus(home)
            out.append(Passage("module", brief(doc), home, weight=weight))
    for r in anchors.ranked[:limit]:
        d = r.definition
        if d.dunder:  # `__init__` says nothing on its own: its class's docstring does
            continue
        bonus = anchors.rank_bonus(r)
        if d.doc and d.doc_added:  # a docstring the PR leaves as it was explains an older decision, not this one
            source = "docstring" if d.doc_kind == "docstring" else "comment"
            # an edited docstring: its first sentence names the thing, the edit says what changed
            text = d.doc if not d.doc_new or not is_prose(d.doc_new) else \
                f"{split_lead(d.doc)[0]}. {d.doc_new}"
            weight = SOURCE_WEIGHT[source] + _score(d.doc) + bonus + (1.0 if d.doc_added else 0.0)
            out.append(Passage(source, brief(text), r, who="above", weight=weight))
        for note in sorted(d.notes, key=_score, reverse=True)[:1]:
            out.append(Passage("comment", brief(note), r, weight=SOURCE_WEIGHT["comment"] + _score(note) + bonus))
        for kind, message in [m for m in _messages(d.added_code) if _CONTRACT.search(m[1])][:1]:
            weight = SOURCE_WEIGHT["message"] + _score(message) + bonus
            out.append(Passage("message", brief(message), r, who=kind, weight=weight))
    return out
