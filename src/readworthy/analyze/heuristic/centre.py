"""The centre of a PR: which new or changed definitions the rest of the diff depends on.

A definition ranks high when other changed files use its name in their added lines (a caller, an
import, a binding), when the new tests exercise it, when it is a kernel entry point (`__global__`,
a jitted `*_kernel`) or a public type, and, less, by the size of its body. Helpers, dunder methods,
benchmarks, examples and scripts rank low; tests are listed apart, as what to read after the definition
they exercise.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .definitions import Definition

_IDENT = re.compile(r"[A-Za-z_]\w*")
# A build stage or target may be named with dashes (`FROM base AS test-deps`, `target "rust-ci"`): still a name.
_NAME = re.compile(r"[A-Za-z_][\w-]*")
# Names too generic to count as a reference to one definition when they appear elsewhere.
GENERIC_NAMES = frozenset({"forward", "apply", "run", "main", "call", "get", "set", "init", "build", "create", "update",
                      "setup", "process", "reset", "load", "save", "start", "stop", "close", "open", "name", "type",
                      "make", "parse", "check", "test", "fixture", "wrapper", "inner", "helper", "default", "result",
                      "value", "config", "data", "impl", "new", "from", "into", "drop", "clone", "fmt", "next",
                      "model", "layer", "layers", "weight", "weights", "state", "output", "input", "cache", "module",
                      "device", "dtype", "shape", "size", "args", "kwargs", "params", "logger", "items", "keys",
                      "values", "length", "count", "index", "key", "path", "file", "mode", "kind", "info", "error",
                      "kernel", "launch", "execute", "handle", "compute", "prepare", "finish", "flush"})

POINTS = {
    "caller_file": 4.0,  # per other changed (non-test) file that uses the name, up to CALLER_FILES_MAX
    "test_file": 3.0,  # per test file that uses it, up to TEST_FILES_MAX
    "same_file_use": 1.5,  # per other changed definition in its own file that uses it, up to SAME_FILE_MAX
    "size": 2.5,  # times log2(added lines + 1)
    "kernel_entry": 15.0,
    "kernel_helper": 3.0,
    "public_type": 6.0,
    "public": 2.0,
    "new": 2.0,
    "has_doc": 2.0,
    "generic_or_dunder": -8.0,
    "peripheral": -4.0,  # a benchmark or example ranks below the library code it exercises
}
# Code nothing else builds on: benchmarks, examples, scripts and tools beside the library.
PERIPHERAL_PATH = re.compile(r"(?:^|/)(?:bench|benchmarks?|examples?|scripts?|tools)/")
CALLER_FILES_MAX, TEST_FILES_MAX, SAME_FILE_MAX = 6, 4, 4


@dataclass(frozen=True)
class RankedDefinition:
    definition: Definition
    score: float
    caller_files: tuple[str, ...]  # other changed non-test files whose added lines use the name
    tests: tuple[str, ...]  # `path::test` (or test file paths) whose added lines use the name

    @property
    def reference(self) -> str:
        """`path::Qual.name` where each part is a name (a build stage `test-deps` included), else the path
        (a Make target `build.o`)."""
        d = self.definition
        parts = d.qualname.split(".")
        return f"{d.path}::{d.qualname}" if all(_NAME.fullmatch(p) for p in parts) else d.path


def _identifiers(lines: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for line in lines:
        found.update(_IDENT.findall(line))
    return found


def rank_definitions(code: Sequence[Definition], tests: Sequence[Definition],
                     added_by_file: dict[str, list[str]], test_paths: frozenset[str]) -> list[RankedDefinition]:
    """Code definitions, most central first. `added_by_file` holds every changed file's added lines."""
    names_in_file = {path: _identifiers(lines) for path, lines in added_by_file.items()}
    defined_in: defaultdict[str, set[str]] = defaultdict(set)
    for d in code:
        defined_in[d.name].add(d.path)
    # indexes by name and by file, so a PR of thousands of definitions is not read once per definition
    files_using: defaultdict[str, list[str]] = defaultdict(list)
    for path, names in names_in_file.items():
        for name in names:
            files_using[name].append(path)
    uses_by_file: defaultdict[str, list[tuple[Definition, set[str]]]] = defaultdict(list)
    for d in code:
        uses_by_file[d.path].append((d, _identifiers(d.added_code)))
    tests_using: defaultdict[str, list[Definition]] = defaultdict(list)
    for t in tests:
        for name in _identifiers(t.added_code):
            tests_using[name].append(t)
    nested: defaultdict[tuple[str, str], int] = defaultdict(int)
    for d in code:
        nested[(d.path, d.parent)] += d.added
    ranked = []
    for d in code:
        # an existing class is a container: its changed methods rank on their own
        size = d.added if d.new or not d.is_type else max(0, d.added - nested[(d.path, d.qualname)])
        generic = d.dunder or d.name.lower() in GENERIC_NAMES or len(d.name) < 4
        # an existing type whose own lines do not change only holds the methods that do
        container = d.is_type and not d.new and size == 0 and nested[(d.path, d.qualname)] > 0
        callers: tuple[str, ...] = ()
        tested: list[str] = []
        same_file = 0
        if not generic:
            # a file defining the same name (a base class, an override) implements it, it does not call it
            using = files_using.get(d.name, [])
            callers = tuple(p for p in using if p not in defined_in[d.name] and p not in test_paths)
            tested = [f"{t.path}::{t.qualname}" for t in tests_using.get(d.name, [])]
            tested += [p for p in sorted(p for p in using if p in test_paths)
                       if not any(x.startswith(p + "::") for x in tested)]
            same_file = sum(1 for other, names in uses_by_file[d.path]
                            if other is not d and other.qualname != d.parent and d.name in names)
        # a one-word lowercase name (`touch`, `lookup`) is often some other object's method of the same name
        ambiguity = max(1, len(defined_in[d.name])) * (2 if d.name.isalpha() and d.name.islower() else 1)
        test_files = {t.split("::")[0] for t in tested}
        p = POINTS
        score = (p["caller_file"] * min(len(callers), CALLER_FILES_MAX) / ambiguity
                 + p["test_file"] * min(len(test_files), TEST_FILES_MAX)
                 + p["same_file_use"] * min(same_file, SAME_FILE_MAX)
                 + p["size"] * math.log2(size + 1)
                 + (p["kernel_entry"] if d.kernel_entry else p["kernel_helper"] if d.kernel_helper else 0.0)
                 + (0.0 if container else p["public_type"] if d.is_type and d.public
                    else p["public"] if d.public else 0.0)
                 + (p["new"] if d.new else 0.0)
                 + (p["has_doc"] if d.doc or d.notes else 0.0)
                 + (p["generic_or_dunder"] if generic else 0.0)
                 + (p["peripheral"] if PERIPHERAL_PATH.search(d.path) else 0.0))
        # test functions first, then helpers and fixtures of the test files
        tested.sort(key=lambda t: not t.rsplit("::", 1)[-1].rsplit(".", 1)[-1].lower().startswith("test"))
        ranked.append(RankedDefinition(d, score, callers, tuple(dict.fromkeys(tested))))
    ranked.sort(key=lambda r: (-r.score, r.definition.path, r.definition.line))
    return ranked


def is_template_hook(d: Definition) -> bool:
    """A method whose name a template or base class dictates (a dunder, `forward`, `load`, `compute`):
    code that fills in a familiar shape rather than inventing one."""
    return bool(d.parent) and (d.dunder or d.name.lower() in GENERIC_NAMES)


def template_hooks(new_code: Sequence[Definition], all_code: Sequence[Definition],
                   abstraction_lines: Mapping[str, Sequence[str]]) -> int:
    """How many new methods fill in a template that existed before this PR. A conventional name that an
    abstraction the PR itself declares (`trait Parser { fn reset ... }`, `class Base(ABC)`) dictates is
    the PR inventing the template, not following one: those are left out.
    `abstraction_lines`: file -> its added lines that declare an abstraction."""
    new_abstractions = {d.qualname for d in all_code if d.new and d.is_type and any(
        re.search(rf"\b{re.escape(d.name)}\b", line) for line in abstraction_lines.get(d.path, ()))}
    # the language, not the PR, dictates dunders: a new base's `__init__` invents nothing
    invented = {d.name for d in all_code if d.parent in new_abstractions and not d.dunder}
    return sum(1 for d in new_code if is_template_hook(d) and d.name not in invented)
