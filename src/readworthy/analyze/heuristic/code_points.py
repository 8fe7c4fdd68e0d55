"""Design points the diff itself states, for when the authors' words are few (a diff and a commit title).

A decision in code has a few shapes that read the same in any language and repository:

- a **replaced condition**: `if old:` became `if new:` (or a check `CHECK(old)` became `CHECK(new)`),
  so the code under it now runs, or is refused, on another property;
- a **gate**: a new function whose name says it decides whether something may be used
  (`can_use_*`, `supports_*`, `*_supported`, `*_unsupported_reason`, `validate_*`), and the cases it refuses;
- an **interface**: a new abstract class, trait or protocol that other changed files build on;
- **shared code beside new code**: when most of the added code sits in new files (a model, a backend,
  a plugin), the edits to existing files are what a reader outside the new code must see.
- a **changed default**: a setting or constant whose value every caller that does not pass one gets
  (`max_tokens: int = 2048` → `8192`), with the comment the authors added above it.

Each point names the definition it is in; its words are the code's own (no paraphrase).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from ...models import Decision, FileStatus, PRContext
from .authors import brief, is_measurement
from .centre import RankedDefinition
from .comment_text import join_comment
from .defaults import is_constant
from .definitions import Definition, is_prose
from .line_conditions import balanced, condition_of, same_question
from .renames import only_renamed
from .shapes import COMMENT_LINE, assigned_from
from .signals import CODE_KINDS, Signals
from .wording import code_names, fit, phrase, then

_GATE_NAME = re.compile(r"^_*(?:can_(?:use|implement|run|support|handle)\w*|supports?_\w+|\w*_supported"
                        r"|is_supported\w*|\w*unsupported_reason\w*"
                        r"|\w*_is_supported|should_use_\w+|use_\w+_if_\w+|validate\w*|check_\w*supported\w*)$",
                        re.IGNORECASE)
_REFUSES = re.compile(r"^\s*(?:return\s+(?:False|false|None|\"|'|f\"|f')|raise\b|throw\b|bail!|return\s+Err)")
_WS = re.compile(r"\s+")
# Code no other reader builds on: benchmarks, examples, scripts.
_NOT_SHARED = re.compile(r"(?:^|/)(?:benchmarks?|examples?|scripts?|tools|docs?)/")
RENAME_HUNK_MAX = 400  # lines of a hunk searched for the rename a condition follows
MAX_CODE_LEN = 90  # a condition longer than this is shown cut (the file holds the rest)
NEW_CODE_MAJORITY = 0.5  # "most of the added code" in new files: more than half


@dataclass(frozen=True)
class CodePoint:
    """A decision the diff states, the definition it is in and how strongly it stands out."""

    decision: Decision
    anchor: RankedDefinition
    weight: float
    kind: str = ""  # "condition", "gate", "interface", "shared"


def _code(text: str) -> str:
    text = _WS.sub(" ", text.strip()).replace("`", "'")
    return text if len(text) <= MAX_CODE_LEN else text[: MAX_CODE_LEN - 1] + "…"


@dataclass(frozen=True)
class Replacement:
    path: str
    kind: str
    old: str
    new: str
    new_line: str  # the added line as written
    body: str  # the first line the condition guards (new side), or ""


def replacements(patch: str, path: str) -> list[Replacement]:
    """Conditions a hunk replaces: a run of removed lines followed by added lines, paired by shape and
    indentation, where the code the condition guards stays what it was (an unchanged line, or the same
    text): the same code now runs on another condition. A rewritten body is a rewrite, not a replacement,
    and a condition that only follows a rename in its hunk (`renames.only_renamed`) is not one."""
    out: list[Replacement] = []
    lines = patch.split("\n")
    hunk_of = _hunk_spans(lines)
    i = 0
    while i < len(lines):
        if not lines[i].startswith("-") or lines[i].startswith("---"):
            i += 1
            continue
        first = i
        while i < len(lines) and lines[i].startswith("-") and not lines[i].startswith("---"):
            i += 1
        start = i
        while i < len(lines) and lines[i].startswith("+") and not lines[i].startswith("+++"):
            i += 1
        used: set[int] = set()
        for j in range(start, i):
            text = lines[j][1:]
            new = condition_of(text, path)
            if new is None:
                continue
            new_body, body_kept = _body(lines, j, "+")
            candidates = []
            for k in range(first, start):
                old_text = lines[k][1:]
                old = condition_of(old_text, path)
                if k in used or old is None or old[0] != new[0] or old[1] == new[1] \
                        or _indent(old_text) != _indent(text):
                    continue
                old_body, _ = _body(lines, k, "-")
                if new[0] in ("if", "while", "unless") and not (body_kept or _same(old_body, new_body)):
                    continue
                likeness = _likeness(old[1], new[1])
                if new[0] not in ("if", "while", "unless") and not _tests_same_names(
                        old[1], new[1], [x[1:] for x in lines[start:i]]):
                    continue  # two checks of different things: one dropped, another added
                candidates.append((likeness, -k, k, old))
            if candidates:  # the most alike of the removed ones (a rewritten block holds several)
                _, _, k, old = max(candidates)
                used.add(k)
                removed, added = _hunk_sides(lines, hunk_of[j])
                if only_renamed(old[1], new[1], removed, added) or same_question(old[1], new[1]):
                    continue
                out.append(Replacement(path, new[0], old[1], new[1], text, new_body if new[0] == "if" else ""))
    return out


def _hunk_spans(lines: Sequence[str]) -> list[tuple[int, int]]:
    """Each line's hunk as (first, end) line indices, a hunk starting at its `@@` line."""
    starts = [i for i, line in enumerate(lines) if line.startswith("@@")]
    spans, k = [], -1
    for i in range(len(lines)):
        while k + 1 < len(starts) and starts[k + 1] <= i:
            k += 1
        first = starts[k] if k >= 0 else 0
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        spans.append((first, end))
    return spans


