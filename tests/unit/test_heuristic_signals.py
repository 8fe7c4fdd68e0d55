"""Signals beyond size: each kind of change is judged by what it does, and named in the reason."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.analyzer import judgement
from readworthy.analyze.heuristic.signals import measure
from readworthy.analyze.heuristic.triage import CONFIDENT_SKIP
from readworthy.models import Coverage, Digest, FileChange, FileStatus, PRContext, Verdict


def _file(path: str, added: Sequence[str] = (), removed: Sequence[str] = (), status: FileStatus = FileStatus.MODIFIED,
          previous: str | None = None, start: int = 10) -> FileChange:
    lines = [f"-{x}" for x in removed] + [f"+{x}" for x in added]
    patch = f"@@ -{start},{len(removed)} +{start},{len(added)} @@\n" + "\n".join(lines) if lines else None
    return FileChange(path=path, status=status, additions=len(added), deletions=len(removed), patch=patch,
                      previous_path=previous)


def _digest(title: str, files: list[FileChange], **extra: object) -> Digest:
    return heuristic_digest(PRContext(title=title, files=files, **extra), Coverage(), "en")  # type: ignore[arg-type]


def test_a_bump_that_also_rewrites_logic_is_judged_by_the_logic() -> None:
    digest = _digest("Bump flashinfer to 0.3.1", [
        _file("requirements/cuda.txt", ["flashinfer==0.3.1"], ["flashinfer==0.3.0"]),
        _file("engine/attention/flashinfer.py", ["    workspace = allocate(256 * MB)", "    plan.reuse(workspace)"],
              ["    workspace = allocate(128 * MB)"]),
    ])
    assert digest.verdict is not Verdict.SKIP
    assert "titled as a version bump but also changes logic (`flashinfer.py`)" in digest.reason
    pure = _digest("Bump flashinfer to 0.3.1", [_file("requirements/cuda.txt", ["flashinfer==0.3.1"],
                                                        ["flashinfer==0.3.0"])])
    assert pure.verdict is Verdict.SKIP


def test_removing_one_assert_names_the_guard_whatever_the_verdict() -> None:
    # The team labels a bare removed check with nothing to read a skip that still names what went away
    # (vLLM #50869: "configs it used to reject are now accepted"); the model weighs it, the reason must say it.
    digest = _digest("Allow fp8 weights with group quantisation", [_file(
        "engine/quant/fp8.py", [], ["        assert not self.group_quant, 'group quantisation is unsupported'"])])
    assert digest.verdict is not Verdict.DEEP_READ
    assert "removes a guard, `assert not self.group_quant" in digest.reason


def test_a_guard_reworded_or_deleted_with_its_function_is_not_a_removed_guard() -> None:
    reworded = _digest("Clearer error", [_file(
        "engine/pool.py", ['        raise RuntimeError("out of blocks: every block is in use")'],
        ['        raise RuntimeError("out of blocks")'])])
    assert "guard" not in reworded.reason
    dead = _digest("Remove the unused loader", [_file(
        "engine/loader.py", [], ["def load_legacy(path):", "    assert path.endswith('.bin')", "    return read(path)"])])
    assert dead.verdict is Verdict.SKIP and "guard" not in dead.reason


def test_a_comment_beside_a_pin_changes_no_more_than_the_pin() -> None:
    digest = _digest("Bump xgrammar to 0.1.25", [
        _file("requirements/common.txt", ["xgrammar == 0.1.25"], ["xgrammar == 0.1.23"]),
        _file("engine/structured_output/backend_xgrammar.py", [
            "        # NOTE: xgrammar>=0.1.25 caches compiled grammars across compilers,",
            "        # so the limit below is per process."])])
    assert digest.verdict is Verdict.SKIP
    assert digest.reason.startswith("Only dependency or image versions move"), digest.reason
    # a line of code beside the pin is judged as code
    code = _digest("Bump xgrammar to 0.1.25", [
        _file("requirements/common.txt", ["xgrammar == 0.1.25"], ["xgrammar == 0.1.23"]),
        _file("engine/structured_output/backend_xgrammar.py", ["        max_threads = 16"], ["        max_threads = 8"])])
    assert not code.reason.startswith("Only dependency"), code.reason


def test_a_changed_default_is_named() -> None:
    digest = _digest("Enable chunked prefill", [_file(
        "engine/config.py", ["    enable_chunked_prefill: bool = True"], ["    enable_chunked_prefill: bool = False"])])
    assert digest.verdict is not Verdict.SKIP
    assert "changes the default of `enable_chunked_prefill` (False → True)" in digest.reason


@pytest.mark.parametrize(("old", "new"), [
    ("    def __init__(self, model: str, log_requests: bool = True) -> None:",
     "    def __init__(self, model: str, log_requests: bool = False) -> None:"),
    ("export function connect(url: string, log_requests = true) {", "export function connect(url: string, "
                                                                       "log_requests = false) {"),
    ("def connect(url, log_requests=True, retries=pick(1, 2)):", "def connect(url, log_requests=False, "
                                                                  "retries=pick(1, 2)):"),
])
def test_a_default_changed_in_a_function_head_is_named(old: str, new: str) -> None:
    digest = _digest("Quieter engine", [_file("engine/async_engine.py", [new], [old])])
    assert "changes the default of `log_requests` (True → False)" in digest.reason.replace("true", "True") \
        .replace("false", "False"), digest.reason
    # a parameter renamed, or a function of another name, changes no default
    other = _digest("Quieter engine", [_file("engine/async_engine.py", [new.replace("log_requests", "log_calls")],
                                             [old])])
    assert "default" not in other.reason


def test_an_import_moved_beside_a_pin_is_not_logic() -> None:
    digest = _digest("Bump pydantic to 2.9", [
        _file("requirements/common.txt", ["pydantic >= 2.9, < 3.0"], ["pydantic >= 2.7, < 2.9"]),
        _file("engine/entrypoints/protocol.py",
              ["from pydantic import BaseModel, Field", "from pydantic.functional_validators import model_validator"],
              ["from pydantic import BaseModel, Field, model_validator"])])
    assert "changes logic" not in digest.reason, digest.reason


def test_a_keyword_argument_in_a_call_is_not_a_default() -> None:
    digest = _digest("Tweak load", [_file("engine/ops/load.py", ["        other=0,"], ["        other=0.0,"])])
    assert "default" not in digest.reason


def test_security_words_make_a_small_fix_worth_reading_and_a_new_guard_deep() -> None:
    plain = _digest("Fix CVE-2026-1234: do not load remote code unless asked", [_file(
        "engine/loader.py", ["    if not trust_remote_code:", "        raise ValueError('remote code is not allowed')"],
        ["    pass"])])
    assert plain.verdict is Verdict.SKIM and "security change (`CVE-2026-1234`" in plain.reason
    guarded = _digest("Sanitize user paths against path traversal", [_file(
        "engine/files.py", ["def validate_user_path(root, path):",
                            "    resolved = (root / path).resolve()",
                            "    if root not in resolved.parents:",
                            "        raise ValueError('path traversal is not supported')",
                            "    return resolved"], status=FileStatus.MODIFIED)])
    assert guarded.verdict is Verdict.DEEP_READ and "security change" in guarded.reason


def test_passing_trust_remote_code_along_is_not_a_security_change() -> None:
    digest = _digest("Add model", [_file("engine/models/foo.py",
                                         ["    model = load(name, trust_remote_code=trust_remote_code)"])])
    assert "security" not in digest.reason


def test_a_move_into_third_party_with_import_updates_is_skipped_and_says_so() -> None:
    moved = [_file(f"third_party/kernels/k{i}.py", status=FileStatus.RENAMED, previous=f"engine/kernels/k{i}.py")
             for i in range(18)]
    imports = [_file(f"engine/use{i}.py", ["from third_party.kernels import k1"], ["from engine.kernels import k1"])
               for i in range(3)]
    digest = _digest("Move vendored kernels", moved + imports)
    assert digest.verdict is Verdict.SKIP
    assert digest.reason.startswith("Moves 18 files into `third_party/kernels/`")


@pytest.mark.parametrize("package_init", [
    [],  # an empty `__init__.py`
    ["# SPDX-License-Identifier: Apache-2.0", "# SPDX-FileCopyrightText: Copyright contributors"],
])
def test_a_move_into_a_new_package_with_an_empty_init_is_a_move(package_init: list[str]) -> None:
    moved = _file("engine/request_utils/stop.py", status=FileStatus.RENAMED, previous="engine/sched/utils.py")
    init = FileChange(path="engine/request_utils/__init__.py", status=FileStatus.ADDED, additions=len(package_init),
                      patch=("@@ -0,0 +1,2 @@\n" + "\n".join(f"+{x}" for x in package_init)) if package_init else None)
    imports = [_file(f"engine/sched/{name}.py", ["from engine.request_utils.stop import check_stop"],
                     ["from engine.sched.utils import check_stop"]) for name in ("scheduler", "async_scheduler")]
    digest = _digest("Move the stop utils", [moved, init, *imports])
    assert digest.verdict is Verdict.SKIP
    assert digest.reason.startswith("Moves 1 file into `engine/request_utils/`"), digest.reason
    # a new module with code beside the move is not part of it
    code = FileChange(path="engine/request_utils/__init__.py", status=FileStatus.ADDED, additions=1,
                      patch="@@ -0,0 +1 @@\n+DEFAULT_STOP_STRINGS = (\"</s>\",)")
    assert not _digest("Move the stop utils", [moved, code, *imports]).reason.startswith("Moves")


def test_a_move_whose_code_changed_is_not_a_move() -> None:
    moved = _file("engine/new/sched.py", ["    return pick(queue, policy)"], ["    return queue[0]"],
                  status=FileStatus.RENAMED, previous="engine/old/sched.py")
    digest = _digest("Move and change the scheduler", [moved])
    assert "Moves" not in digest.reason


def test_thousands_of_generated_one_line_files_are_skipped_however_many() -> None:
    files = [_file(f"tests/data/tokens/t{i:05}.json", ['{"id": 1}'], status=FileStatus.ADDED, start=0)
             for i in range(3000)]
    digest = heuristic_digest(PRContext(title="Add tokenizer corpus", files=files, changed_files=20000),
                              Coverage(), "en")
    assert digest.verdict is Verdict.SKIP and "generated data" in digest.reason
    assert any("3,000 of 20,000" in x for x in digest.open_items)


def test_new_stages_and_cache_mounts_in_an_existing_image_build_are_deep_read() -> None:
    digest = _digest("[Docker] Cache test dependencies", [_file("docker/Dockerfile", [
        "FROM ${BASE_IMAGE} AS runtime-base",
        "RUN apt-get install -y libnuma1",
        "FROM runtime-base AS app-base",
        "# Test requirements change rarely: keep them in their own stage so app changes do not rebuild them",
        "FROM runtime-base AS test-deps",
        "RUN --mount=type=cache,target=/root/.cache/uv uv pip install -r requirements/test.txt",
        "FROM test-deps AS test",
    ], ["FROM ${BASE_IMAGE} AS app-base", "FROM app-base AS test"])])
    assert digest.verdict is Verdict.DEEP_READ
    assert "new stages (`runtime-base`, `test-deps`)" in digest.reason
    assert any("keep them in their own stage" in d.title for d in digest.decisions)
    one_more = _digest("[Docker] Add a CUDA 13 image", [_file("docker/Dockerfile", [
        "FROM base AS cuda13", "RUN --mount=type=cache,target=/root/.cache/uv uv pip install -e ."])])
    assert one_more.verdict is not Verdict.DEEP_READ


def test_an_existing_pattern_applied_across_test_files_is_skipped() -> None:
    files = [_file(f"tests/models/test_m{i}.py", ["@pytest.fixture(scope='module')", f"def runner_m{i}():",
                                                  f"    return start('m{i}')"],
                   [f"def test_m{i}():", f"    r = start('m{i}')", "    r.check()", "    r.stop()"]) for i in range(5)]
    digest = _digest("Share one runner per module", files)
    assert digest.verdict is Verdict.SKIP and digest.reason.startswith("Tests only"), digest.reason
    assert "pattern" not in digest.reason  # nothing checked that a pattern exists elsewhere


def test_a_one_line_fix_is_skipped_and_a_directory_name_does_not_make_it_kernel_code() -> None:
    plain = _digest("[Bugfix] Detect full_attention", [_file(
        "engine/config/model.py", ["        return layer in ('attention', 'full_attention')"],
        ["        return layer == 'attention'"])])
    assert plain.verdict is Verdict.SKIP and "the title says what changed" in plain.reason
    # the same two-line fix judged alike under `ops/deploy/` and `deploy/`: a path is not kernel code
    fix = (["    retries = max(1, int(os.environ.get('RETRIES', '3')))"], ["    retries = int(os.environ['RETRIES'])"])
    ops = _digest("[Bugfix] Fix retries", [_file("ops/deploy/rollout.py", *fix)])
    deploy = _digest("[Bugfix] Fix retries", [_file("deploy/rollout.py", *fix)])
    assert ops.verdict is deploy.verdict and "kernel" not in ops.reason


def test_a_validation_refusing_unsupported_setups_is_named() -> None:
    digest = _digest("Refuse fp8 KV cache on old GPUs", [_file("engine/config/cache.py", [
        "    def validate_kv_cache_dtype(self, capability):",
        "        if self.dtype == 'fp8' and capability < 89:",
        "            raise ValueError('fp8 KV cache is not supported below compute capability 8.9')",
    ])])
    assert "refuses unsupported configurations loudly (`validate_kv_cache_dtype`)" in digest.reason


@pytest.mark.parametrize(("removed", "added"), [
    # the same refusal carried by another error type
    ("            raise ValueError('fp8 KV cache is not supported below compute capability 8.9')",
     "            raise NotImplementedError('fp8 KV cache is not supported below compute capability 8.9')"),
    ("            raise ValueError(msg)", "            raise NotImplementedError(msg)"),
])
def test_a_refusal_the_code_already_had_is_not_a_new_one(removed: str, added: str) -> None:
    patch = ("@@ -10,4 +10,4 @@ class CacheConfig:\n     def validate_kv_cache_dtype(self, capability):\n"
             "         if self.dtype == 'fp8' and capability < 89:\n"
             f"-{removed}\n+{added}\n         return self\n")
    digest = _digest("Raise NotImplementedError for unsupported setups", [FileChange(
        path="engine/config/cache.py", status=FileStatus.MODIFIED, additions=1, deletions=1, patch=patch)])
    assert "refuses unsupported configurations" not in digest.reason, digest.reason


def test_a_method_many_existing_classes_now_implement_is_an_interface() -> None:
    backends = [_file(f"engine/attention/backends/b{i}.py", ["    @classmethod",
                                                             "    def supported_cache_layouts(cls):",
                                                             f"        return [Layout.L{i}]"], start=40)
                for i in range(5)]
    backends = [f.model_copy(update={"patch": f"@@ -40,0 +40,3 @@ class Backend{i}(AttentionBackend):\n"
                                              + "\n".join((f.patch or "").split("\n")[1:])})
                for i, f in enumerate(backends)]
    digest = _digest("Backends declare their cache layouts", backends)
    assert "adds a method, `supported_cache_layouts`, that 5 changed files implement" in digest.reason


def test_a_new_package_holding_most_of_the_code_is_a_skim_of_its_shared_edits() -> None:
    model = [_file(f"engine/models/zeta/{name}.py", [f"class Zeta{name.title()}:"] +
                   [f"    def step{i}(self, x):" for i in range(12)], status=FileStatus.ADDED, start=0)
             for name in ("model", "attention", "moe", "config", "weights", "processor")]
    shared = _file("engine/layers/linear.py", ["class ZetaQKVLinear(QKVLinear):", "    def split(self, x):"])
    digest = _digest("[Model] Add Zeta", [*model, shared])
    assert digest.verdict is not Verdict.DEEP_READ
    if digest.verdict is Verdict.SKIM:
        assert "new package `engine/models/zeta/`" in digest.reason and "`linear.py`" in digest.reason
    assert "template" not in digest.reason  # nothing checked that it follows one


def test_a_new_package_without_shared_edits_is_never_a_confident_skip() -> None:
    # the model's weight on the new-package share was learned from drops big enough to be skims; alone it
    # would call a smaller drop a confident skip, which triage never sends to a model
    files = [_file(f"engine/planner/{name}.py", [f"class Planner{name.title()}:"] +
                   [f"    def step{i}(self, x):" for i in range(40)], status=FileStatus.ADDED, start=0)
             for name in ("core", "graph", "cost", "search", "cache", "rules")]
    sig = measure(PRContext(title="A query planner", files=files))
    judged = judgement(sig, "en")
    assert judged.verdict is Verdict.SKIM and judged.confidence < CONFIDENT_SKIP, judged
    assert "new, self-contained package `engine/planner/`" in judged.reason, judged.reason


def test_audience_is_the_owners_of_the_code_not_of_the_tests() -> None:
    files = [_file("engine/sched/batcher.py", ["    return pack(queue)"], ["    return queue"]),
             _file("tests/sched/test_batcher.py", ["def test_pack():", "    assert pack([]) == []"])]
    owners = {"@org/qa": ["tests/sched/test_batcher.py"], "@org/scheduler": ["engine/sched/batcher.py"]}
    digest = _digest("Pack the queue", files, owners=owners)
    assert digest.audience == ["org/scheduler (`engine/sched/batcher.py`)"]
    # nobody owns the code: the config's areas come next, then the code areas themselves
    by_area = _digest("Pack the queue", files, owners={"@org/qa": ["tests/sched/test_batcher.py"]},
                      areas={"Scheduler": ["engine/sched/batcher.py"], "Tests": ["tests/sched/test_batcher.py"]})
    assert by_area.audience == ["Scheduler"]
    assert _digest("Pack the queue", files).audience == ["`engine/sched/`"]
    ci = _digest("CI diagnostics", [_file(".buildkite/scripts/run.sh", ["collect() {", "  dmesg", "}"])])
    assert ci.audience == ["`.buildkite/scripts/`"]


def test_a_textbook_multi_stage_dockerfile_is_not_deep_read() -> None:
    dockerfile = ["FROM node:20 AS deps", "WORKDIR /app", "COPY package*.json ./", "RUN npm ci",
                  "FROM deps AS build", "COPY . .", "RUN npm run build",
                  "FROM nginx:1.27", "COPY --from=build /app/dist /usr/share/nginx/html"]
    new = _digest("Add a Dockerfile for the web app", [_file("web/Dockerfile", dockerfile, status=FileStatus.ADDED)])
    converted = _digest("Use a multi-stage build for the web app", [_file(
        "web/Dockerfile", dockerfile, ["FROM node:20", "WORKDIR /app", "COPY . .", "RUN npm ci && npm run build"])])
    for digest in (new, converted):
        assert digest.verdict is not Verdict.DEEP_READ, digest.reason
        assert "restructures an image build" not in digest.reason


def test_new_stages_inserted_into_an_existing_stage_graph_are_named() -> None:
    patch = ("@@ -1,6 +1,9 @@\n FROM python:3.12 AS base\n RUN pip install -r requirements.txt\n"
             "+FROM base AS test-deps\n+COPY requirements/test.txt .\n+RUN pip install -r test.txt\n"
             " FROM base AS wheel\n COPY . .\n-FROM wheel AS test\n+FROM test-deps AS test\n+COPY --from=wheel /dist /dist\n")
    change = FileChange(path="docker/Dockerfile", status=FileStatus.MODIFIED, additions=6, deletions=1, patch=patch)
    digest = _digest("[Docker] Cache test dependencies before the wheel", [change])
    assert "restructures an image build with new stages (`test-deps`)" in digest.reason, digest.reason


def test_a_deletion_that_adds_nothing_is_skipped_as_a_removal() -> None:
    gone = [f"def helper_{i}(x):" if i % 3 == 0 else "    return x" for i in range(60)]
    files = [_file("engine/quant/mxfp8.py", [], gone, status=FileStatus.REMOVED),
             _file("engine/quant/__init__.py", [], ["from .mxfp8 import helper_0"])]
    digest = _digest("Remove dead mxfp8 code", files)
    assert digest.verdict is Verdict.SKIP
    assert "without adding any" in digest.reason
    # settled by its shape, whatever the fitted weights say: a skip triage may leave without a model
    settled = judgement(measure(PRContext(title="Remove dead mxfp8 code", files=files)), "en")
    assert settled.shortcut == "removal" and settled.confidence >= CONFIDENT_SKIP
    # a guard going away is a change of behaviour: never settled as dead code
    guard = _digest("Allow group quantisation", [_file(
        "engine/quant/fp8.py", [], ["        if self.group_quant:", "            raise ValueError('unsupported')"])])
    assert "without adding any" not in guard.reason


def test_a_docs_pr_adding_a_section_is_worth_a_skim_and_a_typo_fix_is_not() -> None:
    section = ["## Reading the latency numbers", *[f"Line {i} of what the numbers mean." for i in range(24)]]
    added = _digest("Docs: explain the latency metrics", [_file("docs/benchmarking/cli.md", section)])
    assert added.verdict is Verdict.SKIM, added.reason
    typo = _digest("docs: fix a typo", [_file("docs/benchmarking/cli.md", ["The tokenizer is fast."],
                                                 ["The tokeniser is fast."])])
    assert typo.verdict is Verdict.SKIP


@pytest.mark.parametrize(("path", "header", "code"), [
    # a refusal in other words ("not yet supported")
    ("engine/lora/logits.py", "class LogitsWithLoRA(BaseLayer):",
     ["        head_dtype = getattr(base_layer, 'head_dtype', None)",
      "        if head_dtype is not None and head_dtype != dtype:",
      "            raise ValueError(",
      "                'A head dtype other than the model dtype is not yet supported with LoRA.'",
      "            )"]),
    # Go refuses by returning an error, not by raising
    ("pkg/store/writer.go", "func NewWriter(c Config) (*Writer, error) {",
     ["\tif c.Compression == \"zstd\" && !c.Streaming {",
      "\t\treturn nil, fmt.Errorf(\"compression %q is not supported without streaming\", c.Compression)",
      "\t}"]),
])
def test_a_refusal_of_an_unsupported_configuration_is_a_fail_fast_check(path: str, header: str,
                                                                         code: list[str]) -> None:
    patch = f"@@ -45,3 +45,{3 + len(code)} @@ {header}\n" + "\n".join(f"+{x}" for x in code)
    change = FileChange(path=path, status=FileStatus.MODIFIED, additions=len(code), deletions=0, patch=patch)
    digest = _digest("Refuse what is not supported", [change])
    assert "refuses unsupported configurations loudly" in digest.reason, digest.reason


def test_new_methods_with_conventional_names_are_a_template_filled_in() -> None:
    from readworthy.analyze.heuristic.signals import TEMPLATE_MIN_DEFINITIONS
    from readworthy.analyze.heuristic.verdict_model import features

    model = [
        "class TinyLlamaAttention(nn.Module):",
        "    def __init__(self, config):",
        "        self.proj = Linear(config.hidden, config.hidden)",
        "    def forward(self, x):",
        "        return self.proj(x)",
        "class TinyLlamaModel(nn.Module):",
        "    def __init__(self, config):",
        "        self.layers = [TinyLlamaAttention(config) for _ in range(config.depth)]",
        "    def forward(self, x):",
        "        return reduce(lambda h, layer: layer(h), self.layers, x)",
        "    def load_weights(self, weights):",
        "        return load_all(self, weights)",
        "def rotate_half_interleaved(x):",
        "    return interleave(x)",
    ]
    drop = measure(PRContext(title="Add TinyLlama", files=[
        _file("engine/models/tiny_llama.py", model, status=FileStatus.ADDED, start=1)]))
    # five new definitions besides the two classes; `__init__` twice and `forward` twice are the template's hooks
    assert drop.template_hooks == 4
    assert features(drop)["template_hooks"] == 4 / max(drop.new_definitions, TEMPLATE_MIN_DEFINITIONS)
    # a conventional name removed elsewhere in the PR does not make a new `__init__` a moved one
    moved_elsewhere = measure(PRContext(title="Add TinyLlama", files=[
        _file("engine/models/tiny_llama.py", model, status=FileStatus.ADDED, start=1),
        _file("engine/models/old.py", [], ["class Old:", "    def __init__(self):", "        self.x = 1"])]))
    assert moved_elsewhere.template_hooks == 4

    mechanism = [
        "class PrefixCacheIndex:",
        "    def lookup_longest_prefix(self, tokens):",
        "        return self.trie.walk(tokens)",
        "    def evict_least_recent(self, budget):",
        "        return self.lru.pop_until(budget)",
    ]
    invented = measure(PRContext(title="Index cached prefixes", files=[
        _file("engine/cache/prefix_index.py", mechanism, status=FileStatus.ADDED, start=1)]))
    assert invented.new_definitions >= 2 and invented.template_hooks == 0
    assert features(invented)["template_hooks"] == 0.0

    # one new `__init__` in a small change is no template: the share is over at least ten definitions
    single = measure(PRContext(title="Add a block pool", files=[_file(
        "engine/pool.py", ["class BlockPool:", "    def __init__(self, size):", "        self.size = size"])]))
    assert single.template_hooks == 1
    assert features(single)["template_hooks"] == 1 / TEMPLATE_MIN_DEFINITIONS


def test_hooks_of_a_template_the_pr_itself_declares_are_not_a_template_filled_in() -> None:
    base = ["class Job(ABC):", "    def __init__(self, name):", "        self.name = name",
            "    @abstractmethod", "    def run(self, ctx):", "        ...",
            "    @abstractmethod", "    def prepare(self, ctx):", "        ..."]
    jobs = ["class BuildJob(Job):", "    def __init__(self):", "        super().__init__('build')",
            "    def prepare(self, ctx):", "        ctx.fetch()", "    def run(self, ctx):", "        ctx.make()",
            "class TestJob(Job):", "    def __init__(self):", "        super().__init__('test')",
            "    def prepare(self, ctx):", "        ctx.fetch()", "    def run(self, ctx):", "        ctx.pytest()"]
    own = measure(PRContext(title="A job system", files=[
        _file("engine/jobs/base.py", base, status=FileStatus.ADDED, start=1),
        _file("engine/jobs/builtin.py", jobs, status=FileStatus.ADDED, start=1)]))
    # `run` and `prepare` are this PR's own template; only the `__init__`s (the language's hooks) count
    assert own.template_hooks == 3
    # the same job classes against a `Job` base that already exists: every conventional name is a hook
    existing = measure(PRContext(title="Two more jobs", files=[
        _file("engine/jobs/builtin.py", jobs, status=FileStatus.ADDED, start=1)]))
    assert existing.template_hooks == 6


def test_a_new_interface_other_code_implements_is_never_a_skip_whatever_the_fit_says() -> None:
    from readworthy.analyze.heuristic.analyzer import judgement
    from readworthy.analyze.heuristic.verdict_model import FITTED, Params
    from readworthy.models import Verdict

    # a fit that calls everything skip (both cuts far above any score): only the rubric's floors can lift it
    skip_all = Params(FITTED.weights, (50.0, 60.0), FITTED.means, FITTED.scales)
    interface = measure(PRContext(title="One parser interface", files=[_file("engine/parsers/base.py", [
        "class ToolParser(ABC):", "    @abstractmethod", "    def extract_tool_calls(self, text):", "        ..."]),
        _file("engine/parsers/hermes.py", [
            "class HermesToolParser(ToolParser):", "    def extract_tool_calls(self, text):",
            "        return parse_hermes(text)"], status=FileStatus.ADDED, start=1)]))
    plain = measure(PRContext(title="A parser helper", files=[_file("engine/parsers/util.py", [
        "def strip_fences(text):", "    return text.strip('`')"], status=FileStatus.ADDED, start=1)]))
    assert interface.abstractions or interface.implemented
    assert judgement(interface, "en", skip_all).verdict is Verdict.SKIM
    assert judgement(plain, "en", skip_all).verdict is Verdict.SKIP


def test_reading_starts_at_a_new_interface_before_its_implementations() -> None:
    base = _file("engine/routing/policy.py", [
        "class RoutingPolicy(ABC):", "    @abstractmethod", "    def select(self, workers, request):", "        ...",
        "", "class PrefixAffinity(RoutingPolicy):", "    def __init__(self, size):", "        self.size = size",
        "        self.seen = {}", "    def select(self, workers, request):",
        "        key = hash(tuple(request.prompt[: self.size]))",
        "        return self.seen.setdefault(key, workers[key % len(workers)])",
        "", "class RoundRobin(RoutingPolicy):", "    def select(self, workers, request):",
        "        self.next = (getattr(self, 'next', -1) + 1) % len(workers)", "        return workers[self.next]"],
        status=FileStatus.ADDED, start=1)
    # the implementation is the bigger one and the one the router builds: it outranks the interface
    router = _file("engine/routing/router.py", ["        self.policy = policy or PrefixAffinity(64)",
                                                "        return self.policy.select(self.workers, request)"],
                   ["        return self.workers[0]"])
    config = _file("engine/config/routing.py", ["    affinity: PrefixAffinity | None = None"])
    digest = _digest("Pluggable routing policies", [base, router, config])
    assert digest.start_reading[0] == "engine/routing/policy.py::RoutingPolicy", digest.start_reading


def test_a_bump_that_only_moves_a_tag_in_code_is_version_only_and_a_bumped_number_is_not() -> None:
    tag = measure(PRContext(title="Bump the CI image", files=[
        _file("tests/ci/images.py", ['ROCM_IMAGE = "rocm/ci:nightly_20260801_6.4"'],
              ['ROCM_IMAGE = "rocm/ci:nightly_20260701_6.3"'])]))
    assert tag.version_only
    number = measure(PRContext(title="Bump the default block size", files=[
        _file("engine/config.py", ["    block_size: int = 32"], ["    block_size: int = 16"])]))
    assert not number.version_only
    untitled = measure(PRContext(title="Use the August image", files=[
        _file("tests/ci/images.py", ['ROCM_IMAGE = "rocm/ci:nightly_20260801_6.4"'],
              ['ROCM_IMAGE = "rocm/ci:nightly_20260701_6.3"'])]))
    assert not untitled.version_only  # without a bump title a changed constant is read as code


def test_a_capability_read_from_the_device_is_not_a_flag_declared() -> None:
    sampler = _file("engine/sample/sampler.py", [
        "def fast_sampler_supported() -> bool:",
        "    capability = current_platform.get_device_capability()",
        "    return capability is not None and capability >= (8, 0)",
        "class Sampler:",
        "    supports_seeds = False",
    ])
    flags = measure(PRContext(title="Use the fast sampler", files=[sampler])).capability_flags
    assert set(flags) == {"fast_sampler_supported", "supports_seeds"}


def test_a_fix_with_tests_says_so_even_when_no_test_is_traced_to_the_changed_code() -> None:
    fix = [_file("engine/pool.py", ["        return max(0, free - reserved)"], ["        return free - reserved"])]
    tests = [_file("tests/test_pool.py", ["def test_free_blocks_never_negative(pool):",
                                          "    pool.reserve(pool.free + 1)", "    assert pool.available() == 0"],
                   status=FileStatus.ADDED)]
    assert "backs the fix with tests" in _digest("Fix negative free block count", fix + tests).reason
    # the same diff under a title that is not a fix, or without tests, claims no fix and no tests
    assert "backs the" not in _digest("Clamp free block count", fix + tests).reason
    assert "backs the" not in _digest("Fix negative free block count", fix).reason


def test_a_removed_raise_is_shown_with_the_condition_it_sat_under() -> None:
    digest = _digest("Remove the block-size check", [_file("engine/config/speculative.py", [], [
        "        if (",
        "            block_size is not None",
        "            and self.num_speculative_tokens < block_size",
        "        ):",
        "            raise ValueError(",
        '                "num_speculative_tokens must be at least the block size"',
        "            )",
    ])])
    assert ("removes a guard, `if ( block_size is not None and self.num_speculative_tokens < block_size ): "
            "raise ValueError`") in digest.reason
    cpp = _digest("Allow any head count", [_file("csrc/attn/heads.cpp", [], [
        "  if (num_heads % 8 != 0) {",
        '    throw std::invalid_argument("num_heads must be a multiple of 8");',
        "  }",
    ])])
    assert '`if (num_heads % 8 != 0) { throw std::invalid_argument("num_heads must be a multiple of 8");`' \
        in cpp.reason


def test_a_changed_default_is_a_design_point_with_the_comment_that_says_why() -> None:
    patch = ("@@ -10,3 +10,4 @@ import os\n \n-MAX_NUM_BATCHED_TOKENS = 2048\n"
             "+# Large enough that one prefill chunk fills the GPU; smaller values starve the decode batch.\n"
             "+MAX_NUM_BATCHED_TOKENS = 8192\n DEFAULT_BLOCK_SIZE = 16\n")
    ctx = PRContext(title="Raise the default token budget", files=[FileChange(
        path="engine/config/scheduler.py", status=FileStatus.MODIFIED, additions=2, deletions=1, patch=patch)])
    point = heuristic_digest(ctx, Coverage(), "en").decisions[0]
    # a module constant is read by every use, not left out by a caller: it "is now", it does not "default to"
    assert point.title == "`MAX_NUM_BATCHED_TOKENS` is now `8192` (was `2048`)"
    assert "“Large enough that one prefill chunk fills the GPU; smaller values starve the decode batch.”" \
        in point.explanation
    assert "engine/config/scheduler.py::MAX_NUM_BATCHED_TOKENS" in point.references
    zh = heuristic_digest(ctx, Coverage(), "zh-CN").decisions[0]
    assert zh.title == "`MAX_NUM_BATCHED_TOKENS` 改为 `8192`（原为 `2048`）"
    # a field of a config class is anchored in its class, and without a comment the point says who is affected
    patch = ("@@ -20,3 +20,3 @@ class SchedulerConfig:\n     max_num_seqs: int = 256\n"
             "-    enable_chunked_prefill: bool = False\n+    enable_chunked_prefill: bool = True\n")
    field = heuristic_digest(PRContext(title="Enable chunked prefill", files=[FileChange(
        path="engine/config.py", status=FileStatus.MODIFIED, additions=1, deletions=1, patch=patch)]), Coverage(), "en")
    assert [d.title for d in field.decisions] == ["`enable_chunked_prefill` now defaults to `True` (was `False`)"]
    assert "whoever does not set `enable_chunked_prefill` now gets `True`" in field.decisions[0].explanation
    assert "engine/config.py::SchedulerConfig" in field.decisions[0].references


@pytest.mark.parametrize(("patch", "name", "change"), [
    # a CLI flag: its `default=` sits on a line of its own under the flag
    ('@@ -31,6 +31,6 @@ def make_arg_parser(parser):\n     parser.add_argument(\n'
     '         "--timeout-keep-alive",\n         type=int,\n-        default=5,\n+        default=30,\n'
     '         help="Seconds an idle connection stays open.")\n', "--timeout-keep-alive", "5 → 30"),
    # a config field declared with a Field(...) call, other arguments after the default
    ("@@ -40,3 +40,3 @@ class SchedulerConfig:\n-    stream_interval: int = Field(default=1, ge=1)\n"
     "+    stream_interval: int = Field(default=4, ge=1)\n     max_num_seqs: int = 128\n",
     "stream_interval", "1 → 4"),
    # a field whose default is arithmetic on a unit
    ("@@ -12,3 +12,3 @@ class ServerConfig:\n-    idle_timeout: float = 5 * MINUTE\n"
     "+    idle_timeout: float = 30 * MINUTE\n     max_body: int = 1024\n", "idle_timeout", "5 * MINUTE → 30 * MINUTE"),
])
def test_a_default_is_named_by_what_a_user_sets(patch: str, name: str, change: str) -> None:
    digest = _digest("Change a default", [FileChange(
        path="engine/config/args.py", status=FileStatus.MODIFIED, additions=1, deletions=1, patch=patch)])
    assert f"changes the default of `{name}` ({change})" in digest.reason, digest.reason
    assert digest.decisions[0].title.startswith(f"`{name}` now defaults to"), digest.decisions[0]
    assert "`default`" not in digest.reason + digest.decisions[0].explanation


@pytest.mark.parametrize(("path", "removed", "added", "name", "change"), [
    ("web/src/api/client.ts", "export const DEFAULT_MAX_RETRIES = 0;", "export const DEFAULT_MAX_RETRIES = 2;",
     "DEFAULT_MAX_RETRIES", "0 → 2"),
    ("csrc/attention/split.cuh", "static constexpr int MAX_SPLITS = 8;", "static constexpr int MAX_SPLITS = 16;",
     "MAX_SPLITS", "8 → 16"),
    # a value written as arithmetic on a unit is still a value a reader compares
    ("engine/limits.py", "MAX_PROMPT_BYTES = 64 * 1024", "MAX_PROMPT_BYTES = 256 * 1024",
     "MAX_PROMPT_BYTES", "64 * 1024 → 256 * 1024"),
])
def test_a_declared_constant_in_other_languages_is_named(path: str, removed: str, added: str, name: str,
                                                         change: str) -> None:
    digest = _digest("Tune a limit", [_file(path, [added], [removed])])
    assert f"changes the constant `{name}` ({change})" in digest.reason, digest.reason


@pytest.mark.parametrize(("path", "removed", "added", "name", "change", "key"), [
    # Go: an exported constant in CamelCase, its type after the name
    ("pkg/client/client.go", "const DefaultTimeout time.Duration = 30 * time.Second",
     "const DefaultTimeout time.Duration = 5 * time.Second", "DefaultTimeout", "30 * time.Second → 5 * time.Second",
     "the default of"),
    # TypeScript: a module-level camelCase constant
    ("web/src/api/client.ts", "export const retryDelayMs = 250;", "export const retryDelayMs = 500;", "retryDelayMs",
     "250 → 500", "the default of"),
    # C: the type comes first (indented too: a class's or a namespace's constant)
    ("csrc/split.h", "const uint32_t MAX_SPLITS = 8;", "const uint32_t MAX_SPLITS = 16;", "MAX_SPLITS", "8 → 16",
     "the constant"),
])
def test_a_module_constant_of_any_case_is_named(path: str, removed: str, added: str, name: str, change: str,
                                                key: str) -> None:
    digest = _digest("Tune a limit", [_file(path, [added], [removed])])
    assert f"changes {key} `{name}` ({change})" in digest.reason.replace("`", "").replace(name, f"`{name}`"), \
        digest.reason
    if name.isupper():
        return
    # a lower-case `const` inside a function is a local value, not a module's constant
    local = _digest("Tune a limit", [_file(path, ["    " + added], ["    " + removed])])
    assert "changes the" not in local.reason, local.reason


def test_the_tail_of_a_field_docstring_above_a_hunk_is_not_the_class_docstring() -> None:
    # the hunk opens inside the docstring of the field above the change: its opening (and owner) is unseen
    patch = ("@@ -71,7 +71,7 @@ class SchedulerConfig:\n     GPU utilization, leading to better latency.\n"
             '     """\n \n-    stream_interval: int = Field(default=1, ge=1)\n'
             "+    stream_interval: int = Field(default=4, ge=1)\n"
             '     """The interval for streaming in terms of token length."""\n')
    digest = _digest("Stream every 4 tokens", [FileChange(
        path="engine/config/scheduler.py", status=FileStatus.MODIFIED, additions=1, deletions=1, patch=patch)])
    assert not any("GPU utilization" in d.title + d.explanation for d in digest.decisions), digest.decisions
    assert [d.title for d in digest.decisions] == ["`stream_interval` now defaults to `4` (was `1`)"]


