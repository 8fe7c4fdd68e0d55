"""Code recall: does a packed prompt SHOW the code a reader needs, measured from outside the packer.

Pure functions, no readworthy imports: bench/packing.py feeds them the labels, the PR's files and the
prompt text. How it works:

Targets (what a reader needs). Each label's `key_points` (../shared/fixtures/vllm/labels.jsonl) are
free text written by a person, e.g.
    "vllm/.../base_config.py::QuantizeMethodBase.tie_weights (new hook) used by
     vocab_parallel_embedding.py::ParallelLMHead.tie_weights"
They are read with general rules, never per-fixture ones:
  * words are split on white space and trimmed of surrounding punctuation; 'quoted' and "quoted"
    strings are kept whole;
  * `PATH::SYMBOL` names a symbol in a file; SYMBOL may list several with "/" (a/b);
  * a PATH is a word that names changed files of THAT PR: brace lists are expanded
    (`dir/{a,b}/` is two paths), a trailing "/" means every changed file below it, `*`/`?` are globs,
    and a path matches a changed file equal to it or ending in "/" + it (so a bare `linear.py` or
    `metrics/steady_state.rs` resolves by suffix). Removed files resolve too (they are changed files);
  * a SYMBOL is, besides the `::` form, a code-looking identifier in the key point's prose (one with an
    underscore, or CamelCase, e.g. `VLLM_USE_BREAKABLE_CUDAGRAPH`, `UnifiedParserEvent`), or a quoted
    string; it belongs to the nearest path before it in the same key point (or, before any path, to the
    first path after it);
  * a path not written `PATH::SYMBOL` is also a path-only target (one per brace expansion): the
    key point points at that file's code as a whole.
  A word with "/" that resolves to no changed file is not a path: its parts are read as words
  (`expert_map/set_eplb_state` -> two identifiers).
  The name matched for a dotted symbol is its last component (`QuantizeMethodBase.tie_weights` ->
  `tie_weights`), since the line that defines or calls a method rarely spells its class.

Qualifying lines. For a symbol target: the ADDED lines (`+` lines) of the target's files in the PR's
diff that carry the name as a whole word (not part of a longer identifier). For a path-only target:
every non-blank added line of its files. A target with no qualifying line (the symbol was only
removed, the file was deleted or is binary, or the change sits inside a body that never spells the
name) is UNMEASURABLE: it is listed, and left out of the mean, because no prompt could show it.

Matching (what counts as shown). Only the prompt's diff section counts: the text between the fence
lines `<<<BEGIN <token> diff>>>` and `<<<END <token> diff>>>` that every strategy's prompt is built
with (prompts.build_messages); the file index and the other sections never count. Inside it, a line
that is not a diff body line (does not start with "+", "-", " ", "@@" or a backslash) and names a
changed path (the earliest, then longest, path it contains) starts that file's block: `### path
[...]`, `diff --git a/path b/path` and `## File: 'path'` all do. A target is RECALLED when some block
of one of its files holds, as a whole line, "+" followed by a qualifying line exactly as in the PR
(no re-indentation, no cut: a line truncated at the budget does not count).

Breadth: the share of the PR's non-blank added lines in source files (SOURCE_EXTENSIONS: code, tests
and kernels; not docs, config, lock or data files) that the prompt shows the same way, counted per
file with multiplicity; and whether every changed file's path is at least named somewhere in the
prompt (index, diff or lists).
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

SOURCE_EXTENSIONS = frozenset({
    "py", "pyi", "pyx", "pxd", "rs", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "cu", "cuh",
    "cl", "metal", "go", "java", "kt", "scala", "js", "jsx", "ts", "tsx", "mjs", "rb", "php", "swift",
    "m", "mm", "cs", "sh", "bash", "zsh", "proto",
})
_QUOTED_RE = re.compile(r"""(?:(?<=^)|(?<=[\s(\[]))(['"])([^'"\n]{2,80}?)\1(?=$|[\s)\],;:.])""")
_WORD_RE = re.compile(r"\S+")
_TRIM = "()[]{}<>,;:.!?'\"`"
_IDENT_RE = re.compile(r"[A-Za-z_$][\w${}]*(?:\.[A-Za-z_$][\w${}]*)*")
_CAMEL_RE = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
_FILE_LIKE_RE = re.compile(r"^[\w.\-{},*?]+\.[A-Za-z][\w]*$")
_BRACES_RE = re.compile(r"\{([^{}]*,[^{}]*)\}")
_DIFF_BODY = ("+", "-", " ", "@@", "\\")
_FENCE_RE = re.compile(r"^<<<BEGIN (\S+) diff>>>.*?$(.*?)^<<<END \1 diff>>>", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Target:
    """One thing a reader must see: `symbol` in one of `files`, or (symbol None) any code of them."""

    label: str  # as the key point spells it, for the report
    files: tuple[str, ...]
    symbol: str | None = None

    @property
    def name(self) -> str | None:
        """The identifier looked for in added lines."""
        if self.symbol is None:
            return None
        if " " in self.symbol or "-" in self.symbol:  # a quoted literal: matched as it is
            return self.symbol
        return self.symbol.rstrip("()").split(".")[-1] or self.symbol


@dataclass
class TargetSet:
    measurable: list[tuple[Target, dict[str, frozenset[str]]]] = field(default_factory=list)
    unmeasurable: list[Target] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # path-looking words naming no changed file


# --------------------------------------------------------------------------- key points -> targets


def expand_braces(word: str) -> list[str]:
    match = _BRACES_RE.search(word)
    if not match:
        return [word]
    head, tail = word[: match.start()], word[match.end() :]
    return [x for part in match.group(1).split(",") for x in expand_braces(head + part.strip() + tail)]


def resolve_path(word: str, changed: Sequence[str]) -> tuple[str, ...]:
    """The changed files a key-point path names (see the module docstring)."""
    found: dict[str, None] = {}
    for p in expand_braces(word):
        p = p.lstrip("./") if p.startswith("./") else p
        if not p:
            continue
        for f in changed:
            if p.endswith("/"):
                hit = f.startswith(p) or ("/" + p) in ("/" + f)
            elif any(c in p for c in "*?["):
                hit = fnmatch.fnmatchcase(f, p) or fnmatch.fnmatchcase(f, "*/" + p)
            else:
                hit = f == p or f.endswith("/" + p)
            if hit:
                found[f] = None
    return tuple(found)


def is_code_identifier(word: str) -> bool:
    """An identifier that is clearly code, not an English word: has an underscore or CamelCase."""
    last = word.split(".")[-1]
    return bool(re.search(r"[A-Za-z]", word)) and (
        "_" in word.strip("_") or bool(_CAMEL_RE.search(word)) or last.startswith("__")
    )


def _looks_like_path(word: str) -> bool:
    return "/" in word or bool(_FILE_LIKE_RE.match(word))


def _trim(word: str) -> str:
    """Drop prose punctuation around a word; a leading "." stays (`.buildkite/`), braces stay (`{a,b}`)."""
    keep = "{}" if "{" in word else ""
    lead = "".join(c for c in _TRIM if c not in keep and c != ".")
    return word.lstrip(lead).rstrip("".join(c for c in _TRIM if c not in keep))


@dataclass(frozen=True)
class _PathWord:
    label: str
    files: tuple[str, ...]  # every changed file it names (all brace expansions)
    expansions: tuple[tuple[str, tuple[str, ...]], ...]  # (expansion, its files), those naming any


def _path_item(word: str, changed: Sequence[str]) -> _PathWord:
    parts = [(p, resolve_path(p, changed)) for p in expand_braces(word)]
    files = tuple(dict.fromkeys(f for _, fs in parts for f in fs))
    return _PathWord(word, files, tuple((p, fs) for p, fs in parts if fs))


def parse_key_point(text: str, changed: Sequence[str]) -> tuple[list[Target], list[str]]:
    """Targets of one key point, and the path-looking words that named no changed file."""
    items: list[tuple[str, _PathWord | str]] = []  # ("path", word) | ("sym", name) | ("lost", word)
    explicit: set[int] = set()  # items written PATH::SYMBOL
    unresolved: list[str] = []
    quoted_spans = [(m.start(), m.end(), m.group(2)) for m in _QUOTED_RE.finditer(text)]
    events: list[tuple[int, str, str]] = [(s, "quoted", q) for s, _, q in quoted_spans]
    for m in _WORD_RE.finditer(text):
        if any(s <= m.start() < e for s, e, _ in quoted_spans):
            continue
        events.append((m.start(), "word", m.group(0)))
    events.sort()
    for _, kind, raw in events:
        if kind == "quoted":
            items.append(("sym", raw))
            continue
        word = _trim(raw)
        if "::" in word:
            path_part, sym_part = word.split("::", 1)
            item = _path_item(path_part, changed)
            if item.files:
                explicit.add(len(items))
                items.append(("path", item))
                items += [("sym", s) for s in (_trim(x) for x in sym_part.split("/")) if s]
            else:
                unresolved.append(path_part)
                items.append(("lost", path_part))  # its symbols cannot be placed
            continue
        if _looks_like_path(word):
            item = _path_item(word, changed)
            if item.files:
                items.append(("path", item))
                continue
            if "/" in word.strip("/") and (word.endswith("/") or _FILE_LIKE_RE.match(word.rsplit("/", 1)[-1])):
                unresolved.append(word)
        for part in word.split("/"):
            for ident in _IDENT_RE.findall(part):
                if is_code_identifier(ident):
                    items.append(("sym", ident))
    return _attach(items, explicit), unresolved


def _attach(items: list[tuple[str, _PathWord | str]], explicit: set[int]) -> list[Target]:
    """Symbols go to the nearest path before them (or the first after, when none is before); a path
    not written PATH::SYMBOL is also a path-only target, one per brace expansion."""
    targets: list[Target] = []
    paths = [i for i, (k, _) in enumerate(items) if k in ("path", "lost")]
    for i, (kind, value) in enumerate(items):
        if kind != "sym":
            continue
        before = [p for p in paths if p < i]
        owner = before[-1] if before else next((p for p in paths if p > i), None)
        path = items[owner][1] if owner is not None else None
        if isinstance(path, _PathWord):
            targets.append(Target(f"{path.label}::{value}", path.files, str(value)))
    for p in paths:
        path = items[p][1]
        if p not in explicit and isinstance(path, _PathWord):
            targets += [Target(label, files) for label, files in path.expansions]
    return targets


def added_lines(patch: str | None) -> list[str]:
    """The added lines of a patch, without their "+" (no file headers)."""
    if not patch:
        return []
    return [line[1:] for line in patch.split("\n") if line.startswith("+") and not line.startswith("+++ ")]


def _carries(line: str, name: str) -> bool:
    return re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", line) is not None


def build_targets(key_points: Iterable[str], patches: Mapping[str, str | None]) -> TargetSet:
    """All targets of one PR with their qualifying added lines per file (see module docstring)."""
    changed = list(patches)
    out = TargetSet()
    seen: set[tuple[tuple[str, ...], str | None]] = set()
    for point in key_points:
        targets, unresolved = parse_key_point(point, changed)
        out.unresolved += unresolved
        for t in targets:
            if (t.files, t.name) in seen:
                continue
            seen.add((t.files, t.name))
            lines: dict[str, frozenset[str]] = {}
            for f in t.files:
                adds = [x for x in added_lines(patches[f]) if x.strip()]
                if t.name is not None:
                    adds = [x for x in adds if _carries(x, t.name)]
                if adds:
                    lines[f] = frozenset(adds)
            if lines:
                out.measurable.append((t, lines))
            else:
                out.unmeasurable.append(t)
    return out


# --------------------------------------------------------------------------- what the prompt shows


def diff_section(prompt: str) -> str:
    """The text of the prompt's diff section; "" when the prompt has none (nothing shown)."""
    match = _FENCE_RE.search(prompt)
    return match.group(2) if match else ""


def shown_added_lines(diff_text: str, changed: Sequence[str]) -> dict[str, Counter[str]]:
    """Per changed file, the "+" lines its block(s) of the diff section show (without the "+")."""
    by_path = sorted(set(changed), key=len, reverse=True)
    current: str | None = None
    shown: dict[str, Counter[str]] = {}
    for line in diff_text.split("\n"):
        if line.startswith(_DIFF_BODY):
            if current is not None and line.startswith("+") and not line.startswith("+++ "):
                shown.setdefault(current, Counter())[line[1:]] += 1
            continue
        named = _path_in(line, by_path)
        if named is not None:
            current = named
    return shown


def _path_in(line: str, by_length: Sequence[str]) -> str | None:
    best: tuple[int, int, str] | None = None
    for p in by_length:
        for m in re.finditer(re.escape(p), line):
            s, e = m.start(), m.end()
            if (s == 0 or line[s - 1] in " '\"`/(") and (e == len(line) or line[e] in " '\"`[(:,)"):
                key = (s, -len(p), p)
                if best is None or key < best:
                    best = key
                break
    return best[2] if best else None


def recalled(targets: TargetSet, shown: Mapping[str, Counter[str]]) -> list[bool]:
    return [
        any(bool(lines & set(shown.get(f, ()))) for f, lines in by_file.items())
        for _, by_file in targets.measurable
    ]


def is_source(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[1].lower() in SOURCE_EXTENSIONS


def breadth(patches: Mapping[str, str | None], shown: Mapping[str, Counter[str]]) -> tuple[int, int]:
    """(added source lines shown, added source lines in all), blank lines left out of both."""
    seen = total = 0
    for path, patch in patches.items():
        if not is_source(path):
            continue
        want = Counter(x for x in added_lines(patch) if x.strip())
        total += sum(want.values())
        have = shown.get(path, Counter())
        seen += sum(min(n, have[x]) for x, n in want.items())
    return seen, total


def named_files(paths: Iterable[str], prompt: str) -> tuple[int, int]:
    """(changed files whose path appears in the prompt, changed files)."""
    paths = list(paths)
    before = r"(?:(?<![^\s'\"`(\[:])|(?<=\sa/)|(?<=\sb/))"  # start, a separator, or git's a/ b/
    hits = sum(1 for p in paths if re.search(before + re.escape(p) + r"(?![\w/-])", prompt))
    return hits, len(paths)
