"""The house rules of src/readworthy that a reader relies on, checked on the real code.

- One door to GitHub: only three modules import PyGithub (or requests, its transport).
- Only action.py talks to the Actions runner (annotations, groups, masks, outputs, `::` commands).
- No module over 500 lines; no import circles: between modules (imports for type checking count: a
  reader must untangle those too), between subpackages (pack/ must not reach up into memory/ while memory/
  builds on pack/), and between the bench/ scripts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "readworthy"
GITHUB_DOORS = {"gather/github_api.py", "gather/rest.py", "publish.py"}
RUNNER_DOOR = "action.py"
MAX_LINES = 500


def modules() -> dict[str, ast.Module]:
    return {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for p in sorted(PACKAGE.rglob("*.py"))}


def imported_roots(tree: ast.Module) -> set[str]:
    """Top-level names of every absolute import in the module, wherever it is (also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_scan_sees_the_real_package() -> None:
    trees = modules()
    assert set(trees) >= GITHUB_DOORS and RUNNER_DOOR in trees
    assert "github" in imported_roots(trees["publish.py"]), "the scan must see publish.py's PyGithub import"


def test_only_the_doors_import_pygithub() -> None:
    offenders = {name for name, tree in modules().items()
                 if {"github", "requests", "urllib3"} & imported_roots(tree)} - GITHUB_DOORS
    assert not offenders, f"PyGithub is used outside the door modules {sorted(GITHUB_DOORS)}: {sorted(offenders)}"


WORKFLOW_COMMAND = re.compile(r"^::[a-z][a-z-]*(::| )")  # `::warning::`, `::group::`, `::add-mask::` ...


def _runner_commands(tree: ast.Module) -> list[str]:
    """String constants that would be workflow commands if printed. (A bare `::` is our own
    `path::symbol` separator, not a command.)"""
    return [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and WORKFLOW_COMMAND.match(n.value)]


def test_only_action_py_talks_to_the_runner() -> None:
    for name, tree in modules().items():
        if name == RUNNER_DOOR:
            continue
        assert "actions_toolkit" not in imported_roots(tree), f"{name} writes runner annotations; only action.py may"
        assert not _runner_commands(tree), f"{name} prints workflow commands: {_runner_commands(tree)}"


def test_no_module_is_over_500_lines() -> None:
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in PACKAGE.rglob("*.py")}
    big = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not big, f"split these modules (over {MAX_LINES} lines): {big}"


def _module_name(path: str) -> str:
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["readworthy", *parts])


def _resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """Absolute module names an ImportFrom refers to (a `from . import x` may name modules)."""
    if node.level == 0:
        base = node.module or ""
    else:
        parts = importer.split(".")
        package = parts if is_package else parts[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    trees = modules()
    names = {_module_name(path): path for path in trees}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        tree = trees[path]
        for node in ast.walk(tree):  # everywhere: in functions and under `if TYPE_CHECKING:` too
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base, *members = _resolve(name, path.endswith("__init__.py"), node)
                # `from . import shapes` depends on the submodule, not on the package's __init__ (which
                # every submodule's import runs anyway); `from .x import f` depends on x.
                submodules = [m for m in members if m in names]
                targets = submodules or [base]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[name] |= {t for t in targets if t in names and t != name}
    return graph


def test_the_import_graph_is_read() -> None:
    graph = import_graph()
    assert "readworthy.publish" in graph["readworthy.review"]
    assert "readworthy.gather.github_api" in graph["readworthy.gather.rest"]


def circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of `graph` (its nodes, the first repeated at the end), or [] when there is none."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_circle_finder_finds_circles() -> None:
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": set(), "c": {"a"}}) == []


def test_no_import_circles() -> None:
    found = circle(import_graph())
    assert not found, "import circle: " + " -> ".join(found)


def subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """gather, pack, analyze ... -> the subpackages their modules import (top-level modules left out: config,
    models and notes are the shared ground every stage stands on)."""
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}

    def of(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if len(parts) > 2 and parts[1] in subpackages else None

    out: dict[str, set[str]] = {name: set() for name in subpackages}
    for importer, imported in graph.items():
        for target in imported:
            a, b = of(importer), of(target)
            if a and b and a != b:
                out[a].add(b)
    return out


# Known, to untangle: spend/catch_up.py reads digest/budget.py's GitHub request budget while digest/run.py
# spends through spend/ledger.py (the request budget belongs below both, in gather/).
KNOWN_SUBPACKAGE_EDGES = {("spend", "digest")}


def test_no_circles_between_subpackages() -> None:
    graph = subpackage_graph(import_graph())
    assert "pack" in graph["memory"] and "pack" in graph["analyze"]  # the scan sees real edges
    for importer, imported in KNOWN_SUBPACKAGE_EDGES:
        graph.get(importer, set()).discard(imported)
    found = circle(graph)
    assert not found, "subpackages import each other in a circle: " + " -> ".join(found)


BENCH = PACKAGE.parents[1] / "bench"


def bench_graph() -> dict[str, set[str]]:
    """bench/ script -> the sibling scripts it imports (they import each other by plain name, anywhere)."""
    scripts = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(BENCH.glob("*.py"))}
    return {name: imported_roots(tree) & set(scripts) - {name} for name, tree in scripts.items()}


# Known circles, to untangle (issue 24's fitting scripts import back what imports them): listed edge by edge
# so that any other circle, or a new edge in these scripts, still fails.
KNOWN_BENCH_EDGES = {("verdicts", "verdict_cv"), ("fit_verdicts", "verdict_cv")}


def test_no_import_circles_in_bench() -> None:
    graph = bench_graph()
    assert "verdicts" in graph["taste_memory"]  # the scan sees real edges
    for importer, imported in KNOWN_BENCH_EDGES:
        graph.get(importer, set()).discard(imported)
    found = circle(graph)
    assert not found, "bench/ import circle: " + " -> ".join(found)
