"""Changed signatures of public definitions as design points (analyze/heuristic/signature_points.py)."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.signals import measure
from readworthy.analyze.heuristic.signature_points import changed_signatures, signature_points
from readworthy.models import Coverage, FileChange, FileStatus, OutlineEntry, PRContext


def _modified(path: str, removed: list[str], added: list[str], header: str = "") -> FileChange:
    body = "\n".join(["-" + x for x in removed] + ["+" + x for x in added] + ["     return out"])
    return FileChange(path=path, status=FileStatus.MODIFIED, additions=len(added), deletions=len(removed),
                      patch=f"@@ -10,{len(removed) + 1} +10,{len(added) + 1} @@{header}\n{body}\n")


@pytest.mark.parametrize(("path", "old", "new", "returns", "added", "removed"), [
    ("rust/tok/src/lib.rs", "pub fn load(dir: &Path) -> LoadedTokenizer {",
     "pub fn load(dir: &Path) -> Result<LoadedTokenizer, TokenizerError> {",
     ("LoadedTokenizer", "Result<LoadedTokenizer, TokenizerError>"), (), ()),
    ("router/client.go", "func NewClient(backends []string) *Client {",
     "func NewClient(backends []string, prober Prober) *Client {", ("*Client", "*Client"), ("prober",), ()),
    ("router/mem.go", "func (m *Mem) Get(key string, ttl time.Duration) []byte {",
     "func (m *Mem) Get(key string) ([]byte, bool) {", ("[]byte", "([]byte, bool)"), (), ("ttl",)),
    ("pkg/sched.py", "def schedule(self, requests, budget: int = 8) -> list[Request]:",
     "def schedule(self, requests, *, budget: int = 8, deadline: float | None = None) -> list[Request]:",
     ("list[Request]", "list[Request]"), ("deadline",), ()),
    # C-family code names a parameter last and writes the return type first (not compared)
    ("csrc/layernorm_kernels.cu",
     "void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double epsilon) {",
     "void rms_norm(torch::Tensor& out, torch::Tensor const& input, torch::Tensor& weight, double epsilon, "
     "std::optional<torch::Tensor> residual = std::nullopt) {", ("", ""), ("residual",), ()),
    ("web/src/api.ts", "export function fetchModels(url: string): Promise<Model[]> {",
     "export function fetchModels(url: string, retries = 2): Promise<Model[]> {",
     ("Promise<Model[]>", "Promise<Model[]>"), ("retries",), ()),
    # Java writes the return type before the name, as C does, but without C's qualifiers and macros: compared
    ("src/main/java/io/x/TokenCache.java", "    public V get(K key) {", "    public Optional<V> get(K key) {",
     ("V", "Optional<V>"), (), ()),
    ("src/main/java/io/x/TokenCache.java", "    public static <T> List<T> evict(List<T> xs) {",
     "    public static <T> List<T> evict(List<T> xs, int keep) {", ("List<T>", "List<T>"), ("keep",), ()),
    # Kotlin and Scala: modifiers before `fun`/`def`, the return type after the parameters, a body or `= expression`
    ("router/src/Router.kt", "    suspend fun route(req: Request): Worker {",
     "    suspend fun route(req: Request, deadline: Duration): Worker? {", ("Worker", "Worker?"), ("deadline",), ()),
    ("core/Pool.scala", "  override def size(now: Long): Int = entries.size",
     "  override def size(): Long = entries.size", ("Int", "Long"), (), ("now",)),
    # a class method; a type argument that changes is a new contract (`Promise<T>` -> `Promise<Result<T, E>>`)
    ("web/src/api/client.ts", "  async get<T>(path: string): Promise<T> {",
     "  async get<T>(path: string, signal?: AbortSignal): Promise<Result<T, HttpError>> {",
     ("Promise<T>", "Promise<Result<T, HttpError>>"), ("signal",), ()),
    ("web/src/store.ts", "  handle = async (id: string): Promise<void> => {",
     "  handle = async (id: string, force: boolean): Promise<void> => {", ("Promise<void>", "Promise<void>"),
     ("force",), ()),
])
def test_a_rewritten_one_line_signature_gives_its_return_type_and_parameters(
        path: str, old: str, new: str, returns: tuple[str, str], added: tuple[str, ...],
        removed: tuple[str, ...]) -> None:
    [found] = changed_signatures(_modified(path, [old], [new]))
    assert (found.old_return, found.new_return) == returns
    assert (found.added_params, found.removed_params) == (added, removed)


@pytest.mark.parametrize(("path", "old", "new"), [
    # private definitions are nobody else's contract
    ("pkg/sched.py", "def _pick(self, requests):", "def _pick(self, requests, budget):"),
    ("rust/tok/src/lib.rs", "fn parse(text: &str) -> Value {", "fn parse(text: &str) -> Result<Value, Error> {"),
    ("router/mem.go", "func get(key string) []byte {", "func get(key string, ttl int) []byte {"),
    ("csrc/cache_kernels.cu", "static void copy_blocks_impl(void) {", "static void copy_blocks_impl(int n) {"),
    ("web/src/api/client.ts", "  private fetchOnce(url: string): Response {",
     "  private fetchOnce(url: string, signal: AbortSignal): Response {"),
    ("web/src/api/client.ts", "  #fetchOnce(url) {", "  #fetchOnce(url, signal) {"),
    ("src/main/java/io/x/TokenCache.java", "    private void evict(int n) {", "    private void evict(int n, boolean all) {"),
    ("router/src/Router.kt", "    private fun pick(xs: List<Worker>): Worker {",
     "    private fun pick(xs: List<Worker>, seed: Long): Worker {"),
    # a class's brackets hold no parameters
    ("web/src/pool.ts", "export class Pool extends mixin(Base) {", "export class Pool extends mixin(Base, Events) {"),
    # a more precise annotation of the same type is not a new contract
    ("pkg/utils.py", "def remove_all(lst: list, items: set) -> list:",
     "def remove_all(lst: list[T], items: set[T]) -> list[T]:"),
    # the same type in another spelling (PEP 585 / 604)
    ("pkg/sched.py", "def update(self) -> Dict[int, Optional[Output]]:", "def update(self) -> dict[int, Output | None]:"),
    ("pkg/sched.py", "def pick(self) -> Union[Request, List[int]]:", "def pick(self) -> Request | list[int]:"),
    # a signature that goes on below its first line is not read from one line
    ("pkg/sched.py", "def schedule(self, requests,", "def schedule(self, requests, budget,"),
    # an unused parameter put to use keeps its place: `_prompt` -> `prompt`
    ("rust/router/src/policy.rs", "pub fn pick(&self, _prompt: &str) -> &Worker {",
     "pub fn pick(&self, prompt: &str) -> &Worker {"),
    # only the body changes
    ("pkg/sched.py", "def schedule(self, requests):", "def schedule(self, requests):  # noqa: C901"),
])
def test_what_is_not_a_changed_contract(path: str, old: str, new: str) -> None:
    assert changed_signatures(_modified(path, [old], [new])) == []


def test_a_signature_over_several_lines_is_read_whole_without_its_comments() -> None:
    patch = """\
