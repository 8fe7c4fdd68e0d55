"""The guide by kind of change, on invented PRs shaped like the ones that read wrong before (diff and
commit title only, as `readworthy local --patch` sees them):

- a fix that changes *when* a buffer is allocated (a condition replaced) is read as that decision,
  not as "the title announces `X`";
- a check that is widened is a check that changed, quoted as it is now;
- a model drop names the shared code it changes beside its own new files, not the new model's docstrings;
- a tests-only PR names its technique (fixture and scope, parametrisation, oracle);
- a docs PR says what the page explains: the rule it states and its new headings.
"""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.code_points import abstract_types, replacements
from readworthy.analyze.heuristic.readers import areas_of
from readworthy.models import Coverage, Decision, FileChange, FileStatus, PRContext, Verdict


def _added(path: str, lines: list[str]) -> FileChange:
    return FileChange(path=path, status=FileStatus.ADDED, additions=len(lines),
                      patch=f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + x for x in lines))


def _modified(path: str, patch: str) -> FileChange:
    plus = sum(1 for x in patch.split("\n") if x.startswith("+"))
    minus = sum(1 for x in patch.split("\n") if x.startswith("-"))
    return FileChange(path=path, status=FileStatus.MODIFIED, additions=plus, deletions=minus, patch=patch)


def _text(decisions: list[Decision]) -> str:
    return "\n".join(f"{d.title} — {d.explanation} {d.references}" for d in decisions)


ALLOCATION = _modified("vllm/model_executor/layers/attention/msa_attention.py", """\
@@ -120,9 +120,9 @@ class SparseAttention(nn.Module):
     def forward_decode(self, query, attn_metadata):
         query_fp8 = None
-        if attn_metadata.decode_plan is not None:
+        if self.impl.supports_cutlass_decode:
             query_fp8 = torch.empty_like(query, dtype=torch.float8_e4m3fn)
         return self.impl.decode(query, query_fp8, attn_metadata)
""")


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_replaced_condition_is_the_decision_not_the_title(language: str) -> None:
    test = _added("tests/kernels/test_msa_graph_replay.py", [
        "def test_replay_with_a_plan_after_capture_without_one():",
        "    layer = SparseAttention(impl=FakeImpl(supports_cutlass_decode=True))",
        "    layer.forward_decode(query(), metadata(decode_plan=None))",
        "    assert layer.forward_decode(query(), metadata(decode_plan=plan())) is not None",
    ])
    ctx = PRContext(title="[Bugfix] Keep FP8 query allocation stable across CUDA graph replay (#1)",
                    files=[ALLOCATION, test])
    digest = heuristic_digest(ctx, Coverage(), language)
    text = _text(digest.decisions)
    assert "`self.impl.supports_cutlass_decode`" in text and "`attn_metadata.decode_plan is not None`" in text
    assert "query_fp8 = torch.empty_like(query, dtype=torch.float8_e4m3fn)" in text  # what the condition guards
    assert any("SparseAttention.forward_decode" in r for d in digest.decisions for r in d.references)
    # the method that changed comes before the class that only holds it
    assert digest.start_reading[0].endswith("::SparseAttention.forward_decode")
    assert "title" not in text.lower() and "标题" not in text


def test_a_widened_check_is_quoted_as_it_is_now() -> None:
    kernel = _modified("csrc/gdn/gated_delta_net.cu", """\
@@ -40,7 +40,8 @@ void gated_delta_net_launch(int64_t num_key_heads, int64_t num_value_heads) {
   const int64_t heads = num_value_heads;
-  STD_TORCH_CHECK(num_value_heads == 8 * num_key_heads, "only an 8:1 ratio is supported");
+  const int64_t ratio = num_value_heads / num_key_heads;
+  STD_TORCH_CHECK(ratio == 1 || ratio == 2 || ratio == 4 || ratio == 8, "unsupported head ratio");
   launch(heads);
""")
    (rep,) = replacements(kernel.patch or "", kernel.path)
    assert rep.old == "num_value_heads == 8 * num_key_heads"
    assert rep.new == "ratio == 1 || ratio == 2 || ratio == 4 || ratio == 8"
    digest = heuristic_digest(PRContext(title="Support more GQA ratios", files=[kernel]), Coverage(), "en")
    point = next(d for d in digest.decisions if "check" in d.title)
    assert "`ratio == 1 || ratio == 2 || ratio == 4 || ratio == 8`" in point.title
    assert "the check stays" in point.explanation


