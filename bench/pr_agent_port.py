"""A port of qodo-ai/pr-agent's diff compression, the baseline bench/packing.py compares against.

Followed: pr-agent 0.49.0 (the PyPI wheel), files pr_agent/algo/pr_processing.py (get_pr_diff,
pr_generate_extended_diff, pr_generate_compressed_diff, generate_full_patch, _append_metadata_section,
_filtered_file_section), pr_agent/algo/language_handler.py (is_valid_file, AUTO_GENERATED_FILES_EXACT,
build_language_file_matcher, sort_files_by_main_languages), pr_agent/algo/file_filter.py
(filter_ignored), pr_agent/algo/git_patch_processing.py (handle_patch_deletions, omit_deletion_hunks),
pr_agent/algo/token_budget.py (clip_tokens), pr_agent/git_providers/github_provider.py (_get_diff_files:
ignore globs, then file-type filtering) and the defaults in pr_agent/settings/{configuration,ignore,
language_extensions}.toml. Written from reading them; no code copied.

What it does, in order (single model call, `large_pr_handling` off, as `/review` runs):
  1. [ignore] globs (default `vendor/**`) drop files without a trace.
  2. File-type filtering: a bad extension (images, archives, `lock`, `svg`, ...; `use_extra_bad_extensions`
     is off by default, so md/txt stay), an auto-generated name (Cargo.lock, uv.lock, package-lock.json,
     ...), or a minified/map suffix: the file is left out of the diff and only named in a last
     "omitted by file-type filtering" list.
  3. Main-language grouping: the repository's languages (GitHub's languages API, largest first) each
     take their files (by extension, via the language/extension table); everything else is "Other",
     last. With no languages (the variant `languages=None`) all files are one group.
  4. If the whole diff (every group in order, deleted files' patches included) fits the soft budget,
     it is the prompt (plus the filtered-file list if it fits).
  5. Otherwise: within each group files are sorted by their rendered patch's tokens, largest first;
     deleted files become names ("Deleted files:"); deletion-only hunks are dropped (a patch that would
     become empty is kept whole, as pr-agent does); whole patches are added in that order while they fit
     (a patch that does not fit is skipped and a later, smaller one may still fit); then the names of
     added files that did not fit, of modified/renamed ones, of deleted ones and of filtered ones, each
     list cut to the room left.
Differences, all forced by the input (plain diffs, no repository): patches are not extended with
extra context lines (that needs the base file), files without a patch (binary) are skipped as pr-agent
skips patch-less files, and the budgets come from the caller: bench/packing.py passes the room its
prompt template leaves as both the soft and the hard budget, which is what 0.49.0 computes when a
per-request input limit (`max_input_tokens`) binds. Token counting is the caller's `count`, so the
budgets are in the same tokens as readworthy's.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

VERSION = "0.49.0"
IGNORE_GLOBS = ("vendor/**",)  # settings/ignore.toml
BAD_EXTENSIONS = frozenset({  # language_extensions.toml [bad_extensions] default
    "app", "bin", "bmp", "bz2", "class", "csv", "dat", "db", "dll", "dylib", "egg", "eot", "exe", "gif",
    "gitignore", "glif", "gradle", "gz", "ico", "jar", "jpeg", "jpg", "lo", "lock", "log", "mp3", "mp4",
    "nar", "o", "ogg", "otf", "p", "pdf", "png", "pickle", "pkl", "pyc", "pyd", "pyo", "rkt", "so",
    "ss", "svg", "tar", "tgz", "tsv", "ttf", "war", "webm", "woff", "woff2", "xz", "zip", "zst", "snap",
    "lockb",
})
AUTO_GENERATED_NAMES = frozenset({
    "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "composer.lock", "Gemfile.lock", "poetry.lock",
    "go.sum", ".terraform.lock.hcl", "uv.lock", "Cargo.lock", "Pipfile.lock", "mix.lock", "pubspec.lock",
    "bun.lockb",
})
AUTO_GENERATED_SUFFIXES = (".min.js", ".min.css", ".js.map", ".ts.map", ".css.map")
# The rows of settings/language_extensions.toml for the languages a repository like vLLM reports. A file
# of any other language lands in "Other" whether or not its language is listed here, and none of these
# extensions is claimed by an earlier row of the full table, so the subset classifies the same.
LANGUAGE_EXTENSIONS: Mapping[str, tuple[str, ...]] = {
    "C": (".c", ".cats", ".h", ".idc", ".w"),
    "C++": (".cpp", ".c++", ".cc", ".cp", ".cxx", ".h++", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".tcc",
            ".tpp", ".C", ".H"),
    "CMake": (".cmake", ".cmake.in"),
    "Cuda": (".cu", ".cuh"),
    "Dockerfile": (".dockerfile", "Dockerfile"),
    "HCL": (".hcl", ".tf"),
    "Makefile": (".mak", ".mk", ".mkfile", "Makefile"),
    "Python": (".py", ".bzl", ".gyp", ".lmi", ".pyde", ".pyp", ".pyt", ".pyw", ".tac", ".wsgi", ".xpy"),
    "Rust": (".rs", ".rs.in"),
    "Shell": (".sh", ".bash", ".bats", ".command", ".ksh", ".sh.in", ".tmux", ".tool", ".zsh"),
}
DELETED_FILES = "Deleted files:\n"
MORE_MODIFIED_FILES = "Additional modified files (insufficient token budget to process):\n"
ADDED_FILES = "Additional added files (insufficient token budget to process):\n"
FILTERED_FILES = "Files changed but omitted from the diff by file-type filtering:\n"
MAX_FILTERED_FILES = 50
ROOM_FOR_LISTS = 10  # delta_tokens: below this much room no name list is built
_HUNK_HEADER_RE = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


@dataclass(frozen=True)
class DiffFile:
    path: str
    status: str  # added | modified | removed | renamed | copied | changed (GitHub's words)
    patch: str | None


@dataclass
class Prepared:
    """Everything that does not depend on the budget, computed once per PR."""

    extended: list[str]  # rendered patches in language order (the "fits whole" diff)
    extended_tokens: int
    compressed: list[tuple[str, str, str]] = field(default_factory=list)  # (path, patch, edit type), in order
    deleted: list[str] = field(default_factory=list)
    filtered: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- filters and grouping


def is_ignored(path: str, globs: Sequence[str] = IGNORE_GLOBS) -> bool:
    return any(re.match(fnmatch.translate(g), path) for g in globs)


def is_valid_file(path: str) -> bool:
    """pr-agent's file-type filter: False for auto-generated names, minified/map files, bad extensions."""
    if not path:
        return False
    if path.replace("\\", "/").split("/")[-1] in AUTO_GENERATED_NAMES or path.endswith(AUTO_GENERATED_SUFFIXES):
        return False
    return path.split(".")[-1].lower() not in BAD_EXTENSIONS


