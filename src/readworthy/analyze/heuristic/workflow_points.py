"""Design points of a CI-only PR: what its workflow files now decide about when and how jobs run.

A CI file holds no functions or classes for the other readers to name, but its decisions have a few shapes
that read the same in GitHub Actions, Buildkite or GitLab: a job that runs only when a condition holds
(`if:`), a run only for changes under some paths (`paths:`, a paths filter), a matrix of values each job
runs over, a concurrency group whose newer run cancels the one in progress, and a cache keyed on files.
Everything quoted is added text of the PR.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ...models import Decision, FileChange
from .wording import code_names, fit, list_sep, phrase

_WORKFLOW = re.compile(r"(?:^|/)(?:\.github/workflows/[^/]+|\.buildkite/.+|\.gitlab-ci|\.circleci/[^/]+)\.ya?ml$")
_KEY = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[\w.-]+):\s*(?P<value>.*?)\s*$")
_LABEL = re.compile(r"^\s*-?\s*(?:label|name):\s*[\"']?(?P<name>[^\"'#]+?)[\"']?\s*$")
_LIST_ITEM = re.compile(r"^\s*-\s+[\"']?(?P<item>[^\"'#]+?)[\"']?\s*$")
_COMMENT = re.compile(r"^\s*#\s?(?P<text>.*)$")
# a step's status condition (`always()`, `failure()`) says when a step reports, not which jobs a change runs
_STATUS_ONLY = re.compile(r"^\$?\{?\{?\s*!?\s*(?:always|success|failure|cancelled)\(\)\s*\}?\}?$")
MAX_VALUES = 4


def is_workflow(path: str) -> bool:
    return bool(_WORKFLOW.search(path))


def workflow_points(changes: Sequence[FileChange], language: str) -> list[Decision]:
    """At most three points from the added lines of CI files: gates, path filters, matrices, concurrency
    and caches, in that order."""
    out: list[Decision] = []
    for change in changes:
        lines = _new_side(change.patch or "")
        out += _points(change.path, lines, language)
    return out[:3]


def _new_side(patch: str) -> list[tuple[str, bool]]:
    """The new file's lines the patch shows, each with whether the PR adds it."""
    return [(raw[1:], raw[0] == "+") for raw in patch.split("\n")
            if raw and raw[0] in " +" and not raw.startswith("+++")]


def _points(path: str, lines: list[tuple[str, bool]], language: str) -> list[Decision]:
    name = path.rsplit("/", 1)[-1]
    found: dict[str, Decision] = {}
    for i, (line, added) in enumerate(lines):
        m = _KEY.match(line)
        if not added or m is None or _COMMENT.match(line):
            continue
        key, value, indent = m.group("key"), m.group("value"), len(m.group("indent"))
        kind, values = "", {}
        if key == "if" and value and "w_gate" not in found and not _STATUS_ONLY.match(value):
            kind, values = "w_gate", {"job": _owner(lines, i, indent), "condition": value}
        elif key in ("paths", "filters") and "w_paths" not in found and "w_filters" not in found:
            groups = _groups(lines, i, indent)
            if groups and groups[0][0]:  # named filters, each a list of globs
                sep = list_sep(language)
                shown = [phrase(language, "w_filter", name=name, paths=code_names(items, 2, language))
                         for name, items in groups[:2]]
                kind, values = "w_filters", {"filters": sep.join(shown)}
            elif groups:
                kind, values = "w_paths", {"paths": code_names(groups[0][1], MAX_VALUES, language)}
        elif key == "matrix" and "w_matrix" not in found:
            axes = _axes(lines, i, indent)
            if axes:
                axis, items = axes[0]
                kind, values = "w_matrix", {"axis": axis, "values": code_names(items, MAX_VALUES, language)}
        elif key == "concurrency" and "w_concurrency" not in found:
            inner = {k: v for k, v in _children(lines, i, indent)}
            if "cancel-in-progress" in inner or value:
                kind, values = "w_concurrency", {"group": inner.get("group", value) or "—"}
        elif key in ("cache-dependency-path", "key") and "w_cache" not in found and _caches(lines, i):
            items = _items(lines, i, indent) or ([value] if value else [])
            if items:
                kind, values = "w_cache", {"inputs": code_names(items, MAX_VALUES, language)}
        if kind:
            why = _comment_above(lines, i, indent)
            text = phrase(language, kind, file=name, **values)
            if why:
                text += phrase(language, "w_why", why=why)
            found[kind] = Decision(title=fit(phrase(language, kind + "_title", **values), 160),
                                   explanation=fit(text, 900), references=[path])
    order = ("w_gate", "w_filters", "w_paths", "w_matrix", "w_concurrency", "w_cache")
    return [found[k] for k in order if k in found]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" -"))


