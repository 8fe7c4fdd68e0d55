"""The heuristic analyzer: verdicts from signals, the reading guide, both languages, real vLLM diffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vllm_sets import fixture_contexts

from readworthy.analyze.ground import ground_digest
from readworthy.analyze.heuristic import heuristic_digest, triage
from readworthy.analyze.heuristic.analyzer import judgement
from readworthy.analyze.heuristic.signals import measure
from readworthy.analyze.heuristic.wording import PHRASES
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import (
    Comment,
    Coverage,
    FileChange,
    FileStatus,
    LinkedIssue,
    PRContext,
    RelatedItem,
    Review,
    ReviewState,
    ReviewThread,
    ThreadComment,
    Verdict,
)

NO_COVERAGE = Coverage()


def _file(path: str, added: list[str] = (), removed: list[str] = (), status: FileStatus = FileStatus.MODIFIED,
          binary: bool = False) -> FileChange:
    lines = [f"-{x}" for x in removed] + [f"+{x}" for x in added]
    patch = f"@@ -1,{len(removed)} +1,{len(added)} @@\n" + "\n".join(lines) if lines else None
    return FileChange(path=path, status=status, additions=len(added), deletions=len(removed), patch=patch,
                      binary=binary)


def verdict_of(ctx: PRContext, language: str = "en") -> Verdict:
    return heuristic_digest(ctx, NO_COVERAGE, language).verdict


# --------------------------------------------------------------------------- mechanical shapes


def test_lock_and_generated_only_is_skip() -> None:
    ctx = PRContext(title="Bump deps", files=[_file("uv.lock", ["x"] * 300, ["y"] * 200),
                                              _file("api/service_pb2.py", ["a = 1"] * 40)])
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.verdict is Verdict.SKIP and "generated, lock" in digest.reason
    # nothing to read line by line, but a skip still says which files it is about, the largest first
    assert digest.start_reading == ["uv.lock", "api/service_pb2.py"]


def test_dependency_pin_is_skip_and_an_exclusion_is_remembered() -> None:
    pin = PRContext(title="upgrade foo", files=[_file("requirements/tpu.txt", ["foo==0.27.0"], ["foo==0.26.0"])])
    assert verdict_of(pin) is Verdict.SKIP
    exclusion = PRContext(title="Avoid broken bar", files=[_file("requirements/common.txt",
                                                                  ["bar>=2.1,!=2.3.0"], ["bar>=2.1"])])
    digest = heuristic_digest(exclusion, NO_COVERAGE, "en")
    assert digest.verdict is Verdict.SKIP and "known-bad release" in digest.reason
    assert digest.decisions and digest.decisions[0].references == ["requirements/common.txt"]


def test_docs_only_small_is_skip_and_substantial_is_skim() -> None:
    typo = PRContext(title="Fix link", files=[_file("docs/serving.md", ["see [here](x)"], ["see [hree](x)"])])
    assert verdict_of(typo) is Verdict.SKIP
    guide = PRContext(title="Explain latency metrics",
                      files=[_file("docs/metrics.md", ["## TTFT"] + ["explanation line"] * 60, status=FileStatus.ADDED)])
    assert verdict_of(guide) is Verdict.SKIM


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_docs_line_added_without_a_section_is_an_edit_to_skip(language: str) -> None:
    # adding a list entry or a sentence is the rubric's skip however few lines it deletes (before, a pure
    # addition read as skim while a one-line replacement read as skip)
    entry = PRContext(title="List the new bench script",
                      files=[_file("CONTRIBUTING.md", ["- `bench/steer.py`: titles"])])
    digest = heuristic_digest(entry, NO_COVERAGE, language)
    assert digest.verdict is Verdict.SKIP
    assert ("documentation edit (1 added line)" if language == "en" else "新增 1 行") in digest.reason, digest.reason
    paragraph = PRContext(title="Explain the cache flag", files=[_file("docs/cache.md", ["explanation line"] * 19)])
    assert verdict_of(paragraph) is Verdict.SKIP
    section = PRContext(title="Explain the cache flag", files=[_file("docs/cache.md",
                                                                      ["## Cache flag"] + ["explanation line"] * 19)])
    assert verdict_of(section) is Verdict.SKIM


def _tuned(block: int) -> list[str]:
    rows = ["{"]
    for batch in (1, 16, 256):
        rows += [f'    "{batch}": {{', f'        "BLOCK_SIZE_M": {block},', '        "num_warps": 4,',
                 '        "scale": [0.5, 1e-3]', "    },"]
    return rows + ["}"]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_tables_of_tuned_values_are_data_to_skip(language: str) -> None:
    added = [_file(f"engine/moe/configs/E={e},device=H200.json", _tuned(16 * (i + 1)), status=FileStatus.ADDED)
             for i, e in enumerate((8, 64, 128))]
    digest = heuristic_digest(PRContext(title="Add tuned configs", files=added), NO_COVERAGE, language)
    assert digest.verdict is Verdict.SKIP
    assert ("tables of values change (3 data files" if language == "en" else "3 个数据文件") in digest.reason
    # a retuned number is a value moved, not a version
    retuned = heuristic_digest(PRContext(title="Retune", files=[_file(
        "engine/moe/configs/E=8.json", ['        "num_warps": 8,'], ['        "num_warps": 4,'])]), NO_COVERAGE, "en")
    assert retuned.verdict is Verdict.SKIP and "versions" not in retuned.reason, retuned.reason
    # settings with words in them are read; alone they are configuration, not CI or a build
    settings = heuristic_digest(PRContext(title="Name the app", files=[_file(
        "config/app.json", ['  "name": "engine",'])]), NO_COVERAGE, "en")
    assert "tables of values" not in settings.reason and "CI" not in settings.reason, settings.reason
    assert settings.reason.startswith("Configuration only"), settings.reason
    # a flag or a couple of numbers in a settings file are settings, not a table of values
    for plus, minus in ((['  "strict": false,'], ['  "strict": true,']), (['  "timeout": 60,'], ['  "timeout": 30,'])):
        flag = heuristic_digest(PRContext(title="Relax", files=[_file("tsconfig.json", plus, minus)]), NO_COVERAGE, "en")
        assert "tables of values" not in flag.reason, flag.reason


def test_repeated_header_churn_is_skip() -> None:
    files = [_file(f"src/mod{i}.rs", ["// SPDX-License-Identifier: Apache-2.0"]) for i in range(30)]
    digest = heuristic_digest(PRContext(title="Add SPDX headers", files=files), NO_COVERAGE, "en")
    assert digest.verdict is Verdict.SKIP and "30 files" in digest.reason


def test_test_only_is_never_deep_read_and_says_it_is_tests_only() -> None:
    body = ["@pytest.fixture(scope='module')", "def shared_runner():", "    return start()"] + ["    x = 1"] * 30
    ctx = PRContext(title="Share one runner across tests", files=[_file("tests/test_engine.py", body)])
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.verdict is not Verdict.DEEP_READ
    assert digest.reason.startswith("Test"), digest.reason  # "Tests only (33 added lines)" or the skim wording
    assert "33 added lines" in digest.reason
    tweak = PRContext(title="Fix test path", files=[_file("tests/test_engine.py", ["x = 2"], ["x = 1"])])
    assert verdict_of(tweak) is Verdict.SKIP


def test_pure_removal_is_skip_and_empty_is_skip() -> None:
    ctx = PRContext(title="Remove dead code", files=[_file("engine/old.py", [], ["def f():"] + ["  pass"] * 99,
                                                           status=FileStatus.REMOVED)])
    assert verdict_of(ctx) is Verdict.SKIP
    assert verdict_of(PRContext(title="Empty")) is Verdict.SKIP


def test_revert_without_analysis_is_skip() -> None:
    ctx = PRContext(title='Revert "Add eager workspace reuse"',
                    files=[_file("engine/workspace.py", ["x = 1"] * 5, ["def reuse():"] + ["y"] * 40)])
    assert verdict_of(ctx) is Verdict.SKIP


# --------------------------------------------------------------------------- code changes: reading value, not size


def _small_fix() -> PRContext:
    return PRContext(
        title="[Bugfix] Fix int32 overflow in row offsets",
        files=[_file("engine/ops/triton_ops/kernel_utils.py",
                     ["        + ram[:, None].to(tl.int64) * stride"], ["        + ram[:, None] * stride"])],
    )


def test_small_fix_is_not_deep_read_but_with_a_root_cause_analysis_it_is() -> None:
    assert verdict_of(_small_fix()) is not Verdict.DEEP_READ
    issue = LinkedIssue(
        number=901, title="Illegal memory access at 128k context", state="closed",
        body="Root cause: row offset overflows int32 at 131072 tokens.\n```\nTraceback ...\n```\n"
             "Measured on H100: fails at 128k, fine at 64k; bisected to the punica kernels.",
    )
    analysed = _small_fix().model_copy(update={"linked_issues": [issue]})
    digest = heuristic_digest(analysed, NO_COVERAGE, "en")
    assert digest.verdict is Verdict.DEEP_READ
    assert "#901" in digest.reason
    assert digest.linked_issue_findings[0].startswith("#901 Illegal memory access")
    assert "analysis" in digest.linked_issue_findings[0]
    assert digest.related == []  # the linked issue has its own line; "related" is for mentions


def test_the_reason_counts_code_and_tests_apart() -> None:
    tests = [f"    assert batch_offsets({i}) == {i * 8}" for i in range(120)]
    ctx = PRContext(title="Fix the batch offsets", files=[
        _file("engine/scheduler/batching.py", ["    return start + index * width"], ["    return index * width"]),
        _file("tests/scheduler/test_batching.py", tests)])
    reason = heuristic_digest(ctx, NO_COVERAGE, "en").reason
    assert "(2 lines, plus 120 of tests)" in reason, reason  # not "a small code change (122 lines)"
    zh = heuristic_digest(ctx, NO_COVERAGE, "zh-CN").reason
    assert "（2 行，另有 120 行测试）" in zh, zh


def test_one_new_definition_is_singular() -> None:
    ctx = PRContext(title="Add a row-offset helper", files=[_file("engine/ops/offsets.py", [
        "def row_offset(ram, stride):", "    return ram.to(tl.int64) * stride"] + [f"# note {i}" for i in range(12)])])
    reason = heuristic_digest(ctx, NO_COVERAGE, "en").reason
    assert "adds 1 new definition" in reason and "1 new definitions" not in reason, reason


def test_related_lists_mentions_and_cross_references_but_not_linked_issues() -> None:
    issue = LinkedIssue(number=901, title="Illegal memory access", state="closed")
    ctx = _small_fix().model_copy(update={
        "linked_issues": [issue],
        "related": [RelatedItem(number=901, title="dup of the linked one"),
                    RelatedItem(number=950, title="Follow-up", is_pull_request=True)],
    })
    assert heuristic_digest(ctx, NO_COVERAGE, "en").related == [950]


def test_design_points_quote_the_docstring_and_never_a_dunder() -> None:
    patch = ('@@ -0,0 +1,9 @@\n+class Pool:\n+    """Hands out leases on pooled connections, never more than the limit."""\n'
             '+    def __init__(self):\n+        """Create the pool and its free list of idle connections."""\n'
             '+        pass\n+    def lease(self):\n+        pass\n')
    ctx = PRContext(title="Add a pool", files=[
        FileChange(path="engine/pool.py", status=FileStatus.ADDED, additions=9, patch=patch)])
    decisions = heuristic_digest(ctx, NO_COVERAGE, "en").decisions
    assert decisions[0].title == "Hands out leases on pooled connections, never more than the limit"
    assert "`Pool`" in decisions[0].explanation and "engine/pool.py::Pool" in decisions[0].references
    assert "__init__" not in " ".join(d.title + d.explanation for d in decisions)


def test_code_without_words_gets_no_design_points_rather_than_a_list_of_names() -> None:
    patch = "@@ -0,0 +1,6 @@\n+class Pool:\n+    def __init__(self):\n+        pass\n+    def lease(self):\n+        pass\n+"
    ctx = PRContext(title="Add a pool", files=[
        FileChange(path="engine/pool.py", status=FileStatus.ADDED, additions=6, patch=patch)])
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.decisions == []
    assert digest.start_reading[0] == "engine/pool.py::Pool"


def test_new_abstraction_with_capability_flag_is_deep_read_and_guide_points_at_it() -> None:
    ctx = PRContext(
        title="Shared rotary cache",
        files=[
            _file("engine/attention/backend.py", [
                "class AttentionBackendBase(ABC):", "    supports_shared_rope: bool = False",
                "    @abstractmethod", "    def forward(self, q, k, v):", "        ...",
                "def check_backend(b):", "    if not b.supports_shared_rope:", "        raise ValueError('x')",
            ]),
            _file("engine/worker/rope_cache.py", ["class RotaryCache:", "    def prepare(self, positions):",
                                                  "        return positions"], status=FileStatus.ADDED),
            _file("tests/worker/test_rope_cache.py", ["def test_prepare():", "    assert True"],
                  status=FileStatus.ADDED),
            _file("uv.lock", ["x"] * 500),
        ],
    )
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.verdict is not Verdict.SKIP
    assert "supports_shared_rope" in digest.reason
    # the contract is what raises its reading value: the same lines without a base class or flag rank lower
    plain = ctx.model_copy(update={"files": [_file("engine/attention/backend.py", [
        "class AttentionBackendHelper:", "    shared_rope = False", "    def forward(self, q, k, v):", "        ...",
        "def check_backend(b):", "    if not b.shared_rope:", "        return None", "    return b"]), *ctx.files[1:]]})
    assert triage(ctx).score > triage(plain).score
    assert digest.start_reading[0] == "engine/attention/backend.py::AttentionBackendBase"
    assert "uv.lock" not in " ".join(digest.start_reading)
    # the title ("Shared rotary cache") is what the PR announces, not a decision: the points are the
    # interface and the gate the diff adds, and the new cache is where to read next
    refs = [r for d in digest.decisions for r in d.references]
    assert "engine/attention/backend.py::AttentionBackendBase" in refs
    assert not any("title" in d.title for d in digest.decisions)
    assert "engine/worker/rope_cache.py::RotaryCache" in digest.start_reading
    grounded, dropped = ground_digest(digest, ctx)
    assert dropped == 0 and grounded == digest


def test_size_alone_does_not_make_deep_read() -> None:
    big = PRContext(title="Tune constants", files=[_file("engine/tuning.py", [f"    X{i} = {i}" for i in range(3000)])])
    assert verdict_of(big) is Verdict.SKIM


def test_discussion_participants_threads_and_open_items() -> None:
    ctx = _small_fix().model_copy(update={
        "author": "carol",
        "draft": True,
        "comments": [Comment(author="alice", body="Why not int64 everywhere?"),
                     Comment(author="ci-bot[bot]", body="build passed", author_is_bot=True)],
        "reviews": [Review(author="bob", state=ReviewState.CHANGES_REQUESTED, body="needs a test"),
                    Review(author="alice", state=ReviewState.APPROVED)],
        "threads": [
            ReviewThread(path="engine/ops/triton_ops/kernel_utils.py", is_resolved=False,
                         comments=[ThreadComment(author="bob", body="cast earlier?"),
                                   ThreadComment(author="carol", body="done")]),
            ReviewThread(path="engine/ops/triton_ops/kernel_utils.py", is_resolved=True,
                         comments=[ThreadComment(author="alice", body="nit")]),
        ],
    })
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.discussion.startswith("3 participants (alice, bob, carol)")
    assert "2 review threads, 1 unresolved" in digest.discussion
    assert "1 change requests" in digest.discussion or "1 change request" in digest.discussion
    assert "ci-bot" not in digest.discussion
    assert any("Unresolved review threads" in x for x in digest.open_items)
    assert "Still a draft" in digest.open_items


def test_zh_cn_writes_localised_sentences_and_keeps_code_names() -> None:
    en = heuristic_digest(_small_fix(), NO_COVERAGE, "en")
    zh = heuristic_digest(_small_fix(), NO_COVERAGE, "zh-CN")
    assert zh.verdict == en.verdict
    assert zh.reason.startswith(("该 PR", "只改了")) and "It " not in zh.reason and "2 行" in zh.reason
    assert zh.start_reading == en.start_reading  # code names stay as they are
    pin = PRContext(title="x", files=[_file("requirements/a.txt", ["a==2"], ["a==1"])])
    assert "依赖" in heuristic_digest(pin, NO_COVERAGE, "zh-CN").reason


def test_every_phrase_exists_in_every_language_with_the_same_fields() -> None:
    import string

    en = PHRASES["en"]
    for language, table in PHRASES.items():
        assert set(table) == set(en), language
        for key, text in table.items():
            fields = {f for _, f, _, _ in string.Formatter().parse(text) if f} - {"s", "ls"}
            en_fields = {f for _, f, _, _ in string.Formatter().parse(en[key]) if f} - {"s", "ls"}
            assert fields == en_fields, (language, key)


def test_deterministic() -> None:
    assert heuristic_digest(_small_fix(), NO_COVERAGE, "en") == heuristic_digest(_small_fix(), NO_COVERAGE, "en")


# --------------------------------------------------------------------------- real vLLM diffs


def _fixture_context(root: Path, number: int) -> PRContext:
    return context_from_source(LocalSource(patch=str(root / str(number) / "diff.patch")))


def _by_feature(root: Path) -> dict[int, dict]:
    return {e["number"]: e for e in json.loads((root / "index.json").read_text())}


@pytest.mark.vllm_fixtures
def test_real_mechanical_prs_are_skip(vllm_fixtures: Path) -> None:
    index = _by_feature(vllm_fixtures)
    # chosen by the shape the fixture index records, not by expected output
    lock_or_generated_only = [n for n, e in index.items()
                              if e["files_changed"] == 1 and {"generated-file"} <= set(e["features"])
                              and "docs" not in e["features"]]
    assert lock_or_generated_only
    for number in lock_or_generated_only + [52939, 53230, 53088, 48472]:
        digest = heuristic_digest(_fixture_context(vllm_fixtures, number), NO_COVERAGE, "en")
        assert digest.verdict is Verdict.SKIP, (number, index[number]["title"], digest.reason)


@pytest.mark.vllm_fixtures
def test_real_docs_and_test_only_prs_are_not_deep_read(vllm_fixtures: Path) -> None:
    for number in (50600, 53230, 52570):  # docs section, dead link, test-only runner reuse
        verdict = verdict_of(_fixture_context(vllm_fixtures, number))
        assert verdict in (Verdict.SKIP, Verdict.SKIM), number


@pytest.mark.vllm_fixtures
def test_real_kernel_and_refactor_prs_are_deep_read(vllm_fixtures: Path) -> None:
    for number in (51674, 52212, 51718, 41184):  # new CUDA kernel, Triton perf, layout refactor, MoE inversion
        digest = heuristic_digest(_fixture_context(vllm_fixtures, number), NO_COVERAGE, "en")
        assert digest.verdict is Verdict.DEEP_READ, (number, digest.reason)
        assert digest.start_reading and digest.decisions


@pytest.mark.vllm_fixtures
def test_every_real_pr_gets_a_valid_grounded_digest_in_both_languages(vllm_fixture_sets: list[Path]) -> None:
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        for language in ("en", "zh-CN"):
            digest = heuristic_digest(ctx, NO_COVERAGE, language)
            _, dropped = ground_digest(digest, ctx)
            assert dropped == 0, (number, language, digest)
            paths = {f.path for f in ctx.files}
            for ref in digest.start_reading:
                assert ref.split("::")[0] in paths


def test_comment_typo_and_reformatting_in_code_is_skip() -> None:
    typo = PRContext(title="Fix typo", files=[_file("engine/sched.py", ["    # schedule the request"],
                                                    ["    # shedule the request"])])
    assert verdict_of(typo) is Verdict.SKIP
    reformat = PRContext(title="Format", files=[_file("engine/sched.py", ["x = f(a, b)"], ["x = f( a,b )"])])
    assert verdict_of(reformat) is Verdict.SKIP
    # in C-family files `#` is a preprocessor line: changing it changes behaviour, so no cosmetic shortcut
    # settles it (the model weighs it as the one-line code change it is)
    define = PRContext(title="Raise block size", files=[_file("csrc/attn.cu", ["#define BLOCK 256"],
                                                              ["#define BLOCK 128"])])
    judged = judgement(measure(define), "en")
    assert judged.shortcut == "" and "comment" not in judged.reason
    assert judgement(measure(reformat), "en").shortcut == "cosmetic"


def test_a_line_moved_to_another_hunk_is_not_cosmetic() -> None:
    # the same characters in another place run at another time: an import moved into a function
    patch = """@@ -10,3 +10,2 @@ def cmd_local(args):
     \"\"\"Analyze a patch.\"\"\"