def _hunk_sides(lines: Sequence[str], span: tuple[int, int]) -> tuple[list[str], list[str]]:
    """The removed and added lines of the hunk spanning `span`; none for a hunk past RENAME_HUNK_MAX lines
    (a rewrite that long is read as a rewrite, and its renames are not worth a scan per condition)."""
    if span[1] - span[0] > RENAME_HUNK_MAX:
        return [], []
    removed, added = [], []
    for line in lines[span[0]:span[1]]:
        if line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    return removed, added


_KEYWORDS = frozenset({"and", "or", "not", "is", "in", "None", "True", "False", "self", "this", "nullptr", "null"})


def _likeness(a: str, b: str) -> float:
    """The share of names two conditions have in common (Jaccard over identifiers)."""
    names = [set(re.findall(r"[A-Za-z_]\w{2,}", x)) - _KEYWORDS for x in (a, b)]
    both = names[0] | names[1]
    return len(names[0] & names[1]) / len(both) if both else 0.0


def _tests_same_names(old: str, new: str, added: Sequence[str]) -> bool:
    """Whether a new check tests what the old one did: a name in common, counting the names a value the
    new check tests was computed from in the lines added beside it (`ratio = heads / kv_heads`). A check
    of other names is a new check next to a dropped one, not the old check widened."""
    def names(text: str) -> set[str]:
        return set(re.findall(r"[A-Za-z_]\w{2,}", text)) - _KEYWORDS
    return bool((names(new) | names(" ".join(assigned_from(added, new)))) & names(old))


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _same(a: str, b: str) -> bool:
    return bool(a) and _WS.sub(" ", a.strip()) == _WS.sub(" ", b.strip())


def _body(lines: Sequence[str], at: int, side: str) -> tuple[str, bool]:
    """The first line a condition at `at` guards (deeper indented), on its side of the diff, and whether
    it is an unchanged (context) line."""
    depth = _indent(lines[at][1:])
    for raw in lines[at + 1: at + 8]:
        if not raw or raw[0] not in (" ", side):
            continue  # the other side's lines interleave
        text = raw[1:]
        if not text.strip() or text.strip().startswith(("#", "//")):
            continue
        if _indent(text) > depth and condition_of(text) is None and balanced(text):
            return text.strip(), raw[0] == " "
        return "", False
    return "", False


def standalone_anchor(path: str, name: str, new: bool) -> RankedDefinition:
    """A name no changed definition holds (a module constant, a variable in a table): it stands for itself."""
    return RankedDefinition(Definition(path, name, name, line=0, new=new, is_type=False), 0.0, (), ())


def anchor_of(line: str, path: str, centre: Sequence[RankedDefinition]) -> RankedDefinition | None:
    """The changed definition in `path` whose added code holds `line`, or None."""
    return next((r for r in centre if r.definition.path == path and line in r.definition.added_code), None)