def _nested(lines: list[tuple[str, bool]], at: int, indent: int) -> Iterator[tuple[int, str]]:
    """The lines nested under the key at `at` (indented deeper than `indent`), with their indices; blank and
    comment lines left out."""
    for i in range(at + 1, len(lines)):
        line = lines[i][0]
        if not line.strip() or _COMMENT.match(line):
            continue
        if _indent(line) <= indent:
            return
        yield i, line


def _children(lines: list[tuple[str, bool]], at: int, indent: int) -> list[tuple[str, str]]:
    """The `key: value` lines nested under the key at `at`."""
    return [(m.group("key"), m.group("value")) for _, line in _nested(lines, at, indent) if (m := _KEY.match(line))]


def _items(lines: list[tuple[str, bool]], at: int, indent: int) -> list[str]:
    """The list items nested under the key at `at` (a `|` block's lines too), quotes dropped."""
    out = []
    for _, line in _nested(lines, at, indent):
        if m := _LIST_ITEM.match(line):
            out.append(m.group("item"))
        elif ":" not in line:
            out.append(line.strip())
    return out


def _groups(lines: list[tuple[str, bool]], at: int, indent: int) -> list[tuple[str, list[str]]]:
    """A paths filter's named lists (`kernels:` then its globs), or a plain paths list as one unnamed ("")."""
    out = [(m.group("key"), items) for i, line in _nested(lines, at, indent)
           if (m := _KEY.match(line)) and not m.group("value") and (items := _items(lines, i, _indent(line)))]
    if not out and (items := _items(lines, at, indent)):
        out = [("", items)]
    return out


def _axes(lines: list[tuple[str, bool]], at: int, indent: int) -> list[tuple[str, list[str]]]:
    """A matrix's axes, each with its values: `python-version: ["3.9", "3.10"]` or a list under the key."""
    out = []
    for i, line in _nested(lines, at, indent):
        m = _KEY.match(line)
        if m is None or m.group("key") in ("include", "exclude"):
            continue
        value = m.group("value")
        if value.startswith("["):
            items = [x.strip().strip("\"'") for x in value.strip("[]").split(",") if x.strip()]
        else:
            items = _items(lines, i, len(m.group("indent")))
        if items:
            out.append((m.group("key"), items))
    return out


def _owner(lines: list[tuple[str, bool]], at: int, indent: int) -> str:
    """The job or step the key at `at` belongs to: the nearest key or label above it, less indented."""
    for line, _ in reversed(lines[:at]):
        if not line.strip() or _COMMENT.match(line):
            continue
        # a list item's keys line up with the text after its dash: the item itself starts at the dash
        if (m := _LABEL.match(line)) and len(line) - len(line.lstrip(" ")) < indent:
            return m.group("name")
        if _indent(line) >= indent:
            continue
        if (m := _KEY.match(line)) and not m.group("value"):
            return m.group("key")
    return "—"


def _caches(lines: list[tuple[str, bool]], at: int) -> bool:
    """Whether the key at `at` is a cache's: `cache-dependency-path`, or a `key:` of a step that uses a
    cache (its lines above, up to the step's own `- ` line, name one)."""
    line = lines[at][0]
    if line.strip().startswith("cache-dependency-path"):
        return True
    indent = _indent(line)
    for above, _ in reversed(lines[:at]):
        if "cache" in above and not _COMMENT.match(above):
            return True
        if above.strip() and _indent(above) < indent and above.lstrip().startswith("-"):
            return False  # the step's first line, already read
    return False


def _comment_above(lines: list[tuple[str, bool]], at: int, indent: int) -> str:
    """The added comment just above the key at `at` (or above its parent block), as one sentence."""
    words: list[str] = []
    i = at - 1
    while i >= 0 and (m := _COMMENT.match(lines[i][0])) and lines[i][1]:
        words.insert(0, m.group("text").strip())
        i -= 1
    return " ".join(w for w in words if w)[:300]
