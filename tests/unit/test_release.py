"""The release cannot ship what was not tested, and `@v1` users never build.

release.yml's order (test -> build -> push by digest -> tag) is read from the workflow itself: job
`needs:` for the order between jobs, step order inside a job. scripts/release-version's rules (tag ==
pyproject's version == the image action.yml names; the digest pin) are exercised directly.
"""

from __future__ import annotations

import copy
import importlib.machinery
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
DIGEST = "sha256:" + "0123456789abcdef" * 4


def load_release_version() -> ModuleType:
    path = ROOT / "scripts" / "release-version"
    loader = importlib.machinery.SourceFileLoader("release_version", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


rv = load_release_version()


def pyproject_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def release_workflow() -> dict[str, Any]:
    data = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as True
    return data


# --------------------------------------------------------------------------- reading a workflow


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job.get("steps") or [])


def runs(step: dict[str, Any], needle: str) -> bool:
    return needle in str(step.get("run", ""))


def uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).split("@")[0] == action


def needs_of(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def ancestors(jobs: dict[str, Any], name: str) -> set[str]:
    """Every job that must finish before `name` starts (transitive `needs:`)."""
    seen: set[str] = set()
    todo = needs_of(jobs[name])
    while todo:
        dep = todo.pop()
        if dep not in seen:
            seen.add(dep)
            todo += needs_of(jobs.get(dep, {}))
    return seen


def jobs_where(jobs: dict[str, Any], found: Any) -> list[str]:
    return [name for name, job in jobs.items() if any(found(step) for step in steps(job))]


def first_index(job: dict[str, Any], found: Any) -> int:
    return next((i for i, step in enumerate(steps(job)) if found(step)), -1)


def writes(job: dict[str, Any]) -> set[str]:
    perms = job.get("permissions") or {}
    return {scope for scope, level in perms.items() if level == "write"} if isinstance(perms, dict) else {"all"}


def git_tag_or_push(step: dict[str, Any]) -> bool:
    return bool(re.search(r"\bgit (tag|push)\b", str(step.get("run", ""))))


def image_tag(step: dict[str, Any]) -> bool:
    return bool(re.search(r"imagetools create|docker (image )?(push|tag)\b|crane (tag|copy)|skopeo copy",
                          str(step.get("run", ""))))


def release_order_problems(workflow: dict[str, Any]) -> list[str]:
    """What lets the workflow publish something untested, or move a tag before the push; [] when none."""
    problems: list[str] = []
    jobs: dict[str, Any] = workflow.get("jobs") or {}
    test_jobs = jobs_where(jobs, lambda s: runs(s, "scripts/test"))
    smoke_jobs = jobs_where(jobs, lambda s: runs(s, "scripts/container-smoke"))
    build_jobs = jobs_where(jobs, lambda s: uses(s, "docker/build-push-action"))
    tag_jobs = sorted(set(jobs_where(jobs, git_tag_or_push)) | set(jobs_where(jobs, image_tag)))
    if not test_jobs or not smoke_jobs:
        problems.append("no job runs scripts/test and scripts/container-smoke")
    if len(build_jobs) != 1:
        return problems + [f"expected one job that builds the image, found {build_jobs}"]
    if len(tag_jobs) != 1:
        return problems + [f"expected one job that moves tags, found {tag_jobs}"]
    build, publish = build_jobs[0], tag_jobs[0]
    if build == publish:
        problems.append("the image is built and tagged in the same job")

    # test -> build
    untested = sorted(set(test_jobs + smoke_jobs) - ancestors(jobs, build))
    if untested:
        problems.append(f"{build} does not wait for {untested}")
    for name in test_jobs + smoke_jobs:
        if writes(jobs[name]) & {"packages", "contents", "all"}:
            problems.append(f"{name} can write packages or contents before the tests passed")

    # build -> push by digest, once, without a tag
    build_steps = [s for s in steps(jobs[build]) if uses(s, "docker/build-push-action")]
    if len(build_steps) != 1:
        problems.append(f"{build} builds the image {len(build_steps)} times")
    for step in build_steps:
        options = step.get("with") or {}
        outputs = str(options.get("outputs", ""))
        if "push-by-digest=true" not in outputs or "push=true" not in outputs:
            problems.append("the build does not push by digest")
        if options.get("tags") or str(options.get("push", "")).lower() == "true":
            problems.append("the build pushes a tag")
    check_run = first_index(jobs[build], lambda s: "steps.build.outputs.digest" in str(s.get("env", "")) + str(s.get("run", ""))
                            and re.search(r"docker run", str(s.get("run", ""))))
    if check_run < first_index(jobs[build], lambda s: uses(s, "docker/build-push-action")):
        problems.append(f"{build} does not run the pushed image (by its digest) after pushing it")

    # push -> tag
    if build not in ancestors(jobs, publish):
        problems.append(f"{publish} moves tags without waiting for {build}")
    job = jobs[publish]
    public = first_index(job, lambda s: runs(s, "manifest inspect") and runs(s, "DOCKER_CONFIG"))
    pin = first_index(job, lambda s: runs(s, "release-version pin"))
    version_tag = first_index(job, lambda s: git_tag_or_push(s) and runs(s, "$VERSION"))
    moves = [i for i, s in enumerate(steps(job)) if git_tag_or_push(s) and "prerelease" in str(s.get("if", ""))]
    first_tag = min((i for i, s in enumerate(steps(job)) if git_tag_or_push(s) or image_tag(s)), default=-1)
    if not 0 <= public < pin:
        problems.append(f"{publish} does not check that the image is public before the release commit")
    if not 0 <= pin < first_tag:
        problems.append(f"{publish} tags before the release commit pins the digest in action.yml")
    if not 0 <= version_tag < min(moves, default=-1):
        problems.append(f"{publish}: the major/minor tags do not move after the version tag, or move on pre-releases")
    return problems


# --------------------------------------------------------------------------- the workflow


def test_release_runs_on_version_tags() -> None:
    assert release_workflow()["on"] == {"push": {"tags": ["v*"]}}


def test_release_order_is_test_build_push_by_digest_tag() -> None:
    assert release_order_problems(release_workflow()) == []


def mutated(change: Any) -> dict[str, Any]:
    workflow = copy.deepcopy(release_workflow())
    change(workflow["jobs"])
    return workflow


def _build_step(jobs: dict[str, Any]) -> dict[str, Any]:
    return next(s for job in jobs.values() for s in steps(job) if uses(s, "docker/build-push-action"))


def _publish(jobs: dict[str, Any]) -> dict[str, Any]:
    return next(job for job in jobs.values() if any(git_tag_or_push(s) for s in steps(job)))


MUTATIONS = {
    "build without waiting for the tests": lambda jobs: jobs["image"].update(needs=["check"]),
    "build pushes a tag": lambda jobs: _build_step(jobs)["with"].update(tags="ghcr.io/o/readworthy:v1"),
    "build pushes by tag, not digest": lambda jobs: _build_step(jobs)["with"].update(
        outputs="type=image,name=ghcr.io/o/readworthy,push=true"),
    "tags without waiting for the push": lambda jobs: _publish(jobs).update(needs=["check"]),
    "tags before the pin": lambda jobs: _publish(jobs)["steps"].reverse(),
    "moves v1 on pre-releases": lambda jobs: [s.pop("if", None) for s in _publish(jobs)["steps"]],
    "test job may push": lambda jobs: jobs["test"].update(permissions={"packages": "write"}),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_the_order_check_fails_on_a_broken_release(name: str) -> None:
    """Guards the test above: each way of shipping the untested is noticed."""
    assert release_order_problems(mutated(MUTATIONS[name])), name


def test_release_names_the_image_from_the_repository_owner() -> None:
    text = RELEASE.read_text(encoding="utf-8")
    assert "GITHUB_REPOSITORY_OWNER" in text or "github.repository_owner" in text
    assert not re.search(r"ghcr\.io/(readworthy|OWNER)\b", text, re.IGNORECASE), "a fork must release to its own owner"


# --------------------------------------------------------------------------- action.yml and the version


def test_action_runs_the_prebuilt_image_of_pyprojects_version() -> None:
    image = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["image"]
    assert image != "Dockerfile", "`image: Dockerfile` builds the image on every user's runner"
    assert image == f"docker://ghcr.io/readworthy/readworthy:v{pyproject_version()}"


def test_release_version_check_on_this_repository() -> None:
    tag = f"v{pyproject_version()}"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "release-version"), "check", tag],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    assert lines["version"] == pyproject_version() and lines["major"] == tag.split(".")[0]
    wrong = subprocess.run([sys.executable, str(ROOT / "scripts" / "release-version"), "check", tag + "1"],
                           capture_output=True, text=True, timeout=60, check=False)
    assert wrong.returncode == 1 and "does not match pyproject.toml's version" in wrong.stderr


