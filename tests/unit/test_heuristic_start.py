"""Where to start reading (analyze/heuristic/start.start_reading), on invented diffs."""

from __future__ import annotations

from readworthy.analyze.heuristic.start import start_reading
from readworthy.analyze.heuristic.signals import measure
from readworthy.models import FileChange, PRContext

CHECKER = FileChange(
    path="tools/lint/check_headers.py", additions=16, deletions=2,
    patch=(
        "@@ -1,4 +1,18 @@\n"
        " import sys\n"
        "+\n"
        "+def comment_prefix(path):\n"
        "+    if path.endswith(('.rs', '.proto')):\n"
        "+        return '//'\n"
        "+    return '#'\n"
        "+\n"
        "+def header_for(path):\n"
        "+    prefix = comment_prefix(path)\n"
        "+    return f'{prefix} SPDX-License-Identifier: Apache-2.0'\n"
        "+\n"
        "+def insert_header(path, lines):\n"
        "+    header = header_for(path)\n"
        "+    at = 1 if lines and lines[0].startswith('#!') else 0\n"
        "+    return lines[:at] + [header] + lines[at:]\n"
        " \n"
        " def main(paths):\n"
        "-    for p in paths:\n"
        "-        check(p)\n"
        "+    for p in paths:\n"
        "+        check(p, header_for(p))\n"
    ),
)
HOOKS = FileChange(
    path=".pre-commit-config.yaml", additions=1, deletions=1,
    patch=("@@ -20,4 +20,4 @@ repos:\n       name: SPDX headers\n       entry: python tools/lint/check_headers.py\n"
           "-      types_or: [python]\n+      types_or: [python, rust, proto]\n"),
)


def test_a_ci_or_hook_file_without_definitions_is_named_before_a_second_place_in_the_same_file() -> None:
    ctx = PRContext(number=1, title="Add SPDX headers to Rust and Protobuf sources", files=[CHECKER, HOOKS])
    start = start_reading(measure(ctx), ctx.title)
    assert ".pre-commit-config.yaml" in start
    first_of_checker = next(i for i, x in enumerate(start) if x.startswith(CHECKER.path))
    second_of_checker = [i for i, x in enumerate(start) if x.startswith(CHECKER.path)][1]
    assert first_of_checker < start.index(".pre-commit-config.yaml") < second_of_checker


def test_after_the_centre_start_reading_names_places_the_design_points_do_not_already_cite() -> None:
    ctx = PRContext(number=1, title="Add SPDX headers to Rust and Protobuf sources", files=[CHECKER, HOOKS])
    sig = measure(ctx)
    plain = start_reading(sig, ctx.title)
    cited = plain[1:3]  # say two design points already send the reader there
    start = start_reading(sig, ctx.title, cited)
    assert start[0] == plain[0]  # the centre stays first
    assert not set(cited) & set(start[:len(start) - 2])  # named elsewhere: only at the end, if room is left
    assert len(set(start)) == len(start)
    assert set(plain) - set(cited) <= set(start)


def test_a_design_point_references_the_changed_definitions_its_words_name() -> None:
    from readworthy.analyze.heuristic.guide import with_named_places
    from readworthy.models import Decision

    ctx = PRContext(number=1, title="Add SPDX headers to Rust and Protobuf sources", files=[CHECKER, HOOKS])
    decision = Decision(title="`header_for()` picks the comment prefix", references=["tools/lint/check_headers.py"],
                        explanation="It asks `comment_prefix` and is called by `insert_header`; the hook in "
                                    "`.pre-commit-config.yaml` runs it. ~~`check`~~ is gone; `print` is not ours.")
    refs = with_named_places(decision, measure(ctx)).references
    assert refs == ["tools/lint/check_headers.py", "tools/lint/check_headers.py::header_for",
                    "tools/lint/check_headers.py::comment_prefix", "tools/lint/check_headers.py::insert_header",
                    ".pre-commit-config.yaml"]


def test_with_no_definitions_start_reading_also_names_the_lock_file_that_changes_beside_the_manifest() -> None:
    manifest = FileChange(path="rust/Cargo.toml", additions=1, deletions=1,
                          patch="@@ -10,3 +10,3 @@ [dependencies]\n-harmony = \"0.0.4\"\n+harmony = \"0.0.11\"\n")
    lock = FileChange(path="rust/Cargo.lock", additions=2, deletions=40,
                      patch="@@ -100,6 +100,2 @@\n [[package]]\n-name = \"image\"\n-version = \"0.25.1\"\n"
                            "+name = \"harmony\"\n+version = \"0.0.11\"\n")
    ctx = PRContext(number=1, title="Bump harmony", files=[manifest, lock])
    assert start_reading(measure(ctx), ctx.title) == ["rust/Cargo.toml", "rust/Cargo.lock"]