def language_of(path: str, table: Mapping[str, Sequence[str]] = LANGUAGE_EXTENSIONS) -> str | None:
    """The whole file name first, then ever shorter dotted suffixes; exact case, then case-folded if that
    names one language only."""
    exact: dict[str, str] = {}
    folded: dict[str, set[str]] = {}
    for language, extensions in table.items():
        for ext in extensions:
            exact.setdefault(ext.lstrip("*"), language)
            folded.setdefault(ext.lstrip("*").casefold(), set()).add(language)
    depth = max((e.count(".") for e in exact if e.startswith(".")), default=0)
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    parts = name.split(".")
    candidates = [name] + ["." + ".".join(parts[i:]) for i in range(max(1, len(parts) - depth), len(parts))]
    for candidate in candidates:
        if candidate in exact:
            return exact[candidate]
        languages = folded.get(candidate.casefold(), set())
        if len(languages) == 1:
            return next(iter(languages))
    return None


def group_by_language(files: Sequence[DiffFile], languages: Mapping[str, int] | None) -> list[list[DiffFile]]:
    """Files of the repository's languages (largest language first), then the rest ("Other")."""
    if not languages:
        return [list(files)]
    ranked = [name for name, _ in sorted(languages.items(), key=lambda kv: kv[1], reverse=True)]
    known = {name.lower(): name for name in LANGUAGE_EXTENSIONS}
    selected = {known[name.lower()]: name for name in ranked if name.lower() in known}
    groups: dict[str, list[DiffFile]] = {name: [] for name in ranked}
    other: dict[str, DiffFile] = {}
    for f in files:
        language = selected.get(language_of(f.path) or "")
        if language:
            groups[language].append(f)
        else:
            other.setdefault(f.path, f)
    return [groups[name] for name in ranked if groups[name]] + [list(other.values())]


