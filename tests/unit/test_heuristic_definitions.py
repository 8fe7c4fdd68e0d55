"""Which definition each changed line belongs to (analyze/heuristic/definitions.py), on invented diffs."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic.definitions import file_definitions
from readworthy.models import FileChange


def _defs(path: str, patch: str) -> dict[str, tuple[int, int]]:
    found = file_definitions(FileChange(path=path, patch=patch))
    return {d.qualname: (d.added, d.removed) for d in found.definitions}


def test_a_hunk_after_a_rename_belongs_to_the_new_name_not_the_one_its_header_still_shows() -> None:
    # git names a hunk by the old file's nearest definition line: the one the previous hunk renamed
    patch = (
        "@@ -10,4 +10,4 @@ setup() {\n"
        " }\n"
        " \n"
        "-run_probe() {\n"
        "+run_bounded_probe() {\n"
        "   local log_file=$1\n"
        "@@ -30,3 +30,4 @@ run_probe() {\n"
        "   if [[ -z \"${log_file}\" ]]; then\n"
        "+    echo 'no log file' >&2\n"
        "     return 1\n"
    )
    defs = _defs("ci/run.sh", patch)
    assert defs["run_bounded_probe"] == (2, 1)  # its line as it was is the removed one
    assert "run_probe" not in defs  # it no longer exists at the head
    assert defs.get("setup", (0, 0)) == (0, 0)  # the header's function above the rename is untouched


def test_a_python_signature_change_keeps_later_hunks_in_the_same_function() -> None:
    patch = (
        "@@ -1,3 +1,3 @@\n"
        " import os\n"
        " \n"
        "-def load(path):\n"
        "+def load(path, strict=False):\n"
        "     text = open(path).read()\n"
        "@@ -20,3 +20,5 @@ def load(path):\n"
        "     data = parse(text)\n"
        "+    if strict and not data:\n"
        "+        raise ValueError(path)\n"
        "     return data\n"
    )
    defs = _defs("pkg/io.py", patch)
    assert defs["load"] == (3, 0)


def test_a_header_naming_a_line_the_previous_hunk_did_not_show_opens_its_own_definition() -> None:
    # something between the hunks starts a definition: the header's name is the one to trust
    patch = (
        "@@ -1,3 +1,3 @@\n"
        "-def first(x):\n"
        "+def first_renamed(x):\n"
        "     return x\n"
        " \n"
        "@@ -40,3 +40,4 @@ def second(y):\n"
        "     z = y * 2\n"
        "+    z += 1\n"
        "     return z\n"
    )
    defs = _defs("pkg/m.py", patch)
    assert defs["second"] == (1, 0)
    assert defs["first_renamed"] == (1, 0)


BAKE = (
    "@@ -10,3 +10,10 @@ target \"base\" {\n"
    "   context = \".\"\n"
    " }\n"
    " \n"
    "+target \"rust-ci\" {\n"
    "+  inherits = [\"base\"]\n"
    "+  target = \"rust-build\"\n"
    "+  output = [\"type=cacheonly\"]\n"
    "+  cache-from = [\"type=registry,ref=ci-cache:rust\"]\n"
    "+}\n"
    "+\n"
)


def test_a_build_target_named_with_dashes_is_cited_by_its_name_grounded_and_placed_on_its_line() -> None:
    from readworthy.analyze.ground import ContextIndex
    from readworthy.analyze.heuristic.signals import measure
    from readworthy.locate import locate
    from readworthy.models import Digest, PRContext, Verdict

    change = FileChange(path="docker/ci.hcl", additions=7, patch=BAKE)
    ctx = PRContext(number=1, title="Cache the Rust build", files=[change])
    refs = [r.reference for r in measure(ctx).centre]
    assert "docker/ci.hcl::rust-ci" in refs  # not the bare path
    index = ContextIndex.from_context(ctx)
    assert index.has_reference("docker/ci.hcl::rust-ci") == "docker/ci.hcl::rust-ci"
    assert index.has_reference("docker/ci.hcl::rust-made-up") is None  # every part must be in the diff
    digest = Digest(verdict=Verdict.SKIM, reason="r", headline="h", start_reading=["docker/ci.hcl::rust-ci"])
    (where,) = locate(digest, ctx)
    assert (where.start, where.end) == (13, 18)  # `target "rust-ci" {` to its closing brace


def test_the_tests_of_a_definition_come_in_the_same_order_on_every_run() -> None:
    # test files that use a name without a test function of their own: listed by path, not by set order
    from readworthy.analyze.heuristic.centre import rank_definitions

    code = file_definitions(FileChange(path="pkg/pool.py", patch="@@ -0,0 +1,2 @@\n+def evict_oldest(pool):\n"
                                                                   "+    return pool.pop()\n")).definitions
    paths = [f"tests/t{i:02d}/conftest.py" for i in range(12)]
    added = {p: ["    evict_oldest(pool)"] for p in paths}
    (ranked,) = rank_definitions(code, [], added, frozenset(paths))
    assert list(ranked.tests) == sorted(paths)


def test_a_function_closed_in_the_previous_hunk_is_not_carried_into_the_next() -> None:
    # the previous hunk adds `bar` after `foo` and closes it: the next hunk is in neither
    patch = (
        "@@ -1,4 +1,8 @@\n"
        " static int foo(int x) {\n"
        "   return x;\n"
        " }\n"
        "+static int bar(int y) {\n"
        "+  return y + 1;\n"
        "+}\n"
        "+\n"
        " \n"
        "@@ -30,3 +34,4 @@ static int foo(int x) {\n"
        "   {LIMIT, 4},\n"
        "+  {SPAN, 8},\n"
        " };\n"
    )
    defs = _defs("csrc/ops.c", patch)
    assert defs["bar"] == (2, 0)  # its own lines, not the table entry below it


def test_a_benchmark_or_example_ranks_below_the_library_code_of_the_same_shape() -> None:
    from readworthy.analyze.heuristic.centre import rank_definitions

    def one(path: str, name: str) -> list:
        body = "".join(f"+    step_{i} = {i}\n" for i in range(6))
        return list(file_definitions(FileChange(path=path, patch=f"@@ -0,0 +1,7 @@\n+def {name}(pool):\n{body}"))
                    .definitions)

    for peripheral in ("benchmarks/bench_pool.py", "examples/offline/pool_demo.py", "tools/profile_pool.py"):
        code = one(peripheral, "measure_eviction") + one("pkg/cache/pool.py", "evict_oldest")
        ranked = rank_definitions(code, [], {}, frozenset())
        assert [r.definition.path for r in ranked] == ["pkg/cache/pool.py", peripheral]


def test_a_titled_banner_names_a_section_not_the_definition_below_it() -> None:
    # Dockerfiles mark regions with `#### NAME ####` banners; the stage's own comment is the block after them
    patch = (
        "@@ -593,4 +594,4 @@ RUN true\n"
        " #################### DEV IMAGE ####################\n"
        " #################### vLLM installation IMAGE ####################\n"
        " # image with vLLM installed\n"
        "-FROM ${BASE} AS vllm-base\n"
        "+FROM ${BASE} AS vllm-runtime-base\n"
        "@@ -790,3 +791,5 @@ RUN true\n"
        " # ============================================================\n"
        " # VLLM INSTALLATION (depends on build stage)\n"
        " # ============================================================\n"
        "+\n"
        "+FROM vllm-runtime-base AS vllm-base\n"
        "@@ -900,1 +903,3 @@ RUN true\n"
        "+#### the image that runs the unit tests against the installed wheel ####\n"
        "+FROM vllm-base AS test\n"
    )
    docs = {d.qualname: d.doc for d in file_definitions(FileChange(path="docker/Dockerfile", patch=patch)).definitions}
    assert docs["vllm-runtime-base"] == "image with vLLM installed"
    # a banner with nothing after it is all the block says
    assert docs["test"] == "the image that runs the unit tests against the installed wheel"


def test_comment_lines_that_are_separate_sentences_are_joined_as_sentences() -> None:
    from readworthy.analyze.heuristic.comment_text import join_comment

    # a line without a full stop, then one starting a sentence: the stop the author left out is put back
    assert join_comment(["Reuse the buffer allocated at startup for every step",
                         "This keeps the captured graph valid"]) == \
        "Reuse the buffer allocated at startup for every step. This keeps the captured graph valid"
    # a sentence that goes on ("... used by" / "FlashInfer ...") or a code literal is not split
    assert join_comment(["The workspace is sized once and then used by", "Triton kernels of every layer"]) == \
        "The workspace is sized once and then used by Triton kernels of every layer"
    assert join_comment(["When the rank of the query projection is", "None the query is projected directly"]) == \
        "When the rank of the query projection is None the query is projected directly"
    # a line opening on a name (`FlashInfer`) may be the sentence going on: left as written
    assert join_comment(["Split the batch before the all-gather in", "FlashInfer kernels expect contiguous rows"]) == \
        "Split the batch before the all-gather in FlashInfer kernels expect contiguous rows"


def test_a_short_tail_of_a_wrapped_sentence_is_not_a_heading() -> None:
    from readworthy.analyze.heuristic.comment_text import join_comment

    # the third line is short, but it goes on ("... is" / "CUDA-only ..."): no full stop is put in
    lines = ["Accumulate the projection directly into fp32. This avoids",
             "materializing an fp32 copy of the weight on every step,",
             "unlike casting both operands. `torch.mm` is",
             "CUDA-only and supports fp32 output for fp16 inputs."]
    assert join_comment(lines) == (
        "Accumulate the projection directly into fp32. This avoids materializing an fp32 copy of the weight on "
        "every step, unlike casting both operands. `torch.mm` is CUDA-only and supports fp32 output for fp16 inputs.")
    # a short first line is a heading still
    assert join_comment(["Rust build inputs", "Keep these apart from the sources"]) == \
        "Rust build inputs. Keep these apart from the sources"


def test_a_box_drawing_rule_is_a_separator_not_words() -> None:
    from readworthy.analyze.heuristic.comment_text import join_comment

    assert join_comment(["\u2500" * 40, "K/V pack variant: concatenate the key into one row"]) == \
        "K/V pack variant: concatenate the key into one row"


_DOCSTRING_EDIT = (
    "@@ -31,8 +31,9 @@ def _log(n):\n"
    " def features(sig):\n"
    '     """The facts the model weighs: one feature a fact. A fact that another feature already\n'
    "     carries (test functions beside test\n"
    "-    lines, an edited kernel beside any kernel) is left out.\n"
    "+    lines, code in new files beside a new package) is left out. Where code lives is left out\n"
    '+    on principle. It must not buy a closer read."""\n'
    "     added = 1\n"
)
_COMMENT_EDIT = (
    "@@ -73,6 +73,7 @@ def clean_line(text):\n"
    " def _break_markers(text):\n"
    "     # Even inside a code span, the raw body must never contain an HTML comment opener or\n"
    "-    # closer: that is how our hidden state is found.\n"
    "+    # closer (that is how our hidden state is found), nor a tag of our own <details>\n"
    "+    # block. Tags are broken with a zero-width space.\n"
    "     return text.replace('<!--', '<!')\n"
)