def test_commented_out_code_above_a_changed_default_is_not_its_why() -> None:
    patch = ("@@ -10,2 +10,3 @@ import os\n-MAX_NUM_SEQS = 128\n+# MAX_NUM_SEQS = 512\n+MAX_NUM_SEQS = 256\n"
             " DEFAULT_BLOCK_SIZE = 16\n")
    ctx = PRContext(title="Raise the sequence cap", files=[FileChange(
        path="engine/config/scheduler.py", status=FileStatus.MODIFIED, additions=2, deletions=1, patch=patch)])
    point = heuristic_digest(ctx, Coverage(), "en").decisions[0]
    assert point.title == "`MAX_NUM_SEQS` is now `256` (was `128`)"
    assert "comment" not in point.explanation and "every use of `MAX_NUM_SEQS` now reads `256`" in point.explanation


def test_a_removed_guard_names_the_definition_it_was_in() -> None:
    patch = ("@@ -40,3 +40,1 @@ class Fp8LinearMethod:\n"
             "     def create_weights(self, layer):\n"
             "-        assert not self.group_quant, 'group quantisation is unsupported'\n"
             "-        assert layer.bias is None\n"
             "         self.layer = layer\n")
    ctx = PRContext(title="Allow fp8 weights with group quantisation", files=[FileChange(
        path="engine/quant/fp8.py", status=FileStatus.MODIFIED, additions=0, deletions=2, patch=patch)])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "removes a guard, `assert not self.group_quant, 'group quantisation is unsupported'` in " \
           "`Fp8LinearMethod.create_weights`" in reason