def test_a_design_point_also_references_the_changed_code_tied_to_its_definition() -> None:
    from readworthy.analyze.heuristic.guide import with_linked_places
    from readworthy.models import Decision

    ctx = PRContext(number=1, title="Add SPDX headers to Rust and Protobuf sources", files=[CHECKER, HOOKS])
    sig = measure(ctx)
    anchor = next(r for r in sig.centre if r.definition.name == "header_for")
    decision = Decision(title="The prefix follows the file type", explanation="",
                        references=["tools/lint/check_headers.py", anchor.reference])
    refs = with_linked_places(decision, anchor, sig).references
    assert refs[:2] == decision.references
    # what calls it (insert_header, main) and what it calls (comment_prefix), each once
    assert set(refs[2:]) == {"tools/lint/check_headers.py::insert_header", "tools/lint/check_headers.py::main",
                             "tools/lint/check_headers.py::comment_prefix"}


POOL = FileChange(
    path="pool/cache.py", additions=19, deletions=0,
    patch=(
        "@@ -0,0 +1,19 @@\n"
        "+class EvictionQueue:\n"
        "+    def __init__(self):\n"
        "+        self.heap = []\n"
        "+\n"
        "+    def __len__(self):\n"
        "+        return len(self.heap)\n"
        "+\n"
        "+    def touch_block(self, block, step):\n"
        "+        heapq.heappush(self.heap, (step, block))\n"
        "+\n"
        "+    def pop_oldest_free(self, in_use):\n"
        "+        while self.heap:\n"
        "+            step, block = heapq.heappop(self.heap)\n"
        "+            if block not in in_use:\n"
        "+                return block\n"
        "+        return None\n"
        "+\n"
        "+def evict_one(queue, in_use):\n"
        "+    return queue.pop_oldest_free(in_use)\n"
    ),
)


def test_a_class_links_its_real_methods_and_dunders_start_nothing_while_other_places_are_left() -> None:
    from readworthy.analyze.heuristic.guide import with_linked_places
    from readworthy.models import Decision

    ctx = PRContext(number=1, title="An eviction queue for the block cache", files=[POOL])
    sig = measure(ctx)
    anchor = next(r for r in sig.centre if r.definition.name == "EvictionQueue")
    decision = Decision(title="A heap of blocks", explanation="", references=[anchor.reference])
    refs = with_linked_places(decision, anchor, sig).references
    assert "pool/cache.py::EvictionQueue.touch_block" in refs
    assert "pool/cache.py::EvictionQueue.pop_oldest_free" in refs
    assert not any(r.endswith(("__init__", "__len__")) for r in refs)
    start = start_reading(sig, ctx.title)
    dunders = [i for i, x in enumerate(start) if x.endswith(("__init__", "__len__"))]
    others = [i for i, x in enumerate(start) if not x.endswith(("__init__", "__len__"))]
    assert others and all(i > max(others) for i in dunders)  # a dunder only once nothing else is left


def test_new_test_methods_are_named_with_their_class_as_pytest_knows_them() -> None:
    from readworthy.analyze.heuristic.kind_points import new_tests

    tests = FileChange(path="tests/entrypoints/test_convert.py", additions=12, patch=(
        "@@ -635,3 +635,15 @@ class TestThinkingBlocks:\n"
        "         assert out == 'Hi!'\n"
        "+\n"
        "+    def test_redacted_thinking_is_dropped(self):\n"
        "+        assert convert([]) == []\n"
        "+\n"
        "+\n"
        "+class TestInlineSystemMessages:\n"
        "+    def test_inline_system_is_merged(self):\n"
        "+        assert merge('a', 'b') == 'a\\nb'\n"
        "+\n"
        "+\n"
        "+def test_module_level_still_plain():\n"
        "+    assert True\n"))
    assert new_tests([tests]) == [
        "tests/entrypoints/test_convert.py::TestThinkingBlocks.test_redacted_thinking_is_dropped",
        "tests/entrypoints/test_convert.py::TestInlineSystemMessages",
        "tests/entrypoints/test_convert.py::TestInlineSystemMessages.test_inline_system_is_merged",
        "tests/entrypoints/test_convert.py::test_module_level_still_plain",
    ]


def _method_change(own_line: str = "") -> FileChange:
    own = f"+{own_line}\n" if own_line else ""
    return FileChange(path="engine/core/scheduler.py", additions=3 + bool(own_line), deletions=1, patch=(
        "@@ -10,6 +10,8 @@ class Scheduler:\n"
        f"     max_waiting = 128\n{own}"
        " \n"
        "     def schedule(self):\n"
        "-        budget = self.config.max_num_batched_tokens\n"
        "+        budget = self.config.max_num_batched_tokens\n"
        "+        partial = 0\n"
        "+        budget //= max(1, self.config.max_num_partial_prefills)\n"
        "         return self.pick(budget)\n"))


def test_a_class_changed_only_inside_a_listed_method_is_not_listed_beside_it() -> None:
    entries = start_reading(measure(PRContext(title="Share the budget", files=[_method_change()])))
    assert "engine/core/scheduler.py::Scheduler.schedule" in entries
    assert "engine/core/scheduler.py::Scheduler" not in entries, entries


