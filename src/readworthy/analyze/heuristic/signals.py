"""What the heuristic analyzer measures about a PR: facts from the diff, the PR text and the discussion.

Pure and deterministic. Each signal is a plain fact ("adds 12 definitions", "removes an assert in `f`")
with no judgement; analyzer.py turns the facts into a verdict and guide.py into a reading guide. Line
detectors live in shapes.py, the diff's definitions in definitions.py, their ranking in centre.py and what
the conversation and linked issues show in conversation.py.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...languages import TYPESCRIPT, written_in
from ...models import FileChange, FileStatus, PRContext
from ...pack.classify import Classifier, FileKind, value_of
from . import shapes
from .centre import GENERIC_NAMES, PERIPHERAL_PATH, RankedDefinition, is_template_hook, rank_definitions, template_hooks
from .conversation import Discussion, analysed_issues, discussion_of
from .defaults import changed_defaults
from .definitions import Definition, file_definitions
from .file_groups import bulk_paths, new_packages
from .line_conditions import code_parts
from .renames import renamed_names
from .sweeps import Sweep, call_site_sweep
from .titles import is_bump_title, is_fix_title, is_revert
from .uses import as_code

# Kinds whose content is never read line by line.
MECHANICAL_KINDS = frozenset({FileKind.GENERATED, FileKind.LOCK, FileKind.VENDORED, FileKind.BINARY})
CODE_KINDS = frozenset({FileKind.SOURCE, FileKind.KERNEL})
_DEFINITION_KINDS = CODE_KINDS | {FileKind.BUILD, FileKind.TEST}
# A capability flag being *declared* (def/fn/attribute/assignment), not merely called. `can_*` declares one
# about what code can use or run (`can_implement`, `can_use_cudagraph`) or as a flag of its own (`can_graph:
# bool`); `can_accept()` and `can_allocate(blocks)` ask about room at run time, not what is supported.
# A name with "capability" in it is a declaration only as a function (`def get_min_capability`): a variable
# called `capability` holds one, it declares nothing.
_CAPABILITY = re.compile(
    r"(?:\b(?:def|fn)\s+|^\s*(?:self\.)?)(supports?_\w+|\w+_supported|is_\w+_(?:available|enabled|supported)"
    r"|has_\w+_support|can_\w+)\s*(?:\(|:|=(?!=)|->)|\b(?:def|fn)\s+(\w*capabilit\w*)\s*\("
)
_CAN_CAPABILITY = re.compile(r"can_(?:use|implement|run|support|handle)\w*")
# any other `can_x` is a flag only as a declared boolean field (`can_graph: bool = True`): a method, even one
# taking nothing (`def can_accept(self)`), may ask about room at run time
_CAN_FLAG = re.compile(r"\bcan_\w+\s*:\s*bool\b")
_ABSTRACTION = re.compile(
    r"^\s*(?:class\s+\w+\s*\([^)]*\b(?:ABC|Protocol|Generic|ABCMeta)\b|@(?:abc\.)?abstractmethod"
    r"|(?:pub(?:\([^)]*\))?\s+)?trait\s+\w+|type\s+\w+\s+interface\b|(?:export\s+)?interface\s+\w+"
    r"|class\s+\w*(?:Base|Interface|Protocol)\b(?!\w)"
    # Java, C#, Kotlin: `public interface Sender`, `abstract class Repository`; C++: a pure virtual member
    r"|(?:(?:public|protected|private|internal|sealed)\s+)*(?:abstract\s+class|interface)\s+\w+"
    r"|virtual\b[^;]*=\s*0\s*;)"
)
# `capability = platform.get_device_capability()` reads what the device has; it declares nothing.
_READ_BACK = re.compile(r"\s*[\w.]*\bget_\w*\(")
_CAPABILITY_WORDS = ("support", "capabilit", "is_", "has_", "can_")
_ABSTRACTION_WORDS = ("class", "abstract", "trait", "interface", "virtual")
# A check that refuses a configuration loudly: where it lives, or what its message says.
_VALIDATOR_NAME = re.compile(r"valid|verify|check|ensure|__post_init__|unsupported|supported|compat", re.IGNORECASE)
# "not yet supported", "does not support X", "cannot be used with X": the same refusal in other words.
_UNSUPPORTED = re.compile(r"not (?:yet )?supported|unsupported|not compatible|incompatible|\brequires?\b"
                          r"|only supports?|(?:does not|doesn't|do not|don't) support|can(?:not|'t) be used with"
                          r"|is not available|not implemented for", re.IGNORECASE)
_NOT_ENGINE = re.compile(r"(?:^|/)(?:benchmarks?|examples?|scripts?|tools|docs?)/")
# Go refuses by returning an error (`return nil, fmt.Errorf(...)`), not by raising.
_REFUSAL = re.compile(r"^\s*(?:raise\s+\w*(?:Error|Exception)|throw\s|TORCH_CHECK|panic!|bail!"
                      r"|return\s+(?:[\w.&{}]+,\s*)*(?:fmt\.Errorf|errors\.New)\()")
NEW_PACKAGE_SHARE = 0.5  # most of the added code sits in brand-new directories (or brand-new files): a drop
NEW_MODULE_LINES = 50  # a new file with this much code is a module of its own, not a helper beside its callers
TEMPLATE_MIN_DEFINITIONS = 10  # a share of fewer new definitions says little: one new `__init__` is no template


@dataclass(frozen=True)
class FileFacts:
    """One changed file: its kind, its reading value and the definitions it adds."""

    change: FileChange
    kind: FileKind
    value: float
    definitions: tuple[str, ...]


@dataclass(frozen=True)
class Located:
    """A fact found at one definition (or file, when no definition encloses it)."""

    path: str
    name: str  # the enclosing definition's qualname, or ""
    text: str  # the line, name or value the fact is about


@dataclass(frozen=True)
class Signals:
    ranked: tuple[FileFacts, ...]
    kinds: Mapping[FileKind, int]
    added_code_lines: int
    added_test_lines: int
    added_doc_lines: int
    added_other_lines: int
    deleted_code_lines: int  # deleted from source, kernel and test files
    deleted_test_lines: int
    deleted_lines: int
    added_lines: int
    new_files: int
    new_definitions: int
    capability_flags: tuple[str, ...]
    abstractions: tuple[str, ...]
    code_areas: tuple[str, ...]
    repeated_change_files: int
    cosmetic_only: bool  # every readable file changed only comments or whitespace
    version_only: bool
    excludes_version: bool  # a specifier excludes a release (`!=`) instead of pinning
    is_revert: bool
    # titled a fix, and the diff has a fix's shape: it changes existing definitions and adds no more new ones
    # than it changes (the title is PR text: alone, "Fix" on a new feature would buy it a closer read)
    fix: bool
    analysed_issues: tuple[int, ...]
    discussion: Discussion = field(default_factory=Discussion)
    # the centre of the PR: code definitions, most central first; tests apart
    centre: tuple[RankedDefinition, ...] = ()
    # beyond size
    removed_guards: tuple[Located, ...] = ()
    changed_defaults: tuple[Located, ...] = ()  # text: "old → new"
    security: tuple[str, ...] = ()
    security_in_code: bool = False  # a security word inside a check the diff adds, not only in the PR's text
    moved_files: int = 0  # renamed or copied, with or without small edits
    move_only: bool = False  # renames plus import/path updates and nothing else
    move_target: str = ""  # the directory most moves went into
    bulk_files: int = 0  # tiny added files counted as generated data
    data_files: int = 0  # data files whose changes are only values (tuned parameters, tables of numbers)
    sweep: Sweep | None = None  # one callee swapped for another at many call sites, and nothing else
    renamed_names: tuple[tuple[str, str], ...] = ()  # (old, new): every changed line only swaps these names
    hidden_logic: tuple[str, ...] = ()  # a bump-titled PR: files whose changes are not version moves
    fail_fast: tuple[Located, ...] = ()  # new refusals of a configuration (validation, unsupported)
    implemented: tuple[Located, ...] = ()  # a method name newly defined in many changed files; text: count
    module_docs: tuple[tuple[str, str], ...] = ()  # (path, docstring or opening comment) of new code files
    new_packages: tuple[str, ...] = ()  # new directories holding most of the added code
    new_package_share: float = 0.0  # share of added code and kernel lines inside them
    shared_edits: tuple[str, ...] = ()  # modified code files outside the new packages
    build_stages: tuple[str, ...] = ()  # new stages other stages build on, in existing image builds
    regression_tests: tuple[str, ...] = ()  # new tests that exercise a changed (not new) definition
    exclusions: tuple[Located, ...] = ()  # the `!=` specifier lines themselves
    moved_code_lines: int = 0  # added lines of code that were removed elsewhere in the PR, or imports
    added_code_total: int = 0  # added non-blank, non-comment lines of code, tests and build files
    new_tests: int = 0  # new test functions
    new_file_code_lines: int = 0  # added lines of code in files the PR creates (not edits)
    new_file_share: float = 0.0  # their share of the added code lines
    new_code_files: tuple[str, ...] = ()  # the code files the PR creates, the largest first
    repeated_outliers: int = 0  # library code files outside the repeated edit that change logic of their own
    new_refusals: int = 0  # added lines of code that refuse (raise, throw, a check macro, an error returned)
    why_comments: int = 0  # added comment lines in code that say why (because, otherwise, to avoid ...)
    test_techniques: int = 0  # added test lines that set up a technique: a fixture, a parametrisation, an oracle
    parametrised_fixtures: int = 0  # new fixtures that run each test taking them once per value (`params=`)
    case_tables: int = 0  # added test lines that run a test over a table of cases (`[]struct{`, `TEST_P`, `it.each`)
    removed_parametrisations: int = 0  # removed `parametrize` marks and `params=`: a parametrisation moved, if any
    doc_headings: int = 0  # headings added to docs: new sections, not edits of a line
    template_hooks: int = 0  # new methods with conventional names (`__init__`, `forward`): a template filled in
    template_share: float = 0.0  # their share of the new code definitions (at least TEMPLATE_MIN_DEFINITIONS)

    @property
    def files_total(self) -> int:
        return sum(self.kinds.values())

    def only(self, *kinds: FileKind) -> bool:
        """Every changed file is one of `kinds` (and there is at least one file)."""
        return self.files_total > 0 and all(k in kinds for k, n in self.kinds.items() if n)


def area_of(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _enclosing(definitions: list[Definition], line_text: str, removed: bool) -> str:
    for d in definitions:
        if line_text in (d.removed_code if removed else d.added_code):
            return d.qualname
    return ""


def _shared(flags: dict[str, str], abstractions: Mapping[str, object], changes: list[FileChange],
            centre: list[RankedDefinition], added: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """Capability flags and interfaces other code relies on: declared in existing code, or used from
    other changed files. A new model file setting `supports_x = True` uses a contract, it adds none."""
    existing = {c.path for c in changes if c.status is FileStatus.MODIFIED}
    kept_flags = [flag for flag, path in flags.items() if path in existing or any(
        p != path and any(flag in line for line in lines) for p, lines in added.items())]
    used_types = {r.definition.path for r in centre if r.definition.is_type and len(r.caller_files) >= 2}
    kept_abstractions = [path for path in abstractions if path in existing or path in used_types]
    return kept_flags, kept_abstractions


def _implemented(code_defs: list[Definition], existing: set[str]) -> list[Located]:
    """A method newly defined in many existing files: an interface the call sites now implement.
    (New files defining `forward` are a model being added, not an interface being adopted.)"""
    files_by_name: defaultdict[str, set[str]] = defaultdict(set)
    for d in code_defs:
        if d.new and d.parent and not d.dunder and len(d.name) >= 6 and d.name.lower() not in GENERIC_NAMES \
                and d.path in existing:
            files_by_name[d.name].add(d.path)
    return [Located(min(paths), name, str(len(paths)))
            for name, paths in sorted(files_by_name.items(), key=lambda x: -len(x[1])) if len(paths) >= 4]


def _fail_fast(code_defs: list[Definition]) -> list[Located]:
    """New refusals of a configuration: a raise added to a validator, or one whose message says what is
    not supported. Benchmarks, examples and scripts refuse bad arguments, not configurations."""
    found = []
    for d in code_defs:
        if _NOT_ENGINE.search(d.path):
            continue
        # a refusal the definition already had, rewritten (another error type, a wider check), is not new
        before = {_refusal_words(d.removed_code, i) for i, x in enumerate(d.removed_code) if _REFUSAL.match(x)}
        for i, line in enumerate(d.added_code):
            if not _REFUSAL.match(line) or _refusal_words(d.added_code, i) in before:
                continue
            message = " ".join(d.added_code[i : i + 4])
            if _VALIDATOR_NAME.search(d.qualname) or _UNSUPPORTED.search(message):
                found.append(Located(d.path, d.qualname, line.strip()))
                break
    return found


_STRING_LITERAL = re.compile(r"\"([^\"]*)\"|'([^']*)'")


def _refusal_words(code: Sequence[str], at: int) -> str:
    """What a refusal says, whatever error type carries it: the words of its message (the string literals
    of the statement, up to 4 lines), or with no literal the arguments it raises with (`(msg)`)."""
    said = " ".join(a or b for a, b in _STRING_LITERAL.findall(" ".join(code[at: at + 4])))
    words = " ".join(re.findall(r"[A-Za-z]{3,}", said))
    return words or "".join(code[at].split("(", 1)[-1].split())


# A member that is behaviour, not data: a method signature (`load(id: string): Promise<Row>;`) or a
# function-typed field (`onChange: (value: string) => void;`).
_TS_METHOD = re.compile(r"^\s*(?:readonly\s+)?\w+\??\s*(?:<[^>]*>)?\s*\(|:\s*(?:<[^>]*>)?\s*\([^)]*\)\s*=>")
_TS_INTERFACE = re.compile(r"^\s*(?:export\s+)?interface\s+\w+")


def _data_shape(added: list[str], at: int) -> bool:
    """A TypeScript `interface` opened at `added[at]` whose added members are all data (`id: string;`):
    the shape of a value, not a contract other code implements."""
    if not _TS_INTERFACE.match(added[at]):
        return False
    indent = len(added[at]) - len(added[at].lstrip())
    for line in added[at + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:  # the closing brace, or the next statement
            break
        if _TS_METHOD.search(line):
            return False
    return True


def _declares_flag(name: str, line: str) -> bool:
    return not name.startswith("can_") or bool(_CAN_CAPABILITY.fullmatch(name) or _CAN_FLAG.search(line))


def _edits_existing(centre: list[RankedDefinition], rewritten_code_lines: int) -> int:
    """How many existing definitions the diff changes; one if it rewrites code lines in no definition it
    can name (a hunk without its function's name)."""
    changed = sum(1 for r in centre if r.definition.changed and not r.definition.new)
    return changed or int(rewritten_code_lines > 0)


def measure(ctx: PRContext, classifier: Classifier | None = None) -> Signals:
    """All the facts the heuristic verdict and reading guide are built from."""
    classifier = classifier or Classifier()
    lines = {c.path: shapes.diff_lines(c.patch) for c in ctx.files}
    bulk = bulk_paths(ctx.files)
    kind_of = {c.path: FileKind.GENERATED if c.path in bulk else classifier.kind_of(c) for c in ctx.files}
    repeated_paths = shapes.repeated_change_paths(ctx.files, {path: plus for path, (plus, _) in lines.items()})
    added_guards = set(shapes.guard_lines(x for plus, _ in lines.values() for x in plus))
    facts: list[FileFacts] = []
    kinds: Counter[FileKind] = Counter()
    added = {"code": 0, "test": 0, "doc": 0, "other": 0}
    deleted = {"code": 0, "test": 0}
    capability: dict[str, str] = {}  # flag -> the file declaring it
    abstractions: dict[str, list[str]] = {}  # file -> its added lines declaring an abstraction
    areas: dict[str, None] = {}
    code_defs: list[Definition] = []
    removed_names: set[str] = set()  # definitions removed somewhere: one added elsewhere moved, it is not new
    test_defs: list[Definition] = []
    guards: list[Located] = []
    defaults: list[Located] = []
    hidden: list[str] = []
    cosmetic_files = readable_files = version_files = data_files = 0
    stages: list[str] = []
    moved = moved_with_edits = other_files = 0
    move_targets: Counter[str] = Counter()
    exclusions: list[Located] = []
    bump_title = bool(is_bump_title(ctx.title))
    module_docs: list[tuple[str, str]] = []
    why = techniques = headings = param_fixtures = removed_params = case_tables = 0
    for change in ctx.files:
        kind = kind_of[change.path]
        kinds[kind] += 1
        plus, minus = lines[change.path]
        found = file_definitions(change) if kind in _DEFINITION_KINDS or kind is FileKind.DELETED else None
        defs = list(found.definitions) if found is not None and kind is not FileKind.DELETED else []
        removed_names |= found.removed_names if found is not None else frozenset()
        (test_defs if kind is FileKind.TEST else code_defs).extend(defs)
        if found is not None and found.module_doc and kind in CODE_KINDS:
            module_docs.append((change.path, found.module_doc))
        new_names = tuple(d.name for d in defs if d.new)
        features = set()
        if new_names and kind in CODE_KINDS | {FileKind.TEST}:
            features.add("new_definitions")
        if change.additions == 0 and change.deletions:
            features.add("deletion_only")
        if change.additions + change.deletions <= 2 and not new_names:
            features.add("tiny_change")
        if change.path in repeated_paths and change.additions <= 20:
            features.add("repeated_change")
        facts.append(FileFacts(change, kind, value_of(kind, frozenset(features)), new_names))
        bucket = {FileKind.TEST: "test", FileKind.DOCS: "doc"}.get(kind, "code" if kind in CODE_KINDS else "other")
        added[bucket] += change.additions
        if bucket in deleted:
            deleted[bucket] += change.deletions
        if change.status in (FileStatus.RENAMED, FileStatus.COPIED) and change.previous_path:
            moved += 1
            move_targets[change.path.rsplit("/", 1)[0] if "/" in change.path else "."] += 1
            moved_with_edits += kind not in MECHANICAL_KINDS and bool(plus or minus) \
                and not shapes.is_import_or_path_edit(plus, minus)
        # what a move leaves beside it: import and path edits, a new package's empty or licence-only `__init__`
        elif kind not in MECHANICAL_KINDS and not shapes.is_import_or_path_edit(plus, minus) \
                and not (change.status is FileStatus.ADDED and not shapes.code_lines(plus)):
            other_files += 1
        readable = kind not in MECHANICAL_KINDS and kind not in (FileKind.DELETED, FileKind.RENAMED)
        cosmetic = readable and shapes.is_cosmetic(change.path, change.patch, plus, minus)
        readable_files += readable
        cosmetic_files += cosmetic
        if kind is FileKind.TEST:
            techniques += sum(1 for line in plus if shapes.is_test_technique(line))
            param_fixtures += shapes.parametrised_fixtures(plus)
            case_tables += sum(1 for line in plus if shapes.CASE_TABLE.search(line))
            removed_params += sum(1 for line in minus if shapes.is_parametrisation(line))
        elif kind is FileKind.DOCS:
            headings += sum(1 for line in plus if shapes.is_doc_heading(line))
        if kind in CODE_KINDS:
            if change.additions:
                areas.setdefault(area_of(change.path), None)
            why += sum(1 for line in plus if shapes.is_why_comment(line))
            shapes_only = written_in(change.path, TYPESCRIPT)  # a TypeScript interface is often a data shape
            for i, line in enumerate(plus):
                # cheap substring tests first: these regexes run on every added line of a huge PR
                if any(w in line for w in _CAPABILITY_WORDS) and (m := _CAPABILITY.search(line)) \
                        and not shapes.COMMENT_LINE.match(line) and not _READ_BACK.match(line, m.end()) \
                        and _declares_flag(m.group(1) or "", line):
                    capability.setdefault(m.group(1) or m.group(2), change.path)
                if any(w in line for w in _ABSTRACTION_WORDS) and _ABSTRACTION.match(line) \
                        and not (shapes_only and _data_shape(plus, i)):
                    abstractions.setdefault(change.path, []).append(line)
        if kind in CODE_KINDS | {FileKind.BUILD, FileKind.CONFIG} and change.status is not FileStatus.REMOVED:
            guards += [Located(change.path, _enclosing(defs, g, True), shown)
                       for g, shown in shapes.removed_guards(change.patch, change.path, added_guards)]
            defaults += [Located(change.path, name, f"{old} → {new}")
                         for name, old, new in changed_defaults(plus, minus, change.patch)]
        data_files += kind is FileKind.CONFIG and shapes.is_value_table(change.path, plus, minus)
        if cosmetic:
            pass  # comments only: neither a version move nor logic (version_only counts it with the cosmetic files)
        elif kind in (FileKind.CONFIG, FileKind.BUILD) and shapes.is_version_change(plus, minus):
            version_files += 1
            exclusions += [Located(change.path, "", x.strip()) for x in plus if "!=" in x]
        # docs hold no logic; one edit repeated across files is judged as that edit, not as logic beside a pin
        elif bump_title and kind not in MECHANICAL_KINDS | {FileKind.DOCS} and (plus or minus) \
                and change.path not in repeated_paths:
            if shapes.logic_lines(plus, minus) and kind in CODE_KINDS:  # a lint rule or a CI step is no logic
                hidden.append(change.path)
            elif shapes.only_versions_moved(plus, minus):  # `IMAGE = "img:6.3"` -> `"img:6.4"`
                version_files += 1
        if kind is FileKind.BUILD and change.status is FileStatus.MODIFIED:
            kept = [x[1:] for x in (change.patch or "").split("\n") if x.startswith(" ")]
            stages += shapes.build_stages(plus, minus, kept)
    facts.sort(key=lambda r: (-r.value, -len(r.definitions), -r.change.additions, r.change.path))
    substantive = sum(n for k, n in kinds.items() if k not in MECHANICAL_KINDS)
    test_paths = frozenset(c.path for c in ctx.files if kind_of[c.path] is FileKind.TEST)
    # callers are code: a design doc naming a class does not depend on it, nor does a comment using its
    # name as a plain word ("how long an entry lives"); a comment naming it as code still refers to it
    code_lines = {p: as_code(p, plus) for p, (plus, _) in lines.items()
                  if kind_of[p] not in MECHANICAL_KINDS and kind_of[p] is not FileKind.DOCS}
    centre = rank_definitions(code_defs, test_defs, code_lines, test_paths)
    packages, package_share = new_packages(ctx.files, {c.path for c in ctx.files if kind_of[c.path] in CODE_KINDS})
    created_code = [c for c in ctx.files if kind_of[c.path] in CODE_KINDS and c.status is FileStatus.ADDED]
    code_added = sum(c.additions for c in ctx.files if kind_of[c.path] in CODE_KINDS)
    created_lines = sum(c.additions for c in created_code)
    shared_flags, shared_abstractions = _shared(capability, abstractions, ctx.files, centre,
                                                {p: plus for p, (plus, _) in lines.items()})
    movable = [p for p in lines if kind_of[p] in _DEFINITION_KINDS or kind_of[p] is FileKind.DELETED]
    moved_code, code_total = shapes.moved_lines((x for p in movable for x in lines[p][0]),
                                                (x for p in movable for x in lines[p][1]))
    read = [c for c in ctx.files if kind_of[c.path] not in MECHANICAL_KINDS]  # the files read line by line
    text = "\n".join([ctx.title, *(c.message for c in ctx.commits[:1])])
    own_text = [ctx.body, *(c.message for c in ctx.commits[:20])]
    # a comment after a check (`if bad(x):  # path traversal`) is not what the check tests
    added_code = (x for c in ctx.files if kind_of[c.path] in CODE_KINDS for x in code_parts(lines[c.path][0], c.path))
    code_security = shapes.security_words("", (), added_code)  # read once: `added_code` is a generator
    # new code definitions (a name removed elsewhere moved, unless conventional: every class has `__init__`)
    new_code = [d for d in code_defs if d.new and kind_of[d.path] in CODE_KINDS
                and (d.name not in removed_names or is_template_hook(d))]
    new_definitions = sum(1 for d in new_code if d.name not in removed_names)
    regression = tuple(dict.fromkeys(t for r in centre if not r.definition.new and r.definition.changed
                                     for t in r.tests if _is_new_test(t, test_defs)))
    return Signals(
        ranked=tuple(facts),
        kinds=dict(kinds),
        added_code_lines=added["code"],
        added_test_lines=added["test"],
        added_doc_lines=added["doc"],
        added_other_lines=added["other"],
        deleted_code_lines=deleted["code"] + deleted["test"],
        deleted_test_lines=deleted["test"],
        deleted_lines=sum(c.deletions for c in ctx.files),
        added_lines=sum(c.additions for c in ctx.files),
        new_files=sum(1 for c in ctx.files if c.status is FileStatus.ADDED),
        new_definitions=new_definitions,
        capability_flags=tuple(shared_flags)[:5],
        abstractions=tuple(shared_abstractions)[:5],
        code_areas=tuple(areas),
        repeated_change_files=len(repeated_paths),
        new_refusals=sum(1 for p, (plus, _) in lines.items() if kind_of[p] in CODE_KINDS
                         for x in plus if _REFUSAL.match(x)),
        # (a tool beside it, say the checker that enforces a new header, is part of the chore)
        repeated_outliers=sum(1 for p, (plus, minus) in lines.items() if repeated_paths and p not in repeated_paths
                              and kind_of[p] in CODE_KINDS and not PERIPHERAL_PATH.search(p)
                              and shapes.logic_lines(plus, minus)),
        cosmetic_only=readable_files > 0 and cosmetic_files == readable_files,
        version_only=version_files > 0 and version_files + cosmetic_files == substantive,
        excludes_version=bool(exclusions),
        is_revert=bool(is_revert(text)),
        fix=is_fix_title(ctx.title) and 0 < _edits_existing(centre, deleted["code"]) >= new_definitions,
        analysed_issues=analysed_issues(ctx),
        discussion=discussion_of(ctx),
        centre=tuple(centre),
        removed_guards=tuple(guards[:10]),
        changed_defaults=tuple(defaults[:10]),
        security=tuple(dict.fromkeys([*shapes.security_words(ctx.title, own_text, ()), *code_security]))[:5],
        security_in_code=bool(code_security),
        moved_files=moved,
        move_only=moved > 0 and not moved_with_edits and not other_files,
        move_target=move_targets.most_common(1)[0][0] if move_targets else "",
        bulk_files=len(bulk),
        data_files=data_files,
        renamed_names=renamed_names(read),
        sweep=call_site_sweep(read),
        # "bump" is PR text: logic beside a pin is news only where a version really moved
        hidden_logic=tuple(hidden[:5]) if bump_title and version_files and version_files != substantive else (),
        fail_fast=tuple(_fail_fast(code_defs)[:5]),
        implemented=tuple(_implemented(code_defs, {c.path for c in ctx.files
                                                   if c.status is FileStatus.MODIFIED})[:3]),
        new_packages=packages,
        new_package_share=package_share,
        shared_edits=tuple(c.path for c in ctx.files if kind_of[c.path] in CODE_KINDS
                           and c.status is FileStatus.MODIFIED
                           and not any(c.path.startswith(p + "/") for p in packages))[:8],
        build_stages=tuple(stages[:8]),
        regression_tests=regression[:3],
        exclusions=tuple(exclusions[:3]),
        moved_code_lines=moved_code,
        added_code_total=code_total,
        module_docs=tuple(module_docs),
        new_file_code_lines=created_lines,
        new_file_share=created_lines / code_added if code_added else 0.0,
        new_code_files=tuple(c.path for c in sorted(created_code, key=lambda c: -c.additions))[:8],
        new_tests=sum(1 for t in test_defs if t.new and t.name.lower().startswith("test")),
        why_comments=why,
        test_techniques=techniques,
        parametrised_fixtures=param_fixtures,
        case_tables=case_tables,
        removed_parametrisations=removed_params,
        doc_headings=headings,
        template_hooks=(hooks := template_hooks(new_code, code_defs, abstractions)),
        template_share=hooks / max(len(new_code), TEMPLATE_MIN_DEFINITIONS),
    )


def _is_new_test(reference: str, tests: list[Definition]) -> bool:
    """A new test function (not a helper or fixture of the test file)."""
    path, _, name = reference.partition("::")
    return name.rsplit(".", 1)[-1].lower().startswith("test") and any(
        t.path == path and t.qualname == name and t.new for t in tests)


def size_points(lines: int) -> float:
    """Size is an input, never the rule: it adds at most 10 points, logarithmically."""
    return min(10.0, math.log2(lines + 1))