@pytest.mark.parametrize(("path", "old", "new"), [
    # a context passed down the call chain: the same error check of the same call
    ("internal/queue/scheduler.go", "\tif err := s.store.Put(job); err != nil {",
     "\tif err := s.store.Put(ctx, job); err != nil {"),
    # a failure passed on with `?` instead of a panic: the same question of the result
    ("crates/net/src/server.rs", "        if let Some(frame) = codec.decode(&mut inbuf).unwrap() {",
     "        if let Some(frame) = codec.decode(&mut inbuf)? {"),
])
def test_a_call_that_only_takes_more_arguments_asks_the_same_question(path: str, old: str, new: str) -> None:
    body = "\t\treturn err\n" if path.endswith(".go") else "            return frame;\n"
    change = _modified(path, f"@@ -10,3 +10,3 @@\n-{old}\n+{new}\n {body}")
    assert replacements(change.patch or "", change.path) == []
    # an argument swapped for another asks something else
    other = new.replace("ctx, job", "draft").replace("&mut inbuf)?", "&mut outbuf)?")
    assert len(replacements(f"@@ -10,3 +10,3 @@\n-{old}\n+{other}\n {body}", path)) == 1


def test_a_check_of_other_names_is_not_the_old_check_widened() -> None:
    # one check dropped and an unrelated one added in its place: not "the check stays"
    kernel = _modified("csrc/moe/fused_gate.cu", """\
@@ -96,5 +96,5 @@ void fused_gate(torch::Tensor& weights, int64_t num_expert_group, int64_t topk_group) {
   const int topk = weights.size(-1);
-  TORCH_CHECK(topk == 8, "fused_gate only supports topk == 8, got ",
-              topk);
+  TORCH_CHECK(topk_group <= num_expert_group,
+              "topk_group must not exceed num_expert_group");
   launch(weights);
""")
    assert replacements(kernel.patch or "", kernel.path) == []
    digest = heuristic_digest(PRContext(title="Validate expert groups", files=[kernel]), Coverage(), "en")
    assert not any("the check stays" in d.explanation for d in digest.decisions), digest.decisions
    assert "removes a guard, `TORCH_CHECK(topk == 8, \"fused_gate only supports topk == 8, got \", topk);`" \
        in digest.reason, digest.reason


def _model_drop() -> PRContext:
    files = [_added(f"vllm/models/tinyllm/{name}.py", [
        f'"""TinyLLM {name}: the {name} of the TinyLLM architecture, following the shared template."""',
        f"class TinyLLM{name.title()}(nn.Module):", "    def forward(self, x):", "        return x",
    ]) for name in ("model", "attention", "mlp", "config", "loader")]
    files.append(_modified("vllm/model_executor/layers/linear.py", """\
@@ -800,3 +800,9 @@ class RowParallelLinear(LinearBase):
         return output
+
+
+class QKVParallelLinearWithIndexer(QKVParallelLinear):
+    def weight_loader(self, param, loaded_weight):
+        # the indexer's rows are stored after the KV heads
+        return super().weight_loader(param, loaded_weight)
"""))
    files.append(_modified("vllm/config/vllm.py", """\
@@ -300,7 +300,7 @@ class VllmConfig:
     def __post_init__(self):
-        if self.model_config.architecture in ("DeepseekV4",):
+        if self.model_config.architecture in ("DeepseekV4", "TinyLLM"):
             self.compilation_config.breakable_cudagraph = True
"""))
    return PRContext(title="[Model] Add TinyLLM support (#2)", files=files)


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_model_drop_names_the_shared_code_it_changes_first(language: str) -> None:
    digest = heuristic_digest(_model_drop(), Coverage(), language)
    first = digest.decisions[0]
    refs = " ".join(first.references)
    assert "vllm/model_executor/layers/linear.py::QKVParallelLinearWithIndexer" in refs
    assert "vllm/config/vllm.py" in refs
    assert "tinyllm" not in refs  # the new model's own files are not the shared code
    # nor are its docstrings design points: a reader outside the model reads the shared code
    assert not any("tinyllm/" in r for d in digest.decisions for r in d.references), _text(digest.decisions)
    assert any("VllmConfig.__post_init__" in r for d in digest.decisions for r in d.references)