# --------------------------------------------------------------------------- patches


def omit_deletion_hunks(patch: str) -> str:
    """The hunks that add at least one line; "" when none does."""
    kept: list[str] = []
    hunk: list[str] = []
    adds = inside = False
    for line in patch.split("\n"):
        if line.startswith("@@"):
            if _HUNK_HEADER_RE.match(line):  # a malformed @@ line is dropped, as pr-agent drops it
                if inside:
                    if adds:
                        kept += hunk
                    hunk, adds = [], False
                hunk.append(line)
                inside = True
            continue
        hunk.append(line)
        adds = adds or line.startswith("+")
    if inside and adds:
        kept += hunk
    return "\n".join(kept)


def edit_type(status: str) -> str:
    return {"added": "ADDED", "removed": "DELETED", "renamed": "RENAMED", "modified": "MODIFIED"}.get(
        status, "UNKNOWN"
    )


def render(path: str, patch: str) -> str:
    return f"\n\n## File: '{path.strip()}'\n\n{patch.strip(chr(13) + chr(10))}\n"


def prepare(files: Sequence[DiffFile], languages: Mapping[str, int] | None, count: Callable[[str], int]) -> Prepared:
    kept = [f for f in files if not is_ignored(f.path)]
    filtered = [f.path for f in kept if not is_valid_file(f.path)]
    valid = [f for f in kept if is_valid_file(f.path)]
    groups = group_by_language(valid, languages)
    extended: list[str] = []
    tokens: dict[str, int] = {}
    for group in groups:
        for f in group:
            if not f.patch:
                continue
            text = render(f.path, f.patch.replace("\n@@ ", "\n\n@@ "))
            extended.append(text)
            tokens[f.path] = count(text)
    prep = Prepared(extended, _count_both(count, "\n".join(extended)) if extended else 0, filtered=filtered)
    for group in groups:
        for f in sorted(group, key=lambda f: tokens.get(f.path, count(f.patch) if f.patch else 0), reverse=True):
            if not f.patch:
                continue
            kind = edit_type(f.status)
            if kind == "DELETED":  # a removed file has no new content: named, never shown
                if f.path not in prep.deleted:
                    prep.deleted.append(f.path)
                continue
            trimmed = omit_deletion_hunks(f.patch)
            prep.compressed.append((f.path, trimmed if trimmed else f.patch, kind))
    return prep


# --------------------------------------------------------------------------- packing


def _count_both(count: Callable[[str], int], text: str) -> int:
    stripped = text.strip()
    return max(count(text), count(stripped)) if stripped != text else count(text)


def clip_tokens(text: str, max_tokens: int, tokens: int) -> str:
    """pr-agent's clip: keep 90% of the characters the average characters-per-token ratio allows."""
    if not text or tokens <= max_tokens:
        return text
    if max_tokens <= 0:
        return ""
    keep = int(0.9 * (len(text) / tokens) * max_tokens)
    return text[:keep] + "\n...(truncated)" if keep > 0 else ""


