"""Unified diffs -> FileChange values: plain `git diff`, `git show`/`git log -p`, `git format-patch` (mbox).

One pass over the lines, a small state machine, no backtracking: a 150,000-line diff parses in
well under a second. Hunk bodies are consumed by their `@@ -a,b +c,d @@` line counts, so a removed
line that happens to read "--- x" or "diff --git" cannot be mistaken for a header.

`FileChange.patch` holds what GitHub's files API calls the patch: the hunks, from the first `@@`,
without the `diff --git`/`index`/`---`/`+++` header lines.

Damaged input is described, never silently accepted as a small change: a hunk with fewer lines than
its header promises (a download cut off half-way), a header followed by text that is not a diff, or
hunk content outside any hunk marks the file `patch_incomplete` and adds a note saying what is wrong.
A patch whose line endings became CRLF in transit (an editor, a Windows clipboard) is normalised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..hunk_header import parse_hunk_header
from ..models import Commit, FileChange, FileStatus
from ..notes import note
from .commitparse import MBOX_FROM_RE, looks_like_sha, parse_mbox_commit, parse_show_commit
from .diffpaths import file_line_path, split_git_header, strip_prefix, unquote_path

# Lines that start a diff structure; whether these end in "\r" tells CRLF transport from CRLF content.
_STRUCTURAL = ("diff --git ", "commit ", "From ", "@@ ", "--- ", "+++ ", "index ")
# Text between files that other tools write (svn `Index:`, hg `diff -r`, `diff -ruN`, `Only in`).
_PREAMBLE = ("diff ", "Index: ", "=====", "Only in ")
_RECOGNISED_HEADERS = ("index ", "similarity index ", "dissimilarity index ")
_INDEX_RE = re.compile(r"^index ([0-9a-f]+)\.\.([0-9a-f]+)")
_EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
# A few lines of stray text next to complete hunks are a mailing-list footer or a tool's remark;
# more than this between or after files means the text was damaged and something may be missing.
STRAY_TEXT_TOLERATED = 5
MAX_NOTES = 10


@dataclass(frozen=True)
class ParsedPatch:
    """What a patch text holds: the changed files and, for `git show`/`format-patch`, the commits."""

    files: list[FileChange] = field(default_factory=list)
    commits: list[Commit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what is damaged or missing, one line per file


def parse_patch_bytes(data: bytes) -> ParsedPatch:
    """Parse raw patch bytes; bytes that are not UTF-8 become U+FFFD rather than failing."""
    return parse_patch(data.decode("utf-8", errors="replace"))


def parse_patch(text: str) -> ParsedPatch:
    """Parse diff text into files and commits. Raises InputError when there is no diff in it at all."""
    parser = _Parser(_without_crlf_transport(text.split("\n")))
    parser.run(ends_mid_line=bool(text) and not text.endswith("\n"))
    if not parser.files and not parser.commits:
        raise InputError(
            "no diff found in the input: expected `git diff`, `git show` or `git format-patch` output "
            "(lines starting with 'diff --git', or '--- a/FILE' followed by '+++ b/FILE' and '@@' hunks)"
        )
    notes = parser.notes[:MAX_NOTES]
    if len(parser.notes) > MAX_NOTES:
        notes.append(note("more_damaged", n=len(parser.notes) - MAX_NOTES))
    return ParsedPatch(files=_merge_same_paths(parser.files), commits=parser.commits, notes=notes)


def _without_crlf_transport(lines: list[str]) -> list[str]:
    """Strip one trailing CR from every line when the diff's own structure lines end in CR: the whole
    text was converted to CRLF. A diff of files that have CRLF content keeps its CRs."""
    structural = crlf = 0
    for line in lines:
        if line.startswith(_STRUCTURAL):
            structural += 1
            crlf += line.endswith("\r")
    if crlf * 2 <= structural:
        return lines
    return [line.removesuffix("\r") for line in lines]


# --------------------------------------------------------------------------- the parser


@dataclass
class _FileBuilder:
    old_path: str | None = None
    new_path: str | None = None
    header_old: str | None = None
    header_new: str | None = None
    is_new: bool = False
    is_deleted: bool = False
    rename: bool = False
    copy: bool = False
    mode_change: bool = False
    binary: bool = False
    additions: int = 0
    deletions: int = 0
    hunk_lines: list[str] = field(default_factory=list)
    # integrity: what the section held besides hunks
    combined: bool = False  # `diff --cc`: hunks of a merge, not parsed
    file_lines: bool = False  # a `---`/`+++` pair was seen
    index_changed: bool = False  # an `index A..B` line says there is content to show
    hunk_at_end: bool = False  # the last hunk ran to the end of the input
    header_lines: int = 0  # recognised extended header lines (index, mode, rename ...)
    stray_text: int = 0  # lines that are not a diff
    stray_content: int = 0  # +/-/space/@@ lines outside any hunk
    trailer: bool = False  # after a format-patch "-- " signature line
    problems: list[str] = field(default_factory=list)

    def integrity_problems(self, at_end: bool) -> list[str]:
        """What is wrong with this file's part of the patch, in words; empty when it reads as complete.
        `at_end`: nothing follows this file in the input."""
        if self.combined:
            return []
        problems = list(self.problems)
        if not self.hunk_lines and not self.binary:
            stray = self.stray_text + self.stray_content
            if stray:
                problems.append(f"no hunks: the header is followed by {stray} lines that are not a diff")
            elif self.file_lines:
                problems.append("the patch stops after the file header, before any hunk")
            elif not self.header_lines:
                problems.append("nothing follows the `diff --git` line")
            elif at_end and self.index_changed:
                # mid-input, a changed index with no hunks is `git diff -w` hiding a whitespace change
                problems.append("the input ends after the file header, before any hunk")
            return problems
        if self.stray_content:
            problems.append(f"{self.stray_content} lines of diff content outside any hunk "
                            "(the hunk line counts do not match)")
        if self.stray_text > STRAY_TEXT_TOLERATED:
            problems.append(f"{self.stray_text} lines that are not part of a diff follow it")
        return problems

    def build(self, patch_incomplete: bool) -> FileChange | None:
        new = self.new_path if self.new_path is not None else strip_prefix(self.header_new or "")
        old = self.old_path if self.old_path is not None else strip_prefix(self.header_old or "")
        if self.is_new and new is None:
            new = old
        if self.is_deleted and old is None:
            old = new
        path = new if not self.is_deleted and new else old
        if not path:
            return None
        previous: str | None = None
        if self.is_new or (old is None and new is not None):
            status = FileStatus.ADDED
        elif self.is_deleted or new is None:
            status = FileStatus.REMOVED
        elif self.copy:
            status, previous = FileStatus.COPIED, old
        elif self.rename or (old != new):
            status, previous = FileStatus.RENAMED, old
        elif self.mode_change and not self.hunk_lines and not self.binary:
            status = FileStatus.CHANGED
        else:
            status = FileStatus.MODIFIED
        patch = None if self.binary or not self.hunk_lines else "\n".join(self.hunk_lines)
        return FileChange(
            path=path,
            status=status,
            previous_path=previous,
            additions=self.additions,
            deletions=self.deletions,
            patch=patch,
            binary=self.binary,
            patch_incomplete=patch_incomplete,
        )


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.i = 0
        self.files: list[FileChange] = []
        self.commits: list[Commit] = []
        self.notes: list[str] = []
        self.current: _FileBuilder | None = None

    def run(self, ends_mid_line: bool = False) -> None:
        lines, n = self.lines, len(self.lines)
        while self.i < n:
            line = lines[self.i]
            if line.startswith(("diff --git ", "diff --cc ", "diff --combined ")):
                self._start_file()
                self._git_header(line)
            elif line.startswith("@@ ") and self.current is not None:
                self._hunk(line)
                continue
            elif line.startswith("--- ") and self.i + 1 < n and lines[self.i + 1].startswith("+++ "):
                self._file_lines(line, lines[self.i + 1])
                self.i += 2
                continue
            elif line.startswith("commit ") and looks_like_sha(line[7:].split(" ", 1)[0]):
                self._finish_file()
                commit, self.i = parse_show_commit(lines, self.i)
                self.commits.append(commit)
                continue
            elif MBOX_FROM_RE.match(line):
                self._finish_file()
                commit, self.i = parse_mbox_commit(lines, self.i)
                self.commits.append(commit)
                continue
            elif self.current is not None:
                self._extended_header(line.rstrip("\r"))
            self.i += 1
        cur = self.current
        if ends_mid_line and cur is not None and not cur.problems and not cur.trailer and not cur.combined:
            # git ends every line with a newline: a last line without one was cut, header or hunk
            cur.problems.append("the input stops in the middle of a line" +
                                (", so the last hunk may be cut short" if cur.hunk_at_end else ""))
        self._finish_file(at_end=True)

    # ---- files

    def _start_file(self) -> None:
        self._finish_file()
        self.current = _FileBuilder()

    def _finish_file(self, at_end: bool = False) -> None:
        if self.current is not None:
            problems = self.current.integrity_problems(at_end)
            built = self.current.build(patch_incomplete=bool(problems))
            if built is not None:
                self.files.append(built)
                if problems:
                    self.notes.append(note("patch_damaged", path=built.path, problems="; ".join(problems)))
        self.current = None

    def _git_header(self, line: str) -> None:
        assert self.current is not None
        if line.startswith("diff --git "):
            old, new = split_git_header(line[len("diff --git ") :])
        else:  # combined diff of a merge: one path
            path = line.split(" ", 2)[2] if line.count(" ") >= 2 else ""
            old, new = "a/" + path, "b/" + path
            self.current.combined = True
        self.current.header_old, self.current.header_new = old, new

    def _extended_header(self, line: str) -> None:
        cur = self.current
        assert cur is not None
        recognised = True
        if line.startswith("new file mode"):
            cur.is_new = True
        elif line.startswith("deleted file mode"):
            cur.is_deleted = True
        elif line.startswith("rename from "):
            cur.rename, cur.old_path = True, unquote_path(line[len("rename from ") :])
        elif line.startswith("rename to "):
            cur.rename, cur.new_path = True, unquote_path(line[len("rename to ") :])
        elif line.startswith("copy from "):
            cur.copy, cur.old_path = True, unquote_path(line[len("copy from ") :])
        elif line.startswith("copy to "):
            cur.copy, cur.new_path = True, unquote_path(line[len("copy to ") :])
        elif line.startswith(("old mode ", "new mode ")):
            cur.mode_change = True
        elif line.startswith("GIT binary patch"):
            cur.binary = True
            self._skip_binary_payload()
        elif line.startswith(_RECOGNISED_HEADERS):
            index = _INDEX_RE.match(line)
            cur.index_changed = cur.index_changed or (index is not None and _has_content(*index.groups()))
        else:
            paths = _binary_paths(line)
            recognised = paths is not None
            if paths is not None:
                cur.binary = True
                old = strip_prefix(unquote_path(paths[0]))
                new = strip_prefix(unquote_path(paths[1]))
                if cur.old_path is None and old is not None:
                    cur.old_path = old
                if cur.new_path is None and new is not None:
                    cur.new_path = new
                cur.is_new = cur.is_new or old is None
                cur.is_deleted = cur.is_deleted or new is None
        if recognised:
            cur.header_lines += 1
        else:
            _count_stray(cur, line)

    def _skip_binary_payload(self) -> None:
        """Base85 lines of a GIT binary patch run until the next file header (or the end)."""
        lines, n = self.lines, len(self.lines)
        while self.i + 1 < n and not lines[self.i + 1].startswith(("diff --git ", "commit ", "From ")):
            if lines[self.i + 1].startswith("-- ") and self.i + 2 < n and not lines[self.i + 2].startswith("literal"):
                break  # format-patch signature
            self.i += 1

    def _file_lines(self, minus: str, plus: str) -> None:
        old = strip_prefix(file_line_path(minus[4:]))
        new = strip_prefix(file_line_path(plus[4:]))
        if self.current is None or self.current.hunk_lines:
            # plain `diff -u` output has no `diff --git` line: each ---/+++ pair starts a file
            self._start_file()
        cur = self.current
        assert cur is not None
        cur.file_lines = True
        if cur.old_path is None and not cur.rename and not cur.copy:
            cur.old_path = old
        if cur.new_path is None and not cur.rename and not cur.copy:
            cur.new_path = new
        if old is None:
            cur.is_new = True
        if new is None:
            cur.is_deleted = True

    def _hunk(self, header: str) -> None:
        """Consume one hunk by its line counts; tolerate truncated or miscounted hunks."""
        cur = self.current
        assert cur is not None
        parsed = parse_hunk_header(header.rstrip("\r"))
        lines, n = self.lines, len(self.lines)
        self.i += 1
        if parsed is None:
            if not cur.combined:
                cur.problems.append("a hunk header that cannot be read")
            return
        old_left, new_left = parsed.old_lines, parsed.new_lines
        out = cur.hunk_lines
        out.append(header.rstrip("\r"))
        adds = dels = 0
        while self.i < n and (old_left > 0 or new_left > 0):
            line = lines[self.i]
            first = line[:1]
            # a line the header has no room for ends the hunk: it is stray content, not counted
            if first == "+":
                if new_left <= 0:
                    break
                adds += 1
                new_left -= 1
            elif first == "-":
                if old_left <= 0:
                    break
                dels += 1
                old_left -= 1
            elif first == " " or line == "":
                if line == "" and self.i == n - 1:
                    break  # the trailing newline of the text, not a blank context line
                if old_left <= 0 or new_left <= 0:
                    break
                old_left -= 1
                new_left -= 1
            elif first != "\\":
                break  # malformed count: stop at the first line that cannot be hunk content
            out.append(line)
            self.i += 1
        if old_left > 0 or new_left > 0:
            missing = max(old_left, new_left)
            if self.i >= n or (self.i == n - 1 and lines[self.i] == ""):
                cur.problems.append(f"the input ends inside a hunk, {missing} lines short of what its header "
                                    "says; anything after it is missing")
            else:
                cur.problems.append(f"a hunk is {missing} lines shorter than its header says")
        # "\ No newline at end of file" follows the last line it refers to
        while self.i < n and lines[self.i].startswith("\\"):
            out.append(lines[self.i])
            self.i += 1
        cur.hunk_at_end = self.i >= n
        cur.additions += adds
        cur.deletions += dels


def _binary_paths(line: str) -> tuple[str, str] | None:
    """The two paths of "Binary files A and B differ", split at the last " and " (as the greedy
    `(.+) and (.+)` would, but in one pass: a long line of " and " made that pattern quadratic)."""
    if not (line.startswith("Binary files ") and line.endswith(" differ")):
        return None
    old, sep, new = line[len("Binary files ") : -len(" differ")].rpartition(" and ")
    return (old, new) if sep and old and new else None


def _has_content(old: str, new: str) -> bool:
    """An `index OLD..NEW` line of a change with text to show: the blobs differ and they are not just
    "nothing" (all zeros, a new or deleted file) and the empty blob."""
    if old == new:
        return False
    return not all(set(h) == {"0"} or _EMPTY_BLOB.startswith(h) for h in (old, new))


def _count_stray(cur: _FileBuilder, line: str) -> None:
    """Classify a line inside a file's section that is neither a header nor hunk content."""
    if line in ("-- ", "--"):
        cur.trailer = True  # format-patch signature: the git version follows
    elif cur.trailer or cur.combined or not line.strip() or line.startswith(_PREAMBLE):
        return
    elif line[:1] in ("+", "-", " ") or line.startswith("@@"):
        cur.stray_content += 1
    else:
        cur.stray_text += 1


