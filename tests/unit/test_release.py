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


def builds_by_hand(step: dict[str, Any]) -> bool:
    return bool(re.search(r"\bdocker (buildx )?build\s|\bbuildah (bud|build)\b", str(step.get("run", ""))))


def pushes_archive_by_digest(step: dict[str, Any]) -> bool:
    command = str(step.get("run", ""))
    return bool(re.search(r"skopeo copy\b[^\n]*--preserve-digests[^\n]*oci-archive:", command)) and "docker://$REF" in command


def release_order_problems(workflow: dict[str, Any]) -> list[str]:
    """What lets the workflow publish something untested or re-pin a version, or move a tag before the push
    or backwards; [] when none."""
    problems: list[str] = []
    jobs: dict[str, Any] = workflow.get("jobs") or {}
    test_jobs = jobs_where(jobs, lambda s: runs(s, "scripts/test"))
    smoke_jobs = jobs_where(jobs, lambda s: runs(s, "scripts/container-smoke"))
    build_jobs = jobs_where(jobs, lambda s: uses(s, "docker/build-push-action") or builds_by_hand(s))
    push_jobs = jobs_where(jobs, pushes_archive_by_digest)
    tag_jobs = sorted(set(jobs_where(jobs, git_tag_or_push))
                      | set(jobs_where(jobs, lambda s: image_tag(s) and not pushes_archive_by_digest(s))))
    if not test_jobs or not smoke_jobs:
        problems.append("no job runs scripts/test and scripts/container-smoke")
    if len(build_jobs) != 1:
        return problems + [f"expected one job that builds the image, found {build_jobs}"]
    if len(push_jobs) != 1:
        return problems + [f"expected one job that pushes the built archive by digest, found {push_jobs}"]
    if len(tag_jobs) != 1:
        return problems + [f"expected one job that moves tags, found {tag_jobs}"]
    build, push, publish = build_jobs[0], push_jobs[0], tag_jobs[0]
    if len({build, push, publish}) != 3:
        problems.append("building, pushing and tagging must be separate jobs")

    # check: a released version is refused before anything is built
    check = [name for name in jobs_where(jobs, lambda s: runs(s, "release-version unreleased"))]
    if not check or not set(check) <= ancestors(jobs, build):
        problems.append(f"{build} does not wait for a check that the version was never released")

    # build once, into an archive, pushing nothing
    build_steps = [s for s in steps(jobs[build]) if uses(s, "docker/build-push-action")]
    if len(build_steps) != 1:
        problems.append(f"{build} builds the image {len(build_steps)} times")
    for step in build_steps:
        options = step.get("with") or {}
        if "type=oci" not in str(options.get("outputs", "")) or "push=true" in str(options.get("outputs", "")):
            problems.append("the build does not write an OCI archive, or pushes")
        if options.get("tags") or str(options.get("push", "")).lower() == "true":
            problems.append("the build pushes a tag")
    if writes(jobs[build]) & {"packages", "contents", "all"}:
        problems.append(f"{build} can write packages or contents")

    # smoke-test that very archive
    for name in smoke_jobs:
        if build not in ancestors(jobs, name):
            problems.append(f"{name} does not wait for {build}: it cannot test the built image")
        if not any(runs(s, "scripts/container-smoke") and "SMOKE_IMAGE_ARCHIVE" in str(s.get("env", ""))
                   for s in steps(jobs[name])):
            problems.append(f"{name} smoke-tests an image of its own, not the one {build} built")

    # push that archive, by digest, only after the tests and the smoke test
    untested = sorted(set(test_jobs + smoke_jobs + [build]) - ancestors(jobs, push))
    if untested:
        problems.append(f"{push} does not wait for {untested}")
    for name in test_jobs + smoke_jobs:
        if writes(jobs[name]) & {"packages", "contents", "all"}:
            problems.append(f"{name} can write packages or contents before the tests passed")
    if any(uses(s, "docker/build-push-action") or builds_by_hand(s) for s in steps(jobs[push])):
        problems.append(f"{push} rebuilds the image instead of pushing the tested one")
    check_run = first_index(jobs[push], lambda s: re.search(r"docker run", str(s.get("run", ""))) is not None
                            and "$REF" in str(s.get("run", "")))
    if check_run < first_index(jobs[push], pushes_archive_by_digest):
        problems.append(f"{push} does not run the pushed image (by its digest) after pushing it")

    # push -> tag, each tag once and forward only
    if push not in ancestors(jobs, publish):
        problems.append(f"{publish} moves tags without waiting for {push}")
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
    for i, step in enumerate(steps(job)):
        command = str(step.get("run", ""))
        if re.search(r"git push (--force|-f)\b(?!-with-lease)", command):
            problems.append(f"{publish}: a tag is force-pushed without a lease (it could re-pin a released version)")
        if i == version_tag and "imagetools inspect" not in command:
            problems.append(f"{publish}: the version's image tag is not refused when it exists")
        if i in moves and "release-version moves" not in command:
            problems.append(f"{publish}: the major/minor tags move without comparing versions")
    return problems


# --------------------------------------------------------------------------- the workflow


def test_release_runs_on_version_tags() -> None:
    assert release_workflow()["on"] == {"push": {"tags": ["v*"]}}


def test_release_order_is_check_build_smoke_that_image_push_it_by_digest_tag() -> None:
    assert release_order_problems(release_workflow()) == []


def mutated(change: Any) -> dict[str, Any]:
    workflow = copy.deepcopy(release_workflow())
    change(workflow["jobs"])
    return workflow