def test_a_variable_named_capability_declares_no_capability_flag() -> None:
    user = _file("engine/loader.py", ["def load(cfg, capability):",
                                      "    if capability < cfg.get_min_capability():",
                                      "        raise ValueError('this GPU is not supported by the quantization method')"])
    declared = _digest("Minimum capability", [user, _file("engine/quant.py", [
        "class Fp8Config(QuantizationConfig):", "    @classmethod", "    def get_min_capability(cls) -> int:",
        "        return 89"])])
    assert "`get_min_capability`" in declared.reason, declared.reason
    # the same names held in variables declare nothing
    plain = _digest("Collect flags", [user, _file("engine/quant.py", [
        "def collect(files):", "    capability: dict[str, str] = {}", "    get_min_capability = 89",
        "    return capability"])])
    assert "capability flags" not in plain.reason, plain.reason


def test_a_revert_title_settles_skip_only_for_a_diff_that_backs_something_out() -> None:
    feature = ["class PrefixCache:", "    def __init__(self, size):", "        self.size = size",
               "    def lookup(self, key):", "        return self.table.get(key)"]
    disguised = _digest("Revert the old cache", [_file("engine/cache.py", feature, status=FileStatus.ADDED)])
    assert disguised.verdict is not Verdict.SKIP and "backed out" not in disguised.reason, disguised.reason
    backed_out = _digest("Revert the old cache", [_file("engine/cache.py", ["    return None"], feature)])
    assert backed_out.verdict is Verdict.SKIP and "backed out" in backed_out.reason, backed_out.reason


