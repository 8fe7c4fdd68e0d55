"""Design points for PRs of one kind, where what is worth knowing is not a code decision.

- A **docs PR** says what the page explains: the headings it adds and the rule it states (a sentence
  with "must", "should", "never", "only" ... in the added text), and the figures added beside it.
- A **tests-only PR** names its technique: the fixtures it adds (and their scope), what it is
  parametrised over, the oracle it compares against (a reference implementation, `assert_close`),
  the stand-ins it uses (monkeypatch, mocks), each tied to the tests that use it.

Everything quoted is added text of the PR.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ...models import Decision, FileChange, FileStatus, PRContext
from ...pack.classify import FileKind
from .authors import brief, is_measurement
from .build_points import build_points, is_cmake
from .definitions import file_definitions, is_prose
from .shapes import CASE_TABLE, bracket_depth, closing_bracket, top_level_split
from .signals import MECHANICAL_KINDS, Signals
from .wording import code_names, fit, list_sep, phrase, then
from .workflow_points import is_workflow, workflow_points

_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>[^#].*?)\s*#*\s*$")
_RST_RULE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
_RULE_WORDS = re.compile(r"\b(?:must|should|never|always|only|do not|don't|required|recommended|avoid|prefer"
                         r"|instead of|rather than|make sure|note that|important)\b", re.IGNORECASE)
# Images, links (their text kept), tags and emphasis marks: `*`/`_` at a word's edge (or after its full stop:
# `**Add, do not change.**`), never inside a name
# (`prefix_cache_hits`, `__init__` keep theirs).
_MARKUP = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[([^\]]*)\]\([^)]*\)|<[^>]+>"
                     r"|(?<![\w*_])[*_]{1,2}(?=[\w\"'(`])|(?<=[\w.,;:!?)\"'`])[*_]{1,2}(?![\w*_])")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")  # a list item's bullet is not part of its sentence
_DOC_EXT = re.compile(r"\.(?:md|markdown|rst|txt|adoc)$", re.IGNORECASE)
_ASSET_EXT = re.compile(r"\.(?:png|svg|jpe?g|gif|webp)$", re.IGNORECASE)

_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)")
_FIXTURE = re.compile(r"^\s*@pytest\.fixture\b(?:\((?P<args>.*)\))?")
_SCOPE = re.compile(r"scope\s*=\s*[\"'](\w+)[\"']")
_PARAMS = re.compile(r"\bparams\s*=\s*")
_AUTOUSE = re.compile(r"\bautouse\s*=\s*True\b")
_PARAMETRIZE = re.compile(r"^\s*@pytest\.mark\.parametrize\(\s*[\"']([^\"']+)[\"']")
_COMPARE = re.compile(r"\b(?:torch\.testing\.assert_close|assert_close|torch\.allclose|np\.testing\.assert_\w+"
                      r"|assert_allclose|torch\.equal)\b")
# A call whose name has a reference word as one of its parts (`ref_copy_blocks`, `torch_ref`, `naiveAttention`),
# not inside another word (`removeprefix`).
_REFERENCE = re.compile(r"\b(_*(?:[A-Za-z0-9]+_)*(?:ref|reference|naive|golden|baseline|expected)(?:_\w+|[A-Z]\w*)?"
                        r"|(?:[a-z]\w*?)?(?:Ref|Reference|Naive|Golden|Baseline|Expected)(?:[A-Z_]\w*)?)\s*\(")
_STAND_IN = re.compile(r"\b(monkeypatch\.setattr|mock\.patch\w*|patch\.object|patch\(|MagicMock"
                       r"|SimpleNamespace|create_autospec|jest\.fn|vi\.fn|jest\.mock|vi\.mock|jest\.spyOn|vi\.spyOn"
                       r"|httptest\.New\w+|gomock\.\w+|sinon\.\w+)\b")
MAX_NAMES = 3
NAV_EDIT_LINES = 4  # configuration lines beside docs that are a navigation entry, not a change of settings


def kind_points(ctx: PRContext, sig: Signals, language: str) -> list[Decision] | None:
    """The design points of a docs-only, tests-only or build-only PR, or None for any other PR."""
    readable = [f for f in sig.ranked if f.kind not in MECHANICAL_KINDS and f.kind is not FileKind.DELETED]
    docs = [f for f in readable if f.kind is FileKind.DOCS]
    # a docs page and its entry in the site's navigation (`mkdocs.yaml`): a docs PR
    support = sum(f.change.additions + f.change.deletions for f in readable if f.kind is FileKind.CONFIG)
    if docs and all(f.kind in (FileKind.DOCS, FileKind.CONFIG) for f in readable) and support <= NAV_EDIT_LINES:
        return docs_points(ctx, language)
    tests = [f for f in readable if f.kind is FileKind.TEST]
    if tests and all(f.kind in (FileKind.TEST, FileKind.CONFIG) for f in readable):
        return test_points([f.change for f in tests], language)
    build_only = all(f.kind in (FileKind.BUILD, FileKind.CONFIG, FileKind.DOCS) for f in readable)
    workflows = [f.change for f in readable if is_workflow(f.change.path)]
    cmake = [f.change for f in readable if is_cmake(f.change.path)]
    if (workflows or cmake) and build_only:  # none found: what the other readers find
        return [*workflow_points(workflows, language), *build_points(cmake, language)][:3] or None
    return None


def _added(change: FileChange) -> Iterator[str]:
    for raw in (change.patch or "").split("\n"):
        if raw.startswith("+") and not raw.startswith("+++"):
            yield raw[1:]


def _plain(text: str) -> str:
    """Markdown as the reader sees it: markup out, code spans as written (without their backticks)."""
    parts = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        parts += [_MARKUP.sub(lambda x: x.group(1) or "", text[last:m.start()]), m.group(2)]
        last = m.end()
    parts.append(_MARKUP.sub(lambda x: x.group(1) or "", text[last:]))
    return " ".join("".join(parts).replace("`", "").split())


def headings(change: FileChange) -> list[str]:
    """Headings among the added lines: `# Markdown` ones and RST titles underlined by a rule."""
    lines = list(_added(change))
    found = []
    for i, line in enumerate(lines):
        m = _MD_HEADING.match(line)
        if m and not change.path.lower().endswith(".rst"):
            found.append(_plain(m.group("text")))
        elif _RST_RULE.match(line) and i and lines[i - 1].strip() and not _RST_RULE.match(lines[i - 1]):
            found.append(_plain(lines[i - 1]))
    return [h for h in dict.fromkeys(found) if 2 <= len(h) <= 100]


def stated_rule(change: FileChange) -> str:
    """The added sentence that states a rule most plainly (normative words, a reasonable length)."""
    text = " ".join(_LIST_MARKER.sub("", line.strip()) for line in _added(change)
                    if line.strip() and not _MD_HEADING.match(line)
                    and not line.strip().startswith(("```", "|", "<", "!", ".. ")))
    best, score = "", 0
    for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z`])", _plain(text)):
        words = len(sentence.split())
        # added lines may start or stop inside a sentence whose rest is unchanged text: not a sentence to quote
        if not 6 <= words <= 45 or sentence[:1].islower() or not sentence.rstrip().endswith((".", "!", "?", "。")):
            continue
        hits = len(_RULE_WORDS.findall(sentence))
        if hits > score:
            best, score = sentence, hits
    return best


def docs_points(ctx: PRContext, language: str) -> list[Decision]:
    docs = sorted((f for f in ctx.files if _DOC_EXT.search(f.path) and f.additions),
                  key=lambda f: -f.additions)[:2]
    assets = [f.path for f in ctx.files if _ASSET_EXT.search(f.path) and f.status is FileStatus.ADDED][:2]
    out: list[Decision] = []
    for change in docs:
        found = headings(change)
        rule = stated_rule(change)
        if not found and not rule:
            continue
        file = change.path.rsplit("/", 1)[-1]
        quoted = [f"“{h}”" for h in found[:MAX_NAMES]]
        values = {"file": file, "headings": list_sep(language).join(quoted), "rule": rule.rstrip(".")}
        # the rule it states says more than its headings (which often repeat the PR's title)
        title = phrase(language, "k_docs_rule_title", **values) if rule else phrase(language, "k_docs_title", **values)
        explanation = phrase(language, "k_docs", **values) if found else phrase(language, "k_docs_rule", **values)
        references = [change.path, *(assets if not out else [])]
        out.append(Decision(title=fit(title, 160), explanation=fit(explanation.strip(), 900),
                            references=references[:8]))
    return out


@dataclass(eq=False)  # one per definition: compared (and hashed) by identity
class _TestDef:
    path: str
    name: str
    signature: str
    marks: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    qualname: str = ""  # with the class it is in (`TestX.test_y`), as pytest names it
    doc: str = ""  # its docstring, when added

    @property
    def reference(self) -> str:
        return f"{self.path}::{self.qualname or self.name}"


def _test_definitions(change: FileChange) -> list[_TestDef]:
    """The definitions whose definition line is added, with the decorators above them and their added body."""
    out: list[_TestDef] = []
    marks: list[str] = []
    current: _TestDef | None = None
    for raw in (change.patch or "").split("\n"):
        if not raw or raw[0] not in " +" or raw.startswith("+++"):
            continue
        line, added = raw[1:], raw[0] == "+"
        stripped = line.strip()
        if marks and bracket_depth(marks[-1]) > 0:  # a decorator's arguments go on below it
            marks[-1] += " " + stripped
            continue
        if stripped.startswith("@"):
            marks.append(stripped)
            continue
        m = _DEF.match(line)
        if m:
            current = _TestDef(change.path, m.group(1) or m.group(2), line, marks) if added else None
            if current is not None:
                out.append(current)
            marks = []
            continue
        if stripped and not line.startswith((" ", "\t")):
            current = None  # module level again
        if marks and not stripped.startswith(("@", ")", "]", "(", "'", '"', "#")) and stripped:
            marks = [] if not line.startswith((" ", "\t")) else marks
        if current is not None and added:
            current.body.append(line)
    # the same names in the same order (two classes may each have a `test_basic`)
    found: dict[str, list[tuple[str, str]]] = {}
    for d in file_definitions(change).definitions:
        if d.new:
            found.setdefault(d.name, []).append((d.qualname, d.doc))
    named = [(d, (found.get(d.name) or [(d.name, "")]).pop(0)) for d in out]
    return [replace(d, qualname=qualname, doc=doc) for d, (qualname, doc) in named]


def test_points(changes: list[FileChange], language: str) -> list[Decision]:
    defs = [d for c in changes for d in _test_definitions(c)]
    out: list[Decision] = []
    fixtures = [(d, _FIXTURE.match(m)) for d in defs for m in d.marks if _FIXTURE.match(m)]
    if fixtures:
        names = [d.name for d, _ in fixtures]
        scopes = [s.group(1) for _, m in fixtures if m and m.group("args") and (s := _SCOPE.search(m.group("args")))]
        users = [d for d in defs if d.name not in names and any(re.search(rf"\b{n}\b", d.signature) for n in names)]
        key = "k_fixture_scoped" if scopes else "k_fixture"
        values = {"names": code_names(names, MAX_NAMES, language), "scope": scopes[0] if scopes else "",
                  "file": fixtures[0][0].path.rsplit("/", 1)[-1]}
        parametrised = [(d, args) for d, m in fixtures if m and (args := m.group("args")) and _PARAMS.search(args)]
        if parametrised:  # what every test taking it is run over says more than that it is shared
            d, args = parametrised[0]
            key = "k_fixture_params_autouse" if _AUTOUSE.search(args) else "k_fixture_params"
            values = {"names": code_names([x.name for x, _ in parametrised], MAX_NAMES, language),
                      "values": code_names(_param_values(args), 4, language), "file": file_of(d),
                      "reach": d.path.rsplit("/", 1)[0] + "/" if file_of(d) == "conftest.py" else d.path}
        point = _point(language, key, values, [d for d, _ in fixtures][:2] + users[:1])
        doc = parametrised[0][0].doc if parametrised else ""
        if doc and is_prose(doc) and not is_measurement(doc):  # the authors' account of what it exercises
            point.explanation = fit(then(language, point.explanation,
                                         phrase(language, "p_original", quote=brief(doc, 400))), 900)
        out.append(point)
    params = [(d, m.group(1)) for d in defs for mark in d.marks if (m := _PARAMETRIZE.match(mark))]
    if params:
        axes_of: dict[str, list[str]] = {}  # each test's own axes (two marks on one test: one entry)
        for d, p in params:
            axes_of.setdefault(d.name, []).extend(a.strip() for a in p.split(",") if a.strip())
        lead = max(axes_of, key=lambda n: len(set(axes_of[n])))
        axes = list(dict.fromkeys(axes_of[lead]))
        names = [n for n in axes_of if set(axes_of[n]) == set(axes)]  # only the tests run over all of them
        values = {"axes": code_names(axes, 4, language), "names": code_names(names, 2, language),
                  "file": params[0][0].path.rsplit("/", 1)[-1]}
        out.append(_point(language, "k_parametrize", values, [d for d, _ in params if d.name in names][:2]))
    if tables := _case_tables(changes):
        values = {"names": code_names([d.name for d in tables], 2, language), "file": file_of(tables[0])}
        out.append(_point(language, "k_case_table", values, tables[:2]))
    # the oracle: a reference implementation the result is compared with, or the comparison itself
    oracles = [(d, line) for d in defs for i, line in enumerate(d.body)
               if _COMPARE.search(line) or (_REFERENCE.search(line) and _compared(line, d.body[i + 1:]))]
    if oracles:
        d, line = next(((x, y) for x, y in oracles if _REFERENCE.search(y)), oracles[0])
        reference, compare = _REFERENCE.search(line), _COMPARE.search(line)
        oracle = reference.group(1) if reference else compare.group(0) if compare else ""
        via = phrase(language, "k_oracle_via", compare=compare.group(0)) if reference and compare else ""
        values = {"oracle": oracle, "via": via, "file": file_of(d),
                  "names": code_names(list(dict.fromkeys(x.name for x, _ in oracles)), 2, language)}
        # a comparison alone (`assert_close`) is how the result is checked, not what it is checked against
        out.append(_point(language, "k_oracle" if reference else "k_compare", values,
                          list(dict.fromkeys(x for x, _ in oracles))[:2]))
    stand_ins = [(d, m.group(1)) for d in defs for line in d.body for m in [_STAND_IN.search(line)] if m]
    if stand_ins and len(out) < 3:
        d, what = stand_ins[0]
        values = {"what": what.rstrip("("), "names": code_names(list(dict.fromkeys(x.name for x, _ in stand_ins)), 2,
                                                                language), "file": d.path.rsplit("/", 1)[-1]}
        out.append(_point(language, "k_stand_in", values, list(dict.fromkeys(x for x, _ in stand_ins))[:2]))
    return out[:3]


def _case_tables(changes: list[FileChange]) -> list[_TestDef]:
    """The new tests (of any language) that run over a table of cases they add, each with its added lines;
    where the table is declared apart from any test the diff names (`INSTANTIATE_TEST_SUITE_P`, an annotation
    above a method), the file's new suite (a type) or new methods, or the file itself."""
    out = []
    for c in changes:
        defs = file_definitions(c).definitions
        found = [d for d in defs if d.new and any(CASE_TABLE.search(x) for x in d.added_code)]
        if not found and any(CASE_TABLE.search(x) for x in _added(c)):
            # the new suite (a type: its helper methods are not tests), else the new methods (JUnit's)
            found = [d for d in defs if d.new and d.is_type][:1] or [d for d in defs if d.new][:2]
            if not found:
                name = c.path.rsplit("/", 1)[-1]
                out.append(_TestDef(c.path, name, "", qualname=name))
        out += [_TestDef(c.path, d.name, "", body=list(d.added_code), qualname=d.qualname) for d in found]
    return out