def _build_step(jobs: dict[str, Any]) -> dict[str, Any]:
    return next(s for job in jobs.values() for s in steps(job) if uses(s, "docker/build-push-action"))


def _publish(jobs: dict[str, Any]) -> dict[str, Any]:
    return next(job for job in jobs.values() if any(git_tag_or_push(s) for s in steps(job)))


def _step_running(job: dict[str, Any], needle: str) -> dict[str, Any]:
    return next(s for s in steps(job) if needle in str(s.get("run", "")))


def _rebuild_in_push(jobs: dict[str, Any]) -> None:
    jobs["push"]["steps"].insert(0, {"uses": "docker/build-push-action@" + "0" * 40, "with": {"push": True}})
    jobs["build"]["steps"] = [s for s in jobs["build"]["steps"] if not uses(s, "docker/build-push-action")]


def _smoke_builds_its_own(jobs: dict[str, Any]) -> None:
    for step in jobs["smoke"]["steps"]:
        step.pop("env", None)


MUTATIONS = {
    "push without waiting for the tests": lambda jobs: jobs["push"].update(needs=["check", "build", "smoke"]),
    "push without waiting for the smoke test": lambda jobs: jobs["push"].update(needs=["check", "build", "test"]),
    "build pushes a tag": lambda jobs: _build_step(jobs)["with"].update(tags="ghcr.io/o/readworthy:v1"),
    "build pushes instead of writing an archive": lambda jobs: _build_step(jobs)["with"].update(
        outputs="type=image,name=ghcr.io/o/readworthy,push-by-digest=true,push=true"),
    "push rebuilds the image (the pushed image is not the tested one)": _rebuild_in_push,
    "smoke tests an image it builds itself": _smoke_builds_its_own,
    "smoke does not wait for the build": lambda jobs: jobs["smoke"].update(needs=["check"]),
    "no check that the version is unreleased": lambda jobs: jobs["check"]["steps"].pop(),
    "tags without waiting for the push": lambda jobs: _publish(jobs).update(needs=["check"]),
    "tags before the pin": lambda jobs: _publish(jobs)["steps"].reverse(),
    "moves v1 on pre-releases": lambda jobs: [s.pop("if", None) for s in _publish(jobs)["steps"]],
    "test job may push": lambda jobs: jobs["test"].update(permissions={"packages": "write"}),
    "re-pins the version tag with a plain --force": lambda jobs: _step_running(_publish(jobs), "--force-with-lease").update(
        run=_step_running(_publish(jobs), "--force-with-lease")["run"].replace("--force-with-lease=", "--force #")),
    "re-tags an existing version image": lambda jobs: _step_running(_publish(jobs), "imagetools inspect").update(
        run="git push origin \"refs/tags/v$VERSION\"\ndocker buildx imagetools create --tag \"$IMAGE:v$VERSION\" \"$REF\""),
    "moves v1 to any final release (v1.2.5 after v1.3.0)": lambda jobs: _step_running(
        _publish(jobs), "release-version moves").update(run='for tag in "$MINOR" "$MAJOR"; do\n  git tag --force "$tag" '
                                                         'HEAD\n  git push --force-with-lease origin "refs/tags/$tag"\n'
                                                         'done'),
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


EXISTING = ["v1.0.0", "v1.2.4", "v1.3.0", "v1.4.0rc1", "v1", "v1.2", "v1.3", "refs/tags/v1.3.0^{}"]


@pytest.mark.parametrize(("tag", "moved"), [
    ("v1.2.5", ["v1.2"]),           # a backport after v1.3.0: v1 stays on v1.3.0
    ("v1.3.1", ["v1.3", "v1"]),
    ("v1.4.0", ["v1.4", "v1"]),     # v1.4.0rc1 is no release
    ("v1.3.0", ["v1.3", "v1"]),     # itself (the tag it just pushed) does not hold it back
    ("v1.1.9", ["v1.1"]),
    ("v1.0.0", []),                 # v1.0 is not listed, but v1.0.0 exists... and v1.2.4 is newer in v1
    ("v2.0.0", ["v2.0", "v2"]),
    ("v1.5.0rc2", []),              # pre-releases move nothing
])
def test_floating_tags_move_only_forward(tag: str, moved: list[str]) -> None:
    expected = ["v1.0"] if tag == "v1.0.0" else moved  # v1.0.0 is the newest v1.0.x
    assert rv.moves(tag, EXISTING) == expected


def test_moves_from_the_command_line() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "release-version"), "moves", "v1.2.5", *EXISTING],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0 and proc.stdout.split() == ["v1.2"]


def test_a_released_version_is_refused() -> None:
    commit = "a" * 40
    rv.check_unreleased("v1.2.3", commit, commit, False)  # the tag as pushed, no image yet: release it
    with pytest.raises(rv.ReleaseError, match="image tag :v1.2.3 exists already"):
        rv.check_unreleased("v1.2.3", commit, commit, True)
    with pytest.raises(rv.ReleaseError, match="never re-pinned"):
        rv.check_unreleased("v1.2.3", commit, "b" * 40, False)  # moved to its release commit by an earlier run
    with pytest.raises(rv.ReleaseError, match="not on the remote"):
        rv.check_unreleased("v1.2.3", commit, "", False)
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "release-version"), "unreleased", "v1.2.3", commit,
                           "b" * 40, "false"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1 and "never re-pinned" in proc.stderr


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
