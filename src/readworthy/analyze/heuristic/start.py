"""Where to start reading: the centre of the PR, the test that names what it is about, and the other places
worth opening, each once."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from ...pack.classify import FileKind
from .centre import RankedDefinition
from .code_points import abstract_types
from .kind_points import new_tests
from .signals import CODE_KINDS, MECHANICAL_KINDS, NEW_PACKAGE_SHARE, Signals

MAX_START, MAX_START_TESTS = 6, 2  # the comment shows six places to start


def start_reading(sig: Signals, title: str = "", named: Sequence[str] = ()) -> list[str]:
    """The centre of the PR, then the test that names what the PR is about, then the next central
    definitions in other files and the build and CI files without definitions that change (a CI job, a
    pre-commit hook: each file once before any file twice), then further definitions of the same files,
    then the PR's other new tests and readable files; with no definitions, the readable files (a
    tests-only PR: its new tests); with none of those, the files that change (a skip still says what it
    is about). After the centre, places the design points already cite (`named`) come last: the guide
    names as many distinct places as it can."""
    told = set(named)
    out: list[str] = []
    later: list[str] = []  # cited by a design point already: only if nothing else is left
    tests: set[str] = set()

    def add(entry: str, minor: bool = False) -> None:
        if entry in out or entry in later:
            return
        (later if out and (entry in told or minor) else out).append(entry)

    readable = [f for f in sig.ranked if f.kind not in MECHANICAL_KINDS and f.kind is not FileKind.DELETED
                and f.change.additions > 0]
    defined = {r.definition.path for r in sig.centre}
    plain = [f for f in readable if f.kind not in CODE_KINDS and f.kind is not FileKind.TEST
             and f.change.path not in defined]
    per_file: Counter[str] = Counter()
    # a new abstract type other changed files build on: the guide says to read it before its implementations
    abstract = {name for f in sig.ranked if f.change.path in sig.abstractions
                for name in abstract_types(f.change.patch or "")[0]}
    out += [r.reference for r in sig.centre if r.definition.new and r.definition.name in abstract][:1]
    for allowed in range(1, MAX_START + 1):
        for r in sig.centre[:24]:
            path = r.definition.path
            if len(out) >= MAX_START or per_file[path] >= allowed or r.reference in out or r.reference in later:
                continue
            add(r.reference, minor=r.definition.dunder)  # `__len__` is a place to start only when nothing else is
            per_file[path] += 1
            test = best_test(r, title, exclude=tests | told)
            if test and len(out) < MAX_START and len(tests) < MAX_START_TESTS:
                add(test)
                tests.add(test)
        if allowed == 1 and out:
            for f in plain:
                if f.kind is FileKind.BUILD and len(out) < MAX_START:
                    add(f.change.path)
    held = set(_holders(sig, out))
    out = [x for x in out if x not in held]
    words = _title_words(title)
    if out and len(tests) < MAX_START_TESTS:  # new tests that name none of the definitions are still the PR's tests
        found = [t for t in new_tests([f.change for f in readable if f.kind is FileKind.TEST])
                 if t not in tests and t not in told]
        found.sort(key=lambda t: -len(words & set(re.findall(r"[a-z0-9]+", t.rsplit("::", 1)[-1].lower()))))
        room = min(MAX_START - len(out), MAX_START_TESTS - len(tests))
        out += found[:max(0, room)]
    if out:
        files = {x.split("::")[0] for x in out}
        out += [f.change.path for f in plain if f.change.path not in files and f.change.path not in later
                ][: MAX_START - len(out)]
        out += later[: max(0, MAX_START - len(out))]
        return [x[:200] for x in _shared_first(out, later, sig)]
    if readable and all(f.kind is FileKind.TEST for f in readable):  # a tests-only PR: its new tests
        found = new_tests([f.change for f in readable])
        found.sort(key=lambda t: -len(words & set(re.findall(r"[a-z0-9]+", t.rsplit("::", 1)[-1].lower()))))
        # after the fixture or helper a design point names as the technique, when it lives apart from the
        # tests that take it (a conftest): read beside them, a test file's fixture is seen anyway
        helper_files = {f.change.path for f in readable} - {t.split("::")[0] for t in found}
        technique = [x for x in named if "::" in x and x.split("::")[0] in helper_files
                     and not x.rsplit("::", 1)[-1].rsplit(".", 1)[-1].lower().startswith("test")][:1]
        if found:
            return [x[:200] for x in [*technique, *found][:MAX_START]]
    if readable:
        # code first, then tests, then docs, then the rest, each with the file with most to read first (a
        # constant's file before the README that mentions it, a new docs page before the nav entry that lists
        # it); then, with room, the other files that change beside them (a lock file's tree, generated output)
        tier = {FileKind.TEST: 1, FileKind.DOCS: 2}
        readable.sort(key=lambda f: (0 if f.kind in CODE_KINDS else tier.get(f.kind, 3), -f.change.additions))
        rest = [f for f in sig.ranked if f not in readable and f.kind is not FileKind.RENAMED
                and f.change.additions + f.change.deletions > 0]
        return [f.change.path[:200] for f in [*readable, *rest][:4]]
    changed = sorted(sig.ranked, key=lambda f: -(f.change.additions + f.change.deletions))
    return [f.change.path[:200] for f in changed[:2]]


def _shared_first(entries: list[str], later: list[str], sig: Signals) -> list[str]:
    """For a drop of new code (most added code in files the PR creates) whose list names none of the shared
    code it changes, the first such place comes right after the centre, in place of the last entry: what a
    reader outside the new code must see is never left out."""
    created = set(sig.new_code_files)
    if sig.new_file_share < NEW_PACKAGE_SHARE or not entries:
        return entries

    def shared(x: str) -> bool:
        return x.split("::")[0] not in created and x.split("::")[0] in sig.shared_edits
    if any(shared(x) for x in entries):
        return entries
    found = next((x for x in later if shared(x)), None)
    return entries if found is None else [entries[0], found, *entries[1:]][:MAX_START]


def _holders(sig: Signals, entries: list[str]) -> list[str]:
    """Entries that name an existing class which changes only inside its methods, when one of those methods
    is an entry too: the method says where in the class to read, and the class beside it adds nothing."""
    shown = set(entries)
    by_reference = {r.reference: r.definition for r in sig.centre}
    out = []
    for entry in entries:
        d = by_reference.get(entry)
        if d is not None and d.is_type and not d.new and not d.added_code and any(
                x.startswith(entry + ".") and not by_reference[x].dunder for x in shown if x in by_reference):
            out.append(entry)
    return out


def _title_words(title: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", title.lower()) if len(w) >= 3}


def best_test(anchor: RankedDefinition, title: str, exclude: set[str] | frozenset[str] = frozenset()) -> str:
    """The test of a definition whose name shares most words with the title (the behaviour the PR is
    about), else its first test."""
    candidates = [t for t in anchor.tests[:8] if t not in exclude]
    if not candidates:
        return ""
    words = _title_words(title)

    def shared(test: str) -> int:
        name = test.rsplit("::", 1)[-1].lower()
        return len(words & set(re.findall(r"[a-z0-9]+", name.replace("_", " "))))
    return max(candidates, key=lambda t: (shared(t), -candidates.index(t)))