@@ -40,9 +40,10 @@ class DeepseekV2MoE(nn.Module):
     def forward(
         self,
         hidden_states: torch.Tensor,
-        residual: torch.Tensor | None,  # the residual stream
+        residual: torch.Tensor | None,  # the residual stream, sharded when
+        already_sequence_parallel: bool = False,
         **kwargs,
     ) -> torch.Tensor:
         num_tokens = hidden_states.shape[0]
"""
    [found] = changed_signatures(FileChange(path="vllm/models/deepseek_v2.py", status=FileStatus.MODIFIED,
                                            additions=2, deletions=1, patch=patch))
    assert (found.name, found.added_params, found.removed_params) == ("forward", ("already_sequence_parallel",), ())
    assert (found.old_return, found.new_return) == ("torch.Tensor", "torch.Tensor")


@pytest.mark.parametrize(("path", "removed", "added", "params"), [
    # `//` in Python divides: the parameter after it is still read
    ("pkg/pool.py", ["def split(", "    blocks,", "    half=n // 2,", "):"],
     ["def split(", "    blocks,", "    half=n // 2,", "    spare=0,", "):"], ("spare",)),
    # `#[...]` in Rust is an attribute of the parameter, not a comment
    ("rust/router/src/lib.rs", ["pub fn pick(", "    prompt: &str,", ") -> usize {"],
     ["pub fn pick(", "    prompt: &str,", "    #[cfg(feature = \"budget\")] budget: usize,", ") -> usize {"],
     ("budget",)),
])
def test_a_comment_mark_counts_only_in_its_own_language(path: str, removed: list[str], added: list[str],
                                                         params: tuple[str, ...]) -> None:
    patch = "@@ -1,4 +1,5 @@\n" + "\n".join(["-" + x for x in removed] + ["+" + x for x in added]) + "\n"
    [found] = changed_signatures(FileChange(path=path, status=FileStatus.MODIFIED, additions=len(added),
                                            deletions=len(removed), patch=patch))
    assert found.added_params == params


def test_catch_all_parameters_and_test_functions_are_no_contract() -> None:
    kwargs = _modified("pkg/experts.py", ["def activation(self, out, x):"], ["def activation(self, out, x, **kwargs):"])
    assert changed_signatures(kwargs) == []
    # a test's parameters are its fixtures: not a point, even where its signature changes
    test = _modified("tests/test_colbert.py", ["def test_token_embed(vllm_runner, model_name):"],
                     ["def test_token_embed(colbert_model):"])
    code = _modified("pkg/pooling.py", ["def _pool(x):", "    return x.mean(0)"],
                     ["def _pool(x):", "    # late interaction keeps every token's vector", "    return x",
                      "", "", "def score(q, d):", "    return (q @ d.T).max(1).values.sum()"])
    digest = heuristic_digest(PRContext(title="Share one model per module", files=[code, test]), Coverage(), "en")
    assert not any("now takes" in d.title or "no longer takes" in d.title for d in digest.decisions)


def test_a_name_defined_twice_on_one_side_is_left_alone() -> None:
    change = _modified("pkg/api.py", ["def get(self, key):", "def get(self, key, default):"],
                       ["def get(self, key, *, strict=False):"])
    assert changed_signatures(change) == []


@pytest.mark.parametrize(("language", "title"), [
    ("en", "`load_tokenizer` now returns `Result<Tokenizer, LoadError>` (was `Tokenizer`)"),
    ("zh-CN", "`load_tokenizer` 的返回类型改为 `Result<Tokenizer, LoadError>`（原为 `Tokenizer`）"),
])
def test_a_changed_return_type_is_a_design_point_in_each_language(language: str, title: str) -> None:
    lib = FileChange(path="rust/tok/src/lib.rs", status=FileStatus.MODIFIED, additions=9, deletions=5, patch="""\
