"""The reading guide of the heuristic comment: design points in the authors' words, where to start, who reads.

Design points are decisions: what a docs-only or tests-only PR is worth (kind_points.py), the shared
code beside a PR's own new files, what the diff states (code_points.py: a replaced condition, a gate,
an interface) and the authors' words (authors.py), picked by weight, at most two per definition and
four in all. A passage too weak to teach anything is left out: the guide says less rather than list
names. Never the title restated, never a measured result (it supports the decision it is about),
never a quote of code the diff removes (old code is shown struck through, as removed).
A passage's title is its first clause; its explanation says who wrote it where, about which
definition, and quotes the rest.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from ...models import Decision, PRContext
from ..ground import ContextIndex
from .authors import (
    Anchors,
    Passage,
    brief,
    code_passages,
    description_passages,
    is_measurement,
    is_moved,
    issue_passages,
    removed_prose,
    review_passages,
    split_lead,
)
from .centre import GENERIC_NAMES, RankedDefinition
from .code_points import (
    CodePoint,
    condition_points,
    default_points,
    gate_points,
    interface_points,
    model_files,
    shared_points,
)
from .definitions import Definition
from .kind_points import kind_points
from .option_points import environment_points, option_points, setting_points
from .signals import Signals
from .signature_points import signature_points
from .wording import fit, full_stop, phrase, then

MAX_POINTS = 4
MIN_WEIGHT = 5.0  # below this a passage is too generic to be a design point
_DEBATE = frozenset({"issue", "review", "review_request"})


def design_passages(ctx: PRContext, sig: Signals) -> list[Passage]:
    """The passages worth a design point, strongest first. A measured result is evidence for a
    decision, never one itself; the title is what the PR announces, not how it decided."""
    anchors = Anchors(sig.centre)
    if anchors.centre is None:
        return []
    pool = [*description_passages(ctx, anchors), *issue_passages(ctx, anchors),
            *review_passages(ctx, anchors), *code_passages(anchors, module_docs=sig.module_docs)]
    removed = removed_prose(ctx)
    pool = [p for p in pool if not _measured(p) and not is_moved(p, removed)]
    pool.sort(key=lambda p: -p.weight)
    chosen: list[Passage] = []
    per_anchor: Counter[str] = Counter()
    title = headline_of(ctx.title)
    for p in pool:
        if len(chosen) == MAX_POINTS or p.weight < MIN_WEIGHT:
            break
        key = p.anchor.reference
        # one account of what a definition is (description or code comments); the issue and the
        # review may add why it had to be so
        told = [c for c in chosen if c.anchor.reference == key and not _evidence(c)]
        if per_anchor[key] >= 2 or (told and not _evidence(p)) or any(_overlap(p.text, c.text) for c in chosen) \
                or restates(split_lead(p.text)[0], title):
            continue
        chosen.append(p)
        per_anchor[key] += 1
    return chosen


def measured_results(ctx: PRContext, sig: Signals) -> list[Passage]:
    """What the authors measured (a Results section, numbers before and after), strongest first."""
    anchors = Anchors(sig.centre)
    if anchors.centre is None:
        return []
    found = [p for p in description_passages(ctx, anchors) if _measured(p)]
    return sorted(found, key=lambda p: -p.weight)


def _measured(p: Passage) -> bool:
    return p.role == "result" or is_measurement(p.text)


def _evidence(p: Passage) -> bool:
    """Why it had to be so, or what it measured: the issue, the review, the description's results."""
    return p.source in _DEBATE or p.role == "result"


def _overlap(a: str, b: str, share: float = 0.6) -> bool:
    """Two quotes that share most of their words say the same thing (a docstring the description repeats)."""
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    return bool(wa and wb) and len(wa & wb) >= share * min(len(wa), len(wb))


