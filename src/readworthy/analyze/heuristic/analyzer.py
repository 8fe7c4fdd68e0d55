"""The deterministic analyzer: a verdict and a reading guide from signals, with no model.

Used when no API key is configured and as the fallback when the model fails.
The verdict follows the same rubric as the model's (reading value, not size):

1. Shapes that settle a PR whatever its size, because nothing in it is read line by line, are `skip`:
   empty, only generated/lock/vendored/binary files, a revert that backs something out, versions only,
   and (unless it changes behaviour: a removed guard, a changed default, a security check, a "bump" that
   also changes logic) one edit repeated across many files, renames and moves with import updates only,
   a few names swapped everywhere, comment or whitespace edits only, tables of values only, a docs edit
   that adds no section, code moved or reordered, or a deletion that adds nothing.
2. Everything else is weighed by the reading-value model (verdict_model.py): general facts about the
   change (sizes on a log scale, what kind of files, new definitions, interfaces, capability checks,
   new build stages, a fix pinned by tests ...) with weights fitted on labelled PRs. The verdict is the one with
   the least expected cost under COSTS: calling a PR worth reading `skip` costs most, so a skip needs
   a clear majority.
3. Rubric rules the diff cannot show: a linked issue with a root-cause analysis makes a fix `deep-read`;
   a long review debate or a security change is at least `skim`.

The reason names the facts that decided, each checked in the diff it describes.
Everything it names comes from the context, so it needs no grounding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...memory.profile import change_profile
from ...memory.similar import weigh
from ...memory.words import describe
from ...models import CorrectionMatch, Coverage, Digest, FileStatus, PRContext, TasteUse, Verdict
from ...pack.classify import FileKind
from .defaults import is_constant
from .guide import design_points, headline_of, skip_points
from .readers import audience, discussion_summary, issue_findings, open_items, related
from .signals import MECHANICAL_KINDS, NEW_MODULE_LINES, NEW_PACKAGE_SHARE, Signals, measure
from .start import start_reading
from .sweeps import Sweep
from .verdict_model import FITTED, GUARD_CONTEXT_LINES, RUBRIC_PRIOR, Estimate, Params, estimate, reading_facts
from .wording import code_names, fit, list_sep, phrase

# The cost of giving `given` when the team's verdict is `label`, fixed by what a wrong call costs a
# reader (not fitted): a PR worth reading called skip is never read, the worst miss.
COSTS: Mapping[tuple[Verdict, Verdict], float] = {
    (Verdict.DEEP_READ, Verdict.SKIP): 4.0, (Verdict.SKIM, Verdict.SKIP): 2.0,
    (Verdict.SKIP, Verdict.DEEP_READ): 2.0, (Verdict.SKIM, Verdict.DEEP_READ): 1.0,
    (Verdict.DEEP_READ, Verdict.SKIM): 1.0, (Verdict.SKIP, Verdict.SKIM): 1.0,
}
# How sure a settling shape is of `skip`: what a diff of that shape is in any repository.
SHAPE_CONFIDENCE: Mapping[str, float] = {
    "empty": 0.99, "mechanical_only": 0.97, "bulk_data": 0.97, "version_only": 0.95, "version_exclusion": 0.95,
    "renames": 0.95, "moves": 0.95, "cosmetic": 0.95, "code_moves": 0.9, "repeated": 0.9, "revert": 0.9,
    "removal": 0.9, "docs_edit": 0.9, "data_only": 0.9, "name_renames": 0.9,
    # a sweep may swap in a safer callee (`yaml.load` → `yaml.safe_load`): below CONFIDENT_SKIP, so the model
    # still reads it when the quota allows
    "call_sweep": 0.85,
}
RUBRIC_CONFIDENCE = 0.6  # a verdict set by a rubric rule the labelled diffs cannot measure
CROSS_CUTTING_AREAS = 4
SMALL_FIX_LINES = 10
MOVED_MIN_LINES = 20  # code moves are judged on at least this many added lines
MOVED_SHARE = 0.85  # this share of the added code was removed elsewhere (or is imports): code moved, not changed
REMOVAL_SHARE = 0.9  # of the changed lines deleted: a removal
GUARD_SHOWN_CHARS = 110  # a removed guard is quoted whole when it fits: its condition says what was checked
DOC_SECTION_LINES = 20  # a new docs heading with this many added lines is a section that explains something
# Findings about what the change does, named first in the reason (size and counts come after).
_RUBRIC_FIRST = ("security", "security_claimed", "hidden_logic", "issue_analysis", "debate", "discussion_heavy")
# Model features -> the finding that names them in the reason.
_FINDING_OF = {"interface": "interface", "capability": "capability", "fail_fast": "fail_fast",
               "build_stages": "build_graph",
               "removed_guard": "removed_guard", "changed_default": "changed_default",
               "regression_test": "regression_test", "fix_with_tests": "regression_test",
               "new_definitions": "new_definitions"}


@dataclass(frozen=True)
class Finding:
    key: str
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
    decisions = design_points(ctx, signals, language) if verdict is not Verdict.SKIP else skip_points(signals, language)
    digest = Digest(
        verdict=verdict,
        reason=fit(reason, 400),
        headline=fit(_headline(ctx, signals, language), 200),
        audience=audience(ctx, signals, language),
        decisions=decisions,
        start_reading=start_reading(signals, ctx.title, [r for d in decisions[:4] for r in d.references]),
        discussion=fit(discussion_summary(signals, language), 900),
        linked_issue_findings=issue_findings(ctx, signals, language),
        open_items=open_items(ctx, signals, coverage, language),
        related=related(ctx),
    )
    return digest, use


# --------------------------------------------------------------------------- verdict


@dataclass(frozen=True)
class Judgement:
    """The verdict, its reason, and how it was reached: the settling shape (`shortcut`, a wording key)
    or the model's estimate; `confidence` is how sure it is of the verdict, `score` the reading value."""

    verdict: Verdict
    reason: str
    confidence: float
    score: float  # 0..100: 100 x (P(deep-read) + P(skim) / 2)
    shortcut: str = ""
    probabilities: Mapping[Verdict, float] = field(default_factory=dict)