def test_a_security_title_alone_raises_no_verdict_and_is_said_as_a_claim() -> None:
    for change in ([_file("engine/a.py", ["    return 2"], ["    return 1"])],
                   [_file("engine/b.py", ["def scale(values, factor):",
                                          *[f"    values[{i}] *= factor" for i in range(30)], "    return values"],
                          status=FileStatus.ADDED)]):
        plain, claimed = _digest("Scale values", change), _digest("[Security] Scale values", change)
        assert claimed.verdict is plain.verdict, (plain.reason, claimed.reason)
    # where the reason lists what the PR does, the title's claim is said as a claim
    assert "called a security change" in claimed.reason and "adds no security check" in claimed.reason, claimed.reason


@pytest.mark.parametrize(("title", "claimed"), [
    ("[Security] Scale values", True), ("fix(security): scale values", True), ("Security fix: scale values", True),
    ("Harden upload security", True), ("Scale the security finding's values", False),
    ("Add the security policy to the docs", False)])
def test_a_title_claims_security_as_a_tag_or_beside_a_fix_not_by_naming_the_word(title: str, claimed: bool) -> None:
    digest = _digest(title, [_file("engine/b.py", ["def scale(values, factor):",
                                                   *[f"    values[{i}] *= factor" for i in range(30)], "    return values"],
                                   status=FileStatus.ADDED)])
    assert ("called a security change" in digest.reason) is claimed, digest.reason