def test_a_class_with_changes_of_its_own_stays_beside_its_method() -> None:
    change = _method_change("    max_partial = 4")
    entries = start_reading(measure(PRContext(title="Share the budget", files=[change])))
    assert {"engine/core/scheduler.py::Scheduler", "engine/core/scheduler.py::Scheduler.schedule"} <= set(entries)


def test_java_methods_are_named_with_their_class_and_a_closing_brace_is_no_change_of_it() -> None:
    change = FileChange(path="src/main/java/io/x/TokenCache.java", additions=8, deletions=1, patch=(
        "@@ -18,8 +18,15 @@ public final class TokenCache<K, V> {\n"
        "     public void put(K key, V value) {\n"
        "         if (entries.size() >= capacity) {\n"
        "-            entries.clear();\n"
        "+            evictOldest();\n"
        "         }\n"
        "         entries.put(key, value);\n"
        "     }\n"
        "+\n"
        "+    private void evictOldest() {\n"
        "+        K oldest = entries.keySet().iterator().next();\n"
        "+        entries.remove(oldest);\n"
        "+    }\n"
        " }\n"))
    entries = start_reading(measure(PRContext(title="Evict one entry", files=[change])))
    assert entries == ["src/main/java/io/x/TokenCache.java::TokenCache.evictOldest",
                       "src/main/java/io/x/TokenCache.java::TokenCache.put"], entries


def test_a_docs_page_comes_before_the_nav_entry_that_lists_it() -> None:
    page = FileChange(path="docs/design/prefix_caching.md", additions=5, status="added", patch=(
        "@@ -0,0 +1,5 @@\n+# Prefix caching\n+\n+Blocks are identified by the hash of their tokens.\n+\n"
        "+## Eviction\n"))
    nav = FileChange(path="mkdocs.yml", additions=1, patch="@@ -10,2 +10,3 @@ nav:\n   - index.md\n"
                                                            "+  - design/prefix_caching.md\n")
    ctx = PRContext(number=1, title="Document prefix caching", files=[nav, page])
    assert start_reading(measure(ctx), ctx.title) == ["docs/design/prefix_caching.md", "mkdocs.yml"]


def test_a_tests_only_pr_starts_at_the_fixture_its_design_point_names() -> None:
    fixture = FileChange(path="tests/conftest.py", additions=4, patch=(
        "@@ -1,1 +1,5 @@\n import pytest\n+\n+@pytest.fixture(params=['flash', 'sdpa'])\n"
        "+def attn_backend(request):\n+    return request.param\n"))
    test = FileChange(path="tests/test_attention.py", additions=2, status="added", patch=(
        "@@ -0,0 +1,2 @@\n+def test_prefill_matches_naive(attn_backend):\n+    assert run(attn_backend) == naive()\n"))
    ctx = PRContext(number=1, title="Run attention tests on every backend", files=[test, fixture])
    sig = measure(ctx)
    named = ["tests/conftest.py", "tests/conftest.py::attn_backend"]
    assert start_reading(sig, ctx.title, named) == ["tests/conftest.py::attn_backend",
                                                     "tests/test_attention.py::test_prefill_matches_naive"]
    assert start_reading(sig, ctx.title) == ["tests/test_attention.py::test_prefill_matches_naive"]


def test_with_no_definitions_code_comes_before_the_readme_that_mentions_it() -> None:
    code = FileChange(path="pkg/client/client.go", additions=1, deletions=1,
                      patch="@@ -10,1 +10,1 @@\n-const DefaultTimeout = 30 * time.Second\n"
                            "+const DefaultTimeout = 5 * time.Second\n")
    readme = FileChange(path="README.md", additions=6, deletions=1, patch=(
        "@@ -40,1 +40,6 @@\n-The client waits 30 s.\n+The client waits 5 s by default.\n+\n+Callers that need\n"
        "+longer pass\n+their own\n+client.\n"))
    ctx = PRContext(number=1, title="Lower the default timeout", files=[readme, code])
    assert start_reading(measure(ctx), ctx.title)[0] == "pkg/client/client.go"


def test_a_drop_of_new_code_names_the_shared_code_its_design_point_cites() -> None:
    model = FileChange(path="engine/models/comet.py", status="added", additions=40, patch="@@ -0,0 +1,40 @@\n" + "\n".join(
        f"+class Comet{i}:\n+    def forward(self, x):\n+        y = get_rope(x)\n+        return y + {i}"
        for i in range(10)))
    rope = FileChange(path="engine/layers/rotary.py", additions=1, deletions=1, patch=(
        "@@ -10,2 +10,2 @@\n-def get_rope(head_size):\n+def get_rope(head_size, partial=1.0):\n     pass\n"))
    ctx = PRContext(number=1, title="Add Comet", files=[model, rope])
    sig = measure(ctx)
    entries = start_reading(sig, ctx.title, named=["engine/layers/rotary.py::get_rope"])
    assert entries[1] == "engine/layers/rotary.py::get_rope", entries