TESTS_ONLY = _added("tests/kernels/test_block_copy.py", [
    "import pytest", "import torch", "",
    '@pytest.fixture(scope="module")', "def block_pool():", "    return torch.zeros(64, 16)", "",
    '@pytest.mark.parametrize("dtype,block_size", [(torch.float16, 16), (torch.bfloat16, 32)])',
    "def test_copy_matches_reference(block_pool, dtype, block_size):",
    "    out = copy_blocks(block_pool.to(dtype), block_size)",
    "    torch.testing.assert_close(out, ref_copy_blocks(block_pool.to(dtype), block_size))", "",
    "def ref_copy_blocks(pool, block_size):",
    '    """A slow copy, one block at a time: what the kernel must agree with."""',
    "    out = torch.empty_like(pool)",
    "    for start in range(0, pool.shape[0], block_size):",
    "        out[start:start + block_size] = pool[start:start + block_size]",
    "    return out", "",
    "def copy_blocks(pool, block_size):",
    "    return torch.ops._C.copy_blocks(pool, block_size)",
])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_tests_only_pr_names_its_technique(language: str) -> None:
    digest = heuristic_digest(PRContext(title="[Test] Cover block copies (#3)", files=[TESTS_ONLY]), Coverage(),
                              language)
    text = _text(digest.decisions)
    assert "`block_pool`" in text and "module" in text  # the fixture and its scope
    assert "`dtype`" in text and "`block_size`" in text  # what it is parametrised over
    assert "`torch.testing.assert_close`" in text  # how the result is compared
    assert "tests/kernels/test_block_copy.py::test_copy_matches_reference" in " ".join(
        r for d in digest.decisions for r in d.references)
    assert "`ref_copy_blocks`" in text  # a reference implementation is the oracle, compared through assert_close
    assert digest.start_reading == ["tests/kernels/test_block_copy.py::test_copy_matches_reference"]


BOTH_PATHS = _modified("tests/samplers/conftest.py", """\
@@ -4,3 +4,16 @@ import pytest
 @pytest.fixture
 def vocab_size():
     return 32000
+
+
+@pytest.fixture(
+    params=["flashinfer", "pytorch"],
+    autouse=True,
+)
+def sampler_backend(request, monkeypatch):
+    \"\"\"Runs every sampler test twice: on the FlashInfer fast path and on the PyTorch fallback, which
+    machines without FlashInfer take.\"\"\"
+    if request.param == "flashinfer":
+        pytest.importorskip("flashinfer")
+    monkeypatch.setenv("VLLM_USE_FLASHINFER_SAMPLER", "1" if request.param == "flashinfer" else "0")
+    return request.param
""")


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_fixture_that_runs_every_test_on_both_paths_is_a_technique_worth_a_skim(language: str) -> None:
    digest = heuristic_digest(PRContext(title="[Test] Sampler tests on both paths", files=[BOTH_PATHS]), Coverage(),
                              language)
    assert digest.verdict is Verdict.SKIM, digest.reason
    [point] = digest.decisions
    assert '`"flashinfer"`' in point.title and '`"pytorch"`' in point.title and "`sampler_backend`" in point.title
    assert "`tests/samplers/`" in point.explanation and "autouse=True" in point.explanation
    assert "fallback, which machines without FlashInfer take" in point.explanation  # what its authors say it covers
    assert "tests/samplers/conftest.py::sampler_backend" in point.references


def test_a_parametrisation_moved_into_a_fixture_is_the_same_coverage() -> None:
    moved = _modified("tests/samplers/test_top_p.py", """\
@@ -1,8 +1,12 @@
 import pytest
 
 
-@pytest.mark.parametrize("backend", ["flashinfer", "pytorch"])
-def test_top_p(backend):
+@pytest.fixture(params=["flashinfer", "pytorch"])
+def backend(request):
+    return request.param
+
+
+def test_top_p(backend):
     assert run_top_p(backend, 0.9) is not None
""")
    digest = heuristic_digest(PRContext(title="[Test] Move the backend axis into a fixture", files=[moved]),
                              Coverage(), "en")
    assert digest.verdict is Verdict.SKIP, digest.reason


def _tests_with(body: list[str]) -> FileChange:
    return _added("tests/unit/test_loader.py", ["import pytest", "", "def test_loader_reads_the_cache(monkeypatch):",
                                                 *body, "    assert load_cache() == {}"])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_stand_in_is_named_and_an_environment_variable_is_not_one(language: str) -> None:
    from readworthy.analyze.heuristic.kind_points import test_points

    patched = test_points([_tests_with(["    monkeypatch.setattr(loader, 'fetch', lambda url: b'{}')"])], language)
    assert "`monkeypatch.setattr`" in _text(patched)
    # setting an environment variable configures the code under test; it replaces no object
    configured = test_points([_tests_with(["    monkeypatch.setenv('CACHE_DIR', '/tmp/x')"])], language)
    assert "setenv" not in _text(configured)


