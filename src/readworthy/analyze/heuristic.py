"""The deterministic analyzer: a verdict and a reading guide from signals, with no model.

Used when no API key is configured and as the fallback when the model fails.
The verdict follows the same rubric as the model's (reading value, not size):

1. Mechanical PRs are `skip` (or a `skim` when they carry real substance):
   empty, only generated/lock/vendored/binary files, a revert without analysis,
   one edit repeated across many files, version moves only, renames only, comment or
   whitespace edits only, docs-only, pure removal, tests-only, CI/build-only.
2. Code changes are scored; `deep-read` needs several independent signs of something
   to learn (FINDING_POINTS), `skim` otherwise. Size contributes at most 10 points
   (logarithmically); a self-contained addition (new files in one or two areas, like a
   model added from a template) scores its new definitions lower than code that changes
   what already exists.

Everything it names comes from the context, so it needs no grounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Coverage, Decision, Digest, FileStatus, PRContext, Verdict
from ..pack.classify import FileKind
from .signals import CODE_KINDS, MECHANICAL_KINDS, RankedFile, Signals, measure, size_points
from .wording import LIST_SEPARATOR, SENTENCE_SEPARATOR, phrase

DEEP_READ_POINTS = 30.0

# Points per finding for code changes (the table is the policy; `_score` only measures).
FINDING_POINTS = {
    "new_definitions_per_name": 1.5,
    "new_definitions_max": 25.0,
    "new_definitions_self_contained_max": 12.0,
    "abstraction": 15.0,
    "capability": 12.0,
    "kernel": 15.0,
    "kernel_adjacent": 6.0,
    "cross_cutting": 10.0,  # code changes in >= CROSS_CUTTING_AREAS top-level areas
    "issue_analysis": 30.0,  # a fix backed by a root-cause analysis is worth reading on its own
    "discussion_heavy": 22.0,  # >= 25 comments: a debate that shows the project's standards
    "discussion_some": 8.0,  # >= 10 comments
    "debate": 8.0,  # changes requested, two or more people
    "perf": 5.0,
    "tests": 2.0,
}
CROSS_CUTTING_AREAS = 4
SUBSTANTIAL_DOC_LINES = 25  # a new section; link and typo fixes are a few lines
SUBSTANTIAL_TEST_LINES = 20
SUBSTANTIAL_BUILD_LINES = 30
SMALL_FIX_LINES = 10


@dataclass(frozen=True)
class Finding:
    key: str
    points: float
    values: dict[str, object]


def heuristic_digest(ctx: PRContext, coverage: Coverage, language: str) -> Digest:
    """A reading guide built only from the context: verdict, reason, where to start, who talked."""
    signals = measure(ctx)
    verdict, reason = judge(signals, language)
    return Digest(
        verdict=verdict,
        reason=_clip(reason, 400),
        headline=_clip(_headline(ctx, signals, language), 200),
        audience=_audience(ctx, signals),
        decisions=_decisions(signals, verdict, language),
        start_reading=_start_reading(signals),
        discussion=_clip(_discussion(signals, language), 900),
        linked_issue_findings=_issue_findings(ctx, signals, language),
        open_items=_open_items(ctx, signals, coverage, language),
        related=_related(ctx),
    )


# --------------------------------------------------------------------------- verdict


def judge(sig: Signals, language: str) -> tuple[Verdict, str]:
    """The verdict and its one-sentence reason."""
    mechanical = _mechanical(sig)
    if mechanical is not None:
        verdict, key, values = mechanical
        return verdict, phrase(language, key, **values)
    findings = _score(sig)
    score = sum(f.points for f in findings)
    verdict = Verdict.DEEP_READ if score >= DEEP_READ_POINTS else Verdict.SKIM
    shown = sorted((f for f in findings if f.key != "tests"), key=lambda f: -f.points)[:3]
    parts = [phrase(language, f.key, **f.values) for f in shown]
    joined = phrase(language, "sep").join(parts[:-1])
    findings_text = (joined + phrase(language, "and") + parts[-1]) if len(parts) > 1 else parts[0]
    return verdict, phrase(language, "deep" if verdict is Verdict.DEEP_READ else "skim", findings=findings_text)


def _mechanical(sig: Signals) -> tuple[Verdict, str, dict[str, object]] | None:
    """The verdict for PRs whose shape alone decides it, or None for code changes to be scored."""
    with_mechanical = (*MECHANICAL_KINDS,)
    if sig.files_total == 0:
        return Verdict.SKIP, "empty", {}
    if sig.only(*MECHANICAL_KINDS):
        return Verdict.SKIP, "mechanical_only", {"n": sig.files_total}
    if sig.is_revert and not sig.analysed_issues:
        return Verdict.SKIP, "revert", {}
    if sig.repeated_change_files and sig.new_definitions <= sig.repeated_change_files // 10:
        return Verdict.SKIP, "repeated", {"n": sig.repeated_change_files}
    if sig.version_only:
        return Verdict.SKIP, "version_exclusion" if sig.excludes_version else "version_only", {}
    if sig.only(FileKind.RENAMED, FileKind.DELETED, *with_mechanical) and sig.kinds.get(FileKind.RENAMED):
        return Verdict.SKIP, "renames", {"n": sig.kinds[FileKind.RENAMED]}
    if sig.cosmetic_only and not sig.analysed_issues:
        return Verdict.SKIP, "cosmetic", {}
    if sig.only(FileKind.DOCS, *with_mechanical):
        if sig.added_doc_lines >= SUBSTANTIAL_DOC_LINES:
            return Verdict.SKIM, "docs_substantial", {"lines": sig.added_doc_lines}
        return Verdict.SKIP, "docs_small", {"lines": sig.added_doc_lines}
    if sig.added_lines * 10 <= sig.deleted_lines and sig.new_definitions <= 2 and not sig.analysed_issues:
        moved = sig.new_files or sig.kinds.get(FileKind.RENAMED, 0) or sig.added_code_lines >= 20
        return (Verdict.SKIM, "removal_with_new_home", {"deleted": sig.deleted_lines}) if moved else (
            Verdict.SKIP, "removal", {"deleted": sig.deleted_lines})
    quiet = not sig.analysed_issues and sig.discussion.comments < 10
    if quiet and sig.kinds.get(FileKind.TEST) and sig.only(FileKind.TEST, FileKind.CONFIG, *with_mechanical):
        if sig.added_test_lines >= SUBSTANTIAL_TEST_LINES:
            return Verdict.SKIM, "tests_substantial", {"lines": sig.added_test_lines}
        return Verdict.SKIP, "tests_small", {}
    if quiet and sig.only(FileKind.BUILD, FileKind.CONFIG, FileKind.DELETED, FileKind.RENAMED, *with_mechanical):
        if sig.added_other_lines >= SUBSTANTIAL_BUILD_LINES:
            return Verdict.SKIM, "build_substantial", {"lines": sig.added_other_lines}
        return Verdict.SKIP, "build_small", {}
    return None


def _score(sig: Signals) -> list[Finding]:
    p = FINDING_POINTS
    findings: list[Finding] = []
    if sig.new_definitions:
        code = [r for r in sig.ranked if r.kind in CODE_KINDS and r.definitions]
        self_contained = all(r.change.status is FileStatus.ADDED for r in code) and len(sig.code_areas) <= 2
        cap = p["new_definitions_self_contained_max"] if self_contained else p["new_definitions_max"]
        findings.append(Finding("new_definitions", min(cap, p["new_definitions_per_name"] * sig.new_definitions),
                                {"n": sig.new_definitions}))
    if sig.abstractions:
        findings.append(Finding("abstraction", p["abstraction"], {}))
    if sig.capability_flags:
        names = ", ".join(f"`{n}`" for n in sig.capability_flags[:3])
        findings.append(Finding("capability", p["capability"], {"names": names}))
    if sig.kernel_files:
        findings.append(Finding("kernel", p["kernel"], {"n": len(sig.kernel_files)}))
    elif sig.kernel_adjacent:
        findings.append(Finding("kernel_adjacent", p["kernel_adjacent"], {}))
    if len(sig.code_areas) >= CROSS_CUTTING_AREAS:
        findings.append(Finding("cross_cutting", p["cross_cutting"], {"n": len(sig.code_areas)}))
    if sig.analysed_issues:
        refs = ", ".join(f"#{n}" for n in sig.analysed_issues[:3])
        findings.append(Finding("issue_analysis", p["issue_analysis"], {"refs": refs}))
    comments = sig.discussion.comments
    if comments >= 25:
        findings.append(Finding("discussion_heavy", p["discussion_heavy"], {"n": comments}))
    elif comments >= 10:
        findings.append(Finding("discussion_heavy", p["discussion_some"], {"n": comments}))
    if sig.discussion.changes_requested and len(sig.discussion.participants) >= 2:
        findings.append(Finding("debate", p["debate"], {}))
    if sig.perf_title and (sig.kernel_files or sig.kernel_adjacent or sig.added_code_lines):
        findings.append(Finding("perf", p["perf"], {}))
    if sig.added_test_lines:
        findings.append(Finding("tests", p["tests"], {}))
    lines = sig.added_code_lines + sig.added_test_lines + sig.deleted_code_lines
    size_key = "small_fix" if sig.added_code_lines <= SMALL_FIX_LINES and not sig.new_definitions else "code_change"
    findings.append(Finding(size_key, size_points(sig.added_code_lines + sig.added_test_lines), {"lines": lines}))
    return findings


# --------------------------------------------------------------------------- reading guide


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _headline(ctx: PRContext, sig: Signals, language: str) -> str:
    title = ctx.title.strip()
    while title.startswith("[") and "]" in title:  # "[Bugfix][CI] Fix x" -> "Fix x"
        title = title[title.index("]") + 1 :].strip()
    if title.endswith(")") and "(#" in title:  # squash subjects end with "(#1234)"
        title = title[: title.rindex("(#")].strip()
    if title:
        return title
    areas = LIST_SEPARATOR.get(language, ", ").join(f"`{a}`" for a in _top_areas(sig)[:3]) or "—"
    return phrase(language, "headline_files", n=sig.files_total, areas=areas)


def _top_areas(sig: Signals) -> list[str]:
    areas: dict[str, None] = {}
    for r in sig.ranked:
        if r.kind not in MECHANICAL_KINDS and "/" in r.change.path:
            areas.setdefault(r.change.path.rsplit("/", 1)[0] + "/", None)
    return list(areas)


def _audience(ctx: PRContext, sig: Signals) -> list[str]:
    names = list(ctx.owners) or list(ctx.areas) or _top_areas(sig)[:3]
    return [_clip(n, 300) for n in names[:6]]


def _code_names(names: tuple[str, ...] | list[str], limit: int, language: str) -> str:
    return LIST_SEPARATOR.get(language, ", ").join(f"`{n}`" for n in names[:limit])


def _decisions(sig: Signals, verdict: Verdict, language: str) -> list[Decision]:
    out: list[Decision] = []
    by_path = {r.change.path: r for r in sig.ranked}
    if verdict is Verdict.SKIP:
        if sig.version_only and sig.excludes_version:
            paths = [r.change.path for r in sig.ranked if r.kind in (FileKind.CONFIG, FileKind.BUILD)][:3]
            out.append(Decision(
                title=phrase(language, "d_version_exclusion_title"),
                explanation=phrase(language, "d_version_exclusion", paths=_code_names(paths, 3, language)),
                references=paths,
            ))
        return out
    for path in sig.abstractions[:1]:
        names = by_path[path].definitions if path in by_path else ()
        out.append(Decision(
            title=phrase(language, "d_abstraction_title"),
            explanation=_clip(phrase(language, "d_abstraction", names=_code_names(names, 3, language) or "—",
                                     path=path), 900),
            references=[path, *(f"{path}::{n}" for n in names[:2])],
        ))
    if sig.capability_flags:
        holders = [r.change.path for r in sig.ranked if r.kind in CODE_KINDS and r.change.additions][:2]
        out.append(Decision(
            title=phrase(language, "d_capability_title"),
            explanation=phrase(language, "d_capability", names=_code_names(sig.capability_flags, 3, language)),
            references=[*holders, *sig.capability_flags[:3]],
        ))
    for r in [r for r in sig.ranked if r.kind in CODE_KINDS and r.definitions and r.change.path not in
              sig.abstractions][: 3 - len(out)]:
        names = tuple(_notable(r.definitions))
        more = len(names) - 4
        out.append(Decision(
            title=_clip(phrase(language, "d_definitions_title", file=r.change.path.rsplit("/", 1)[-1]), 160),
            explanation=_clip(phrase(language, "d_definitions", names=_code_names(names, 4, language),
                                     more=phrase(language, "d_more", n=more) if more > 0 else ""), 900),
            references=[r.change.path, f"{r.change.path}::{names[0]}"],
        ))
    if sig.kernel_files and len(out) < 4 and not any(p in sig.kernel_files for d in out for p in d.references):
        paths = list(sig.kernel_files[:3])
        out.append(Decision(
            title=phrase(language, "d_kernel_title"),
            explanation=phrase(language, "d_kernel", paths=_code_names(paths, 3, language)),
            references=paths,
        ))
    return [Decision(title=d.title, explanation=d.explanation, references=[_clip(x, 200) for x in d.references][:8])
            for d in out[:4]]


def _readable(r: RankedFile) -> bool:
    return r.kind not in MECHANICAL_KINDS and r.kind is not FileKind.DELETED and r.change.additions > 0


def _start_reading(sig: Signals) -> list[str]:
    picks = [r for r in sig.ranked if _readable(r)][:4]
    return [_clip(f"{r.change.path}::{r.definitions[0]}" if r.definitions else r.change.path, 200) for r in picks]


def _discussion(sig: Signals, language: str) -> str:
    d = sig.discussion
    if not d.participants and not d.threads:
        return ""
    parts = []
    if d.participants:
        names = LIST_SEPARATOR.get(language, ", ").join(d.participants[:6])
        parts.append(phrase(language, "discussion_people", n=len(d.participants), names=names))
    if d.comments:
        parts.append(phrase(language, "discussion_comments", n=d.comments))
    if d.threads:
        parts.append(phrase(language, "discussion_threads", n=d.threads, u=d.unresolved_threads))
    if d.changes_requested:
        parts.append(phrase(language, "discussion_changes", n=d.changes_requested))
    if d.approvals:
        parts.append(phrase(language, "discussion_approvals", n=d.approvals))
    return SENTENCE_SEPARATOR.get(language, "; ").join(parts)


def _issue_findings(ctx: PRContext, sig: Signals, language: str) -> list[str]:
    out = []
    for issue in ctx.linked_issues[:4]:
        line = phrase(language, "issue_line", number=issue.number, title=_clip(issue.title, 150) or "—",
                      state=issue.state or "?")
        if issue.number in sig.analysed_issues:
            line += phrase(language, "issue_analysis_note")
        out.append(_clip(line, 300))
    return out


def _open_items(ctx: PRContext, sig: Signals, coverage: Coverage, language: str) -> list[str]:
    out = []
    if sig.discussion.unresolved_paths:
        paths = _code_names(sig.discussion.unresolved_paths, 3, language)
        out.append(phrase(language, "open_threads", paths=paths))
    if ctx.draft:
        out.append(phrase(language, "open_draft"))
    total = max(ctx.changed_files, coverage.files_total)
    if total > len(ctx.files):  # GitHub's files API stops at 3,000
        out.append(phrase(language, "open_capped", seen=len(ctx.files), total=total))
    return [_clip(x, 300) for x in out[:5]]


def _notable(names: tuple[str, ...] | list[str]) -> list[str]:
    """Definitions worth naming to a reader: dunder methods (`__init__`, `__len__`) say nothing on their own."""
    kept = [n for n in names if not (n.startswith("__") and n.endswith("__"))]
    return kept or list(names)


def _related(ctx: PRContext) -> list[int]:
    # Linked (closing) issues have their own line in the comment; "related" is what is only mentioned
    # or cross-references this PR.
    linked = {i.number for i in ctx.linked_issues}
    numbers = [r.number for r in ctx.related if r.number not in linked]
    return [n for n in dict.fromkeys(numbers) if n != ctx.number][:8]