TAGGED = "docker://ghcr.io/readworthy/readworthy:v{}"


@pytest.mark.parametrize(("version", "expected"), [
    ("1.0.0", {"version": "1.0.0", "minor": "v1.0", "major": "v1", "prerelease": "false"}),
    ("2.13.4", {"version": "2.13.4", "minor": "v2.13", "major": "v2", "prerelease": "false"}),
    ("1.3.0rc1", {"version": "1.3.0rc1", "minor": "v1.3", "major": "v1", "prerelease": "true"}),
])
def test_release_outputs(version: str, expected: dict[str, str]) -> None:
    assert rv.outputs_for(f"v{version}", version, TAGGED.format(version)) == expected


@pytest.mark.parametrize(("tag", "version", "image", "message"), [
    ("v1.0.1", "1.0.0", TAGGED.format("1.0.0"), "does not match"),
    ("1.0.0", "1.0.0", TAGGED.format("1.0.0"), "does not match"),
    ("v1.0", "1.0", TAGGED.format("1.0"), "is not X.Y.Z"),
    ("v1.0.0-rc.1", "1.0.0-rc.1", TAGGED.format("1.0.0-rc.1"), "is not X.Y.Z"),
    ("v1.0.0", "1.0.0", "Dockerfile", "must say"),
    ("v1.1.0", "1.1.0", TAGGED.format("1.0.0"), "must say"),
    ("v1.0.0", "1.0.0", "docker://ghcr.io/readworthy/other:v1.0.0", "must say"),
])
def test_release_refuses(tag: str, version: str, image: str, message: str) -> None:
    with pytest.raises(rv.ReleaseError, match=message):
        rv.outputs_for(tag, version, image)


