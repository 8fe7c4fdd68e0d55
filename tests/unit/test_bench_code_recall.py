"""bench/code_recall.py: key points -> targets, and what a prompt's diff section really shows."""

from __future__ import annotations

import json
from pathlib import Path

from bench_modules import load_bench

from readworthy.gather.local import LocalSource, context_from_source

cr = load_bench("code_recall")

CHANGED = [
    "vllm/model_executor/layers/quantization/base_config.py",
    "vllm/model_executor/layers/vocab_parallel_embedding.py",
    "vllm/models/m3/common/model.py",
    "vllm/models/m3/amd/ops.py",
    "vllm/models/m3/nvidia/ops.py",
    ".buildkite/test_areas/plugins.yaml",
    "vllm/runner/interface.py",
]


def as_pairs(targets: list) -> set[tuple[tuple[str, ...], str | None]]:
    return {(t.files, t.name) for t in targets}


def test_path_symbol_pairs_resolve_full_paths_and_bare_file_names() -> None:
    point = ("vllm/model_executor/layers/quantization/base_config.py::QuantizeMethodBase.tie_weights (new hook) "
             "used by vocab_parallel_embedding.py::ParallelLMHead.tie_weights")
    targets, unresolved = cr.parse_key_point(point, CHANGED)
    assert as_pairs(targets) == {
        ((CHANGED[0],), "tie_weights"),
        ((CHANGED[1],), "tie_weights"),
    }
    assert unresolved == []


def test_brace_lists_and_directories_are_one_path_only_target_each() -> None:
    targets, _ = cr.parse_key_point("vllm/models/m3/{common,amd}/ layout (same template as the others)", CHANGED)
    assert as_pairs(targets) == {((CHANGED[2],), None), ((CHANGED[3],), None)}


def test_prose_identifiers_and_quoted_strings_attach_to_the_nearest_path() -> None:
    point = ("vllm/runner/interface.py::MoERunner (abstract expert_map/set_eplb_state surface, 'HACK' marker) "
             "and the usual prose words")
    targets, _ = cr.parse_key_point(point, CHANGED)
    files = (CHANGED[6],)
    assert as_pairs(targets) == {(files, "MoERunner"), (files, "expert_map"), (files, "set_eplb_state"),
                                 (files, "HACK")}


def test_a_leading_dot_stays_and_a_path_not_written_with_symbols_is_also_path_only() -> None:
    targets, _ = cr.parse_key_point(".buildkite/test_areas/plugins.yaml 'GGUF Plugin' optional soft_fail step",
                                    CHANGED)
    files = (CHANGED[5],)
    assert as_pairs(targets) == {(files, "GGUF Plugin"), (files, "soft_fail"), (files, None)}


def test_paths_naming_no_changed_file_are_reported_and_their_symbols_dropped() -> None:
    targets, unresolved = cr.parse_key_point("csrc/gone/kernel.cu::launch_it removed", CHANGED)
    assert targets == []
    assert unresolved == ["csrc/gone/kernel.cu"]


PATCHES = {
    "pkg/a.py": "@@ -1,2 +1,3 @@\n def keep():\n-    old_name()\n+    tie_weights(x)\n+    tie_weights_extra(y)\n",
    "pkg/b.py": "@@ -1,2 +1,1 @@\n-def removed_only():\n-    pass\n+# comment\n",
    "docs/c.md": "@@ -0,0 +1,2 @@\n+Some prose.\n+Some prose.\n",
}


def test_qualifying_lines_carry_the_whole_name_and_only_removed_names_are_unmeasurable() -> None:
    targets = cr.build_targets(["pkg/a.py::Base.tie_weights", "pkg/b.py::removed_only", "docs/c.md"], PATCHES)
    measurable = {t.label: lines for t, lines in targets.measurable}
    assert measurable["pkg/a.py::Base.tie_weights"] == {"pkg/a.py": frozenset({"    tie_weights(x)"})}
    assert measurable["docs/c.md"] == {"docs/c.md": frozenset({"Some prose."})}
    assert [t.label for t in targets.unmeasurable] == ["pkg/b.py::removed_only"]


def prompt(diff: str, index: str = "") -> str:
    return (f"<<<BEGIN RW-1 files>>>\n{index}\n<<<END RW-1 files>>>\n"
            f"<<<BEGIN RW-1 diff>>> (the diff)\n{diff}\n<<<END RW-1 diff>>>\n")


def recall_of(text: str) -> list[bool]:
    targets = cr.build_targets(["pkg/a.py::tie_weights"], PATCHES)
    shown = cr.shown_added_lines(cr.diff_section(text), list(PATCHES))
    return cr.recalled(targets, shown)


def test_a_target_is_recalled_only_by_its_added_line_under_its_own_file() -> None:
    assert recall_of(prompt("### pkg/a.py [source, modified]\n@@ -1 +1 @@\n+    tie_weights(x)")) == [True]
    assert recall_of(prompt("diff --git a/pkg/a.py b/pkg/a.py\n@@ -1 +1 @@\n+    tie_weights(x)")) == [True]
    assert recall_of(prompt("\n\n## File: 'pkg/a.py'\n\n@@ -1 +1 @@\n+    tie_weights(x)")) == [True]
    # under another file's header, cut short, only in the index, or without the "+": not shown
    assert recall_of(prompt("### pkg/b.py [source]\n+    tie_weights(x)")) == [False]
    assert recall_of(prompt("### pkg/a.py [source]\n+    tie_wei")) == [False]
    assert recall_of(prompt("", index="M pkg/a.py defines: tie_weights\n+    tie_weights(x)")) == [False]
    assert recall_of(prompt("### pkg/a.py [source]\n     tie_weights(x)")) == [False]


def test_breadth_counts_source_lines_with_multiplicity_and_naming_counts_any_mention() -> None:
    text = prompt("diff --git a/pkg/a.py b/pkg/a.py\n+    tie_weights(x)\n### docs/c.md\n+Some prose.")
    shown = cr.shown_added_lines(cr.diff_section(text), list(PATCHES))
    assert cr.breadth(PATCHES, shown) == (1, 3)  # a.py 1 of 2, b.py 0 of 1; docs are not source
    assert cr.named_files(PATCHES, text) == (2, 3)


def test_real_key_points_yield_a_target_wherever_they_name_a_changed_file(vllm_fixtures: Path) -> None:
    """Robustness on the labelled text: a key point that spells a changed file's path never parses to nothing."""
    for line in (vllm_fixtures / "labels.jsonl").read_text().splitlines():
        label = json.loads(line)
        ctx = context_from_source(LocalSource(patch=str(vllm_fixtures / str(label["pr"]) / "diff.patch")))
        changed = [f.path for f in ctx.files]
        for point in label["key_points"]:
            if any(path in point for path in changed):
                targets, _ = cr.parse_key_point(point, changed)
                assert targets, (label["pr"], point)