DOCS = _added("docs/design/prefix_cache.md", [
    "# Prefix caching", "", "## Why blocks are evicted by last access", "",
    "Blocks are kept in a heap keyed by their last access step.",
    "Backends must call `touch()` on every cache hit and never reorder the free list directly.",
    "", "## Reading the hit-rate metric", "", "The hit rate counts blocks, not requests.",
    "A request that reuses half of its prompt counts every reused block once.",
    "", "| metric | unit |", "|---|---|", "| hit rate | blocks |", "| evictions | blocks |", "",
    "## Tuning", "", "The pool size is set by `--num-gpu-blocks-override`.",
    "Leave it unset unless you measured the working set first.",
    "", "See also the scheduler design page for how blocks are allocated.",
    "", "## Limits", "", "The heap holds one entry per cached block.", "Lazy deletion keeps a hit at O(log n).",
    "Stale entries are skipped when popped.",
])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_docs_pr_says_what_the_page_explains(language: str) -> None:
    digest = heuristic_digest(PRContext(title="[Doc] Prefix caching design (#4)", files=[DOCS]), Coverage(), language)
    (point,) = digest.decisions
    assert point.title.startswith("Backends must call touch() on every cache hit")  # the rule it states
    assert "“Why blocks are evicted by last access”" in point.explanation
    assert "“Reading the hit-rate metric”" in point.explanation
    assert point.references == ["docs/design/prefix_cache.md"]


def test_abstract_types_are_read_from_the_diff_including_the_hunk_header() -> None:
    patch = """\
@@ -20,6 +20,10 @@ class RunnerInterface(PluggableLayer, ABC):
     @abstractmethod
     def forward(self, x):
         raise NotImplementedError
+
+    @abstractmethod
+    def set_eplb_state(self, state):
+        raise NotImplementedError
"""
    assert abstract_types(patch) == ({"RunnerInterface"}, {"RunnerInterface"})
    assert abstract_types("@@ -1 +1,2 @@\n+class Plain:\n+    x = 1\n") == (set(), set())


def test_areas_are_the_directories_that_hold_most_of_the_change() -> None:
    weights = {"vllm/model_executor/layers/fused_moe/layer.py": 400,
               "vllm/model_executor/layers/fused_moe/config.py": 90, "vllm/model_executor/models/llama.py": 10,
               "vllm/lora/layers/base.py": 30, "vllm/lora/utils.py": 5, "vllm/envs.py": 3}
    assert areas_of(weights) == ["vllm/model_executor/layers/fused_moe/", "vllm/lora/layers/", "vllm/"]


def test_a_docs_rule_is_a_whole_sentence_not_the_tail_of_an_unchanged_one() -> None:
    from readworthy.analyze.heuristic.kind_points import stated_rule

    # the first added line finishes a sentence that starts on an unchanged line; the last one stops mid-sentence
    change = _added("README.md", [
        "later runs. v1 runs a prebuilt image pinned by digest, so it must be pulled and never built on your runner.",
        "Always pin the action by its full commit SHA: a tag can be moved after you reviewed it.",
        "Every release must never skip the digest of its image, because a runner that should only"])
    assert stated_rule(change) == \
        "Always pin the action by its full commit SHA: a tag can be moved after you reviewed it."


@pytest.mark.parametrize(("call", "oracle"), [
    ("    assert out == ref_copy_blocks(pool)", "ref_copy_blocks"),
    ("    assert out == naiveAttention(q)", "naiveAttention"),
    # "ref" inside another word is no reference implementation
    ("    assert name.removeprefix('v') == '1.2'", None),
    ("    assert cache.refresh(key) is None", None),
])
def test_an_oracle_is_a_call_named_for_a_reference_not_one_containing_the_letters(call: str,
                                                                                  oracle: str | None) -> None:
    from readworthy.analyze.heuristic.kind_points import test_points

    change = _added("tests/unit/test_cache.py", ["def test_cache_matches():", "    out = run()", call])
    text = _text(test_points([change], "en"))
    assert (f"`{oracle}`" in text) if oracle else ("oracle" not in text.lower()), text