def condition_points(sig: Signals, language: str) -> list[CodePoint]:
    """Replaced conditions and checks in the PR's code, each in the definition that holds it."""
    out: list[CodePoint] = []
    for facts in sig.ranked:
        change = facts.change
        if facts.kind not in CODE_KINDS or not change.patch:
            continue
        for rep in replacements(change.patch, change.path):
            anchor = anchor_of(rep.new_line, change.path, sig.centre)
            if anchor is None:
                continue
            d = anchor.definition
            values = {"name": d.qualname, "file": file_label(d.path, sig), "new": _code(rep.new),
                      "old": _code(rep.old), "body": _code(rep.body)}
            if rep.kind == "if" or rep.kind in ("while", "unless"):
                key = "c_condition_body" if rep.body else "c_condition"
            elif rep.kind.isidentifier() and rep.kind[0].islower() and rep.kind != "assert":
                key, values["target"] = "c_assignment", rep.kind
            else:
                key = "c_check"
            title = phrase(language, key + "_title", **values)
            explanation = phrase(language, key, **values)
            out.append(CodePoint(Decision(title=fit(title, 160), explanation=fit(explanation, 900),
                                          references=list(dict.fromkeys([d.path, anchor.reference]))),
                                 anchor, weight=6.0 + max(0.0, 3.0 - sig.centre.index(anchor) * 0.5), kind="condition"))
    # one point per definition: its first replaced condition
    seen: set[str] = set()
    kept = []
    for p in sorted(out, key=lambda p: -p.weight):
        if p.anchor.reference not in seen:
            kept.append(p)
            seen.add(p.anchor.reference)
    return kept


def default_points(sig: Signals, language: str) -> list[CodePoint]:
    """Changed defaults, each in the definition that holds it (a module constant stands for itself), with
    the comment added just above its new line when there is one: why the new value."""
    patches = {f.change.path: f.change.patch or "" for f in sig.ranked}
    out: list[CodePoint] = []
    for located in sig.changed_defaults[:2]:
        old, _, new = located.text.partition(" → ")
        line, why = _default_line(patches.get(located.path, ""), located.name, new)
        anchor = anchor_of(line, located.path, sig.centre) if line else None
        if anchor is None:  # a module-level constant: no definition holds it
            anchor = standalone_anchor(located.path, located.name, new=False)
        values = {"name": located.name, "old": _code(old), "new": _code(new), "file": file_label(located.path, sig),
                  "why": why}
        key = "c_constant" if is_constant(located.name) else "c_default"  # a cap nobody sets has no default
        explanation = phrase(language, key + "_why" if why else key, **values)
        references = list(dict.fromkeys([located.path, anchor.reference]))
        out.append(CodePoint(Decision(title=fit(phrase(language, key + "_title", **values), 160),
                                      explanation=fit(explanation, 900), references=references),
                             anchor, weight=6.5, kind="default"))
    return out


def _default_line(patch: str, name: str, value: str) -> tuple[str, str]:
    """The added line that sets `name` to `value`, and the comment added just above it (joined)."""
    lines = patch.split("\n")
    for i, line in enumerate(lines):
        text = line[1:]
        # a flag's `default=` sits on its own line under the `add_argument("--flag",` that names it
        if line.startswith("+") and (name in text or "default" in text) and value in text \
                and not COMMENT_LINE.match(text):
            above: list[str] = []
            for prior in reversed(lines[:i]):
                if not prior.startswith("+") or not COMMENT_LINE.match(prior[1:]):
                    break
                above.insert(0, COMMENT_LINE.sub("", prior[1:]).strip())
            why = join_comment(above)
            return text, why if is_prose(why) else ""  # commented-out code says no why
    return "", ""


def gate_points(sig: Signals, language: str) -> list[CodePoint]:
    """New functions that decide whether something may be used, with the cases they refuse."""
    out: list[CodePoint] = []
    for index, r in enumerate(sig.centre[:40]):
        d = r.definition
        if not d.new or d.is_type or not _GATE_NAME.match(d.name):
            continue
        refusals = []
        code = d.added_code
        for i, line in enumerate(code[1:], 1):
            if _REFUSES.match(line):
                shape = condition_of(code[i - 1], d.path)
                if shape and shape[0] == "if":
                    refusals.append(_code(shape[1]))
        callers = [file_label(p, sig) for p in r.caller_files]
        values = {"name": d.qualname, "file": file_label(d.path, sig),
                  "cases": code_names(refusals, 3, language), "callers": code_names(callers, 3, language)}
        key = "c_gate_refuses" if refusals else "c_gate"
        explanation = phrase(language, key, **values)
        if callers:
            explanation += phrase(language, "c_gate_callers", **values)
        out.append(CodePoint(Decision(title=fit(phrase(language, "c_gate_title", **values), 160),
                                      explanation=fit(explanation, 900),
                                      references=list(dict.fromkeys([d.path, r.reference, *r.tests[:1]]))),
                             r, weight=7.0 + max(0.0, 3.0 - index * 0.3), kind="gate"))
    return out[:2]