@pytest.mark.parametrize(("patch", "name", "attribute", "quoted"), [
    (_DOCSTRING_EDIT, "features", "doc_new",
     "A fact that another feature already carries (test functions beside test lines, code in new files beside a "
     "new package) is left out. Where code lives is left out on principle. It must not buy a closer read."),
    (_COMMENT_EDIT, "_break_markers", "notes",
     "Even inside a code span, the raw body must never contain an HTML comment opener or closer (that is how our "
     "hidden state is found), nor a tag of our own <details> block. Tags are broken with a zero-width space."),
])
def test_an_edit_inside_a_sentence_is_quoted_as_whole_sentences(patch: str, name: str, attribute: str,
                                                                 quoted: str) -> None:
    # an edit to a docstring or a comment often starts or stops inside a sentence whose other half is unchanged
    d = next(d for d in file_definitions(FileChange(path="model.py", patch=patch)).definitions if d.qualname == name)
    found = getattr(d, attribute)
    assert found == (quoted if attribute == "doc_new" else [quoted])  # a docstring is one text, notes a list


def test_a_renamed_definition_is_changed_not_new() -> None:
    patch = (
        "@@ -1,5 +1,5 @@\n"
        " class Backend0(Backend):\n"
        "     @staticmethod\n"
        "-    def get_kv_cache_shape(num_blocks, block_size):\n"
        "+    def kv_cache_shape(num_blocks, block_size):\n"
        "         return (num_blocks, block_size, 1)\n"
        "+\n"
        "+    def kv_cache_stride(num_blocks, block_size):\n"
        "+        return (block_size, 1)\n"
    )
    found = {d.name: d for d in file_definitions(FileChange(path="b0.py", patch=patch)).definitions}
    assert not found["kv_cache_shape"].new and found["kv_cache_shape"].changed
    assert found["kv_cache_stride"].new  # a new definition beside it, not a rename of anything