def restates(text: str, title: str) -> bool:
    """A point whose words are (almost) all the title's says what the PR announces, not how it decided."""
    words, told = set(re.findall(r"\w+", text.lower())), set(re.findall(r"\w+", title.lower()))
    return bool(words) and len(words & told) >= 0.8 * len(words)


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


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def decision_of(p: Passage, paths: Sequence[str], language: str, facts: bool = True) -> Decision:
    """One design point: the quote's lead as title, then who said it where and the rest of the quote."""
    d = p.anchor.definition
    values = {"name": d.qualname, "file": _file_label(d.path, paths), "who": p.who, "section": p.who}
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
    if language != "en" and not _CJK.search(head):
        # the authors wrote in English: the title says in the reader's language whose words follow, and the
        # words stay as written, quoted whole
        # each as it stands in the source: two quotes, or one when the title is the quote's clipped start
        said = [rest] if head.removesuffix("…").rstrip() in rest else [head, rest]
        head, explanation = attribution, phrase(language, "p_original", quote="”；“".join(x for x in said if x))
    shown = _facts(p.anchor, language, facts)
    # English facts bring their own leading blank; Chinese ones need the quote before them closed by a full stop
    explanation = then(language, explanation, shown) if shown and language == "zh-CN" else explanation + shown
    explanation = full_stop(language, explanation)
    return Decision(title=fit(head, 160), explanation=fit(explanation, 900),
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
    """At most four decisions: what the PR's kind calls for (a docs page's rules, a test's technique),
    else the shared code beside new code, then the authors' words and what the diff itself states, by
    weight, at most two per definition, at least one the diff states when it states any. A measured
    result supports the decision it is about; a point the added lines contradict is left out."""
    by_kind = kind_points(ctx, sig, language)
    if by_kind is not None:
        return by_kind
    paths = [f.path for f in ctx.files]
    tidy = QuoteTidier(ctx)
    shared = shared_points(sig, language)
    # a model drop (most added code in new files of its own): what a reader outside it must see is the
    # shared code it changes, not the new code's own docstrings
    own = model_files(sig) if shared else set()
    code = [*shared, *interface_points(ctx, sig, language), *gate_points(sig, language),
            *condition_points(sig, language), *default_points(sig, language), *option_points(sig, language),
            *setting_points(sig, language)]
    items: list[tuple[float, str, Passage | CodePoint]] = [(p.weight, p.anchor.reference, p)
                                                           for p in design_passages(ctx, sig)]
    # a variable read from the environment or a changed signature is told where there is room, never in
    # place of another point
    items += [(c.weight, c.anchor.reference, c)
              for c in [*code, *environment_points(sig, language), *signature_points(sig, language)]]
    items = [x for x in items if x[2] in shared or x[2].anchor.definition.path not in own]
    items.sort(key=lambda x: -x[0])
    chosen: list[tuple[str, Passage | CodePoint]] = []
    per_anchor: Counter[str] = Counter()
    accounts: set[str] = set()
    for _, key, item in items:
        # one account of what a definition is (its gate or interface, or the authors' words about it);
        # a condition it changes, or the issue and the review on why, may come beside it
        account = isinstance(item, CodePoint) and item.kind in ("gate", "interface") or \
            isinstance(item, Passage) and not _evidence(item)
        if len(chosen) < MAX_POINTS and per_anchor[key] < 2 and not (account and key in accounts):
            chosen.append((key, item))
            per_anchor[key] += 1
            if account:
                accounts.add(key)
    if code and not any(isinstance(item, CodePoint) and item in code for _, item in chosen):
        point = code[0]
        key = point.anchor.reference
        # the authors' words on the same definition give way to it (an interface point quotes them itself)
        same = next((i for i, (k, item) in enumerate(chosen) if k == key and isinstance(item, Passage)
                     and not _evidence(item)), None) if point.kind in ("gate", "interface") else None
        if same is not None:
            chosen[same] = (key, point)
        else:
            chosen = [*chosen[: MAX_POINTS - 1], (key, point)]
    out: list[Decision] = []
    anchors: list[RankedDefinition] = []
    described: set[str] = set()
    for key, item in chosen:
        anchors.append(item.anchor)
        if isinstance(item, CodePoint):
            out.append(item.decision)
            continue
        tidied = replace(item, text=tidy(item.text), question=tidy(item.question))
        out.append(decision_of(tidied, paths, language, facts=key not in described))
        described.add(key)
    out = _with_results(out, measured_results(ctx, sig), tidy, language)
    check = Contradiction(ctx)
    return [with_linked_places(with_named_places(d, sig), a, sig) for d, a in zip(out, anchors, strict=True)
            if not check(d)]


MAX_LINKED = 4


def linked_places(anchor: RankedDefinition, sig: Signals) -> list[str]:
    """The changed definitions a design point's definition is tied to in the diff, most central first: the
    methods an existing class holds that change, the changed code that calls it, the changed definitions
    its added lines call."""
    d = anchor.definition
    code = [r for r in sig.centre if r.definition is not d]
    members = [r for r in code if r.definition.path == d.path and r.definition.parent == d.qualname
               and not r.definition.dunder] if d.is_type else []  # `__len__` alone says nothing
    callers = [r for r in code if _specific(d) and r.definition.name != d.name and r.definition.qualname != d.parent
               and d.name in _identifiers(r.definition.added_code)]
    used = _identifiers(d.added_code)
    callees = [r for r in code if r.definition.name in used and r.definition.qualname != d.parent
               and _specific(r.definition)]
    rank = {id(r): i for i, r in enumerate(sig.centre)}
    found = sorted({id(r): r for r in [*members, *callers, *callees]}.values(), key=lambda r: rank[id(r)])
    return [r.reference for r in found]


def _specific(d: Definition) -> bool:
    """A name specific enough that a use of it is a use of this definition (not `forward`, `__init__`)."""
    return not (d.dunder or d.name.lower() in GENERIC_NAMES or len(d.name) < 4)


def with_linked_places(decision: Decision, anchor: RankedDefinition, sig: Signals) -> Decision:
    extra = [r for r in linked_places(anchor, sig) if r not in decision.references][:MAX_LINKED]
    return decision.model_copy(update={"references": list(dict.fromkeys([*decision.references, *extra]))[:8]})


_IDENT = re.compile(r"[A-Za-z_]\w*")


def _identifiers(lines: Sequence[str]) -> set[str]:
    return {x for line in lines for x in _IDENT.findall(line)}


_NAME_SPAN = re.compile(r"(?<!~)`(\.?[A-Za-z_][\w./-]*?)(?:\(\))?`(?!~)")


def with_named_places(decision: Decision, sig: Signals) -> Decision:
    """A design point's references, then every changed definition, test and file its words name in
    backticks (`BlockPool.lookup()`, `sampler.py`): a name the reader sees is a place they can click. A
    bare name counts only when one changed definition (or test, or file) has it."""
    refs = list(decision.references)
    paths = [f.change.path for f in sig.ranked]
    for span in _NAME_SPAN.findall(decision.title + " " + decision.explanation):
        if "." in span and span.rsplit(".", 1)[-1] in _FILE_EXTENSIONS:
            hits = [p for p in paths if p == span or p.endswith("/" + span)]
            if len(hits) == 1:
                refs.append(hits[0])
            continue
        found = {r.reference for r in sig.centre if r.definition.qualname == span
                 or "." not in span and r.definition.name == span}
        found |= {t for r in sig.centre for t in r.tests if t.rsplit("::", 1)[-1] == span}
        if len(found) == 1:
            refs.append(found.pop())
    return decision.model_copy(update={"references": list(dict.fromkeys(refs))[:8]})


_FILE_EXTENSIONS = frozenset({"py", "pyi", "cu", "cuh", "cpp", "cc", "c", "h", "hpp", "rs", "go", "ts", "js", "sh",
                              "yaml", "yml", "toml", "md", "rst", "hcl", "cmake", "txt", "proto", "json"})


def _with_results(decisions: list[Decision], results: Sequence[Passage], tidy: QuoteTidier,
                  language: str) -> list[Decision]:
    """The authors' strongest measurement, as support for the decision on the definition it is about."""
    if not decisions or not results:
        return decisions
    best = results[0]
    at = next((i for i, d in enumerate(decisions) if best.anchor.reference in d.references), 0)
    d = decisions[at]
    extra = phrase(language, "p_reports", quote=tidy(brief(best.text, 200)))
    return [*decisions[:at], d.model_copy(update={"explanation": fit(d.explanation + extra, 900)}), *decisions[at + 1:]]


class Contradiction:
    """A design point quoting code the diff removes and does not add back is contradicted by the
    added lines (a guard widened is not a guard that is still there as it was)."""

    _SPAN = re.compile(r"`([^`\n]{8,200})`|“([^”]{8,400})”")
    # code shown as the old side: struck through (~~`old`~~), or a changed value's "(was `old`)"
    _STRUCK = re.compile(r"~~`[^`\n]*`~~|(?:\(was |（原为 )`[^`\n]*`")

    def __init__(self, ctx: PRContext) -> None:
        removed: list[str] = []
        kept: list[str] = []
        for f in ctx.files:
            for raw in (f.patch or "").split("\n"):
                if raw.startswith("-") and not raw.startswith("---"):
                    removed.append(" ".join(raw[1:].split()))
                elif raw[:1] in ("+", " ") and not raw.startswith("+++"):
                    kept.append(" ".join(raw[1:].split()))
        self.removed = "\n".join(removed)
        self.kept = "\n".join(kept)

    def __call__(self, decision: Decision) -> bool:
        # code shown as the old side is quoted as what the diff removed
        text = self._STRUCK.sub(" ", decision.title + " " + decision.explanation)
        for m in self._SPAN.finditer(text):
            text = " ".join((m.group(1) or m.group(2)).rstrip("…").split())
            # a line of code, not a bare name (an issue may name the old code it diagnoses)
            if len(text) >= 8 and re.search(r"[\s(=<>!]", text) and text in self.removed and text not in self.kept:
                return True
        return False


def skip_points(sig: Signals, language: str) -> list[Decision]:
    """A skip says in one line what is worth remembering: an excluded release is a practice to keep,
    a replaced condition or check is what the small change decided."""
    if sig.version_only and sig.exclusions:
        first = sig.exclusions[0]
        return [Decision(title=phrase(language, "p_version_exclusion_title"),
                         explanation=phrase(language, "p_version_exclusion", line=first.text[:120], file=first.path),
                         references=list(dict.fromkeys(x.path for x in sig.exclusions)))]
    return [p.decision for p in condition_points(sig, language)[:1]]