def test_a_reference_is_an_oracle_only_when_the_result_is_checked_against_it() -> None:
    from readworthy.analyze.heuristic.kind_points import test_points

    checked = _added("tests/kernels/test_copy.py", [
        "def test_copy_matches():", "    expected = ref_copy_blocks(pool)", "    out = copy_blocks(pool)",
        "    torch.testing.assert_close(out, expected)"])
    assert "`ref_copy_blocks`" in _text(test_points([checked], "en"))
    # checked through a value computed from it, in an assertion spread over lines
    derived = _added("tests/sample/test_topk.py", [
        "def test_matches_reference(logits, k):", "    out = apply_top_k(logits, k)",
        "    ref = reference_top_k(logits.tolist(), k)", "    finite = {i for i in ref if logits[i] > NEG}",
        "    assert sorted(out.tolist()) == sorted(", "        logits[list(finite)].tolist())"])
    assert "`reference_top_k`" in _text(test_points([derived], "en"))
    # a bracket inside a message opens nothing: a reference only printed is not what a later assert checks
    printed = _added("tests/sample/test_topp.py", [
        "def test_top_p_runs(logits, p):", "    expected = reference_top_p(logits, p)",
        "    print('[top-p', expected)", "    status = apply_top_p(logits, p)", "    assert status == 0"])
    assert "oracle" not in _text(test_points([printed], "en")).lower()
    # a helper named `ref` that is only called (a test server resolving a git ref) checks nothing
    unchecked = _added("tests/servers/test_refs.py", [
        "def test_default_branch_resolves():", "    head = server.ref(repo, 'main') if name == 'main' else None",
        "    server.publish(head)"])
    assert "oracle" not in _text(test_points([unchecked], "en")).lower()


def test_a_rule_in_a_list_item_is_quoted_without_its_bullet() -> None:
    from readworthy.analyze.heuristic.kind_points import stated_rule

    change = _added("CHANGELOG.md", ["- Rendered comments must pass GitHub's Markdown parser before they are posted."])
    assert stated_rule(change) == "Rendered comments must pass GitHub's Markdown parser before they are posted."


def test_a_test_parametrised_twice_is_named_once() -> None:
    from readworthy.analyze.heuristic.kind_points import test_points

    change = _added("tests/unit/test_render.py", [
        "import pytest", "",
        '@pytest.mark.parametrize("attack", ["<img>", "@someone"])',
        '@pytest.mark.parametrize("language", ["en", "zh-CN"])',
        "def test_hostile_answer_is_harmless(attack, language):",
        "    assert render(attack, language).safe"])
    text = _text(test_points([change], "en"))
    assert text.count("`test_hostile_answer_is_harmless`") == 1, text


def test_names_in_docs_and_docstrings_keep_their_underscores() -> None:
    from readworthy.analyze.heuristic.authors import clean
    from readworthy.analyze.heuristic.kind_points import headings, stated_rule

    change = _added("docs/design/prefix_caching.md", [
        "## Reading `prefix_cache_hits` and *why* it lags",
        "The `vllm:prefix_cache_hits` and `vllm:prefix_cache_queries` counters must be read in tokens, not requests."])
    assert headings(change) == ["Reading prefix_cache_hits and why it lags"]
    assert stated_rule(change) == \
        "The vllm:prefix_cache_hits and vllm:prefix_cache_queries counters must be read in tokens, not requests."
    # a docstring is not markdown: a dunder name is a name, and emphasis marks go only at a word's edges
    assert clean("State built once in __init__, read by **every** step.") == \
        "State built once in __init__, read by every step."
    assert clean("uses self.__dict__ and x__y__z as they are") == "uses self.__dict__ and x__y__z as they are"
    # emphasis that closes after a full stop goes too: no stray `**` is left to break the comment's markdown
    rule = _added("README.md", ["## Writing migrations", "Every migration must be safe for the previous release:",
                                "- **Add, don't change.** Add nullable columns only."])
    assert "*" not in stated_rule(rule), stated_rule(rule)


def test_a_file_defining_the_same_name_implements_a_gate_it_does_not_call_it() -> None:
    base = _modified("engine/connectors/base.py", """\
@@ -40,3 +40,7 @@ class KVConnectorBase:
     def close(self) -> None:
         pass
+
+    def supports_hybrid_kv_cache(self) -> bool:
+        # a connector that cannot transfer hybrid layouts must say so
+        return False
""")
    nixl = _modified("engine/connectors/nixl.py", """\
@@ -80,3 +80,9 @@ class NixlConnector(KVConnectorBase):
     def close(self) -> None:
         self.agent.close()
+
+    def supports_hybrid_kv_cache(self) -> bool:
+        if self.layout != "HND":
+            return False
+        return self.agent.version >= 2
""")
    core = _modified("engine/core.py", """\
@@ -200,3 +200,6 @@ class EngineCore:
     def start(self) -> None:
         self.connector = make_connector(self.config)
+        if self.config.hybrid and not self.connector.supports_hybrid_kv_cache():
+            raise ValueError("the configured KV connector cannot transfer hybrid KV caches")
         self.loop()
""")
    digest = heuristic_digest(PRContext(title="Refuse hybrid KV caches the connector cannot move",
                                        files=[base, nixl, core]), Coverage(), "en")
    gates = [d for d in digest.decisions if "new check of what may be used" in d.title]
    assert gates, digest.decisions
    for gate in gates:
        assert "`base.py`" not in gate.explanation and "`nixl.py`" not in gate.explanation.split("Called from")[-1]
        assert "new path" not in gate.title