def judge(sig: Signals, language: str) -> tuple[Verdict, str]:
    """The verdict and its one-sentence reason."""
    j = judgement(sig, language)
    return j.verdict, j.reason


def judgement(sig: Signals, language: str, params: Params = FITTED) -> Judgement:
    """The verdict, its reason, how sure it is and the reading value (`params`: the model's constants;
    bench/verdicts.py passes those fitted without the PR to measure it out of sample)."""
    settled = _settled(sig, language)
    if settled is not None:
        key, values = settled
        confidence = SHAPE_CONFIDENCE[key]
        return Judgement(Verdict.SKIP, phrase(language, key, **values), confidence, 50.0 * (1 - confidence),
                         shortcut=key)
    est = estimate(sig, params)
    verdict = decide(est.probabilities)
    confidence = est.probabilities[verdict]
    raised = _rubric(sig, verdict)
    p = est.probabilities
    score = 100.0 * (p[Verdict.DEEP_READ] + p[Verdict.SKIM] / 2)
    if raised is not verdict:
        verdict, confidence = raised, max(RUBRIC_CONFIDENCE, p[raised])
        score = max(score, 100.0 * RUBRIC_CONFIDENCE)
    return Judgement(verdict, _reason(sig, verdict, est, language), round(confidence, 3), round(score, 1),
                     probabilities=dict(p))


def decide(probabilities: Mapping[Verdict, float]) -> Verdict:
    """The verdict of least expected cost (COSTS)."""
    def cost(given: Verdict) -> float:
        return sum(p * COSTS.get((label, given), 0.0) for label, p in probabilities.items())
    return min((Verdict.SKIM, Verdict.DEEP_READ, Verdict.SKIP), key=cost)