def test_a_comment_after_a_check_is_not_what_the_check_tests() -> None:
    noted = measure(PRContext(title="Read the rule table", files=[_file("engine/rules.py", [
        "    if _CHECK.match(line):  # a check naming the attack (`raise ... path traversal`)",
        "        found.append(line)"])]))
    assert not noted.security_in_code and not noted.security
    refused = measure(PRContext(title="Read the rule table", files=[_file("engine/files.py", [
        "    if root not in resolved.parents:",
        "        raise ValueError('path traversal is not allowed')  # seen in the wild"])]))
    assert refused.security_in_code and "path traversal" in refused.security


def test_a_fix_title_on_a_new_feature_buys_no_closer_read() -> None:
    # "Fix" is PR text: it counts only where the diff is shaped like a fix, changing existing code more
    # than it adds new definitions. A new feature titled "Fix" is judged as the feature it is.
    feature = [_file("engine/spec/drafter.py", [
        "class TreeDrafter:", "    def propose(self, tokens):", "        return self.tree.expand(tokens)",
        "    def accept(self, scores):", "        return scores.argmax(-1)",
        "def build_drafter(config):", "    return TreeDrafter(config)",
        *(line for i in range(5) for line in (f"def widen_{i}(tree):", f"    return tree.grow({i})")),
    ], status=FileStatus.ADDED)]
    tests = [_file("tests/spec/test_drafter.py", [f"def test_drafter_case_{i}():" if i % 3 == 0
                                                  else "    assert build_drafter(cfg).propose([1]) == [1]"
                                                  for i in range(30)], status=FileStatus.ADDED)]
    titled = measure(PRContext(title="Fix slow speculative decoding", files=feature + tests))
    plain = measure(PRContext(title="Add a tree drafter", files=feature + tests))
    assert not titled.fix
    assert judgement(titled, "en").verdict is judgement(plain, "en").verdict
    fix = _file("engine/spec/drafter.py", ["        return self.tree.expand(tokens[-self.window:])"],
                ["        return self.tree.expand(tokens)"])
    assert measure(PRContext(title="Fix slow speculative decoding", files=[fix, *tests])).fix


