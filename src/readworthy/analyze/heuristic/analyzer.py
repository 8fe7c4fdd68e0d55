"""The deterministic analyzer: a verdict and a reading guide from signals, with no model.

Used when no API key is configured and as the fallback when the model fails.
The verdict follows the same rubric as the model's (reading value, not size):

1. Mechanical PRs are `skip` (or a `skim` when they carry real substance):
   empty, only generated/lock/vendored/binary files (however many), a revert without analysis,
   one edit repeated across many files, version moves only, renames and moves with import
   updates only, comment or whitespace edits only, docs-only, pure removal, tests-only,
   CI/build-only, a one- or two-line code fix with nothing around it.
   None of these shortcuts applies when the PR removes a guard, changes a default, carries
   security words, or hides logic behind a "bump" title: those are judged on their substance.
2. Code changes are scored; `deep-read` needs several independent signs of something to learn
   (FINDING_POINTS), `skim` otherwise. Size contributes at most 10 points (logarithmically).
   A PR whose added code sits mostly in a new package of its own (a model added along an
   existing template) is a `skim`: read the shared files it changes.

The reason names the findings that decided, signals beyond size first.
Everything it names comes from the context, so it needs no grounding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...memory.profile import change_profile
from ...memory.similar import weigh
from ...memory.words import describe
from ...models import CorrectionMatch, Coverage, Digest, PRContext, TasteUse, Verdict
from ...pack.classify import FileKind
from .guide import design_points, headline_of, skip_points, start_reading
from .readers import audience, discussion_summary, issue_findings, open_items, related
from .signals import CODE_KINDS, MECHANICAL_KINDS, Signals, measure, size_points
from .wording import code_names, phrase

DEEP_READ_POINTS = 30.0

# Points per finding for code changes (the table is the policy; `_score` only measures).
FINDING_POINTS = {
    "new_definitions_per_name": 1.5,
    "new_definitions_max": 25.0,
    "new_definitions_self_contained_max": 12.0,
    "abstraction": 15.0,
    "implemented": 15.0,  # a new method many changed files implement: an interface call sites build on
    "capability": 12.0,
    "fail_fast": 10.0,  # a new refusal of an unsupported configuration
    "kernel": 15.0,
    "kernel_adjacent": 6.0,
    "cross_cutting": 10.0,  # code changes in >= CROSS_CUTTING_AREAS top-level areas
    "issue_analysis": 30.0,  # a fix backed by a root-cause analysis is worth reading on its own
    "discussion_heavy": 22.0,  # >= 25 comments: a debate that shows the project's standards
    "discussion_some": 8.0,  # >= 10 comments
    "debate": 8.0,  # changes requested, two or more people
    "build_graph": 30.0,  # new stages / cache keys in an existing image build: a template to copy
    "security": 12.0,
    "security_guard": 20.0,  # ... with a new check: the reusable guard is the point
    "hidden_logic": 10.0,  # a "bump" that also changes logic is judged by the logic
    "removed_guard": 8.0,
    "changed_default": 6.0,
    "regression_test": 8.0,  # a fix to existing code with a new test that exercises it
    "perf": 5.0,
    "tests": 2.0,
}
# Findings about what the change does, named first in the reason (size and counts come after).
_BEYOND_SIZE = ("security", "hidden_logic", "removed_guard", "changed_default", "build_graph", "fail_fast",
                "implemented", "capability", "abstraction", "issue_analysis", "regression_test", "debate",
                "discussion_heavy")
CROSS_CUTTING_AREAS = 4
SUBSTANTIAL_DOC_LINES = 25  # a new section; link and typo fixes are a few lines
SUBSTANTIAL_TEST_LINES = 20
SUBSTANTIAL_BUILD_LINES = 30
SMALL_FIX_LINES = 10
TINY_FIX_LINES = 6  # added (or removed) lines of code in a fix too small to teach more than its title
MOVED_MIN_LINES = 20  # code moves are judged on at least this many added lines
MOVED_SHARE = 0.85  # this share of the added code was removed elsewhere (or is imports): code moved, not changed
RESTRUCTURED_TEST_FILES = 3
BUILD_GRAPH_STAGES = 2  # new stages that others build on: the image is layered anew
GUARD_CONTEXT_LINES = 200  # a PR deleting more than this is a removal; its guards go with it
NEW_PACKAGE_SHARE = 0.6  # a new package holding this share of the added code makes a self-contained drop


@dataclass(frozen=True)
class Finding:
    key: str
    points: float
    values: dict[str, object]


def heuristic_digest(ctx: PRContext, coverage: Coverage, language: str,
                     taste: Sequence[CorrectionMatch] = ()) -> Digest:
    """A reading guide built only from the context: verdict, reason, design points, where to start, who."""
    return heuristic_analysis(ctx, coverage, language, taste)[0]


def heuristic_analysis(ctx: PRContext, coverage: Coverage, language: str,
                       taste: Sequence[CorrectionMatch] = ()) -> tuple[Digest, TasteUse | None]:
    """The guide, and how the team's past corrections (`taste`, the nearest ones) changed its verdict:
    close corrections of the same call outweigh the heuristic's own (memory/similar.py), and the reason
    then says so."""
    signals = measure(ctx)
    verdict, reason = judge(signals, language)
    evidence = weigh(verdict, taste)
    use = None
    if evidence.changed:
        use = TasteUse(prs=[m.correction.pr for m in evidence.supporting][:10], changed_from=verdict)
        refs = code_names([f"#{m.correction.pr}" for m in evidence.supporting], 3, language).replace("`", "")
        reason = phrase(language, "taste", n=len(evidence.supporting), kind=describe(change_profile(ctx.files),
                        language), team=evidence.verdict.value, refs=refs, own=verdict.value, reason=reason)
        verdict = evidence.verdict
    digest = Digest(
        verdict=verdict,
        reason=_clip(reason, 400),
        headline=_clip(_headline(ctx, signals, language), 200),
        audience=audience(ctx, signals, language),
        decisions=design_points(ctx, signals, language) if verdict is not Verdict.SKIP
        else skip_points(signals, language),
        start_reading=start_reading(signals, ctx.title),
        discussion=_clip(discussion_summary(signals, language), 900),
        linked_issue_findings=issue_findings(ctx, signals, language),
        open_items=open_items(ctx, signals, coverage, language),
        related=related(ctx),
    )
    return digest, use


# --------------------------------------------------------------------------- verdict


@dataclass(frozen=True)
class Judgement:
    """The verdict, its reason, and what decided it: the shape rule (`shortcut`, a wording key) or the
    findings' points (`points`, against DEEP_READ_POINTS)."""

    verdict: Verdict
    reason: str
    shortcut: str = ""
    points: float = 0.0