def _append(diff: str, used: int, section: str, limit: int, count: Callable[[str], int],
            whole_lines: bool = False) -> tuple[str, int, str]:
    """Append a name list if it fits: clipped by characters, or (whole_lines) the longest verified
    prefix of whole names."""
    if not section:
        return diff, used, section
    room = limit - used - count("\n\n")
    if room <= 0:
        return diff, used, ""
    if whole_lines:
        lines = section.splitlines()
        if len(lines) <= 2:
            return diff, used, ""
        heading, names = lines[:2], lines[2:]
        best = (diff, used, "")

        def fits(prefix: Sequence[str]) -> bool:
            nonlocal best
            part = "\n".join(heading + list(prefix))
            candidate = diff + "\n\n" + part
            n = _count_both(count, candidate)
            if n <= limit:
                best = (candidate, n, part)
                return True
            return False

        if not fits(names):
            lo, hi = 0, len(names) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if fits(names[:mid]):
                    lo = mid
                else:
                    hi = mid - 1
            if lo == 0 and len(names) > 1:
                fits(names[:1])
        return best
    clipped = clip_tokens(section, room, count(section))
    if clipped:
        candidate = diff + "\n\n" + clipped
        n = _count_both(count, candidate)
        if n <= limit:
            return candidate, n, clipped
    return diff, used, ""


def filtered_section(filtered: Sequence[str]) -> str:
    if not filtered:
        return ""
    ordered = sorted(filtered, key=lambda p: p.replace("\\", "/").rsplit("/", 1)[-1] not in AUTO_GENERATED_NAMES)
    text = FILTERED_FILES + "\n" + "\n".join(ordered[:MAX_FILTERED_FILES])
    if len(filtered) > MAX_FILTERED_FILES:
        text += f"\n... and {len(filtered) - MAX_FILTERED_FILES} more"
    return text


def pack(prep: Prepared, soft: int, hard: int, count: Callable[[str], int]) -> str:
    """The diff text pr-agent would send within `soft` (patches) and `hard` (with the name lists)."""
    if not prep.extended:
        return ""
    if prep.extended_tokens < soft:
        full = "\n".join(prep.extended)
        if not prep.filtered:
            return full
        with_names, _, shown = _append(full, count(full), filtered_section(prep.filtered), hard, count, True)
        first = min(prep.filtered, key=lambda p: p.rsplit("/", 1)[-1] not in AUTO_GENERATED_NAMES)
        if first in shown.splitlines():
            return with_names
    patches, in_patch = _full_patches(prep.compressed, soft, hard, count)
    diff = "\n".join(patches)
    used = count(diff)
    added = modified = ""
    deleted = (DELETED_FILES + "\n" + "\n".join(prep.deleted)) if prep.deleted else ""
    if hard - used > ROOM_FOR_LISTS:
        for path, _, kind in prep.compressed:
            if path in in_patch:
                continue
            if kind == "ADDED":
                added = (added or ADDED_FILES) + f"\n{path}"
            elif kind in ("MODIFIED", "RENAMED"):
                modified = (modified or MORE_MODIFIED_FILES) + f"\n{path}"
    else:
        deleted = ""
    for section in (added, modified, deleted):
        diff, used, _ = _append(diff, used, section, hard, count)
    diff, used, _ = _append(diff, used, filtered_section(prep.filtered), hard, count, whole_lines=True)
    return diff


def _full_patches(files: Sequence[tuple[str, str, str]], soft: int, hard: int,
                  count: Callable[[str], int]) -> tuple[list[str], set[str]]:
    """Whole patches in order while they fit `soft` (a patch that does not fit is skipped)."""
    total = 0
    patches: list[str] = []
    paths: list[str] = []
    newline = count("\n")
    for path, patch, _ in files:
        if total > hard:
            continue
        text = render(path, patch)
        cost = count(text) + (newline if patches else 0)
        if total + cost > soft:
            continue
        patches.append(text)
        paths.append(path)
        total += cost
    if patches and _count_both(count, "\n".join(patches)) > soft:  # joined counts can exceed the sum
        lo, hi = 0, len(patches) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _count_both(count, "\n".join(patches[:mid])) <= soft:
                lo = mid
            else:
                hi = mid - 1
        patches, paths = patches[:lo], paths[:lo]
    return patches, set(paths)
