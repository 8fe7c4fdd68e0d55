"""Build a PRContext without GitHub: from a patch file, stdin, or a git range of the current repository.

This is `readworthy local`'s gather stage. git runs as a subprocess, read-only. The repository's
CODEOWNERS and `.github/readworthy.yml` (audience, language, budget, taste ...) are read as the action
reads them from the base branch: at the merge base for a git range, and from the working tree of the
repository the command runs in for a patch (none outside a repository).
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import RepoConfig
from ..errors import InputError
from ..models import Commit, PRContext
from .diffparse import parse_patch
from .outline import MAX_OUTLINE_BYTES, add_outlines
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
        data = _read_stdin()
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


def _read_stdin() -> bytes:
    stdin = sys.stdin
    try:
        if stdin is None:  # started with standard input closed (`<&-`)
            raise OSError("closed")
        return stdin.buffer.read(MAX_PATCH_BYTES + 1)
    except (OSError, ValueError):
        raise InputError("--patch -: standard input is closed, so there is no diff to read; pipe one in "
                         "(git diff main | readworthy local --patch -) or give --patch FILE") from None


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


def _git_show_bytes(ref: str, path: str, cwd: Path) -> bytes | None:
    """A file's bytes at `ref`, or None when it does not exist there."""
    proc = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=cwd, capture_output=True, check=False, timeout=60)
    return proc.stdout if proc.returncode == 0 else None


def _git_show(ref: str, path: str, cwd: Path) -> str | None:
    """A file's text at `ref`, or None when it does not exist there."""
    data = _git_show_bytes(ref, path, cwd)
    return data.decode("utf-8", errors="replace") if data is not None else None


def _git_blob(ref: str, path: str, cwd: Path) -> bytes | None:
    """A file's bytes at `ref` for its outline; None when it is not there or over MAX_OUTLINE_BYTES."""
    try:
        proc = subprocess.run(["git", "cat-file", "-s", f"{ref}:{path}"], cwd=cwd, capture_output=True,
                              check=False, timeout=60)
        if proc.returncode != 0 or int(proc.stdout.strip() or 0) > MAX_OUTLINE_BYTES:
            return None
        return _git_show_bytes(ref, path, cwd)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


@dataclass(frozen=True)
class LocalRepo:
    """What the repository around a local run says about it (nothing outside a repository)."""

    root: str = ""  # the repository's top directory, "" when there is none
    codeowners_path: str = ""  # the CODEOWNERS GitHub would use, "" when there is none
    config: RepoConfig = RepoConfig()
    config_found: bool = False  # `.github/readworthy.yml` exists where it was read
    owners: dict[str, list[str]] | None = None
    areas: dict[str, list[str]] | None = None


def repo_files(read: Callable[[str], str | None], paths: list[str], root: str) -> LocalRepo:
    """CODEOWNERS owners and `.github/readworthy.yml` (areas and the rest) for the changed paths, each file
    read with `read(path)` (None: not there). Problems in the file are logged, as the action reports them."""
    found = first_codeowners({p: read(p) for p in CODEOWNERS_PATHS})
    config_text = read(CONFIG_PATH)
    config, problems = parse_repo_config(config_text) if config_text is not None else (RepoConfig(), [])
    for problem in problems:
        log.warning("%s", problem)
    return LocalRepo(root=root, codeowners_path=found[0] if found else "", config=config,
                     config_found=config_text is not None, owners=match_owners(found[1], paths) if found else {},
                     areas=match_areas(config.areas, paths))


def working_tree_root(cwd: Path) -> Path | None:
    """The top directory of the git repository `cwd` is in; None outside one (or without git)."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True, check=False,
                              timeout=30)
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    top = proc.stdout.decode("utf-8", errors="replace").strip()
    return Path(top) if proc.returncode == 0 and top else None


def _working_tree_file(root: Path, path: str) -> str | None:
    try:
        return (root / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None  # absent (or unreadable, a directory): as GitHub, no file there


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
    return local_context(source, cwd)[0]


def local_context(source: LocalSource, cwd: Path | None = None) -> tuple[PRContext, LocalRepo]:
    """The PRContext of a patch or a git range, and what the repository says about it (see the module
    docstring): its owners and areas are in the context; its configuration is the caller's to apply."""
    cwd = cwd or Path.cwd()
    if source.patch is not None:
        text = read_patch_text(source.patch)
        if not text.strip():
            raise InputError(f"no changes: the patch {'on stdin' if source.patch == '-' else source.patch} is "
                             "empty (did `git diff` print nothing?)")
        parsed = parse_patch(text)
        commits = parsed.commits
        root = working_tree_root(cwd)
        paths = [f.path for f in parsed.files]
        repo = repo_files(lambda path: _working_tree_file(root, path), paths, str(root)) if root else LocalRepo()
    elif source.base:
        diff, commits = git_range_patch(source.base, source.head, cwd)
        if not diff.strip():
            raise InputError(f"no changes between {source.base} and {source.head}")
        parsed = parse_patch(diff)
        merge_base = _git(["merge-base", source.base, source.head], cwd).strip()
        repo = repo_files(lambda path: _git_show(merge_base, path, cwd), [f.path for f in parsed.files], str(cwd))
    else:
        raise InputError("nothing to analyze: give --patch FILE (or - for stdin) or --base REF")
    owners, areas = repo.owners or {}, repo.areas or {}
    files = parsed.files
    if source.patch is None:  # the head says which method a change under a `class` hunk header is in
        files = add_outlines(files, lambda path: _git_blob(source.head, path, cwd))
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
    ), repo
