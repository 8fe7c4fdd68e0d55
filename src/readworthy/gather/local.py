"""Build a PRContext without GitHub: from a patch file, stdin, or a git range of the current repository.

This is `readworthy local`'s gather stage. git runs as a subprocess, read-only.
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
    if source.patch is not None:
        parsed = parse_patch(read_patch_text(source.patch))
        commits = parsed.commits
    elif source.base:
        diff, commits = git_range_patch(source.base, source.head, cwd)
        if not diff.strip():
            raise InputError(f"no changes between {source.base} and {source.head}")
        parsed = parse_patch(diff)
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
        gather_notes=parsed.notes,
    )