def _param_values(args: str) -> list[str]:
    """The values a fixture's `params=` lists (`["flashinfer", "pytorch"]`), or the name it takes them from."""
    m = _PARAMS.search(args)
    rest = args[m.end():] if m else ""
    if not rest.startswith(("[", "(")):
        return [re.split(r"[,)\s]", rest, maxsplit=1)[0]] if rest else []
    end = closing_bracket(rest, 0)
    parts = top_level_split(rest[1:end] if end >= 0 else rest[1:])
    if end < 0:
        parts = parts[:-1]  # cut off before its bracket closes: the last value is not whole
    return [p.strip() for p in parts if p.strip()]


_ASSIGNED = re.compile(r"^\s*(\w+)\s*=[^=]")
_CHECKS = re.compile(r"\bassert\w*|\bexpect\(")


def _compared(line: str, later: list[str]) -> bool:
    """Whether what this line computes is checked: on the line itself (`assert out == ref(x)`), or through
    the name it is assigned to (`expected = ref(x)` ... `assert_close(out, expected)`), or a value computed
    from that name. A call that is never
    checked (a test server's `self.ref(name)`) is no oracle."""
    if _checks(line):
        return True
    assigned = _ASSIGNED.match(line)
    if assigned is None:
        return False
    tracked = {assigned.group(1)}
    for x in _statements(later):  # through values computed from it: `ref = oracle(x)`, `kept = {i for i in ref}`
        names = set(re.findall(r"[A-Za-z_]\w*", x))
        if names & tracked:
            if _checks(x):
                return True
            if (derived := _ASSIGNED.match(x)) is not None:
                tracked.add(derived.group(1))
    return False