_ORDER = (Verdict.SKIP, Verdict.SKIM, Verdict.DEEP_READ)


def _rubric(sig: Signals, verdict: Verdict) -> Verdict:
    """The verdict after the rubric's rules for what a diff alone cannot show (the labelled PRs carry no
    discussion or issues, so these are not fitted): a root-cause analysis in a linked issue makes a
    PR deep-read; a security change with a new check is deep-read, any security change at least skim;
    a drop of new code (a model, a backend, a tool), a new interface or base class other code implements (the rubric's
    pattern every future implementation follows) and a tests-only PR bringing a new testing technique are
    at least skim, and so is a docs PR that adds a section (not a typo or a link); a long review discussion and a
    debate (changes requested, two or more people) each raise it a level. Size alone, with no fact the rubric
    reads for, is never a deep-read."""
    if sig.analysed_issues or (_security(sig) and sig.fail_fast):
        return Verdict.DEEP_READ
    level = _ORDER.index(verdict)
    if verdict is Verdict.DEEP_READ and not reading_facts(sig):  # size alone: the model's log sizes run on
        level = 1
    contract = bool(sig.implemented or sig.abstractions)  # an interface other code implements: never a skip
    if _security(sig) or contract or _new_code_drop(sig) or _new_test_technique(sig) \
            or _new_doc_section(sig):
        level = max(level, 1)
    level += (sig.discussion.comments >= 25) + bool(sig.discussion.changes_requested
                                                    and len(sig.discussion.participants) >= 2)
    return _ORDER[min(level, 2)]


def _security(sig: Signals) -> bool:
    """A security change the diff shows: a security word inside a check it adds, or an advisory it names
    (CVE-…, GHSA-…). "Security" in the title or description alone is PR text anyone can write: it is said
    in the reason, it does not raise the verdict."""
    return sig.security_in_code or any(w.upper().startswith(("CVE", "GHSA")) for w in sig.security)


def _new_code_drop(sig: Signals) -> bool:
    """Most of the added code is a new package of its own, or new modules in existing directories (a model
    file beside the other models): the rubric's model drop, a skim of the shared pieces it changes or, with
    none, of what it brings. Never a skip: the model's weight on the new-package share, learned from drops
    big enough to be skims, would call a smaller one a confident skip, and a confident skip is never sent
    to a model."""
    return _new_package(sig) or _new_modules(sig)


def _new_package(sig: Signals) -> bool:
    """Most of the added code is in new directories of its own."""
    return bool(sig.new_packages and sig.new_package_share >= NEW_PACKAGE_SHARE)


def _new_modules(sig: Signals) -> bool:
    """Most of the added code is in files the PR creates, and they hold a module's worth of it."""
    return sig.new_file_share >= NEW_PACKAGE_SHARE and sig.new_file_code_lines >= NEW_MODULE_LINES


def _new_test_technique(sig: Signals) -> bool:
    """A tests-only PR that adds a test module with its own technique (fixtures, parametrisation, an
    oracle), or a fixture that runs the tests taking it once per value (the rubric's fixture that exercises
    both the enabled and the fallback path) where no parametrisation is removed (one moved into a fixture is
    the same coverage): the rubric's borrowable testing idea, a skim."""
    new_test_file = any(r.kind is FileKind.TEST and r.change.status is FileStatus.ADDED for r in sig.ranked)
    new_module = new_test_file and sig.test_techniques >= 2
    wider = (sig.parametrised_fixtures > 0 or sig.case_tables > 0) and not sig.removed_parametrisations
    return ((new_module or wider) and bool(sig.kinds.get(FileKind.TEST))
            and sig.only(FileKind.TEST, *_SUPPORT_KINDS))