-    from .model import analyze
     from .local import read
@@ -40,3 +38,5 @@ def cmd_local(args):
     if args.show_prompt:
         return 0
+    # imported only now: the SDK is slow to import
+    from .model import analyze
     return analyze(prompt)"""
    moved = FileChange(path="engine/cli.py", status=FileStatus.MODIFIED, additions=2, deletions=1, patch=patch)
    judged = judgement(measure(PRContext(title="Import late", files=[moved])), "en")
    assert judged.shortcut != "cosmetic", judged.reason


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_name_swapped_everywhere_is_a_rename_to_skip(language: str) -> None:
    backends = [_file(f"engine/backends/b{i}.py",
                      ["    def kv_cache_shape(num_blocks, block_size):", f"    shape = B{i}.kv_cache_shape(n, b)"],
                      ["    def get_kv_cache_shape(num_blocks, block_size):", f"    shape = B{i}.get_kv_cache_shape(n, b)"])
                for i in range(4)]
    digest = heuristic_digest(PRContext(title="Rename the shape hook", files=backends), NO_COVERAGE, language)
    assert digest.verdict is Verdict.SKIP
    assert "`get_kv_cache_shape` → `kv_cache_shape`" in digest.reason, digest.reason
    assert ("in 4 files" if language == "en" else "4 个文件") in digest.reason, digest.reason
    # one name swapped once changes what is compared; a rename beside a logic change is judged on the change
    compared = PRContext(title="Compare with the budget", files=[_file("engine/sched.py", ["    if used > budget:"],
                                                                       ["    if used > limit:"])])
    logic = PRContext(title="Rename and clamp", files=[*backends, _file("engine/pool.py", ["    return max(0, n)"],
                                                                        ["    return n"])])
    # a value swapped inside strings, however often, is a changed value
    valued = PRContext(title="Use the slow mode", files=[_file(f"engine/run{i}.py", ['    run(mode="slow")'],
                                                                ['    run(mode="fast")']) for i in range(3)])
    # one existing thing swapped for another everywhere changes behaviour: only what the diff renames counts
    dtyped = PRContext(title="Run in bf16", files=[_file(f"engine/run{i}.py", ["    dtype = torch.bfloat16"],
                                                         ["    dtype = torch.float16"]) for i in range(3)])
    for ctx in (compared, logic, valued, dtyped):
        assert judgement(measure(ctx), "en").shortcut != "name_renames"


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_imports_reordered_in_one_file_are_not_said_to_move_between_files(language: str) -> None:
    names = [f"from engine.mod{i} import thing{i}" for i in range(25)]
    ctx = PRContext(title="Sort imports", files=[_file("engine/a.py", sorted(names, reverse=True), names)])
    digest = heuristic_digest(ctx, NO_COVERAGE, language)
    assert digest.verdict is Verdict.SKIP
    assert ("Moves or reorders code" if language == "en" else "搬移或重排代码") in digest.reason, digest.reason


def test_rename_only_is_skip() -> None:
    moved = FileChange(path="engine/new_place.py", previous_path="engine/old_place.py", status=FileStatus.RENAMED)
    digest = heuristic_digest(PRContext(title="Move module", files=[moved]), NO_COVERAGE, "en")
    assert digest.verdict is Verdict.SKIP and "renames" in digest.reason


def test_a_long_debate_on_a_small_change_is_deep_read() -> None:
    comments = [Comment(author=("alice", "bob", "carol")[i % 3], body=f"point {i}") for i in range(26)]
    ctx = _small_fix().model_copy(update={
        "comments": comments,
        "reviews": [Review(author="bob", state=ReviewState.CHANGES_REQUESTED, body="not like this")],
    })
    digest = heuristic_digest(ctx, NO_COVERAGE, "en")
    assert digest.verdict is Verdict.DEEP_READ and "review discussion" in digest.reason


def test_a_todo_the_diff_adds_is_an_open_item_with_the_lines_it_wraps_onto() -> None:
    added = ["def copy_blocks(storage, num_blocks):",
             "    if packed:",
             "        # TODO (lucas): handle TP slicing for packed storage; for now",
             "        # restrict to MLA where the cache is replicated.",
             "        block_len = storage.nbytes() // num_blocks",
             "        # the next comment is not part of the TODO",
             "    return block_len"]
    ctx = PRContext(title="Standardise the cache layout", files=[_file("vllm/cache/copy.py", added)])
    items = heuristic_digest(ctx, NO_COVERAGE, "en").open_items
    quoted = [x for x in items if "handle TP slicing" in x]
    assert len(quoted) == 1
    # the whole wrapped sentence, without the author tag, and nothing from the comment after the code
    assert "handle TP slicing for packed storage; for now restrict to MLA where the cache is replicated." in quoted[0]
    assert "lucas" not in quoted[0] and "next comment" not in quoted[0]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_tests_beside_more_configuration_are_not_called_test_only(language: str) -> None:
    workflow = ["name: readworthy", "on:", "  pull_request:", *[f"    step{i}: run {i}" for i in range(40)]]
    tests = [line for i in range(5) for line in (f"def test_{i}():", f"    assert load({i})")]
    ctx = PRContext(title="Example workflows", files=[
        _file("examples/readworthy-pr.yml", workflow, status=FileStatus.ADDED),
        _file("tests/unit/test_examples.py", tests, status=FileStatus.ADDED)])
    reason = heuristic_digest(ctx, NO_COVERAGE, language).reason
    assert "43" in reason  # the configuration's added lines are named beside the tests'
    only = ("Test-only", "Tests only") if language == "en" else ("只改动测试",)
    assert not any(word in reason for word in only), reason


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_pr_without_code_is_never_a_code_change_of_zero_lines(language: str) -> None:
    ctx = PRContext(title="Switch the test model", files=[
        _file("CONTRIBUTING.md", ["Run the real-model tests with `pip install -e .[e2e]`."]),
        _file("tests/e2e/test_real_model.py", ["MODEL = 'gemma'", "def test_model_loads():", "    assert load(MODEL)"],
              ["MODEL = 'smollm2'"])])
    reason = heuristic_digest(ctx, NO_COVERAGE, language).reason
    assert "0 line" not in reason and "0 行" not in reason, reason
    assert ("changes no product code (3 added lines of tests, 1 added line of docs)" in reason) if language == "en" \
        else ("没有改动产品代码（测试新增 3 行，文档新增 1 行）" in reason), reason
    # workflows and docs changed beside the tests are counted too, not left out
    pinned = PRContext(title="Pin the actions", files=[
        *ctx.files, _file(".github/workflows/ci.yml", ["      - uses: actions/checkout@0123abc # v4"],
                          ["      - uses: actions/checkout@v4"])])
    reason = heuristic_digest(pinned, NO_COVERAGE, language).reason
    assert ("(3 added lines of tests, 1 added line of build, CI or configuration files, 1 added line of docs)"
            in reason) if language == "en" else ("测试新增 3 行，构建、CI 或配置文件新增 1 行，文档新增 1 行" in reason), reason