def test_a_new_command_line_option_is_a_design_point_with_its_default_and_help() -> None:
    parser = _modified("engine/entrypoints/cli_args.py", """\
@@ -28,6 +28,13 @@ def make_arg_parser(parser: FlexibleArgumentParser) -> FlexibleArgumentParser:
     parser.add_argument("--host", type=str, default=None)
+    parser.add_argument(
+        "--timeout-keep-alive",
+        type=int,
+        default=5,
+        help="Seconds an idle HTTP connection stays open. Raise it behind a load balancer "
+        "whose idle timeout is longer.")
     return parser
""")
    server = _modified("engine/entrypoints/api_server.py", """\
@@ -40,3 +40,3 @@ async def run_server(args) -> None:
     config = uvicorn.Config(app,
-                            timeout_keep_alive=TIMEOUT_KEEP_ALIVE)
+                            timeout_keep_alive=args.timeout_keep_alive)
""")
    for language, title, said in (
            ("en", "A new option, `--timeout-keep-alive` (default `5`)", "its help: “Seconds an idle HTTP connection"),
            ("zh-CN", "新增命令行选项 `--timeout-keep-alive`（默认 `5`）", "其帮助文字：“Seconds an idle HTTP connection")):
        digest = heuristic_digest(PRContext(title="Make the keep-alive timeout configurable", files=[parser, server]),
                                  Coverage(), language)
        point = next(d for d in digest.decisions if d.title == title)
        assert said in point.explanation and "longer.”" in point.explanation
        assert "engine/entrypoints/cli_args.py::make_arg_parser" in point.references
    # a flag that is only reworded (removed and added back) is not new
    reworded = _modified("engine/entrypoints/cli_args.py", """\
@@ -28,3 +28,3 @@ def make_arg_parser(parser: FlexibleArgumentParser) -> FlexibleArgumentParser:
-    parser.add_argument("--port", type=int, default=8000, help="Port.")
+    parser.add_argument("--port", type=int, default=8000, help="The port to listen on.")
     return parser
""")
    digest = heuristic_digest(PRContext(title="Reword --port help", files=[reworded]), Coverage(), "en")
    assert not any("new option" in d.title for d in digest.decisions)


def test_a_docs_page_with_its_navigation_entry_is_a_docs_pr() -> None:
    page = _added("docs/design/cuda_graphs.md", [
        "# CUDA Graphs in V1", "", "## Piecewise vs full graphs", "",
        "Full graphs must only be used with backends whose metadata has a fixed shape for a batch size.",
        *[f"Line {i} of the explanation." for i in range(20)]])
    nav = _modified("mkdocs.yaml", "@@ -40,2 +40,3 @@ nav:\n   - design/paged_attention.md\n+  - design/cuda_graphs.md\n")
    digest = heuristic_digest(PRContext(title="New design page: CUDA graphs", files=[page, nav]), Coverage(), "en")
    assert any("New sections of `cuda_graphs.md`" in d.explanation for d in digest.decisions), digest.decisions
    assert digest.audience == ["`docs/design/`"], digest.audience  # not the site's configuration file
    # settings changed beside docs are a configuration change, not a navigation entry
    settings = _modified("mkdocs.yaml", "@@ -1,6 +1,6 @@\n" + "".join(
        f"-  option_{i}: false\n+  option_{i}: true\n" for i in range(5)))
    mixed = heuristic_digest(PRContext(title="Docs and site settings", files=[page, settings]), Coverage(), "en")
    assert not any("New sections of" in d.explanation for d in mixed.decisions)


