"""The people around a PR in the heuristic comment: who should read it, who talked, what is still open.

Audience comes from the code, not the tests: the CODEOWNERS owners of the changed non-test files
first, then the repository config's area names for them, then the code areas themselves, named by
the directory that holds most of each area's change (written whole in backticks).
"""

from __future__ import annotations

import re
from collections import Counter

from ...models import Coverage, PRContext
from ...pack.classify import FileKind
from .authors import brief, clean
from .comment_text import join_comment
from .guide import QuoteTidier
from .signals import CODE_KINDS, MECHANICAL_KINDS, Signals
from .wording import code_names, fit, list_sep, phrase

MAX_AUDIENCE = 3
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|testing)/|(?:^|/)test_[^/]*$|_test\.\w+$|(?:^|/)conftest\.py$")
_CONTAINERS = frozenset({"src", "lib", "libs", "pkg", "packages", "crates", "modules", "apps", "services"})
_TODO = re.compile(r"^(?:TODO|FIXME|HACK|XXX)\b\s*(?:\([^)]*\))?[\s:\-]*", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"^\s{0,3}(?:#{1,6}\s*|\*\*)\s*(?:follow[- ]?ups?|todo|future work|next steps|limitations|"
                        r"known issues)\b.*$", re.IGNORECASE | re.MULTILINE)


def code_area(path: str) -> str:
    """The directory people name an area by: two levels under the root, not counting containers like
    `src/`: `vllm/v1/worker/utils.py` -> `vllm/v1/`, `rust/src/bench/x.rs` -> `rust/src/bench/`."""
    parts = path.split("/")[:-1]
    if not parts:
        return path
    kept: list[str] = []
    for part in parts:
        kept.append(part)
        if sum(1 for p in kept if p not in _CONTAINERS) == 2:
            break
    return "/".join(kept) + "/"


def audience(ctx: PRContext, sig: Signals, language: str) -> list[str]:
    kinds = {f.change.path: f.kind for f in sig.ranked}
    # configuration beside docs or tests (a docs site's navigation, a test marker) is not what they are about
    code = [p for p, k in kinds.items() if k not in MECHANICAL_KINDS
            and k not in (FileKind.TEST, FileKind.DOCS, FileKind.CONFIG) and not _TEST_PATH.search(p)]
    readable = code or [p for p, k in kinds.items() if k not in MECHANICAL_KINDS and k is not FileKind.CONFIG] \
        or [p for p, k in kinds.items() if k not in MECHANICAL_KINDS]
    wanted = set(readable)
    owners = Counter({owner: sum(1 for p in paths if p in wanted) for owner, paths in ctx.owners.items()})
    named = [phrase(language, "audience_owner", owner=owner.lstrip("@"),
                    area=code_names([_owned_area([p for p in ctx.owners[owner] if p in wanted])], 1, language))
             for owner, n in owners.most_common() if n]
    if not named:
        areas = Counter({area: sum(1 for p in paths if p in wanted) for area, paths in ctx.areas.items()})
        named = [a for a, n in areas.most_common() if n]
    if not named:
        weights = {f.change.path: f.change.additions + f.change.deletions + 1 for f in sig.ranked
                   if f.change.path in wanted}
        named = [code_names([a], 1, language) for a in areas_of(weights)[:MAX_AUDIENCE]]
    return [n[:300] for n in named[:MAX_AUDIENCE]]


def areas_of(weights: dict[str, int]) -> list[str]:
    """The areas a change is in, named by their directories, most changed first. Within each top-level
    area (`code_area`), the area is the deepest directory holding most (more than half) of its changed
    lines: `vllm/model_executor/layers/fused_moe/` rather than `vllm/model_executor/`."""
    groups: dict[str, Counter[str]] = {}
    for path, weight in weights.items():
        groups.setdefault(code_area(path), Counter())[path] += weight
    out: list[tuple[int, str]] = []
    for group, files in groups.items():
        total = sum(files.values())
        area = group if group.endswith("/") and len(files) > 1 else ""  # one file: its area is its directory
        while area:
            children: Counter[str] = Counter()
            for path, weight in files.items():
                rest = path[len(area):]
                if "/" in rest:
                    children[area + rest.split("/", 1)[0] + "/"] += weight
            if not children:
                break
            child, held = children.most_common(1)[0]
            if held * 2 <= total:
                break
            area = child
        out.append((total, area or group))
    return [a for _, a in sorted(out, key=lambda x: (-x[0], x[1]))]


def _owned_area(paths: list[str]) -> str:
    """What an owner owns among the changed files: the file itself, or the area most of them are in."""
    return paths[0] if len(paths) == 1 else Counter(code_area(p) for p in paths).most_common(1)[0][0]