def test_pin_rewrites_only_the_image_line() -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    ref = f"ghcr.io/some-fork/readworthy@{DIGEST}"
    pinned = rv.pin_digest(text, ref)
    assert yaml.safe_load(pinned)["runs"]["image"] == f"docker://{ref}"
    changed = [(a, b) for a, b in zip(text.splitlines(), pinned.splitlines(), strict=True) if a != b]
    assert len(changed) == 1
    assert yaml.safe_load(pinned)["inputs"] == yaml.safe_load(text)["inputs"]


@pytest.mark.parametrize("ref", [
    "ghcr.io/o/readworthy:v1.0.0",                 # a tag can move
    "ghcr.io/o/readworthy@sha256:abc",              # not a full digest
    "ghcr.io/Owner/readworthy@" + DIGEST,           # GHCR names are lower case
    "docker.io/o/readworthy@" + DIGEST,
])
def test_pin_refuses_what_is_not_a_digest(ref: str) -> None:
    with pytest.raises(rv.ReleaseError, match="not an image reference by digest"):
        rv.pin_digest((ROOT / "action.yml").read_text(encoding="utf-8"), ref)


# --------------------------------------------------------------------------- no placeholders


def shipped_text_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "CONTRIBUTING.md", ROOT / "action.yml"]
    files += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "examples").glob("*.yml"))
    files += sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    return files


def test_no_owner_placeholder_a_user_must_edit() -> None:
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in shipped_text_files()
             for m in re.finditer(r"\bOWNER/readworthy\b|ghcr\.io/OWNER\b", p.read_text(encoding="utf-8"))]
    assert not found, found


def test_license_is_the_full_apache_2_text() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) > 190


def test_the_package_says_the_same_version_as_pyproject() -> None:
    """`readworthy --version` in the released image must print the tag's version (the release checks it)."""
    import readworthy

    assert readworthy.__version__ == pyproject_version()


# --------------------------------------------------------------------------- supply chain


@pytest.mark.parametrize("workflow", sorted((ROOT / ".github" / "workflows").glob("*.yml")), ids=lambda p: p.name)
def test_our_workflows_run_actions_pinned_by_commit(workflow: Path) -> None:
    """The release job can push images and tags: a moved tag in someone else's action must not run there."""
    data = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    used = [str(s["uses"]) for job in data["jobs"].values() for s in steps(job) if "uses" in s]
    assert used, workflow.name
    loose = [u for u in used if not u.startswith("./") and not re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u)]
    assert not loose, f"{workflow.name}: pin these by commit SHA (with the version in a comment): {loose}"