@@ -20,7 +20,11 @@ pub struct Tokenizer {
-pub fn load_tokenizer(dir: &Path) -> Tokenizer {
-    let text = fs::read_to_string(dir.join("tokenizer.json")).unwrap();
-    let vocab = parse_vocab(&text).unwrap();
-    let merges = parse_merges(&text).unwrap();
-    Tokenizer { vocab, merges }
+pub fn load_tokenizer(dir: &Path) -> Result<Tokenizer, LoadError> {
+    let path = dir.join("tokenizer.json");
+    let text = fs::read_to_string(&path)
+        .map_err(|e| LoadError::Io(path.display().to_string(), e))?;
+    let vocab = parse_vocab(&text).map_err(LoadError::Vocab)?;
+    let merges = parse_merges(&text).map_err(LoadError::Merges)?;
+    Ok(Tokenizer { vocab, merges })
 }
""")
    server = FileChange(path="rust/server/src/main.rs", status=FileStatus.MODIFIED, additions=1, deletions=1,
                        patch="@@ -5,2 +5,2 @@ fn main() {\n-    let tok = load_tokenizer(&dir);\n"
                              "+    let tok = load_tokenizer(&dir)?;\n     serve(tok);\n")
    digest = heuristic_digest(PRContext(title="Propagate tokenizer errors", files=[lib, server]), Coverage(),
                              language)
    point = next(d for d in digest.decisions if d.title == title)
    assert "rust/tok/src/lib.rs::load_tokenizer" in point.references
    assert ("1 other changed file" in point.explanation) if language == "en" else ("1 个" in point.explanation)


def _outline(*entries: tuple[str, str, int, int, int]) -> tuple[OutlineEntry, ...]:
    return tuple(OutlineEntry(qualname=q, kind=k, first=f, last=la, indent=i) for q, k, f, la, i in entries)  # type: ignore[arg-type]


def test_a_hunk_that_starts_inside_a_signature_named_by_its_header_is_read_from_there() -> None:
    patch = """\
@@ -217,6 +217,7 @@ def evaluate_gsm8k(
     num_shots: int = 5,
     max_tokens: int = 256,
     seed: int | None = None,
+    host: str = "127.0.0.1",
 ) -> dict[str, float]:
     \"\"\"Evaluate GSM8K accuracy.\"\"\"
     results = {}
"""
    change = FileChange(path="tests/evals/gsm8k_eval.py", status=FileStatus.MODIFIED, additions=1, patch=patch)
    [found] = changed_signatures(change)
    assert (found.name, found.added_params, found.removed_params) == ("evaluate_gsm8k", ("host",), ())


SAMPLER = """\
@@ -128,6 +138,7 @@ class Sampler:
         pos: torch.Tensor,
         input_ids: torch.Tensor,
         expanded_local_pos: torch.Tensor,
+        skip_top_k_top_p: bool = False,
     ) -> torch.Tensor:
         # Copy logits to a new FP32 tensor.
         logits = torch.empty_like(logits, dtype=torch.float32).copy_(logits)
@@ -176,6 +190,7 @@ class Sampler:
         pos: torch.Tensor,
         input_ids: torch.Tensor,
-        expanded_local_pos: torch.Tensor,
+        expanded_local_pos: torch.Tensor | None,
+        return_logprobs: bool = False,
     ) -> tuple[torch.Tensor, torch.Tensor]:
         processed_logits = self.apply_sampling_params(
             logits,
"""


def test_a_hunk_inside_a_signature_is_placed_by_the_head_files_outline() -> None:
    change = FileChange(path="vllm/v1/worker/gpu/sample/sampler.py", status=FileStatus.MODIFIED, additions=3,
                        deletions=1, patch=SAMPLER, outline=_outline(
                            ("Sampler", "class", 20, 260, 0), ("Sampler.apply_sampling_params", "function", 132, 185, 4),
                            ("Sampler.sample", "function", 186, 240, 4)))
    found = {s.name: (s.added_params, s.removed_params, s.old_return, s.new_return)
             for s in changed_signatures(change)}
    assert found == {
        "Sampler.apply_sampling_params": (("skip_top_k_top_p",), (), "torch.Tensor", "torch.Tensor"),
        "Sampler.sample": (("return_logprobs",), (), "tuple[torch.Tensor, torch.Tensor]",
                           "tuple[torch.Tensor, torch.Tensor]")}
    # without the outline the class in the header is all the diff says: nothing is read
    assert changed_signatures(change.model_copy(update={"outline": None})) == []


@pytest.mark.parametrize("patch", [
    # the hunk starts in the body: a call that closes deeper than the definition is no signature
    """\
@@ -40,6 +40,7 @@ def build(
         out = compile_graph(
             model,
             mode,
+            backend,
         )
         return out
""",
])
def test_a_body_is_not_read_as_the_signature_above_it(patch: str) -> None:
    change = FileChange(path="pkg/build.py", status=FileStatus.MODIFIED, additions=1, patch=patch)
    assert changed_signatures(change) == []


def test_a_definition_below_the_one_the_header_names_is_read_as_itself() -> None:
    # a line as shallow as the header's definition: that one ended above the hunk, and this line starts another
    patch = "@@ -40,6 +40,7 @@ def build(\n     return out\n \n def other(a,\n+          b,\n ):\n     pass\n"
    change = FileChange(path="pkg/build.py", status=FileStatus.MODIFIED, additions=1, patch=patch)
    [found] = changed_signatures(change)
    assert (found.name, found.added_params) == ("other", ("b",))


def test_a_go_interface_method_that_takes_a_context_is_a_changed_contract() -> None:
    patch = ("@@ -44,7 +44,7 @@ var ErrNotFound = errors.New(\"not found\")\n type Store interface {\n"
             "-\tPut(job *Job) error\n+\tPut(ctx context.Context, job *Job) error\n"
             "-\tGet(id string) (*Job, error)\n+\tGet(ctx context.Context, id string) (*Job, error)\n"
             "\tClose() error\n }\n")
    change = FileChange(path="internal/store/store.go", status=FileStatus.MODIFIED, additions=2, deletions=2,
                        patch=patch)
    assert {(s.name, s.added_params) for s in changed_signatures(change)} == {("Put", ("ctx",)), ("Get", ("ctx",))}
    digest = heuristic_digest(PRContext(title="Pass the context to the store", files=[change]), Coverage(), "en")
    assert "`Store.Put` now takes `ctx`" in [d.title for d in digest.decisions]
    # a call statement in a function body is no method of an interface
    body = FileChange(path="internal/api/handlers.go", status=FileStatus.MODIFIED, additions=1, deletions=1,
                      patch="@@ -10,3 +10,3 @@ func (h *Handler) Serve() {\n-\tRegister(job)\n+\tRegister(ctx, job)\n }\n")
    assert changed_signatures(body) == []


def test_a_java_parameters_annotation_is_not_a_parameter() -> None:
    change = _modified("orders/src/main/java/com/acme/OrderController.java",
                       ['    public List<Order> byCustomer(@PathVariable String id) {'],
                       ['    public List<Order> byCustomer(@PathVariable String id, '
                        '@RequestParam(defaultValue = "50") int limit) {'])
    (s,) = changed_signatures(change)
    assert s.added_params == ("limit",)


@pytest.mark.parametrize(("path", "old", "new", "keyword"), [
    ("billing/src/main/kotlin/acme/InvoiceService.kt", "    fun pay(invoiceId: String): Invoice {",
     "    suspend fun pay(invoiceId: String): Invoice {", "suspend"),
    ("engine/client.py", "    def fetch(self, url: str) -> bytes:", "    async def fetch(self, url: str) -> bytes:",
     "async"),
])
def test_a_function_made_asynchronous_is_a_changed_contract(path: str, old: str, new: str, keyword: str) -> None:
    # the hunk sits deep in a class whose constructor's `(` git shows as the header: the body, not a signature
    header = " class InvoiceService(" if path.endswith(".kt") else " class Client:"
    (s,) = changed_signatures(_modified(path, [old], [new], header))
    assert s.now_async == keyword and not s.added_params
    points = signature_points(measure(PRContext(title="Go async", files=[_modified(path, [old], [new], header)])), "en")
    assert [p.decision.title.endswith(f"is now `{keyword}`") for p in points] == [True]