def _statements(lines: list[str]) -> list[str]:
    """The lines joined into statements where brackets run on over lines (`assert sorted(a) == sorted(` ...)."""
    out: list[str] = []
    depth = 0
    for line in lines:
        if depth > 0 and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
        depth = max(0, depth + bracket_depth(line))  # a `"[INFO"` in a message opens nothing
    return out


def _checks(line: str) -> bool:
    return bool(_CHECKS.search(line) or _COMPARE.search(line))


def new_tests(changes: list[FileChange]) -> list[str]:
    """`path::TestClass.test_name` of the test functions (and test classes) the changes add, each named with
    the class it is in (from the diff, its hunk header or the head file's outline), as pytest knows it."""
    return [f"{d.path}::{d.qualname}" for c in changes for d in file_definitions(c).definitions
            if d.new and d.name.lower().startswith("test")]


def file_of(d: _TestDef) -> str:
    return d.path.rsplit("/", 1)[-1]


def _point(language: str, key: str, values: dict[str, object], defs: list[_TestDef]) -> Decision:
    refs = list(dict.fromkeys(x for d in defs for x in (d.path, d.reference)))
    return Decision(title=fit(phrase(language, key + "_title", **values), 160),
                    explanation=fit(phrase(language, key, **values), 900), references=refs[:8])
