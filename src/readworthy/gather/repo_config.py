"""`.github/readworthy.yml`, read from the PR's BASE branch: a PR must not change the rules that judge it.

A broken file never stops a run: the problems come back as messages (for the log and the job
summary) and the defaults stand in for whatever could not be used. Only keys that fail validation
are dropped; the rest of the file still applies.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

import yaml
from pydantic import ValidationError

from ..config import RepoConfig
from ..errors import ConfigError, GitHubError
from ..pack.classify import parse_kind
from ..pack.prompt import section_shares
from .github_api import GitHub
from .rest import read_contents

CONFIG_PATH = ".github/readworthy.yml"
MAX_CONFIG_BYTES = 64 * 1024  # a config file is a few lines; anything bigger is a mistake or an attack


def load_repo_config(gh: GitHub, repo: str, base_ref: str) -> tuple[RepoConfig, list[str]]:
    """(config, problems). No file -> defaults and no problems."""
    try:
        data = read_contents(gh, repo, CONFIG_PATH, base_ref)
    except GitHubError as exc:
        why = f"GitHub answered {exc.status}" if exc.status else "GitHub did not answer usably"
        return RepoConfig(), [f"{CONFIG_PATH}: could not be read from {base_ref} ({why}); using defaults"]
    if data is None:
        return RepoConfig(), []
    text, problem = _decode(data)
    if problem:
        return RepoConfig(), [f"{CONFIG_PATH}: {problem}; using defaults"]
    return parse_repo_config(text, source=f"{CONFIG_PATH}@{base_ref}")


def _decode(data: Any) -> tuple[str, str]:
    if not isinstance(data, dict) or data.get("type") != "file":
        return "", "is not a file"
    if int(data.get("size") or 0) > MAX_CONFIG_BYTES:
        return "", f"is larger than {MAX_CONFIG_BYTES // 1024} KiB"
    try:
        return base64.b64decode(data.get("content") or "").decode("utf-8"), ""
    except (binascii.Error, UnicodeDecodeError):
        return "", "is not UTF-8 text"


def parse_repo_config(text: str, source: str = CONFIG_PATH) -> tuple[RepoConfig, list[str]]:
    """Parse and validate the YAML text; invalid keys are reported and dropped."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return RepoConfig(), [f"{source}: not valid YAML{where} ({reason}); using defaults"]
    if raw is None:
        return RepoConfig(), []
    if not isinstance(raw, dict):
        return RepoConfig(), [f"{source}: must be a mapping of settings, got {type(raw).__name__}; using defaults"]
    try:
        return _check_for_packing(RepoConfig.model_validate(raw), source, [])
    except ValidationError as exc:
        problems, bad_keys = [], set()
        for err in exc.errors():
            loc = [str(p) for p in err["loc"]]
            bad_keys.add(loc[0] if loc else "")
            hint = " (unknown setting — check the spelling)" if err["type"] == "extra_forbidden" else ""
            problems.append(f"{source}: {'.'.join(loc)}: {err['msg']}{hint}; ignored")
    kept = {k: v for k, v in raw.items() if str(k) not in bad_keys}
    try:
        return _check_for_packing(RepoConfig.model_validate(kept), source, problems)
    except ValidationError:
        return RepoConfig(), [*problems, f"{source}: using defaults"]


def _check_for_packing(config: RepoConfig, source: str, problems: list[str]) -> tuple[RepoConfig, list[str]]:
    """What only the packer can judge (section names, file kinds) is checked here too: a bad value found
    while packing would fail every review, so it is reported and dropped like any other bad key."""
    problems = list(problems)
    update: dict[str, Any] = {}
    try:
        section_shares(config.section_shares)
    except ConfigError as exc:
        problems.append(f"{source}: section_shares: {exc}; ignored")
        update["section_shares"] = {}
    kinds = {}
    for pattern, kind in config.file_kinds.items():
        try:
            parse_kind(kind)
            kinds[pattern] = kind
        except ConfigError as exc:
            problems.append(f"{source}: file_kinds.{pattern}: {exc}; ignored")
    if len(kinds) != len(config.file_kinds):
        update["file_kinds"] = kinds
    return (config.model_copy(update=update) if update else config), problems
