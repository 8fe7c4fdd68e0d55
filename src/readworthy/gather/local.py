"""Build a PRContext without GitHub: from a patch file, stdin, or a git range of the current repository.

This is `readworthy local`'s gather stage. git runs as a subprocess, read-only. For a git range the
audience comes from CODEOWNERS and `.github/readworthy.yml` at the merge base, as the action reads them.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..models import Commit, PRContext
from .diffparse import parse_patch
from .owners import CODEOWNERS_PATHS, first_codeowners, match_areas, match_owners
from .repo_config import CONFIG_PATH, parse_repo_config

log = logging.getLogger(__name__)

# A git range can be big; a patch larger than this is refused rather than exhausting memory.
MAX_PATCH_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class LocalSource:
    """What the user pointed `readworthy local` at, plus optional PR prose."""

    patch: str | None = None  # a path, or "-" for stdin
    base: str | None = None
    head: str = "HEAD"
    title: str = ""
    body: str = ""


def read_patch_text(patch: str) -> str:
    """Read a patch file (or stdin for "-") as text; bytes that are not UTF-8 become U+FFFD."""
    if patch == "-":
        data = sys.stdin.buffer.read(MAX_PATCH_BYTES + 1)
    else:
        path = Path(patch)
        if path.is_dir():
            raise InputError(f"--patch {patch} is a directory; give a patch file (git diff > change.patch) "
                             "or - to read stdin")
        if not path.exists():
            raise InputError(f"patch file not found: {patch}")
        if path.is_file() and path.stat().st_size > MAX_PATCH_BYTES:
            raise InputError(f"patch file is larger than {MAX_PATCH_BYTES // 2**20} MiB: {patch}")
        try:  # not only regular files: `--patch <(git diff)` is a pipe
            with path.open("rb") as handle:
                data = handle.read(MAX_PATCH_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read patch file {patch}: {exc.strerror or exc}") from None
    if len(data) > MAX_PATCH_BYTES:
        raise InputError(f"patch {'on stdin' if patch == '-' else patch} is larger than "
                         f"{MAX_PATCH_BYTES // 2**20} MiB")
    return data.decode("utf-8", errors="replace")


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, check=False, timeout=300
        )
    except FileNotFoundError:
        raise InputError("git is not installed; use --patch FILE instead of --base/--head") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip()
        raise InputError(
            f"git {' '.join(args)} failed ({err or 'exit ' + str(proc.returncode)}). "
            "Is the current directory a git repository, and do both refs exist?"
        )
    return proc.stdout.decode("utf-8", errors="replace")


def _git_show(ref: str, path: str, cwd: Path) -> str | None:
    """A file's text at `ref`, or None when it does not exist there."""
    proc = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=cwd, capture_output=True, check=False, timeout=60)
    return proc.stdout.decode("utf-8", errors="replace") if proc.returncode == 0 else None


def base_audience(merge_base: str, paths: list[str], cwd: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """CODEOWNERS owners and `.github/readworthy.yml` areas of the changed paths, read at the merge base
    like the action reads them from the base branch: the change must not pick its own audience."""
    found = first_codeowners({p: _git_show(merge_base, p, cwd) for p in CODEOWNERS_PATHS})
    owners = match_owners(found[1], paths) if found else {}
    config_text = _git_show(merge_base, CONFIG_PATH, cwd)
    areas = parse_repo_config(config_text)[0].areas if config_text is not None else {}
    return owners, match_areas(areas, paths)


def git_range_patch(base: str, head: str, cwd: Path) -> tuple[str, list[Commit]]:
    """The diff base...head (what a PR from head into base would show) and its commits, oldest first."""
    merge_base = _git(["merge-base", base, head], cwd).strip()
    diff = _git(["diff", "--no-color", "--find-renames", "--no-ext-diff", merge_base, head], cwd)
    log = _git(["log", "--reverse", "--no-color", "--format=%H%x1f%an%x1f%B%x1e", f"{merge_base}..{head}"], cwd)
    commits = []
    for record in log.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, author, message = (record.split("\x1f", 2) + ["", ""])[:3]
        commits.append(Commit(sha=sha, author=author, message=message.strip()))
    return diff, commits


def context_from_source(source: LocalSource, cwd: Path | None = None) -> PRContext:
    """A PRContext from a patch or a git range. Title defaults to the first commit subject."""
    cwd = cwd or Path.cwd()
    owners: dict[str, list[str]] = {}
    areas: dict[str, list[str]] = {}
    if source.patch is not None:  # a patch may come from anywhere: no repository to ask for owners
        parsed = parse_patch(read_patch_text(source.patch))
        commits = parsed.commits
    elif source.base:
        diff, commits = git_range_patch(source.base, source.head, cwd)
        if not diff.strip():
            raise InputError(f"no changes between {source.base} and {source.head}")
        parsed = parse_patch(diff)
        merge_base = _git(["merge-base", source.base, source.head], cwd).strip()
        owners, areas = base_audience(merge_base, [f.path for f in parsed.files], cwd)
    else:
        raise InputError("nothing to analyze: give --patch FILE (or - for stdin) or --base REF")
    files = parsed.files
    for note in parsed.notes:
        log.warning("%s", note)  # the user can fix their input; the comment says it too
    title = source.title or (commits[0].message.splitlines()[0] if commits and commits[0].message else "")
    return PRContext(
        title=title,
        body=source.body,
        files=files,
        changed_files=len(files),
        additions=sum(f.additions for f in files),
        deletions=sum(f.deletions for f in files),
        commits=commits,
        commit_count=len(commits),
        head_sha=commits[-1].sha if commits else "",
        owners=owners,
        areas=areas,
        gather_notes=parsed.notes,
    )