def test_a_room_check_at_run_time_is_no_capability_flag() -> None:
    def flags(line: str) -> tuple[str, ...]:
        return measure(PRContext(title="x", files=[_file("engine/sched/scheduler.py", [line])])).capability_flags
    assert flags("    def can_accept(self, num_tokens: int) -> bool:") == ()
    assert flags("    def can_offload(self, blocks):") == ()
    assert flags("    def can_use_cuda_graphs(self) -> bool:") == ("can_use_cuda_graphs",)
    assert flags("    def can_implement(cls, config):") == ("can_implement",)
    assert flags("    def supports_fp8(self) -> bool:") == ("supports_fp8",)
    # a `can_x` declared as a boolean field is a flag; a method taking nothing may still ask about room
    assert flags("    can_graph: bool = True") == ("can_graph",)
    assert flags("    def can_accept(self) -> bool:") == ()
    assert flags("        can_overlap = lambda: self.method.overlaps") == ()


def test_a_caller_uses_a_name_in_code_not_in_a_message_or_a_module_path() -> None:
    base = _file("engine/offload/base.py", ["class Offloader:", "    def offload(self, blocks):", "        ..."],
                 status=FileStatus.ADDED)
    factory = _file("engine/offload/factory.py", [
        "from engine.offload.base import Offloader", "def get(name):",
        "    raise ValueError(f'Unknown offload backend {name}')"], status=FileStatus.ADDED)
    caller = _file("engine/sched/scheduler.py", ["        handle = self.offloader.offload(blocks)"])
    sig = measure(PRContext(title="Add offloading", files=[base, factory, caller]))
    offload = next(r for r in sig.centre if r.definition.name == "offload")
    assert offload.caller_files == ("engine/sched/scheduler.py",)
    # a name alone in a string (a registry's class name, a dotted path) is still a reference
    registry = _file("engine/registry.py", ['    "cpu": "engine.offload.base.Offloader",'])
    sig = measure(PRContext(title="Add offloading", files=[base, registry]))
    offloader = next(r for r in sig.centre if r.definition.name == "Offloader")
    assert offloader.caller_files == ("engine/registry.py",)


