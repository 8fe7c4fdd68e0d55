"""A throwaway git repository for tests that read real `git` output."""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable
from pathlib import Path

AUTHOR = "Test Person"


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd`; its stdout (a failure raises)."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def new_repo(path: Path, branch: str = "main") -> Callable[..., str]:
    """`git init` at `path` with an author set; returns `git` bound to it."""
    run = functools.partial(git, path)
    run("init", "-q", "-b", branch)
    run("config", "user.email", "t@example.invalid")
    run("config", "user.name", AUTHOR)
    return run