def test_a_definition_renamed_below_the_one_a_hunk_header_names_does_not_change_that_one() -> None:
    # git names the hunk by `remove_all`, whose last lines open it; the renamed function follows it
    patch = (
        "@@ -37,7 +37,7 @@ def remove_all(lst: list, items: set) -> list:\n"
        "     return [x for x in lst if x not in items]\n"
        " \n"
        " \n"
        "-def check_stop(request, max_model_len):\n"
        "+def check_request_stop(request, max_model_len):\n"
        "     if request.num_tokens >= max_model_len:\n"
        "         return True\n"
    )
    defs = _defs("engine/sched/utils.py", patch)
    assert defs.get("remove_all", (0, 0)) == (0, 0), defs
    assert defs["check_request_stop"] == (1, 1)


def test_a_go_method_is_named_by_its_receiver_type_so_two_types_methods_stay_apart() -> None:
    patch = (
        "@@ -0,0 +1,9 @@\n"
        "+func (p *HTTPProber) Probe(ctx context.Context) error {\n"
        "+\treturn nil\n"
        "+}\n"
        "+func (p KVCacheProber[T]) Probe(ctx context.Context) error {\n"
        "+\treturn p.inner.Probe(ctx)\n"
        "+}\n"
        "+func NewClient() *Client {\n"
        "+\treturn &Client{}\n"
        "+}\n"
    )
    assert set(_defs("router/client.go", patch)) == {"HTTPProber.Probe", "KVCacheProber.Probe", "NewClient"}


