"""What the heuristic analyzer measures about a PR: facts from the diff, the PR text and the discussion.

Pure and deterministic. Each signal is a plain fact ("adds 12 definitions",
"every changed line is a version specifier") with no judgement; heuristic.py
turns the facts into a verdict and a reading guide.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..models import FileChange, FileStatus, PRContext
from ..pack.classify import Classifier, FileKind, defined_names, value_of

# Kinds whose content is never read line by line.
MECHANICAL_KINDS = frozenset({FileKind.GENERATED, FileKind.LOCK, FileKind.VENDORED, FileKind.BINARY})
CODE_KINDS = frozenset({FileKind.SOURCE, FileKind.KERNEL})

# A changed line that only moves a version: `pkg==1.2`, `pkg>=1,!=1.3`, `ARG X_VERSION=v1`, `x = "1.2"`,
# `x = { git = "...", tag = "v0.1" }`, `FROM image:1.2`, `uses: owner/action@v4`, `rev: v1.2.3`.
_VERSION_LINE = re.compile(
    r"""^\s*(?:
        [\w.\-\[\],]+\s*(?:===|==|>=|<=|~=|!=|<|>|@)\s*\S+(?:\s*[,;].*)?     # pip specifiers
      | (?:ARG|ENV)\s+\w*(?:VERSION|REF|TAG|SHA|COMMIT)\w*\s*[=\s]\s*\S+     # Dockerfile build args
      | [\w.\-]+\s*=\s*["'][^"']*\d[^"']*["']\s*,?                          # toml/ini  x = "1.2"
      | [\w.\-]+\s*=\s*\{.*(?:version|tag|rev|branch)\s*=.*\}\s*,?           # toml table with a version
      | ["']?[\w.\-@/]+["']?\s*:\s*["']?[~^>=<]*\d[\w.\-]*["']?\s*,?          # json/yaml  "x": "^1.2"
      | FROM\s+\S+:\S+.*                                                    # base image tag
      | (?:-\s*)?uses:\s*\S+@\S+                                            # GitHub Actions pins
      | (?:rev|tag|version|ref)\s*[:=]\s*\S+                                # pre-commit / yaml pins
      | [\w.\-\[\]]+                                                        # a bare requirement name
    )\s*$""",
    re.VERBOSE,
)
_COMMENT_LINE = re.compile(r"^\s*(?:#|//|--|;|/\*|\*)")
# In C-family files `#` starts a preprocessor line, not a comment.
_C_COMMENT_LINE = re.compile(r"^\s*(?://|/\*|\*)")
_C_FAMILY = re.compile(r"\.(?:c|cc|cpp|cxx|h|hh|hpp|cu|cuh|hip|cl|metal|m|mm|rs|go|java|kt|js|jsx|ts|tsx|swift|cs)$")
# A capability flag being *declared* (def/fn/attribute/assignment), not merely called.
_CAPABILITY = re.compile(
    r"(?:\b(?:def|fn)\s+|^\s*(?:self\.)?)(supports?_\w+|\w+_supported|is_\w+_(?:available|enabled|supported)"
    r"|has_\w+_support|can_\w+|\w*capabilit\w*)\s*(?:\(|:|=(?!=)|->)"
)
_ABSTRACTION = re.compile(
    r"^\s*(?:class\s+\w+\s*\([^)]*\b(?:ABC|Protocol|Generic|ABCMeta)\b|@(?:abc\.)?abstractmethod"
    r"|(?:pub(?:\([^)]*\))?\s+)?trait\s+\w+|type\s+\w+\s+interface\b|(?:export\s+)?interface\s+\w+"
    r"|class\s+\w*(?:Base|Interface|Protocol)\b(?!\w))"
)
_CAPABILITY_WORDS = ("support", "capabilit", "is_", "has_", "can_")
_ABSTRACTION_WORDS = ("class", "abstract", "trait", "interface")
_KERNEL_PATH = re.compile(r"(?:^|/)(?:kernels?|ops|csrc|triton\w*|cuda|hip|rocm)(?:/|_)", re.IGNORECASE)
# Signs that an issue investigates rather than only reports: a cause, a bisection, numbers with units.
# (A traceback or reproduction steps alone are an ordinary bug report.)
_ANALYSIS_MARKERS = re.compile(
    r"root[- ]cause|\bbisect|\bprofil|flame ?graph|\bbenchmark|\bregress|caused by|\bbecause\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|us|µs|%|x|GB|GiB|MB|MiB|tok/s|tokens/s|req/s|QPS|threads)(?!\w)",
    re.IGNORECASE,
)
_PERF_TITLE = re.compile(r"\bperf\b|optimi[sz]|speed ?up|faster|latency|throughput", re.IGNORECASE)
_FIX_TITLE = re.compile(r"\bfix|\bbug", re.IGNORECASE)
_REVERT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*revert\b|this reverts commit", re.IGNORECASE)
_BOT_NAME = re.compile(r"\[bot\]$|-bot$|^bot$", re.IGNORECASE)


@dataclass(frozen=True)
class RankedFile:
    change: FileChange
    kind: FileKind
    value: float
    definitions: tuple[str, ...]


@dataclass(frozen=True)
class Discussion:
    participants: tuple[str, ...] = ()
    comments: int = 0  # human comments, review bodies and inline replies
    threads: int = 0
    unresolved_threads: int = 0
    unresolved_paths: tuple[str, ...] = ()
    changes_requested: int = 0
    approvals: int = 0


@dataclass(frozen=True)
class Signals:
    ranked: tuple[RankedFile, ...]
    kinds: Mapping[FileKind, int]
    added_code_lines: int
    added_test_lines: int
    added_doc_lines: int
    added_other_lines: int
    deleted_code_lines: int  # deleted from source, kernel and test files
    deleted_lines: int
    added_lines: int
    new_files: int
    new_definitions: int
    capability_flags: tuple[str, ...]
    abstractions: tuple[str, ...]
    kernel_files: tuple[str, ...]
    kernel_adjacent: tuple[str, ...]
    code_areas: tuple[str, ...]
    repeated_change_files: int
    cosmetic_only: bool  # every readable file changed only comments or whitespace
    version_only: bool
    excludes_version: bool
    is_revert: bool
    perf_title: bool
    fix_title: bool
    analysed_issues: tuple[int, ...]
    discussion: Discussion = field(default_factory=Discussion)

    @property
    def files_total(self) -> int:
        return sum(self.kinds.values())

    def only(self, *kinds: FileKind) -> bool:
        """Every changed file is one of `kinds` (and there is at least one file)."""
        return self.files_total > 0 and all(k in kinds for k, n in self.kinds.items() if n)


def _diff_lines(patch: str | None) -> tuple[list[str], list[str]]:
    """Added and removed lines of a patch, in one pass."""
    added: list[str] = []
    removed: list[str] = []
    for line in patch.split("\n") if patch else ():
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
    return added, removed


def _area(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def _is_version_change(added: list[str], removed: list[str]) -> bool:
    changed = added + removed
    meaningful = [line for line in changed if line.strip() and not _COMMENT_LINE.match(line)]
    return bool(meaningful) and all(_VERSION_LINE.match(line) for line in meaningful)


def _is_cosmetic(path: str, added: list[str], removed: list[str]) -> bool:
    """Only comments, blank lines or whitespace changed: typo fixes, reformatting, comment edits.
    The code's characters must stay the same and in the same order (moving a line is not cosmetic)."""
    if not added and not removed:
        return False
    comment = _C_COMMENT_LINE if _C_FAMILY.search(path) else _COMMENT_LINE

    def code(lines: list[str]) -> str:
        return "".join("".join(x.split()) for x in lines if x.strip() and not comment.match(x))

    return code(added) == code(removed)


def _repeated_change_files(changes: list[FileChange], added: dict[str, list[str]]) -> int:
    """How many files got the very same added lines (license headers, an import rename)."""
    signatures = Counter(tuple(line.strip() for line in added[c.path][:20]) for c in changes if c.additions)
    signatures.pop((), None)
    if not signatures:
        return 0
    count = signatures.most_common(1)[0][1]
    with_additions = sum(1 for c in changes if c.additions)
    return count if count >= 5 and count * 2 >= with_additions else 0


def _discussion(ctx: PRContext) -> Discussion:
    people: dict[str, None] = {}
    comments = 0

    def human(name: str, is_bot: bool = False) -> bool:
        return bool(name) and not is_bot and not _BOT_NAME.search(name)

    for c in ctx.comments:
        if human(c.author, c.author_is_bot) and c.body.strip():
            people.setdefault(c.author, None)
            comments += 1
    for r in ctx.reviews:
        if human(r.author) and (r.body.strip() or r.state.value in ("APPROVED", "CHANGES_REQUESTED")):
            people.setdefault(r.author, None)
            comments += 1 if r.body.strip() else 0
    for t in ctx.threads:
        for tc in t.comments:
            if human(tc.author) and tc.body.strip():
                people.setdefault(tc.author, None)
                comments += 1
    unresolved = [t for t in ctx.threads if not t.is_resolved and not t.is_outdated]
    return Discussion(
        participants=tuple(people),
        comments=comments,
        threads=len(ctx.threads),
        unresolved_threads=len(unresolved),
        unresolved_paths=tuple(dict.fromkeys(t.path for t in unresolved)),
        changes_requested=sum(1 for r in ctx.reviews if r.state.value == "CHANGES_REQUESTED"),
        approvals=sum(1 for r in ctx.reviews if r.state.value == "APPROVED"),
    )


def _analysed_issues(ctx: PRContext) -> tuple[int, ...]:
    """Linked issues whose text reads like an investigation: a root cause, a bisection, measurements."""
    found = []
    for issue in ctx.linked_issues:
        text = "\n".join([issue.body, *(c.body for c in issue.comments if not c.author_is_bot)])
        markers = len(_ANALYSIS_MARKERS.findall(text))
        if markers >= 2:
            found.append(issue.number)
    return tuple(found)


def measure(ctx: PRContext, classifier: Classifier | None = None) -> Signals:
    """All the facts the heuristic verdict and reading guide are built from."""
    classifier = classifier or Classifier()
    diff_lines = {c.path: _diff_lines(c.patch) for c in ctx.files}
    repeated = _repeated_change_files(ctx.files, {path: lines[0] for path, lines in diff_lines.items()})
    ranked: list[RankedFile] = []
    kinds: Counter[FileKind] = Counter()
    added = {"code": 0, "test": 0, "doc": 0, "other": 0}
    capability: dict[str, None] = {}
    abstractions: dict[str, None] = {}
    kernel_files: list[str] = []
    kernel_adjacent: list[str] = []
    areas: dict[str, None] = {}
    new_definitions = 0
    cosmetic_files = readable_files = 0
    deleted_code = 0
    version_files = 0
    excludes_version = False
    for change in ctx.files:
        kind = classifier.kind_of(change)
        kinds[kind] += 1
        plus, minus = diff_lines[change.path]
        definitions = tuple(defined_names(change.patch, change.path)) if kind not in MECHANICAL_KINDS else ()
        features = set()
        if definitions and kind in CODE_KINDS | {FileKind.TEST}:
            features.add("new_definitions")
        if change.additions == 0 and change.deletions:
            features.add("deletion_only")
        if change.additions + change.deletions <= 2 and not definitions:
            features.add("tiny_change")
        if repeated and change.additions and change.additions <= 20:
            features.add("repeated_change")
        ranked.append(RankedFile(change, kind, value_of(kind, frozenset(features)), definitions))
        bucket = {FileKind.TEST: "test", FileKind.DOCS: "doc"}.get(kind, "code" if kind in CODE_KINDS else "other")
        added[bucket] += change.additions
        if bucket in ("code", "test"):
            deleted_code += change.deletions
        if kind not in MECHANICAL_KINDS and kind not in (FileKind.DELETED, FileKind.RENAMED):
            readable_files += 1
            cosmetic_files += _is_cosmetic(change.path, plus, minus)
        if kind in CODE_KINDS:
            new_definitions += len(definitions)
            if change.additions:
                areas.setdefault(_area(change.path), None)
            for line in plus:
                # cheap substring tests first: these regexes run on every added line of a huge PR
                if any(w in line for w in _CAPABILITY_WORDS) and (m := _CAPABILITY.search(line)) \
                        and not _COMMENT_LINE.match(line):
                    capability.setdefault(m.group(1), None)
                if any(w in line for w in _ABSTRACTION_WORDS) and _ABSTRACTION.match(line):
                    abstractions.setdefault(change.path, None)
        if kind is FileKind.KERNEL and change.additions:
            kernel_files.append(change.path)
        elif kind is FileKind.SOURCE and _KERNEL_PATH.search(change.path) and change.additions:
            kernel_adjacent.append(change.path)
        if kind in (FileKind.CONFIG, FileKind.BUILD) and _is_version_change(plus, minus):
            version_files += 1
            excludes_version = excludes_version or any("!=" in line for line in plus)
    ranked.sort(key=lambda r: (-r.value, -len(r.definitions), -r.change.additions, r.change.path))
    substantive = sum(n for k, n in kinds.items() if k not in MECHANICAL_KINDS)
    text = "\n".join([ctx.title, *(c.message for c in ctx.commits[:1])])
    return Signals(
        ranked=tuple(ranked),
        kinds=dict(kinds),
        added_code_lines=added["code"],
        added_test_lines=added["test"],
        added_doc_lines=added["doc"],
        added_other_lines=added["other"],
        deleted_code_lines=deleted_code,
        deleted_lines=sum(c.deletions for c in ctx.files),
        added_lines=sum(c.additions for c in ctx.files),
        new_files=sum(1 for c in ctx.files if c.status is FileStatus.ADDED),
        new_definitions=new_definitions,
        capability_flags=tuple(capability)[:5],
        abstractions=tuple(abstractions)[:5],
        kernel_files=tuple(kernel_files),
        kernel_adjacent=tuple(kernel_adjacent),
        code_areas=tuple(areas),
        repeated_change_files=repeated,
        cosmetic_only=readable_files > 0 and cosmetic_files == readable_files,
        version_only=substantive > 0 and version_files == substantive,
        excludes_version=excludes_version,
        is_revert=bool(_REVERT.search(text)),
        perf_title=bool(_PERF_TITLE.search(ctx.title)),
        fix_title=bool(_FIX_TITLE.search(ctx.title)),
        analysed_issues=_analysed_issues(ctx),
        discussion=_discussion(ctx),
    )


def size_points(lines: int) -> float:
    """Size is an input, never the rule: it adds at most 10 points, logarithmically."""
    return min(10.0, math.log2(lines + 1))