def test_a_typescript_interface_of_data_is_a_shape_not_an_interface_to_implement() -> None:
    def abstractions(lines: list[str]) -> tuple[str, ...]:
        return measure(PRContext(title="x", files=[_file("packages/api/src/checkout.ts", lines)])).abstractions
    assert abstractions(["export interface ProviderIntent {", "  id: string;", "  clientSecret: string;", "}",
                         "export function createIntent(): ProviderIntent {", "  return make();", "}"]) == ()
    assert abstractions(["export interface PaymentProvider {", "  name: string;",
                         "  createIntent(amount: number): Promise<ProviderIntent>;", "}"]) \
        == ("packages/api/src/checkout.ts",)
    assert abstractions(["interface Listener {", "  onChange: (value: string) => void;", "}"]) \
        == ("packages/api/src/checkout.ts",)
    # in Go or Java an interface is all methods: it stays one
    go = measure(PRContext(title="x", files=[_file("internal/notify/notify.go", [
        "type Notifier interface {", "\tNotify(ctx context.Context, job Job) error", "}"])]))
    assert go.abstractions == ("internal/notify/notify.go",)


def test_a_safety_comment_on_an_unsafe_block_says_why() -> None:
    sig = measure(PRContext(title="x", files=[_file("crates/core/src/arena.rs", [
        "        // SAFETY: `end != 0`, so a chunk exists and `start` lies within it.",
        "        unsafe { NonNull::new_unchecked(start as *mut u8) }",
        "    /// Invariant: `ptr` and `end` are both 0 or both inside the last chunk.",
        "        // the fast path"])]))
    assert sig.why_comments == 2


