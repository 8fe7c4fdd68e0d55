"""Line-level detectors: what kind of edit a diff's added and removed lines make.

Each function answers one question about lines (is this only a version move? a removed guard? a
changed default? an import path?) without judging the PR; signals.py collects the answers.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

from ...languages import HASH_COMMENTS, PYTHON, SLASH_COMMENTS, written_in
from ...models import FileChange
from ...pack.classify import definition_name, patterns_for
from .docstrings import code_outside_docstrings, docstring_tail, without_blanks

# A changed line that only moves a version: `pkg==1.2`, `pkg>=1,!=1.3`, `ARG X_VERSION=v1`, `x = "1.2"`,
# `x = { git = "...", tag = "v0.1" }`, `FROM image:1.2`, `uses: owner/action@v4`, `rev: v1.2.3`.
# A lookahead or a possessive quantifier (`++`) where a run could be split several ways: a line is
# read in time linear in its length (a 1 MB line is one line of a PR).
_VERSION_LINE = re.compile(
    r"""^\s*(?:
        [\w.\-\[\],]+\s*(?:===|==|>=|<=|~=|!=|<|>|@)\s*\S+(?:\s*[,;].*)?     # pip specifiers
      | (?:ARG|ENV)\s+\w*(?:VERSION|REF|TAG|SHA|COMMIT)\w*\s*[=\s]\s*\S+     # Dockerfile build args
      | [\w.\-]+\s*=\s*["'][^"'\d]*\d+\.\d[^"']*["']\s*,?                   # toml/ini  x = "1.2" (not "float16")
      | [\w.\-]+\s*=\s*\{(?=.*(?:version|tag|rev|branch)\s*=).*\}\s*,?      # toml table with a version
      | ["']?[\w.\-@/]+["']?\s*:\s*(?:["'](?:[~^>=<]+\d|\d+\.\d)[\w.\-]*["']  # json/yaml "x": "^1.2" (not "0")
           | [~^>=<]+\d[\w.\-]* | \d+\.\d+\.\d[\w.\-]*)\s*,?                  # x: ^1.2, x: 1.2.3 (not `warps: 8`)
      | FROM\s+\S+:\S+.*                                                    # base image tag
      | (?:-\s*)?uses:\s*[^\s@]++@\S++                                      # GitHub Actions pins
      | (?:rev|tag|version|ref)\s*[:=]\s*\S+                                # pre-commit / yaml pins
      | [\w.\-\[\]]+                                                        # a bare requirement name
    )\s*$""",
    re.VERBOSE,
)
COMMENT_LINE = re.compile(r"^\s*(?:#|//|--|;|/\*|\*)")
# Where only `//` and `/* */` start a comment, `#` is code (C's preprocessor, a Rust attribute).
_C_COMMENT_LINE = re.compile(r"^\s*(?://|/\*|\*)")
# A guard: an assertion, a raise, or a check macro. Removing one changes what is allowed. A raise names the
# error it makes (`raise ValueError(`, `throw new Error(`); `raise exc` or `throw lastErr;` passes on one
# caught elsewhere, and removing it changes where a failure goes, not what is allowed.
_GUARD = re.compile(r"^\s*(?:assert\b|raise\s+(?:[A-Z]|[\w.]+\s*\()|throw\s+(?:new\b|[A-Z]|[\w.:]+\s*[({])|"
                    r"(?:TORCH|CHECK|DCHECK|TORCH_CHECK|STD_TORCH_CHECK|"
                    r"AT_ASSERT|HOST_CHECK)\w*\s*\(|static_assert\s*\(|(?:assert|assert_eq|assert_ne|ensure|bail|"
                    r"panic)!\s*\(|if\s.*:\s*raise\b)")
_IMPORT = re.compile(r"^\s*(?:from\s+[\w.]+\s+import\b|import\s+[\w.]+|#include\s*[<\"]|use\s+(?:crate|super|self)?"
                     r"[\w:{}, *]*;|(?:pub\s+)?mod\s+\w+;|require\(|export\s+\*?\s*\{?.*\bfrom\b"
                     r"|\w+(?:\s+as\s+\w+)?,\s*$|\)\s*$)")
_PATH_STRING = re.compile(r"""["'][\w./-]+/[\w./-]+["']""")
# Security words. A title may say it plainly ("[Security]", "auth"); a description or commit body uses
# those words about anything, so there only the specific ones count.
_SECURITY_SPECIFIC = (r"\bCVE-\d{4}-\d{3,}|\bGHSA-[\w-]+|trust_remote_code|\bvulnerab\w*|\binjection\b|path traversal"
                      r"|\bXSS\b|\bSSRF\b|\bRCE\b|arbitrary code")
# "Security" names a claim only as a tag or beside a fix ("[Security] …", "security fix", "harden security"):
# "the security finding's key" or "security policy docs" only mention the word.
_SECURITY_CLAIM = (r"\[security\]|\(security\)!?:|^\s*security\s*(?:\([^)]*\))?:"
                   r"|\bsecurity[\s-]+(?:fix|patch|issue|hole|bug|flaw|risk|hardening|advisory|vulnerab)\w*"
                   r"|\b(?:fix|harden|tighten|improve)\w*\s+(?:the\s+|\w+\s+)?security\b")
_SECURITY_TITLE = re.compile(_SECURITY_SPECIFIC + "|" + _SECURITY_CLAIM
                             + r"|untrusted|\bauth(?:entication|orization)?\b"
                             r"|saniti[sz]\w*\s+(?:user|input|path|url|file|html|prompt|request)\w*", re.IGNORECASE)
_SECURITY_PROSE = re.compile(_SECURITY_SPECIFIC, re.IGNORECASE)
_CHECK_OR_REFUSAL = re.compile(r"^\s*(?:if|elif|assert|raise|throw|unless|TORCH_CHECK|return\s+Err|bail!|panic!)\b")
# In code the words must sit in a check: `trust_remote_code` is passed around by ordinary code.
_SECURITY_CODE = re.compile(r"(?P<w>\bCVE-\d{4}-\d{3,}|weights_only\s*=\s*True|shell\s*=\s*False)|"
                            r"^\s*(?:if|elif|assert|raise|unless|TORCH_CHECK)\b.*\b(?P<v>trust_remote_code|untrusted)\b",
                            re.IGNORECASE)
# A comment that explains why, not what: the reasoning a reader learns from.
# (`SAFETY:` is Rust's convention for the reason an `unsafe` block is sound; an invariant says what must hold)
_WHY = re.compile(r"\b(?:because|otherwise|so that|in order to|to avoid|avoids?|prevents?|ensures?|must(?:n't)?|"
                  r"workaround|overflows?|race|deadlock|would|since|instead of|guarantees?|invariants?)\b"
                  r"|\bSAFETY:", re.IGNORECASE)
_BUILD_STAGE = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*\S+\s+AS\s+(\S+)\s*$", re.IGNORECASE)
_BUILD_USE = re.compile(r"(?:^\s*FROM\s+(?:--\S+\s+)*|--from=)([\w.${}-]+)", re.IGNORECASE)


def diff_lines(patch: str | None) -> tuple[list[str], list[str]]:
    """Added and removed lines of a patch, in one pass."""
    added: list[str] = []
    removed: list[str] = []
    for line in patch.split("\n") if patch else ():
        if line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
    return added, removed


# One test run over a table of cases, in any language: Go's `[]struct{...}` walked with `range`, `it.each` /
# `test.each`, JUnit's `@ParameterizedTest`, Rust's `#[rstest]` with `#[case]`, GoogleTest's `TEST_P` with
# `INSTANTIATE_TEST_SUITE_P` (pytest's parametrize has axes of its own, read apart).
CASE_TABLE = re.compile(r"\[\]struct\s*\{|\b(?:it|test|describe)\.each\b|@ParameterizedTest\b"
                        r"|#\[(?:rstest|case|test_case)\b|\b(?:TEST_P|TYPED_TEST_P?)\s*\(|\bINSTANTIATE_TEST_SUITE_P\b")
# A test that sets up a technique: a fixture, a parametrisation, a comparison against a reference.
_TEST_TECHNIQUE = re.compile(r"^\s*@pytest\.(?:fixture|mark\.parametrize)\b|\b(?:assert_close|allclose|assert_allclose|"
                             r"assert_array_equal|hypothesis|@given|ref_\w+\(|reference_\w+\()|\bt\.Run\(|"
                             + CASE_TABLE.pattern)
_DOC_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S|^\s*[=-]{3,}\s*$|^\s*\.\. \w+::")


def is_test_technique(line: str) -> bool:
    """A test line that sets up a reusable technique (fixture, parametrisation, a table of cases, oracle)."""
    return bool(_TEST_TECHNIQUE.search(line))


# `@pytest.fixture(params=[...])`, its arguments on one line or several: every test taking it runs once per value
_PARAMETRISED_FIXTURE = re.compile(r"@pytest\.fixture\((?:[^()]|\([^()]*\))*?\bparams\s*=")
_PARAMETRISATION = re.compile(r"@pytest\.mark\.parametrize\b|\bparams\s*=")


def parametrised_fixtures(added: Sequence[str]) -> int:
    """How many parametrised fixtures these added test lines define."""
    return len(_PARAMETRISED_FIXTURE.findall("\n".join(added))) if any("params" in x for x in added) else 0


def is_parametrisation(line: str) -> bool:
    """A line that parametrises tests: a `parametrize` mark or a fixture's `params=`."""
    return bool(_PARAMETRISATION.search(line))


def is_doc_heading(line: str) -> bool:
    """A Markdown or reStructuredText heading: a new section of a page."""
    return bool(_DOC_HEADING.match(line))


def is_why_comment(line: str) -> bool:
    """A comment line that gives a reason ("because", "to avoid", "otherwise" ...)."""
    return bool(COMMENT_LINE.match(line)) and bool(_WHY.search(line))


def is_version_change(added: list[str], removed: list[str]) -> bool:
    changed = added + removed
    meaningful = [line for line in changed if line.strip() and not COMMENT_LINE.match(line)]
    return bool(meaningful) and all(_VERSION_LINE.match(line) for line in meaningful)


# A version, tag or hash inside a line: `1.2.3`, `v0.27`, `nightly-2026-08-01`, `3f9c2ab`, `rocm/img:6.4_abc`.
_VERSION_TOKEN = re.compile(r"(?<![A-Za-z_])v?\d[\w.+\-]*|\b[0-9a-f]{7,40}\b|(?<=:)[\w.\-]+(?=[\"'\s]|$)")


def _version_shape(line: str) -> str:
    """The line with its versions, tags and hashes blanked: two lines of the same shape differ only there."""
    return _VERSION_TOKEN.sub("#", " ".join(line.split()))


# One line of a table of values (JSON, CSV): a number under an optional key, or brackets. A flag (`true`) is a
# setting, not a table entry.
_VALUE = r"(?:[-+]?\.?\d[\w.+-]*)"
_VALUE_LINE = re.compile(rf"""^\s*(?:(?:"[^"]*"|'[^']*'|[\w.-]+)\s*:\s*)?"""
                         rf"""(?:{_VALUE}|\[\s*(?:{_VALUE}(?:\s*,\s*{_VALUE})*\s*,?)?\s*\]?|\{{)?\s*[\]}}]*\s*,?\s*$"""
                         rf"""|^\s*{_VALUE}(?:\s*[,\t]\s*{_VALUE})+\s*,?\s*$""", re.IGNORECASE)
DATA_TABLE_SUFFIXES = (".json", ".csv", ".tsv")
DATA_TABLE_MIN_LINES = 10  # fewer changed numbers are a setting or two, not a table


def is_value_table(path: str, added: list[str], removed: list[str]) -> bool:
    """A data file whose changed lines are only values (tuned kernel parameters, benchmark tables): numbers
    under keys and the brackets around them, nothing a reader follows as logic."""
    lines = [x for x in added + removed if x.strip()]
    return path.lower().endswith(DATA_TABLE_SUFFIXES) and len(lines) >= DATA_TABLE_MIN_LINES \
        and all(_VALUE_LINE.match(x) for x in lines)


def only_versions_moved(added: list[str], removed: list[str]) -> bool:
    """Every changed line is an old line with only a version, tag or hash inside it moved, and each holds
    one that is not a bare number (`img:6.4`, `v0.27`; `block_size = 16` -> `32` is a changed value)."""
    lines = [x for x in added + removed if x.strip() and not COMMENT_LINE.match(x)]
    return bool(lines) and not logic_lines(added, removed) and all(
        any(not t.isdigit() for t in _VERSION_TOKEN.findall(x)) for x in lines)


def logic_lines(added: list[str], removed: list[str]) -> int:
    """Changed lines that are neither comments, blank, version specifiers, imports (a name that moved between
    modules is found elsewhere, not computed differently), nor an old line whose only change is a version,
    tag or hash inside it (`image: "repo/img:1.2"` -> `...:1.3` is a version move, not logic)."""
    def meaningful(lines: list[str]) -> list[str]:
        return [x for x in lines if x.strip() and not COMMENT_LINE.match(x) and not _VERSION_LINE.match(x)
                and not _IMPORT.match(x)]

    plus, minus = meaningful(added), meaningful(removed)
    same_shape = Counter(_version_shape(x) for x in plus) & Counter(_version_shape(x) for x in minus)
    return len(plus) + len(minus) - 2 * sum(same_shape.values())


def is_cosmetic(path: str, patch: str | None, added: list[str], removed: list[str]) -> bool:
    """Only comments (Python docstrings too), blank lines or whitespace changed: typo fixes, reformatting,
    comment edits.
    The code's characters must stay the same, in the same order and in the same place: each hunk on its
    own, so a line moved to another hunk (an import moved into a function) is not cosmetic. `added` and
    `removed` are the patch's lines (the whole file's test first: most files fail it)."""
    if not added and not removed:
        return False
    comment = comment_pattern(path)

    def code(lines: list[str]) -> str:
        return "".join(without_blanks(x) for x in lines if x.strip() and not comment.match(x))

    hunks = re.split(r"^@@[^\n]*$", patch or "", flags=re.MULTILINE)
    if code(added) != code(removed):
        return written_in(path, PYTHON) and all(map(_only_docstrings_differ, hunks))
    return all(code(plus) == code(minus) for plus, minus in map(diff_lines, hunks))


def _only_docstrings_differ(hunk: str) -> bool:
    """A Python hunk whose two sides hold the same code once docstrings and comments are left out."""
    lines = [x for x in hunk.split("\n") if x]
    sides = [code_outside_docstrings([x[1:] for x in lines if x[0] in marks], docstring_tail(lines, marks),
                                     COMMENT_LINE) for marks in (" -", " +")]
    return sides[0] is not None and sides[0] == sides[1]


def repeated_change_paths(changes: Sequence[FileChange], added: dict[str, list[str]]) -> frozenset[str]:
    """The files that got the very same added lines (license headers, an import rename), when they are at
    least 5 and half of the files that add anything; else none."""
    signatures: defaultdict[tuple[str, ...], list[str]] = defaultdict(list)
    for c in changes:
        if c.additions and added[c.path]:
            signatures[tuple(line.strip() for line in added[c.path][:20])].append(c.path)
    if not signatures:
        return frozenset()
    group = max(signatures.values(), key=len)
    with_additions = sum(1 for c in changes if c.additions)
    return frozenset(group) if len(group) >= 5 and len(group) * 2 >= with_additions else frozenset()


def guard_lines(lines: Iterable[str]) -> list[str]:
    """The lines that are guards (what a removed guard may have become)."""
    return [x.strip() for x in lines if _GUARD.match(x)]


def removed_guards(patch: str | None, path: str, added_guards: set[str]) -> list[tuple[str, str]]:
    """Removed assertions, raises and check macros that are not added back anywhere in the PR (moved) nor
    rewritten in the same file (a widened condition still checks its names), in code that stays: a run
    of removed lines that deletes a whole definition is dead code going away. Each as (its line as written,
    what to show): a `raise` is shown with the removed `if` it sat under, which says what was checked."""
    patterns = patterns_for(path)
    added, removed = diff_lines(patch)
    found: list[tuple[str, str]] = []
    run: list[str] = []
    for line in [*(patch or "").split("\n"), ""]:
        if line.startswith("-") and not line.startswith("---"):
            run.append(line[1:])
            continue
        defined = [name for x in run if patterns and (name := definition_name(x, patterns))]
        # a deleted definition is dead code going away, unless removed code elsewhere called it: then the
        # checks in it ran, and stop running (a validator deleted with the `__post_init__` calling it)
        if run and (not defined or _called_elsewhere(defined, removed, run)):
            for i, x in enumerate(run):
                if _GUARD.match(x) and not _kept(x.strip(), added_guards, added):
                    guard = _whole_statement(run, i)
                    found.append((x, _with_condition(guard, x, run[:i])))
                elif (refusal := _early_refusal(run, i)) and not _kept(refusal, added_guards, added):
                    found.append((x, refusal))
        run = []
    return found


def _called_elsewhere(names: Sequence[str], removed: Sequence[str], run: Sequence[str]) -> bool:
    """Whether a removed line outside `run` calls one of `names`."""
    inside = set(run)
    for name in names:
        call = re.compile(rf"\b{re.escape(name)}\s*\(")
        if any(call.search(x) and definition_name(x) != name for x in removed if x not in inside):
            return True
    return False


_IF_LINE = re.compile(r"^\s*if\s.+:\s*$")
_REFUSAL = re.compile(r"^\s*return\s+(?:False|None)\s*$")


def _early_refusal(run: Sequence[str], at: int) -> str:
    """`if cond:` over `return False` (or `None`), both removed and the return its whole body: a Python
    early refusal, shown as `if cond: return False`; else ""."""
    if not _IF_LINE.match(run[at]) or at + 1 >= len(run) or not _REFUSAL.match(run[at + 1]):
        return ""
    depth = len(run[at]) - len(run[at].lstrip())
    body_ends = at + 2 >= len(run) or not run[at + 2].strip() or len(run[at + 2]) - len(run[at + 2].lstrip()) <= depth
    deeper = len(run[at + 1]) - len(run[at + 1].lstrip()) > depth
    return f"{run[at].strip()} {run[at + 1].strip()}" if deeper and body_ends else ""


STATEMENT_MAX_LINES = 4  # lines a check spread over is joined from to quote it whole


def _whole_statement(run: Sequence[str], at: int) -> str:
    """The removed check at `at` as one line: a `CHECK(cond, "message",` spread over removed lines is
    joined until its brackets close, so the quote does not stop mid-call; one that never closes within
    reach is shown as its first line."""
    parts = [run[at].strip()]
    if _RAISE.match(parts[0]):  # a raise says what it checked by the `if` above it (_with_condition), not its message
        return parts[0].removesuffix("(").rstrip(", ")
    for line in run[at + 1: at + STATEMENT_MAX_LINES]:
        if bracket_depth(" ".join(parts)) <= 0:
            break
        parts.append(line.strip())
    if bracket_depth(" ".join(parts)) == 0:
        return " ".join(parts)
    return parts[0].removesuffix("(").rstrip(", ")


def bracket_depth(text: str) -> int:
    """Brackets opened minus closed in `text`, those inside string literals left out."""
    code = re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", "", text)  # brackets inside messages do not count
    return sum((c in "([{") - (c in ")]}") for c in code)


def closing_bracket(text: str, at: int, brackets: tuple[str, str] = ("([{", ")]}")) -> int:
    """The index of the bracket that closes the one at `at` (counting only `brackets`: opening, closing), or -1
    when `text` ends before it does."""
    opening, closing = brackets
    depth = 0
    for i in range(at, len(text)):
        depth += (text[i] in opening) - (text[i] in closing)
        if depth == 0:
            return i
    return -1


def top_level_split(text: str) -> list[str]:
    """`text` split at the commas outside its brackets: `int, dict[str, int]` -> `int`, ` dict[str, int]`."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c in "([{") - (c in ")]}")
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


_RAISE = re.compile(r"^(?:raise|throw)\s")
CONDITION_LOOKBACK = 40  # removed lines searched above a raise for the `if` it sits under
_IF = re.compile(r"^\s*(?:el)?if\b")


def _with_condition(guard: str, line: str, before: Sequence[str]) -> str:
    """`raise ValueError` as `if n < block: raise ValueError` when the removed lines above hold the `if`
    it sits under (less indented, its condition possibly spread over lines) and the raise follows it
    directly: the lines as written, so the quote is the removed text. Else the guard alone; an assertion
    or a check macro carries its own condition."""
    if not _RAISE.match(guard):
        return guard
    depth = len(line) - len(line.lstrip())
    # the `if` is a few lines up; a bound keeps a run of thousands of removed raises linear
    for k in range(len(before) - 1, max(-1, len(before) - 1 - CONDITION_LOOKBACK), -1):
        above = before[k]
        if above.strip() and len(above) - len(above.lstrip()) < depth:
            if above.lstrip().startswith(")"):  # the close of a condition spread over lines
                continue
            if not _IF.match(above):
                return guard
            header = [part.strip() for part in before[k:]]
            # quoted verbatim, so only when the raise follows the condition's last line directly
            if header[-1].endswith((":", "{")) and not any(x.endswith((":", "{")) for x in header[:-1]):
                return " ".join([*header, guard])
            return guard
    return guard


_CHECK_WORDS = frozenset({"assert", "raise", "throw", "if", "not", "and", "or", "in", "is", "None", "True", "False",
                          "static_assert", "ensure", "bail", "panic", "assert_eq", "assert_ne", "f"})


def checked_names(line: str) -> set[str]:
    """The names a guard's condition tests (not the check macro, the error type or the message's words)."""
    code = re.sub(r"\"[^\"]*\"|'[^']*'", " ", line)  # messages out
    names = set(re.findall(r"[A-Za-z_]\w*", code)) - _CHECK_WORDS
    return {n for n in names if not n.endswith(("CHECK", "Error", "Exception", "Warning"))}


def _kept(guard: str, added_guards: set[str], added: Sequence[str] = ()) -> bool:
    """The guard is added back, as it was or reworded (a clearer message, a wider condition): an added
    guard like it, or one of the file's added guards or conditions testing the same names."""
    if guard in added_guards:
        return True
    head = re.split(r"[\s(,]", guard, maxsplit=1)[0]
    if any(SequenceMatcher(None, guard, x).ratio() >= 0.6 for x in added_guards if x.startswith(head)):
        return True
    names = checked_names(guard)
    if not names:
        return False
    tests = [x for x in added if _GUARD.match(x) or _CONDITION.match(x)]
    return any(names <= checked_names(x) | assigned_from(added, x) for x in tests)


# A test in code: a branch, an assertion, a check macro, or a boolean a function returns (`return a and not b`).
_CONDITION = re.compile(r"^\s*(?:if|elif|unless|while|assert|static_assert)\b|^\s*(?:\w+_)?CHECK\w*\s*\("
                        r"|^\s*return\s.*\b(?:and|or|not)\b")


def assigned_from(added: Sequence[str], test: str) -> set[str]:
    """Names a condition tests through a local it tests: `ratio = a // b` then `CHECK(ratio in ...)`."""
    used = checked_names(test)
    out: set[str] = set()
    for line in added:
        m = re.match(r"^\s*(?:const\s+)?(?:auto\s+|int\s+|\w+\s+)?([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", line)
        if m and m.group(1) in used:
            out |= set(re.findall(r"[A-Za-z_]\w*", m.group(2)))
    return out


def comment_pattern(path: str) -> re.Pattern[str]:
    """What starts a comment line in this file (in C-family files `#` is the preprocessor, not a comment)."""
    slash_only = written_in(path, SLASH_COMMENTS) and not written_in(path, HASH_COMMENTS)
    return _C_COMMENT_LINE if slash_only else COMMENT_LINE


_CODE_NAME = re.compile(r"`([^`\n]+)`|\b([A-Za-z]\w*_\w*|\w*[a-z][A-Z]\w*|\w*[A-Z]{2}[a-z]\w*)\b")


def code_names_in(text: str) -> str:
    """The names prose writes as code: in backticks, or shaped like an identifier (`snake_case`,
    `camelCase`, `CamelCase`, `HTTPServer`), joined by blanks; plain words ("entry", "Store") are left out."""
    return " ".join(m.group(1) or m.group(2) for m in _CODE_NAME.finditer(text))


def code_lines(lines: Iterable[str]) -> list[str]:
    """The lines that are code: not blank, not a comment line."""
    return [x for x in lines if x.strip() and not COMMENT_LINE.match(x)]


def is_import_line(line: str) -> bool:
    """An import, include or `use` line, or a line of a parenthesised import list."""
    return bool(_IMPORT.match(line))


def is_import_or_path_edit(added: list[str], removed: list[str]) -> bool:
    """Every changed line is an import, a module declaration or a line whose change is a path string
    swapped in place: what a move leaves behind in the files that refer to the moved code. A line with a
    path that is added or removed outright (`"/tmp/",` joining an allow-list) changes what the code does."""
    plus, minus = ([x for x in code_lines(lines) if not _IMPORT.match(x)] for lines in (added, removed))
    if not code_lines(added + removed):
        return False

    def shape(line: str) -> str:
        return _PATH_STRING.sub('""', " ".join(line.split()))
    return all(_PATH_STRING.search(x) for x in plus + minus) and Counter(map(shape, plus)) == Counter(map(shape, minus))


def moved_lines(added: Iterable[str], removed: Iterable[str]) -> tuple[int, int]:
    """(moved, total) added lines of code: moved when the same line was removed somewhere in the PR
    (code carried to another file) or when it is an import line (what a move leaves behind)."""
    pool = Counter(x.strip() for x in removed if x.strip())
    moved = total = 0
    for line in added:
        text = line.strip()
        if not text or COMMENT_LINE.match(line):
            continue
        total += 1
        if pool[text] > 0:
            pool[text] -= 1
            moved += 1
        elif _IMPORT.match(line):
            moved += 1
    return moved, total


def security_words(title: str, prose: Iterable[str], code_lines: Iterable[str]) -> list[str]:
    """Security words in the title, in the description and commit bodies (specific ones only) and, in
    added code, inside a check."""
    found: dict[str, None] = {}

    def keep(word: str) -> None:
        found.setdefault(word if word.upper().startswith(("CVE", "GHSA")) else word.lower(), None)

    for m in _SECURITY_TITLE.finditer(title):
        keep("security" if "security" in m.group(0).lower() else m.group(0))
    for text in prose:
        for m in _SECURITY_PROSE.finditer(text):
            keep(m.group(0))
    for line in code_lines:
        if any(w in line for w in ("CVE", "trust_remote", "weights_only", "shell", "untrusted")):
            for m in _SECURITY_CODE.finditer(line):
                keep(m.group("w") or m.group("v"))
        if _CHECK_OR_REFUSAL.match(line):  # a check or refusal naming the attack (`raise ... path traversal`)
            for m in _SECURITY_PROSE.finditer(line):
                keep(m.group(0))
    return list(found)


def build_stages(added: list[str], removed: list[str], kept: Sequence[str] = ()) -> list[str]:
    """New image build stages (`FROM x AS name`) that other added lines build on (`FROM name`,
    `--from=name`), inserted into a build that already had named stages (in its `kept` context or
    removed lines): an existing stage graph layered anew. Turning a one-stage file into the familiar
    build-then-runtime pair is not that."""
    before = {m.group(1) for m in map(_BUILD_STAGE.match, [*removed, *kept]) if m}
    if not before:
        return []
    new = [m.group(1) for m in map(_BUILD_STAGE.match, added) if m and m.group(1) not in before]
    used = {m.group(1) for line in added for m in _BUILD_USE.finditer(line)}
    return [name for name in new if name in used]