def _new_doc_section(sig: Signals) -> bool:
    """A docs-only PR that adds a section of prose (a heading and DOC_SECTION_LINES lines): it explains
    something readers did not have, the rubric's skim; fixing a typo, a link or a name is a skip."""
    return (bool(sig.kinds.get(FileKind.DOCS)) and sig.only(FileKind.DOCS, *_SUPPORT_KINDS)
            and sig.doc_headings >= 1 and sig.added_doc_lines >= DOC_SECTION_LINES)


def _doc_edit(sig: Signals) -> bool:
    """Docs alone, edited without a new heading and in fewer lines than a section: a typo, a link, a list
    entry, a sentence reworded (the rubric's skip; `_new_doc_section` is the other side of the line)."""
    return (bool(sig.kinds.get(FileKind.DOCS)) and sig.only(FileKind.DOCS, FileKind.DELETED, *MECHANICAL_KINDS)
            and not sig.doc_headings and sig.added_doc_lines < DOC_SECTION_LINES)


def _guard_matters(sig: Signals) -> bool:
    """A removed guard is news in a focused change; in a mass deletion it is part of what goes away."""
    return bool(sig.removed_guards) and sig.deleted_lines <= GUARD_CONTEXT_LINES


def _substance(sig: Signals) -> bool:
    """Signs that a PR of a routine shape changes behaviour: then no shortcut may call it routine. A
    "security" title alone is not one (`_security`): it cannot make a mechanical edit less mechanical."""
    return bool(_guard_matters(sig) or sig.changed_defaults or _security(sig) or sig.hidden_logic
                or sig.analysed_issues)


def _settled(sig: Signals, language: str) -> tuple[str, dict[str, object]] | None:
    """The wording key of a shape that settles `skip` whatever the size, or None."""
    if sig.files_total == 0:
        return "empty", {}
    if sig.only(*MECHANICAL_KINDS):
        if sig.bulk_files:
            return "bulk_data", {"n": sig.bulk_files}
        return "mechanical_only", {"n": sig.files_total}
    if sig.version_only:
        return ("version_exclusion" if sig.excludes_version else "version_only"), {}
    if _substance(sig):  # a bump with code beside the pin is judged by that code, not as churn
        return None
    # "Revert" is PR text anyone can write: it settles skip only when the diff looks like a back-out (it deletes
    # at least as much as it adds, defines nothing new and adds no refusal; a guard it drops is substance,
    # above), so new code titled a revert is judged on its code
    if sig.is_revert and not sig.analysed_issues and sig.deleted_lines >= sig.added_lines \
            and not sig.new_definitions and not sig.new_refusals:
        return "revert", {}
    # the same edit across many files, and no code file beside it with logic of its own
    if sig.repeated_change_files and sig.new_definitions <= sig.repeated_change_files // 10 \
            and not sig.repeated_outliers:
        return "repeated", {"n": sig.repeated_change_files}
    if sig.only(FileKind.RENAMED, FileKind.DELETED, *MECHANICAL_KINDS) and sig.kinds.get(FileKind.RENAMED):
        return "renames", {"n": sig.kinds[FileKind.RENAMED]}
    if sig.move_only:
        return "moves", {"n": sig.moved_files, "target": code_names([sig.move_target + "/"], 1, language)}
    if sig.renamed_names:  # after moves: a move's import updates swap a package name
        names = list_sep(language).join(f"`{old}` → `{new}`" for old, new in sig.renamed_names)
        return "name_renames", {"names": names, "n": sum(1 for r in sig.ranked
                                                          if r.change.patch and r.kind not in MECHANICAL_KINDS)}
    if sig.sweep:
        return "call_sweep", _sweep_values(sig.sweep, language)
    if sig.cosmetic_only:
        return "cosmetic", {}
    if sig.data_files and sig.data_files == sig.kinds.get(FileKind.CONFIG) \
            and sig.only(FileKind.CONFIG, FileKind.DELETED, *MECHANICAL_KINDS):
        return "data_only", {"n": sig.data_files}
    if _doc_edit(sig):
        return "docs_edit", {"lines": sig.added_doc_lines}
    if sig.added_code_total >= MOVED_MIN_LINES and sig.moved_code_lines >= MOVED_SHARE * sig.added_code_total:
        return "code_moves", {"share": round(100 * sig.moved_code_lines / sig.added_code_total)}
    if not sig.added_lines and sig.deleted_lines:  # deletes and adds nothing: the rubric's dead-code deletion
        return "removal", {"deleted": sig.deleted_lines}
    return None