_TYPE_HEAD = re.compile(r"^(?P<indent>\s*)(?:pub(?:\([^)]*\))?\s+|export\s+)*(?P<kind>class|struct|trait|interface)\s+"
                        r"(?P<name>\w+)(?P<rest>.*)$")
# Go names the kind after the name: `type Store interface {`.
_GO_TYPE_HEAD = re.compile(r"^(?P<indent>\s*)type\s+(?P<name>\w+)(?:\[[^\]]*\])?\s+(?P<kind>struct|interface)\b"
                           r"(?P<rest>.*)$")
_ABSTRACT_BASE = re.compile(r"\b(?:ABC|ABCMeta|Protocol)\b")
_ABSTRACT_MEMBER = re.compile(r"^\s*@(?:abc\.)?abstract\w*|\bvirtual\b[^;]*=\s*0\s*;|\bpure virtual\b")


def _type_head(line: str) -> re.Match[str] | None:
    return _TYPE_HEAD.match(line) or _GO_TYPE_HEAD.match(line)


def abstract_types(patch: str) -> tuple[set[str], set[str]]:
    """Types the new side of a patch shows to be abstract (a trait or interface, a class deriving from
    ABC / Protocol, or one with an abstract or pure virtual member in view), and those it adds an
    abstract member to."""
    found: set[str] = set()
    grown: set[str] = set()
    open_types: list[tuple[int, str]] = []
    for raw in patch.split("\n"):
        if raw.startswith("@@"):  # a hunk starts inside the type git names in its header
            context = raw.split("@@", 2)[-1].lstrip(" ")
            head = _type_head(context)
            open_types = [(len(context) - len(context.lstrip()), head.group("name"))] if head else []
            if head and (head.group("kind") in ("trait", "interface") or _ABSTRACT_BASE.search(head.group("rest"))):
                found.add(head.group("name"))
            continue
        if not raw or raw[0] not in " +" or raw.startswith("+++"):
            continue
        line = raw[1:]
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while open_types and open_types[-1][0] >= indent and not line.lstrip().startswith(("@", "}", ")")):
            open_types.pop()
        head = _type_head(line)
        if head:
            if head.group("kind") in ("trait", "interface") or _ABSTRACT_BASE.search(head.group("rest")):
                found.add(head.group("name"))
            open_types.append((indent, head.group("name")))
        elif open_types and _ABSTRACT_MEMBER.search(line):
            found.add(open_types[-1][1])
            if raw[0] == "+":
                grown.add(open_types[-1][1])
    return found, grown


def interface_points(ctx: PRContext, sig: Signals, language: str) -> list[CodePoint]:
    """New abstract types, the interface the rest of the PR builds on (most used first)."""
    out: list[CodePoint] = []
    for change in ctx.files:
        if change.path not in sig.abstractions or not change.patch:
            continue
        abstract, grown = abstract_types(change.patch)
        types = [r for r in sig.centre if r.definition.path == change.path and r.definition.is_type
                 and (r.definition.new and r.definition.name in abstract or r.definition.name in grown)]
        if not types:
            continue
        r = max(types, key=lambda x: (len(x.caller_files), x.score))
        d = r.definition
        values = {"name": d.qualname, "file": file_label(d.path, sig), "n": len(r.caller_files)}
        key = "c_interface_used" if r.caller_files else "c_interface"
        title = "c_interface_title" if d.new else "c_interface_grows_title"
        explanation = phrase(language, key, **values)
        if d.doc_added and is_prose(d.doc) and not is_measurement(d.doc):
            # this point is the one account of the type: what its authors say the contract is goes with it
            explanation = then(language, explanation, phrase(language, "p_original", quote=brief(d.doc, 400)))
        out.append(CodePoint(Decision(title=fit(phrase(language, title, **values), 160),
                                      explanation=fit(explanation, 900),
                                      references=list(dict.fromkeys([d.path, r.reference, *r.tests[:1]]))),
                             r, weight=8.0 + min(len(r.caller_files), 6), kind="interface"))
    out.sort(key=lambda p: -p.weight)
    return out[:2]