@pytest.mark.parametrize(("path", "name", "public"), [
    ("store/mem.go", "entry", False), ("store/mem.go", "Entry", True),
    ("pkg/pool.py", "_entry", False), ("pkg/pool.py", "entry", True),
])
def test_go_exports_exactly_the_capitalised_names(path: str, name: str, public: bool) -> None:
    from readworthy.analyze.heuristic.definitions import Definition

    assert Definition(path=path, name=name, qualname=name, line=1, new=True, is_type=True).public is public


def test_a_comment_using_a_definitions_word_does_not_make_its_file_a_caller() -> None:
    from readworthy.analyze.heuristic.signals import measure
    from readworthy.models import FileStatus, PRContext

    def added(path: str, lines: list[str]) -> FileChange:
        return FileChange(path=path, status=FileStatus.ADDED, additions=len(lines),
                          patch=f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + x for x in lines))

    files = [added("store/mem.go", ["type entry struct {", "\tvalue []byte", "}"]),
             added("store/store.go", ["// DefaultTTL bounds how long an entry lives.", "const DefaultTTL = 10"]),
             added("store/disk.go", ["func load() entry {", "\treturn entry{}", "}"])]
    sig = measure(PRContext(title="Add TTLs", files=files))
    centre = {r.definition.qualname: r for r in sig.centre}
    assert centre["entry"].caller_files == ("store/disk.go",)
    # a comment that names a definition as code refers to it
    files = [added("store/disk.go", ["type DiskCache struct {", "\tdir string", "}"]),
             added("store/warm.go", ["// Warm fills a DiskCache before the first request.", "func Warm() {}"])]
    centre = {r.definition.qualname: r for r in measure(PRContext(title="Warm", files=files)).centre}
    assert centre["DiskCache"].caller_files == ("store/warm.go",)