def test_a_parametrisation_names_only_the_tests_that_run_over_it() -> None:
    from readworthy.analyze.heuristic.kind_points import test_points

    change = _added("tests/kernels/test_activation.py", [
        "import pytest", "",
        '@pytest.mark.parametrize("num_tokens", [1, 83])', '@pytest.mark.parametrize("dtype", DTYPES)',
        "def test_matches_oracle(num_tokens, dtype):", "    out = run(num_tokens, dtype)",
        "    ref = _reference_oracle(num_tokens, dtype)", "    torch.testing.assert_close(out, ref)", "",
        '@pytest.mark.parametrize("dtype", DTYPES)', "def test_cuda_kernel(dtype):", "    out = run_cuda(dtype)",
        "    torch.testing.assert_close(out, _reference_oracle(1, dtype))"])
    points = test_points([change], "en")
    params = next(d for d in points if d.title.startswith("Parametrised"))
    assert params.title == "Parametrised over `num_tokens`, `dtype`"
    assert "`test_matches_oracle`" in params.explanation and "test_cuda_kernel" not in params.explanation
    # a reference named with a leading underscore is the oracle; the comparison is how it is checked
    assert any(d.title == "The oracle: `_reference_oracle`" for d in points), [d.title for d in points]
    only_compared = _added("tests/kernels/test_copy.py", [
        "def test_copy():", "    out = copy(x)", "    torch.testing.assert_close(out, x.clone())"])
    titles = [d.title for d in test_points([only_compared], "en")]
    assert "Checked with `torch.testing.assert_close`" in titles and not any("oracle" in t for t in titles)


def test_an_environment_variable_read_is_told_without_displacing_other_points() -> None:
    envs = _modified("engine/envs.py", """\
@@ -90,3 +90,6 @@ environment_variables = {
     "ENGINE_PORT": lambda: int(os.getenv("ENGINE_PORT", "8000")),
+    # seconds an idle HTTP connection stays open; also the engine heartbeat
+    "ENGINE_HTTP_TIMEOUT_KEEP_ALIVE":
+    lambda: int(os.environ.get("ENGINE_HTTP_TIMEOUT_KEEP_ALIVE", "5")),
 }
""")
    server = _modified("engine/entrypoints/api_server.py", """\
@@ -40,3 +40,3 @@ async def serve_http(app) -> None:
     config = uvicorn.Config(app,
-                            timeout_keep_alive=5)
+                            timeout_keep_alive=envs.ENGINE_HTTP_TIMEOUT_KEEP_ALIVE)
""")
    digest = heuristic_digest(PRContext(title="Configurable keep-alive", files=[envs, server]), Coverage(), "en")
    point = next(d for d in digest.decisions if "environment variable" in d.title)
    assert point.title == "Reads the environment variable `ENGINE_HTTP_TIMEOUT_KEEP_ALIVE` (default `\"5\"`)"
    assert "`ENGINE_PORT`" not in point.title  # read before the PR: not this PR's
    zh = heuristic_digest(PRContext(title="Configurable keep-alive", files=[envs, server]), Coverage(), "zh-CN")
    assert any(d.title.startswith("读取环境变量 `ENGINE_HTTP_TIMEOUT_KEEP_ALIVE`") for d in zh.decisions)


def test_a_go_interface_is_abstract_and_its_point_keeps_what_its_authors_say_the_contract_is() -> None:
    assert abstract_types("@@ -0,0 +1,3 @@\n+type Prober interface {\n+\tProbe(ctx context.Context) error\n+}\n") \
        == ({"Prober"}, set())
    client = _modified("router/client.go", """\
@@ -10,3 +10,17 @@ import (
 type Client struct {
 	backends []string
 }
+
+// Prober decides whether a backend can take traffic. Implementations must honour ctx cancellation,
+// because the health loop calls Probe for every backend each tick.
+type Prober interface {
+	Probe(ctx context.Context, backend string) error
+}
+
+type HTTPProber struct{}
+
+func (p *HTTPProber) Probe(ctx context.Context, backend string) error {
+	return ping(ctx, backend)
+}
""")
    users = [_added(f"router/{name}.go", [f"func {name.title()}Loop(p Prober) {{", "\tp.Probe(ctx, b)", "}"])
             for name in ("health", "drain")]
    digest = heuristic_digest(PRContext(title="router: health probes", files=[client, *users]), Coverage(), "en")
    point = next(d for d in digest.decisions if "`Prober` is the new interface" in d.title)
    assert "Implementations must honour ctx cancellation" in point.explanation
    assert "router/client.go::HTTPProber.Probe" in digest.start_reading