def own_files(sig: Signals) -> set[str]:
    """The new code's own files: the new files that carry its name. Its names are the first component of
    each new package, and the largest new code file's name, that no other existing code path uses
    (`kimi_k3` of `vllm/models/kimi_k3/`; `vllm` and `models` are everybody's)."""
    kinds = {f.change.path: f.kind for f in sig.ranked}
    changes = [f.change for f in sig.ranked]
    added = [f for f in changes if f.status is FileStatus.ADDED]
    home = _common_dir(list(sig.new_packages))
    taken = {part for f in changes if f.status is not FileStatus.ADDED and kinds.get(f.path) in CODE_KINDS
             and not (home and f.path.startswith(home + "/")) for part in _parts(f.path)}
    names = [next((x for x in package.split("/") if x not in taken and len(x) >= 4), "")
             for package in sig.new_packages]
    loose = [f for f in added if kinds.get(f.path) in CODE_KINDS
             and not any(f.path.startswith(p + "/") for p in sig.new_packages)]
    if loose:
        stem = _parts(max(loose, key=lambda f: f.additions).path)[-1]
        names.append(stem if stem not in taken and len(stem) >= 4 else "")
    names = [n for n in names if n]
    return {f.path for f in added if any(f.path.startswith(p + "/") for p in sig.new_packages)
            or any(n in f.path for n in names)}


def _common_dir(paths: list[str]) -> str:
    if not paths:
        return ""
    parts = paths[0].split("/")
    for other in paths[1:]:
        o = other.split("/")
        n = 0
        while n < min(len(parts), len(o)) and parts[n] == o[n]:
            n += 1
        parts = parts[:n]
    return "/".join(parts)


def file_label(path: str, sig: Signals) -> str:
    """The file name when it is unique among the changed files, else the whole path."""
    name = path.rsplit("/", 1)[-1]
    return name if sum(1 for f in sig.ranked if f.change.path.rsplit("/", 1)[-1] == name) == 1 else path


def _parts(path: str) -> list[str]:
    """A path's directories and its file name without the extension."""
    parts = path.split("/")
    return [*parts[:-1], parts[-1].split(".", 1)[0]]


def model_files(sig: Signals) -> set[str]:
    """The new code's own files when it is a drop of new code (more than one new file of its own holding
    most of the added code: a model, a backend, a plugin), else nothing."""
    code = [f.change for f in sig.ranked if f.kind in CODE_KINDS]
    own = own_files(sig)
    total = sum(f.additions for f in code)
    own_code = [f for f in code if f.path in own]
    if len(own_code) < 2 or sum(f.additions for f in own_code) <= NEW_CODE_MAJORITY * total:
        return set()
    return own


def shared_points(sig: Signals, language: str) -> list[CodePoint]:
    """When most added code is in new files: the existing (and new shared) code it changes beside them."""
    own = model_files(sig)
    if not own:
        return []
    code = [f.change for f in sig.ranked if f.kind in CODE_KINDS]
    shared = [f for f in code if f.path not in own and not _NOT_SHARED.search(f.path)]
    best: dict[str, RankedDefinition] = {}
    for r in sig.centre:
        best.setdefault(r.definition.path, r)
    rank = {r.definition.path: i for i, r in enumerate(best.values())}
    # both kinds, in turns: the shared pieces it introduces (a new runner, a new common header) and the
    # existing code it edits (what changes for everyone else), each most central first
    shared.sort(key=lambda f: (rank.get(f.path, len(rank)), -f.additions))
    introduced = [f for f in shared if f.status is FileStatus.ADDED]
    edited = [f for f in shared if f.status is not FileStatus.ADDED]
    picked = [f for pair in zip_longest(introduced, edited) for f in pair if f is not None][:4]
    if not picked:
        return []
    files = [file_label(f.path, sig) for f in picked]
    # the same name in two files (a Rust `mod x` beside its `fn x`) is said once
    names = list(dict.fromkeys(best[f.path].definition.qualname for f in picked if f.path in best))
    refs = [x for f in picked for x in ((f.path, best[f.path].reference) if f.path in best else (f.path,))]
    values = {"names": code_names(names, 4, language) or "—", "n": len(shared)}
    # as many files as the title holds whole: a path cut mid-name is neither a name nor a path
    for shown in range(len(files), 0, -1):
        title = phrase(language, "c_shared_title", files=code_names(files, shown, language), **values)
        if len(title) <= 160:
            break
    decision = Decision(title=fit(title, 160),
                        explanation=fit(phrase(language, "c_shared", **values), 900),
                        references=list(dict.fromkeys(refs))[:8])
    anchor = best.get(picked[0].path) or (sig.centre[0] if sig.centre else None)
    return [CodePoint(decision, anchor, weight=20.0, kind="shared")] if anchor is not None else []