def discussion_summary(sig: Signals, language: str) -> str:
    d = sig.discussion
    if not d.participants and not d.threads:
        return ""
    parts = []
    if d.participants:
        parts.append(phrase(language, "discussion_people", n=len(d.participants),
                            names=list_sep(language).join(d.participants[:6])))
    if d.comments:
        parts.append(phrase(language, "discussion_comments", n=d.comments))
    if d.threads:
        parts.append(phrase(language, "discussion_threads", n=d.threads, u=d.unresolved_threads))
    if d.changes_requested:
        parts.append(phrase(language, "discussion_changes", n=d.changes_requested))
    if d.approvals:
        parts.append(phrase(language, "discussion_approvals", n=d.approvals))
    return phrase(language, "sentence_sep").join(parts)


def issue_findings(ctx: PRContext, sig: Signals, language: str) -> list[str]:
    out = []
    for issue in ctx.linked_issues[:4]:
        state = phrase(language, f"state_{issue.state.lower()}") if issue.state.lower() in (
            "open", "closed", "merged") else (issue.state or "?")
        line = phrase(language, "issue_line", number=issue.number, title=fit(issue.title, 150) or "—", state=state)
        if issue.number in sig.analysed_issues:
            line += phrase(language, "issue_analysis_note")
        out.append(fit(line, 300))
    return out


def _comment_words(code_line: str) -> str | None:
    s = code_line.strip()
    preprocessor = re.match(r"#\s*(?:include|define|pragma|if|el|endif)", s)
    if s.startswith(("//", "/*")) or (s.startswith("#") and not preprocessor):
        return s.lstrip("#/*! ").removesuffix("*/").strip()
    return None


def _follow_ups(ctx: PRContext, sig: Signals) -> list[str]:
    """The PR description's own follow-up list, and TODO/FIXME comments the diff adds to code."""
    found: list[str] = []
    match = _FOLLOW_UP.search(ctx.body)
    if match:
        section = ctx.body[match.end():]
        section = re.split(r"^\s{0,3}(?:#{1,6}\s|\*\*[^*]+\*\*\s*$)", section, maxsplit=1, flags=re.MULTILINE)[0]
        found += [_TODO.sub("", clean(x)) for x in section.split("\n") if len(clean(x).split()) >= 4]
    code_paths = {f.change.path for f in sig.ranked if f.kind in CODE_KINDS or f.kind is FileKind.BUILD}
    for change in ctx.files:
        if change.path not in code_paths:
            continue
        patch = change.patch or ""
        if not any(marker in patch for marker in ("TODO", "FIXME", "HACK", "XXX", "todo")):
            continue
        lines = patch.split("\n")
        for i, line in enumerate(lines):
            words = _added_comment(line)
            if words and _TODO.match(words) and len(words.split()) >= 4:
                found.append(join_comment([_TODO.sub("", words).strip(), *_continuation(lines[i + 1:])]))
    return list(dict.fromkeys(found))


def _added_comment(line: str) -> str | None:
    return _comment_words(line[1:]) if line.startswith("+") and not line.startswith("+++") else None


def _continuation(lines: list[str], most: int = 4) -> list[str]:
    """The comment lines a TODO wraps onto ("handle TP slicing for X; for now" / "restrict to MLA ..."):
    added comment lines straight after it, up to a blank one, code, or the next TODO."""
    out: list[str] = []
    for line in lines[:most]:
        words = _added_comment(line)
        if not words or _TODO.match(words):
            break
        out.append(words)
    return out


def open_items(ctx: PRContext, sig: Signals, coverage: Coverage, language: str) -> list[str]:
    out = []
    if sig.discussion.unresolved_paths:
        out.append(phrase(language, "open_threads", paths=code_names(sig.discussion.unresolved_paths, 3, language)))
    if ctx.draft:
        out.append(phrase(language, "open_draft"))
    total = max(ctx.changed_files, coverage.files_total)
    if total > len(ctx.files):  # GitHub's files API stops at 3,000
        out.append(phrase(language, "open_capped", seen=len(ctx.files), total=total))
    tidy = QuoteTidier(ctx)
    for text in _follow_ups(ctx, sig)[:2]:
        out.append(phrase(language, "open_follow_up", quote=tidy(brief(text, 200))))
    return [fit(x, 300) for x in out[:5]]


def related(ctx: PRContext) -> list[int]:
    # Linked (closing) issues have their own line in the comment; "related" is what is only mentioned
    # or cross-references this PR.
    linked = {i.number for i in ctx.linked_issues}
    numbers = [r.number for r in ctx.related if r.number not in linked]
    return [n for n in dict.fromkeys(numbers) if n != ctx.number][:8]