@pytest.mark.parametrize(("language", "denial"), [("en", "nothing here suggests a wider design change"),
                                                  ("zh-CN", "看不出更大范围的设计变化")])
def test_a_skim_that_names_a_design_does_not_deny_one(language: str, denial: str) -> None:
    lines = ["    def _verify_dbo(self):", "        if self.dbo and self.async_scheduling:",
             '            raise ValueError("DBO is not supported with async scheduling")']
    change = _file("engine/config/vllm.py", lines)
    digest = heuristic_digest(PRContext(title="Reject DBO with async scheduling", files=[change]), Coverage(), language)
    assert digest.verdict is Verdict.SKIM
    assert "_verify_dbo" in digest.reason and denial not in digest.reason, digest.reason


@pytest.mark.parametrize(("path", "lines"), [
    ("orders/src/main/java/com/acme/notify/NotificationSender.java",
     ["public interface NotificationSender {", "    boolean supports(Customer customer);", "}"]),
    ("orders/src/main/java/com/acme/Repository.java", ["public abstract class Repository {", "}"]),
    ("include/fastlib/allocator.h", ["class Allocator {", " public:",
                                     "  virtual void* Allocate(size_t bytes, cudaStream_t stream) = 0;", "};"]),
])
def test_java_interfaces_and_cpp_pure_virtual_members_are_interfaces(path: str, lines: list[str]) -> None:
    sig = measure(PRContext(title="x", files=[_file(path, lines)]))
    assert sig.abstractions == (path,)