POLICY_PATCH = """\
@@ -5,8 +5,40 @@ pub struct Worker {
     pub load: AtomicUsize,
 }
 
+/// A routing policy picks the worker index for a request. Policies are
+/// stateless w.r.t. the worker list so they can be swapped at runtime.
+pub trait RoutingPolicy: Send + Sync {
+    fn select(&self, workers: &[Worker], prompt: &str) -> usize;
+}
+
+pub struct RoundRobin {
+    next: AtomicUsize,
+}
+
+impl RoutingPolicy for RoundRobin {
+    fn select(&self, workers: &[Worker], _prompt: &str) -> usize {
+        self.next.fetch_add(1, Ordering::Relaxed) % workers.len()
+    }
+}
+
+/// Hash the first `prefix_chars` of the prompt so requests sharing a system
+/// prompt land on the same worker and hit its prefix cache.
+pub struct PrefixAffinity {
+    pub prefix_chars: usize,
+}
+
+impl RoutingPolicy for PrefixAffinity {
+    fn select(&self, workers: &[Worker], prompt: &str) -> usize {
+        let end = prompt.len().min(self.prefix_chars);
+        let mut h = DefaultHasher::new();
+        prompt[..end].hash(&mut h);
+        (h.finish() as usize) % workers.len()
+    }
+}
+
 pub struct Router {
     workers: Vec<Worker>,
-    next: AtomicUsize,
+    policy: Box<dyn RoutingPolicy>,
 }
"""


def test_a_new_interface_is_told_once_with_its_authors_words_not_beside_its_own_docstring() -> None:
    change = FileChange(path="rust/router/src/policy.rs", status=FileStatus.MODIFIED, additions=33, deletions=1,
                        patch=POLICY_PATCH)
    digest = heuristic_digest(PRContext(title="[Router] Pluggable routing policies", files=[change]), Coverage(), "en")
    told = [d for d in digest.decisions if "swapped at runtime" in d.title + d.explanation]
    assert len(told) == 1, digest.decisions
    assert told[0].title == "`RoutingPolicy` is the new interface the rest builds on"


GO_TABLE = _added("pkg/client/retry_test.go", [
    "package client", "", 'import "testing"', "",
    "func TestBackoff(t *testing.T) {",
    "\ttests := []struct {", "\t\tname    string", "\t\tattempt int", "\t\twant    int", "\t}{",
    '\t\t{"first", 0, 100},', '\t\t{"capped", 9, 5000},', "\t}",
    "\tfor _, tc := range tests {",
    "\t\tt.Run(tc.name, func(t *testing.T) {",
    "\t\t\tif got := backoff(tc.attempt); got != tc.want {", '\t\t\t\tt.Fatalf("got %d", got)', "\t\t\t}",
    "\t\t})", "\t}", "}",
])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_go_table_driven_test_is_named_as_a_table_of_cases(language: str) -> None:
    digest = heuristic_digest(PRContext(title="Cover backoff", files=[GO_TABLE]), Coverage(), language)
    point = next(d for d in digest.decisions if "`TestBackoff`" in d.title)
    assert ("table of cases" if language == "en" else "用例表") in point.title + point.explanation
    assert "pkg/client/retry_test.go::TestBackoff" in point.references
    # the same test checking one case names no table
    plain = _added("pkg/client/retry_test.go", ["package client", "", "func TestBackoff(t *testing.T) {",
                                                "\tif backoff(0) != 100 {", '\t\tt.Fatal("first")', "\t}", "}"])
    digest = heuristic_digest(PRContext(title="Cover backoff", files=[plain]), Coverage(), language)
    assert not any("table of cases" in d.title + d.explanation or "用例表" in d.title for d in digest.decisions)


@pytest.mark.parametrize(("path", "lines"), [
    ("tests/elementwise_test.cc", ["class ElementwiseTest : public ::testing::TestWithParam<Case> {};", "",
                                   "TEST_P(ElementwiseTest, AddMatchesReference) {",
                                   "  EXPECT_EQ(Add(GetParam().a, GetParam().b), GetParam().want);", "}", "",
                                   "INSTANTIATE_TEST_SUITE_P(Sizes, ElementwiseTest,",
                                   "                         ::testing::Values(Case{1, 2, 3}, Case{4, 5, 9}));"]),
    ("libs/common/src/test/java/acme/MoneyTest.java", ["    @ParameterizedTest",
                                                       '    @CsvSource({"EUR, 2", "JPY, 0"})',
                                                       "    void roundsToCurrencyDigits(String code, int digits) {",
                                                       "        assertEquals(digits, Money.digits(code));", "    }"]),
])
def test_a_parametrised_test_in_an_existing_file_of_any_language_is_a_technique(path: str, lines: list[str]) -> None:
    change = _modified(path, "@@ -20,1 +20,{} @@\n }}\n".format(len(lines) + 1) + "\n".join("+" + x for x in lines))
    digest = heuristic_digest(PRContext(title="Parametrise the tests", files=[change]), Coverage(), "en")
    assert digest.verdict is Verdict.SKIM
    assert any(d.title.startswith("A table of cases") for d in digest.decisions), digest.decisions