def judge(sig: Signals, language: str) -> tuple[Verdict, str]:
    """The verdict and its one-sentence reason."""
    j = judgement(sig, language)
    return j.verdict, j.reason


def judgement(sig: Signals, language: str) -> Judgement:
    """The verdict, its reason and what decided it."""
    mechanical = _mechanical(sig, language)
    if mechanical is not None:
        verdict, key, values = mechanical
        return Judgement(verdict, phrase(language, key, **values), shortcut=key)
    findings = _score(sig, language)
    score = sum(f.points for f in findings)
    verdict = Verdict.DEEP_READ if score >= DEEP_READ_POINTS else Verdict.SKIM
    ordered = sorted((f for f in findings if f.key != "tests"), key=lambda f: (f.key not in _BEYOND_SIZE, -f.points))
    # a line count says little next to what the change does; it is named when little else is
    shown = [f for f in ordered if not f.key.startswith("small_fix") or len(ordered) == 1][:3]
    parts = [phrase(language, f.key, **f.values) for f in shown]
    joined = phrase(language, "sep").join(parts[:-1])
    findings_text = (joined + phrase(language, "and") + parts[-1]) if len(parts) > 1 else parts[0]
    if sig.new_packages and sig.new_package_share >= NEW_PACKAGE_SHARE and not sig.analysed_issues \
            and sig.discussion.comments < 25:
        packages = code_names([p + "/" for p in sig.new_packages], 2, language)
        share = round(sig.new_package_share * 100)
        if not sig.shared_edits:
            return Judgement(Verdict.SKIM, phrase(language, "new_package_alone", packages=packages, share=share),
                             "new_package_alone", score)
        shared = code_names([p.rsplit("/", 1)[-1] for p in sig.shared_edits], 4, language)
        return Judgement(Verdict.SKIM, phrase(language, "new_package", packages=packages, share=share,
                                              shared=shared), "new_package", score)
    return Judgement(verdict, phrase(language, "deep" if verdict is Verdict.DEEP_READ else "skim",
                                     findings=findings_text), points=score)


def _guard_matters(sig: Signals) -> bool:
    """A removed guard is news in a focused change; in a mass deletion it is part of what goes away."""
    return bool(sig.removed_guards) and sig.deleted_lines <= GUARD_CONTEXT_LINES


def _substance(sig: Signals) -> bool:
    """Signs that a PR of a routine shape changes behaviour: then no shortcut may call it routine."""
    return bool(_guard_matters(sig) or sig.changed_defaults or sig.security or sig.hidden_logic
                or sig.analysed_issues)