def _merge_same_paths(files: list[FileChange]) -> list[FileChange]:
    """A patch series may touch one file several times; a PR shows the net change once, counts summed.
    A file added and later renamed is an added file at its new path; added then removed is dropped."""
    merged: dict[str, FileChange] = {}  # insertion-ordered
    for change in files:
        key = change.path
        first = merged.get(key)
        previous = change.previous_path
        if first is None and change.status == FileStatus.RENAMED and previous is not None and previous in merged:
            first = merged.pop(previous)
            origin = first.previous_path or first.path
            renamed_status = FileStatus.ADDED if first.status == FileStatus.ADDED else FileStatus.RENAMED
            first = first.model_copy(
                update={
                    "path": key,
                    "status": renamed_status,
                    "previous_path": None if renamed_status == FileStatus.ADDED else origin,
                }
            )
        if first is None:
            merged[key] = change
            continue
        if change.status == FileStatus.REMOVED and first.status == FileStatus.ADDED:
            del merged[key]
            continue
        status = first.status
        if change.status == FileStatus.REMOVED or first.status == FileStatus.CHANGED:
            status = change.status
        patches = [p for p in (first.patch, change.patch) if p]
        merged[key] = first.model_copy(
            update={
                "status": status,
                "additions": first.additions + change.additions,
                "deletions": first.deletions + change.deletions,
                "patch": "\n".join(patches) if patches else None,
                "binary": first.binary or change.binary,
                "patch_incomplete": first.patch_incomplete or change.patch_incomplete,
            }
        )
    return list(merged.values())