def test_a_doc_comment_after_a_closed_definition_is_the_next_ones_not_a_note_of_the_last() -> None:
    ts = ("@@ -0,0 +1,10 @@\n+export interface Pages {\n+  items: string[];\n+}\n+\n"
          "+/**\n+ * Cursor-paginated list. A changed filter aborts the request in flight,\n"
          "+ * so a slow response for an old filter never overwrites the current one.\n+ */\n"
          "+export function usePages(filter: string): Pages {\n+  return load(filter);\n")
    defs = {d.qualname: d for d in file_definitions(FileChange(path="web/src/usePages.ts", status="added",
                                                                additions=10, patch=ts)).definitions}
    assert defs["usePages"].doc.startswith("Cursor-paginated list.")
    assert defs["Pages"].notes == []
    # the hunk opens inside a kernel; after its closing brace, a comment belongs to what follows
    cu = ("@@ -40,6 +40,13 @@ __global__ void act_and_mul_kernel(float* out, const float* in, int d) {\n"
          "-  out[i] = act(in[i]) * in[i + d];\n+  out[i] = act(in[i]) * in[i + d] * scale;\n }\n+\n"
          "+// Two-element packed types: one 32-bit load moves two half-precision values.\n"
          "+template <typename T>\n+struct Packed2 {\n+  T x, y;\n+};\n")
    defs = {d.qualname: d for d in file_definitions(FileChange(path="csrc/activation.cu", status="modified",
                                                                additions=6, patch=cu)).definitions}
    assert defs["Packed2"].doc.startswith("Two-element packed types")
    assert defs["act_and_mul_kernel"].notes == []


def test_javadoc_markup_reads_as_its_page_shows_it() -> None:
    java = ("@@ -0,0 +1,9 @@\n+/**\n+ * Sends order notifications over one channel.\n"
            "+ * <p>Implementations say whether they reach a customer ({@link #supports});\n"
            "+ * {@link #send} is only called for those.\n+ * @param order the order\n+ */\n"
            "+public interface NotificationSender {\n+    boolean supports(Customer c);\n+}\n")
    (sender, *_) = file_definitions(FileChange(path="src/main/java/acme/NotificationSender.java", status="added",
                                               additions=9, patch=java)).definitions
    assert sender.doc == ("Sends order notifications over one channel. Implementations say whether they reach a "
                          "customer (`supports`); `send` is only called for those.")


def test_a_cpp_member_defined_outside_its_class_is_named_with_it() -> None:
    cpp = ("@@ -30,4 +30,4 @@ namespace fastlib {\n Tensor Tensor::Slice(int64_t begin, int64_t end) const {\n"
           "-  if (end >= rows_) {\n+  if (end > rows_) {\n     throw std::out_of_range(\"slice\");\n")
    names = [d.qualname for d in file_definitions(FileChange(path="src/tensor.cpp", status="modified", additions=1,
                                                             deletions=1, patch=cpp)).definitions]
    assert names == ["Tensor.Slice"]