def _mechanical(sig: Signals, language: str) -> tuple[Verdict, str, dict[str, object]] | None:
    """The verdict for PRs whose shape alone decides it, or None for changes to be scored."""
    with_mechanical = (*MECHANICAL_KINDS,)
    if sig.files_total == 0:
        return Verdict.SKIP, "empty", {}
    if sig.only(*MECHANICAL_KINDS):
        if sig.bulk_files:
            return Verdict.SKIP, "bulk_data", {"n": sig.bulk_files}
        return Verdict.SKIP, "mechanical_only", {"n": sig.files_total}
    if sig.is_revert and not sig.analysed_issues:
        return Verdict.SKIP, "revert", {}
    if sig.repeated_change_files and sig.new_definitions <= sig.repeated_change_files // 10:
        return Verdict.SKIP, "repeated", {"n": sig.repeated_change_files}
    if sig.version_only:
        return Verdict.SKIP, "version_exclusion" if sig.excludes_version else "version_only", {}
    if _substance(sig):
        return None
    if sig.only(FileKind.RENAMED, FileKind.DELETED, *with_mechanical) and sig.kinds.get(FileKind.RENAMED):
        return Verdict.SKIP, "renames", {"n": sig.kinds[FileKind.RENAMED]}
    if sig.move_only:
        return Verdict.SKIP, "moves", {"n": sig.moved_files, "target": code_names([sig.move_target + "/"], 1,
                                                                                  language)}
    if sig.cosmetic_only:
        return Verdict.SKIP, "cosmetic", {}
    if sig.added_code_total >= MOVED_MIN_LINES and sig.moved_code_lines >= MOVED_SHARE * sig.added_code_total:
        return Verdict.SKIP, "code_moves", {"share": round(100 * sig.moved_code_lines / sig.added_code_total)}
    if sig.only(FileKind.DOCS, *with_mechanical):
        if sig.added_doc_lines >= SUBSTANTIAL_DOC_LINES:
            return Verdict.SKIM, "docs_substantial", {"lines": sig.added_doc_lines}
        return Verdict.SKIP, "docs_small", {"lines": sig.added_doc_lines}
    if sig.added_lines * 10 <= sig.deleted_lines and sig.new_definitions <= 2:
        moved = sig.new_files or sig.kinds.get(FileKind.RENAMED, 0) or sig.added_code_lines >= 20
        return (Verdict.SKIM, "removal_with_new_home", {"deleted": sig.deleted_lines}) if moved else (
            Verdict.SKIP, "removal", {"deleted": sig.deleted_lines})
    quiet = sig.discussion.comments < 10
    if quiet and sig.kinds.get(FileKind.TEST) and sig.only(FileKind.TEST, FileKind.CONFIG, *with_mechanical):
        if sig.kinds[FileKind.TEST] >= RESTRUCTURED_TEST_FILES and sig.deleted_test_lines >= sig.added_test_lines:
            return Verdict.SKIP, "tests_restructured", {"n": sig.kinds[FileKind.TEST]}
        if sig.added_test_lines >= SUBSTANTIAL_TEST_LINES:
            return Verdict.SKIM, "tests_substantial", {"lines": sig.added_test_lines}
        return Verdict.SKIP, "tests_small", {}
    if _build_graph(sig):
        return None
    if quiet and sig.only(FileKind.BUILD, FileKind.CONFIG, FileKind.DELETED, FileKind.RENAMED, *with_mechanical):
        if sig.added_other_lines >= SUBSTANTIAL_BUILD_LINES:
            return Verdict.SKIM, "build_substantial", {"lines": sig.added_other_lines}
        return Verdict.SKIP, "build_small", {}
    if quiet and _tiny_fix(sig):
        return Verdict.SKIP, "tiny_fix", {"lines": sig.added_code_lines + sig.deleted_code_lines}
    return None


def _build_graph(sig: Signals) -> bool:
    return len(sig.build_stages) >= BUILD_GRAPH_STAGES


def _tiny_fix(sig: Signals) -> bool:
    """A few lines of code with no test, no kernel and no new definition: the title says it all."""
    code_files = sum(n for k, n in sig.kinds.items() if k in CODE_KINDS)
    return (code_files <= 2 and sig.only(*CODE_KINDS, *MECHANICAL_KINDS)
            and sig.added_code_lines + sig.deleted_code_lines <= SMALL_FIX_LINES
            and max(sig.added_code_lines, sig.deleted_code_lines) <= TINY_FIX_LINES
            and not sig.new_definitions and not sig.kernel_files and not sig.kernel_adjacent)