def _sweep_values(sweep: Sweep, language: str) -> dict[str, object]:
    names = list_sep(language).join(f"`{old}` → `{new}`" for old, new in sweep.swaps)
    home = phrase(language, "call_sweep_home", home=code_names([sweep.home], 1, language)) if sweep.home else ""
    return {"names": names, "n": sweep.files, "home": home}


# --------------------------------------------------------------------------- reason


_SUPPORT_KINDS = (FileKind.CONFIG, FileKind.DELETED, FileKind.RENAMED, *MECHANICAL_KINDS)


def _reason(sig: Signals, verdict: Verdict, est: Estimate, language: str) -> str:
    """One sentence for the verdict, from facts checked in the diff: the kind of change when that is
    what it is, else the facts that weighed most."""
    shaped = _shape_reason(sig, verdict, language)
    if shaped is not None:
        return shaped
    findings = _findings(sig, est, language)
    parts = [phrase(language, f.key, **f.values) for f in findings]
    joined = phrase(language, "sep").join(parts[:-1])
    text = (joined + phrase(language, "and") + parts[-1]) if len(parts) > 1 else parts[0]
    key = {Verdict.DEEP_READ: "deep", Verdict.SKIM: "skim", Verdict.SKIP: "skip_code"}[verdict]
    if verdict is Verdict.SKIM and any(f.key in _DESIGN_FINDINGS for f in findings):
        key = "skim_design"  # "nothing suggests a wider design change" would deny the interface it names
    return phrase(language, key, findings=text)


# Findings that are a design other code builds on: a skim that names one does not deny it in the same breath.
_DESIGN_FINDINGS = frozenset({"implemented", "abstraction", "capability", "fail_fast", "build_graph",
                              "cross_cutting"})


def _config_lines(sig: Signals, *also: FileKind) -> int:
    """Lines added to configuration files (YAML, TOML ...) and files of the `also` kinds; images and lock files
    are not counted."""
    return sum(r.change.additions for r in sig.ranked if r.kind is FileKind.CONFIG or r.kind in also)