def _score(sig: Signals, language: str) -> list[Finding]:
    p = FINDING_POINTS
    findings: list[Finding] = []
    if sig.new_definitions:
        code = [r for r in sig.ranked if r.kind in CODE_KINDS and r.definitions]
        self_contained = all(r.change.status.value == "added" for r in code) and len(sig.code_areas) <= 2
        cap = p["new_definitions_self_contained_max"] if self_contained else p["new_definitions_max"]
        findings.append(Finding("new_definitions", min(cap, p["new_definitions_per_name"] * sig.new_definitions),
                                {"n": sig.new_definitions}))
    if sig.abstractions:
        findings.append(Finding("abstraction", p["abstraction"], {}))
    if sig.implemented:
        top = sig.implemented[0]
        findings.append(Finding("implemented", p["implemented"], {"name": f"`{top.name}`", "n": int(top.text)}))
    if sig.capability_flags:
        findings.append(Finding("capability", p["capability"],
                                {"names": code_names(sig.capability_flags, 3, language)}))
    if sig.fail_fast:
        findings.append(Finding("fail_fast", p["fail_fast"],
                                {"names": code_names([f.name for f in sig.fail_fast if f.name], 2, language) or "—"}))
    if sig.kernel_files:
        findings.append(Finding("kernel", p["kernel"], {"n": len(sig.kernel_files)}))
    elif sig.kernel_adjacent:
        findings.append(Finding("kernel_adjacent", p["kernel_adjacent"], {}))
    if len(sig.code_areas) >= CROSS_CUTTING_AREAS:
        findings.append(Finding("cross_cutting", p["cross_cutting"], {"n": len(sig.code_areas)}))
    if sig.analysed_issues:
        refs = code_names([f"#{n}" for n in sig.analysed_issues], 3, language).replace("`", "")
        findings.append(Finding("issue_analysis", p["issue_analysis"], {"refs": refs}))
    comments = sig.discussion.comments
    if comments >= 25:
        findings.append(Finding("discussion_heavy", p["discussion_heavy"], {"n": comments}))
    elif comments >= 10:
        findings.append(Finding("discussion_heavy", p["discussion_some"], {"n": comments}))
    if sig.discussion.changes_requested and len(sig.discussion.participants) >= 2:
        findings.append(Finding("debate", p["debate"], {}))
    if _build_graph(sig):
        findings.append(Finding("build_graph", p["build_graph"],
                                {"names": code_names(sig.build_stages, 3, language)}))
    if sig.security:
        guarded = bool(sig.fail_fast) or any(r.definition.new and "valid" in r.definition.name.lower()
                                             or "saniti" in r.definition.name.lower() for r in sig.centre[:10])
        findings.append(Finding("security", p["security_guard"] if guarded else p["security"],
                                {"words": code_names(sig.security, 2, language)}))
    if sig.hidden_logic:
        findings.append(Finding("hidden_logic", p["hidden_logic"],
                                {"paths": code_names([x.rsplit("/", 1)[-1] for x in sig.hidden_logic], 2, language)}))
    if _guard_matters(sig):
        g = sig.removed_guards[0]
        where = phrase(language, "in_name", name=g.name) if g.name else ""
        findings.append(Finding("removed_guard", p["removed_guard"], {"guard": _code(g.text, 60), "where": where}))
    if sig.changed_defaults:
        d = sig.changed_defaults[0]
        findings.append(Finding("changed_default", p["changed_default"], {"name": d.name, "change": d.text}))
    if sig.regression_tests and sig.fix_title:
        findings.append(Finding("regression_test", p["regression_test"],
                                {"test": sig.regression_tests[0].rsplit("::", 1)[-1]}))
    if sig.perf_title and (sig.kernel_files or sig.kernel_adjacent or sig.added_code_lines):
        findings.append(Finding("perf", p["perf"], {}))
    if sig.added_test_lines:
        findings.append(Finding("tests", p["tests"], {}))
    # the wording counts code and tests apart: "a small code change (705 lines)" misled when 690 were tests
    lines = sig.added_code_lines + sig.deleted_code_lines
    size_key = "small_fix" if sig.added_code_lines <= SMALL_FIX_LINES and not sig.new_definitions else "code_change"
    values: dict[str, object] = {"lines": lines}
    if sig.added_test_lines:
        size_key += "_tests"
        values["tests"] = sig.added_test_lines
    findings.append(Finding(size_key, size_points(sig.added_code_lines + sig.added_test_lines), values))
    return findings


def _code(text: str, limit: int) -> str:
    text = " ".join(text.split()).replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + '…'}`"


# --------------------------------------------------------------------------- headline


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _headline(ctx: PRContext, sig: Signals, language: str) -> str:
    title = headline_of(ctx.title)
    if title:
        return title
    areas: dict[str, None] = {}
    for r in sig.ranked:
        if r.kind not in MECHANICAL_KINDS and "/" in r.change.path:
            areas.setdefault(r.change.path.rsplit("/", 1)[0] + "/", None)
    return phrase(language, "headline_files", n=sig.files_total, areas=code_names(list(areas), 3, language) or "—")