def _shape_reason(sig: Signals, verdict: Verdict, language: str) -> str | None:
    if verdict is Verdict.DEEP_READ or _substance(sig):
        return None
    skip = verdict is Verdict.SKIP
    config = _config_lines(sig)
    if sig.kinds.get(FileKind.DOCS) and sig.only(FileKind.DOCS, *_SUPPORT_KINDS):
        if config > sig.added_doc_lines:  # mostly configuration or examples: not "docs only"
            return phrase(language, "docs_config", lines=sig.added_doc_lines, other=config)
        return phrase(language, "docs_small" if skip else "docs_substantial", lines=sig.added_doc_lines)
    if sig.kinds.get(FileKind.TEST) and sig.only(FileKind.TEST, *_SUPPORT_KINDS):
        if config > sig.added_test_lines:
            return phrase(language, "tests_config", lines=sig.added_test_lines, other=config)
        return phrase(language, "tests_small" if skip else "tests_substantial", lines=sig.added_test_lines)
    if not any(sig.kinds.get(k) for k in (FileKind.SOURCE, FileKind.KERNEL, FileKind.TEST, FileKind.DOCS)) \
            and sig.only(FileKind.BUILD, *_SUPPORT_KINDS) and not sig.build_stages:
        kind = "build" if sig.kinds.get(FileKind.BUILD) else "config"  # settings alone are not CI or a build
        return phrase(language, f"{kind}_small" if skip else f"{kind}_substantial", lines=sig.added_other_lines)
    changed = sig.added_lines + sig.deleted_lines
    if skip and changed and sig.deleted_lines >= REMOVAL_SHARE * changed and not sig.new_definitions:
        return phrase(language, "removal", deleted=sig.deleted_lines)
    package = _new_package(sig)
    # new files among existing ones say less than a contract they add: that is named first (`_findings`)
    contract = sig.fail_fast or sig.capability_flags or sig.implemented or sig.abstractions
    if not skip and (package or _new_modules(sig) and not contract):
        names = [r.change.path.rsplit("/", 1)[-1] for r in sig.ranked]

        def label(path: str) -> str:  # a file is named by its base name unless another changed file shares it
            return path if names.count(path.rsplit("/", 1)[-1]) > 1 else path.rsplit("/", 1)[-1]
        if package:
            key, share = "new_package", sig.new_package_share
            values = {"packages": code_names([p + "/" for p in sig.new_packages], 2, language)}
        else:
            key, share = "new_modules", sig.new_file_share
            values = {"files": code_names([label(p) for p in sig.new_code_files], 2, language)}
        if not sig.shared_edits:
            return phrase(language, key + "_alone", share=round(share * 100), **values)
        shared = code_names([label(p) for p in sig.shared_edits], 4, language)
        return phrase(language, key, share=round(share * 100), shared=shared, **values)
    if skip and sig.added_code_lines <= SMALL_FIX_LINES and not sig.new_definitions:
        lines = sig.added_code_lines + sig.deleted_code_lines - sig.deleted_test_lines
        if sig.added_test_lines:
            return phrase(language, "tiny_fix_tests", lines=lines, tests=sig.added_test_lines)
        return phrase(language, "tiny_fix", lines=lines)
    return None


def _findings(sig: Signals, est: Estimate, language: str) -> list[Finding]:
    """The facts that weighed most (rubric facts first), at most three, and the size when little else."""
    available = _available(sig, language)
    keys = [k for k in _RUBRIC_FIRST if k in available]
    for feature, weight in sorted(est.contributions.items(), key=lambda kv: -kv[1]):
        key = _FINDING_OF.get(feature)
        # a fact the rubric calls worth reading is named even where the fit gave it no weight of its own
        if (weight > 0 or weight == 0 and RUBRIC_PRIOR.get(feature, 0) > 0) and key in available and key not in keys:
            keys.append(key)
    keys.sort(key=lambda k: k == "new_definitions")  # a count says less than a fact that names the code
    shown = [available[k] for k in keys[:3]]
    if not shown or len(shown) < 2 and _mostly_code(sig):  # a line count says little next to what the change does
        shown.append(_size(sig, language))
    return shown


def _available(sig: Signals, language: str) -> dict[str, Finding]:
    """Every fact the reason may name, keyed by its wording, each present only when the diff shows it."""
    out: dict[str, Finding] = {}
    if sig.new_definitions:
        out["new_definitions"] = Finding("new_definitions", {"n": sig.new_definitions})
    if sig.implemented:
        top = sig.implemented[0]
        out["interface"] = Finding("implemented", {"name": f"`{top.name}`", "n": int(top.text)})
    elif sig.abstractions:
        out["interface"] = Finding("abstraction", {})
    if sig.capability_flags:
        out["capability"] = Finding("capability", {"names": code_names(sig.capability_flags, 3, language)})
    if sig.fail_fast:
        names = code_names([f.name for f in sig.fail_fast if f.name], 2, language)
        if names:
            out["fail_fast"] = Finding("fail_fast", {"names": names})
    if len(sig.code_areas) >= CROSS_CUTTING_AREAS:
        out["cross_cutting"] = Finding("cross_cutting", {"n": len(sig.code_areas)})
    if sig.analysed_issues:
        refs = code_names([f"#{n}" for n in sig.analysed_issues], 3, language).replace("`", "")
        out["issue_analysis"] = Finding("issue_analysis", {"refs": refs})
    if sig.discussion.comments >= 10:
        out["discussion_heavy"] = Finding("discussion_heavy", {"n": sig.discussion.comments})
    if sig.discussion.changes_requested and len(sig.discussion.participants) >= 2:
        out["debate"] = Finding("debate", {})
    if sig.build_stages:
        out["build_graph"] = Finding("build_graph", {"names": code_names(sig.build_stages, 3, language)})
    if sig.security:
        key = "security" if _security(sig) else "security_claimed"  # the title's word alone is only a claim
        out[key] = Finding(key, {"words": code_names(sig.security, 2, language)})
    if sig.hidden_logic:
        out["hidden_logic"] = Finding("hidden_logic", {"paths": code_names(
            [x.rsplit("/", 1)[-1] for x in sig.hidden_logic], 2, language)})
    if _guard_matters(sig):
        g = sig.removed_guards[0]
        where = phrase(language, "in_name", name=g.name) if g.name else ""
        out["removed_guard"] = Finding("removed_guard", {"guard": _code(g.text, GUARD_SHOWN_CHARS), "where": where})
    if sig.changed_defaults:
        d = sig.changed_defaults[0]
        key = "changed_constant" if is_constant(d.name) else "changed_default"
        out["changed_default"] = Finding(key, {"name": d.name, "change": d.text})
    if sig.regression_tests:
        # "the fix" only where the title says it is one and the diff agrees; otherwise a change the test pins
        out["regression_test"] = Finding("regression_test" if sig.fix else "change_test",
                                         {"test": sig.regression_tests[0].rsplit("::", 1)[-1]})
    elif sig.fix and sig.added_test_lines and sig.added_code_lines:
        out["regression_test"] = Finding("fix_tests", {})  # tests beside a fix, none traced to the changed code
    return out


def _mostly_code(sig: Signals) -> bool:
    """Code is at least half of what changed outside tests: only then does "a small code change" describe
    the PR (one line of a script beside a restructured image build is not what the PR is)."""
    code = sig.added_code_lines + sig.deleted_code_lines - sig.deleted_test_lines
    rest = sig.added_lines + sig.deleted_lines - sig.added_test_lines - sig.deleted_test_lines
    return code > 0 and 2 * code >= rest


def _size(sig: Signals, language: str) -> Finding:
    # the wording counts code and tests apart: "a small code change (705 lines)" misled when 690 were tests
    lines = sig.added_code_lines + sig.deleted_code_lines - sig.deleted_test_lines
    if lines <= 0 and not sig.new_definitions:  # "a code change (0 lines)" says what is not there
        # what it changes instead, each kind counted: tests, build and CI files, docs
        counts = {"added_tests": sig.added_test_lines, "added_build": _config_lines(sig, FileKind.BUILD),
                  "added_docs": sig.added_doc_lines}
        parts = [phrase(language, key, n=n) for key, n in counts.items() if n]
        return Finding("no_code_beside", {"parts": phrase(language, "sep").join(parts)}) if parts \
            else Finding("no_code", {})
    key = "small_fix" if sig.added_code_lines <= SMALL_FIX_LINES and not sig.new_definitions else "code_change"
    values: dict[str, object] = {"lines": lines}
    if sig.added_test_lines:
        key += "_tests"
        values["tests"] = sig.added_test_lines
    return Finding(key, values)


def _code(text: str, limit: int) -> str:
    text = " ".join(text.split()).replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + '…'}`"


# --------------------------------------------------------------------------- headline


def _headline(ctx: PRContext, sig: Signals, language: str) -> str:
    title = headline_of(ctx.title)
    if title:
        return title
    areas: dict[str, None] = {}
    for r in sig.ranked:
        if r.kind not in MECHANICAL_KINDS and "/" in r.change.path:
            areas.setdefault(r.change.path.rsplit("/", 1)[0] + "/", None)
    return phrase(language, "headline_files", n=sig.files_total, areas=code_names(list(areas), 3, language) or "—")
