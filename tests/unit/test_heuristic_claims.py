"""The verdict's reason states only what the diff shows: each claim is checked against added and removed lines.

The checks here read the diff themselves (plain line tests, not the heuristic's detectors), on every
real fixture of both development sets and on invented diffs of the shapes that misled it before:
a guard widened (not removed), an image tag moved (not logic), a bump with code beside the pin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from vllm_sets import fixture_contexts

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.models import Coverage, FileChange, FileStatus, PRContext, Verdict

_CLAIM_NAMES = re.compile(r"`([^`]+)`")
_UNVERIFIED = ("kernel-level", "along an existing template", "applied more widely", "moving part of it elsewhere")


def _file(path: str, added: list[str] = (), removed: list[str] = (), status: FileStatus = FileStatus.MODIFIED
          ) -> FileChange:
    lines = [f"-{x}" for x in removed] + [f"+{x}" for x in added]
    patch = f"@@ -1,{len(removed)} +1,{len(added)} @@\n" + "\n".join(lines) if lines else None
    return FileChange(path=path, status=status, additions=len(added), deletions=len(removed), patch=patch)


def _lines(ctx: PRContext, sign: str, path: str | None = None) -> list[str]:
    return [raw[1:] for f in ctx.files if path is None or f.path == path
            for raw in (f.patch or "").split("\n") if raw.startswith(sign) and not raw.startswith(sign * 3)]


def _squash(text: str) -> str:
    return " ".join(text.split())


def _without_versions(line: str) -> str:
    return re.sub(r"[0-9a-f]{7,40}|\d+", "#", _squash(line))


def check_claims(ctx: PRContext, reason: str) -> list[str]:
    """What the reason claims that the diff does not show (empty when every claim holds)."""
    problems = [f"unverified wording {w!r}" for w in _UNVERIFIED if w in reason]
    added, removed = _lines(ctx, "+"), _lines(ctx, "-")
    added_text, removed_text = _squash("\n".join(added)), _squash("\n".join(removed))
    paths = {f.path for f in ctx.files}
    if m := re.search(r"removes a guard, `([^`]+)`", reason):
        guard = _squash(m.group(1).rstrip("…"))
        if guard not in removed_text:
            problems.append(f"guard {guard!r} is not a removed line")
        if any(_squash(x).startswith(guard) for x in added):
            problems.append(f"guard {guard!r} is added back")
    if m := re.search(r"changes (?:the default of|the constant) `([^`]+)` \((.+?) → (.+?)\)", reason):
        name, old, new = m.groups()
        # a flag's `default=` may sit on its own line below the flag's name
        def sets(x: str) -> bool:
            return name in x or ("default" in x and any(name in f.patch for f in ctx.files if f.patch))
        if not any(sets(x) and old in x for x in removed) or not any(sets(x) and new in x for x in added):
            problems.append(f"default {name} {old} -> {new} not in the diff")
    if m := re.search(r"also changes logic \(([^)]*)\)", reason):
        for base in _CLAIM_NAMES.findall(m.group(1)):
            path = next(p for p in paths if p.rsplit("/", 1)[-1] == base)
            plus = {_without_versions(x) for x in _lines(ctx, "+", path) if x.strip()}
            minus = {_without_versions(x) for x in _lines(ctx, "-", path) if x.strip()}
            if not plus ^ minus:
                problems.append(f"{base}: only versions change, no logic")
            if re.search(r"\.(?:md|rst|txt)$|(?:^|/)docs?/", path):
                problems.append(f"{base}: documentation holds no logic")
    if "backs the fix" in reason and not re.search(r"\bfix|\bbug", ctx.title, re.IGNORECASE):
        problems.append("'the fix' but the title does not say it is one")
    if m := re.search(r"adds (\d[\d,]*) new definitions?", reason):
        if not re.search(r"^\s*(?:(?:async\s+)?def|class|fn|pub\s+fn|struct|impl|trait|__global__|template)\b",
                         "\n".join(added), re.MULTILINE):
            problems.append("new definitions claimed, none added")
    patch_text = "\n".join(f.patch or "" for f in ctx.files)
    for key in ("adds capability flags", "backs the fix with a new test", "backs the change with a new test",
                "restructures an image build with new stages", "refuses unsupported configurations loudly"):
        if m := re.search(re.escape(key) + r" \(([^)]*)\)", reason):
            for name in _CLAIM_NAMES.findall(m.group(1)):
                # a refusal is named by the definition it sits in, which may be unchanged context
                where = patch_text if key.startswith("refuses") else added_text
                if name.rsplit(".", 1)[-1] not in where:
                    problems.append(f"{key}: `{name}` is not in the diff")
    if "refuses unsupported configurations loudly" in reason and not re.search(
            r"raise |throw |CHECK\w*\(|panic!|bail!", added_text):
        problems.append("a refusal is claimed but no raise/throw/check is added")
    if m := re.search(r"read the shared files it changes: (.+?)\.$", reason):
        for name in _CLAIM_NAMES.findall(m.group(1)):
            if not any(p == name or p.endswith("/" + name) for p in paths):
                problems.append(f"shared file {name} is not changed")
    if m := re.search(r"is the new package `([^`]+)/`", reason):
        if not any(f.path.startswith(m.group(1) + "/") and f.status is FileStatus.ADDED for f in ctx.files):
            problems.append(f"no new files under {m.group(1)}")
    if "no test" in reason and any(re.search(r"(?:^|/)tests?/|(?:^|/)test_[^/]*$", f.path) and f.additions
                                   for f in ctx.files):
        problems.append("'no test' but a test file gains lines")
    if reason.startswith("Documentation only") and any(f.additions and not re.search(r"\.(?:md|rst|txt)$|(?:^|/)docs?/",
                                                                                     f.path) for f in ctx.files):
        problems.append("'documentation only' but non-docs files gain lines")
    return problems


@pytest.mark.vllm_fixtures
@pytest.mark.parametrize("language", ["en"])
def test_every_fixture_reason_states_only_what_its_diff_shows(vllm_fixture_sets: list[Path], language: str) -> None:
    checked = 0
    for number, ctx in fixture_contexts(vllm_fixture_sets):
        reason = heuristic_digest(ctx, Coverage(), language).reason
        assert not check_claims(ctx, reason), (number, reason, check_claims(ctx, reason))
        checked += 1
    assert checked >= 30


def test_a_widened_guard_is_not_called_removed() -> None:
    ctx = PRContext(title="[Kernel] Allow more GQA ratios", files=[_file("csrc/attention/gqa.cu", [
        "  const int ratio = num_value_heads / num_key_heads;",
        "  STD_TORCH_CHECK(ratio == 1 || ratio == 2 || ratio == 3 || ratio == 4 || ratio == 8,",
        '                  "unsupported head ratio");',
    ], [
        '  STD_TORCH_CHECK(num_value_heads == 8 * num_key_heads, "only 8x heads are supported");',
    ])])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "removes a guard" not in reason, reason
    assert not check_claims(ctx, reason)


def test_a_guard_really_removed_is_named() -> None:
    ctx = PRContext(title="Drop the startup check", files=[_file("engine/config/spec.py", ["    pass"], [
        "    assert self.num_tokens >= self.block_size, 'too few speculative tokens'"])])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "removes a guard, `assert self.num_tokens >= self.block_size" in reason, reason
    assert not check_claims(ctx, reason)


@pytest.mark.parametrize(("path", "removed", "added"), [
    # a caught error passed on, now returned as a value: where a failure goes changed, not what is allowed
    ("web/src/api/client.ts", ["    throw lastErr;"], ["    return { ok: false, error: HttpError.from(lastErr) };"]),
    ("engine/retry.py", ["        raise last_error"], ["        return Failure(last_error)"]),
])
def test_passing_on_a_caught_error_is_not_a_guard(path: str, removed: list[str], added: list[str]) -> None:
    ctx = PRContext(title="Return failures instead of raising", files=[_file(path, added, removed)])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "removes a guard" not in reason, reason


@pytest.mark.parametrize("guard", ['    throw new RangeError("limit must be positive");',
                                   "    throw InvalidLimit(limit);", "        raise ValueError",
                                   '        raise errors.invalid("limit")'])
def test_a_raise_that_makes_its_error_is_a_guard(guard: str) -> None:
    path = "web/src/limits.ts" if "throw" in guard else "engine/limits.py"
    ctx = PRContext(title="Allow any limit", files=[_file(path, ["    const x = 1;"], [guard])])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "removes a guard" in reason, reason


def test_an_early_refusal_removed_is_a_removed_guard() -> None:
    patch = ("@@ -138,10 +138,6 @@ def use_trtllm_attention(\n"
             "     if force_use_trtllm is not None:\n"
             "         return force_use_trtllm\n"
             "-    # TRTLLM prefill does not support an FP8 KV cache with a non-quantized query\n"
             "-    if is_prefill and kv_cache_dtype.startswith(\"fp8\"):\n"
             "-        return False\n"
             "-\n"
             "     return num_tokens <= 256\n")
    ctx = PRContext(title="[Deps] Upgrade FlashInfer to v0.4.0", files=[
        _file("requirements/cuda.txt", ["flashinfer-python==0.4.0"], ["flashinfer-python==0.3.1"]),
        FileChange(path="engine/utils/flashinfer.py", status=FileStatus.MODIFIED, additions=0, deletions=4,
                   patch=patch)])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert 'removes a guard, `if is_prefill and kv_cache_dtype.startswith("fp8"): return False`' in reason, reason
    assert not check_claims(ctx, reason)
    # a refusal whose body does more than refuse is not a guard; one whose test moves into another check is kept
    longer = patch.replace("-        return False\n", "-        log_once()\n-        return False\n")
    ctx_longer = ctx.model_copy(update={"files": [ctx.files[0], ctx.files[1].model_copy(update={"patch": longer})]})
    assert "removes a guard" not in heuristic_digest(ctx_longer, Coverage(), "en").reason
    moved = patch.replace("     return num_tokens <= 256\n",
                          "-    return num_tokens <= 256\n+    return num_tokens <= 256 and not (is_prefill and "
                          "kv_cache_dtype.startswith(\"fp8\"))\n")
    ctx_moved = ctx.model_copy(update={"files": [ctx.files[0], ctx.files[1].model_copy(update={"patch": moved})]})
    assert "removes a guard" not in heuristic_digest(ctx_moved, Coverage(), "en").reason


def test_an_image_tag_bump_is_not_logic() -> None:
    ctx = PRContext(title="[CI] Bump the ROCm image to the August nightly", files=[
        _file(".buildkite/scripts/run_rocm.sh", ['IMAGE="rocm/vllm-ci:nightly_20260801_6.4"'],
              ['IMAGE="rocm/vllm-ci:nightly_20260701_6.3"']),
        _file("tests/ci/images.py", ['ROCM_IMAGE = "rocm/vllm-ci:nightly_20260801_6.4"'],
              ['ROCM_IMAGE = "rocm/vllm-ci:nightly_20260701_6.3"'])])
    digest = heuristic_digest(ctx, Coverage(), "en")
    assert "also changes logic" not in digest.reason, digest.reason
    assert digest.verdict is Verdict.SKIP


def test_lint_settings_beside_a_bump_are_not_logic() -> None:
    ctx = PRContext(title="[Lint] Bump ruff to v0.13.1 and enable flake8-comprehensions", files=[
        _file(".pre-commit-config.yaml", ["    rev: v0.13.1"], ["    rev: v0.13.0"]),
        _file("pyproject.toml", ["line-length = 88", 'select = ["E", "F", "C4"]'],
              ["line-length = 80", 'select = ["E", "F"]'])])
    digest = heuristic_digest(ctx, Coverage(), "en")
    assert "also changes logic" not in digest.reason, digest.reason


def test_a_bump_with_code_beside_the_pin_is_judged_by_that_code() -> None:
    pins = [_file(f"requirements/{name}.txt", ["transformers >= 5.1.0"], ["transformers >= 5.0.0"])
            for name in ("common", "cuda", "rocm", "tpu", "xpu", "cpu")]
    code = _file("engine/transformers/multimodal.py", [
        "        if self.processor_kwargs.get('do_pan_and_scan'):",
        "            images = self._pan_and_scan(images)",
        "        return self.processor(images, **self.processor_kwargs)",
    ], ["        return self.processor(images)"])
    digest = heuristic_digest(PRContext(title="Bump transformers to 5.1", files=[*pins, code]), Coverage(), "en")
    assert "churn" not in digest.reason and "Only dependency" not in digest.reason, digest.reason
    assert "also changes logic (`multimodal.py`)" in digest.reason, digest.reason
    assert digest.verdict is not Verdict.SKIP


def test_a_bump_title_cannot_lift_a_repeated_edit_or_a_diff_that_moves_no_version() -> None:
    # "Bump" is PR text: logic beside a pin is news only where a pin moved, and one edit repeated across
    # many files is that edit, whatever the title says
    renamed = [_file(f"engine/models/m{i}.py", ["from engine.layers.linear import ColumnLinear",
                                                "    proj = ColumnLinear(dim, dim)"],
                     ["from engine.layers.linear import ColumnParallelLinear",
                      "    proj = ColumnParallelLinear(dim, dim)"]) for i in range(12)]
    for title in ("Rename ColumnParallelLinear", "Bump code"):
        digest = heuristic_digest(PRContext(title=title, files=renamed), Coverage(), "en")
        assert digest.verdict is Verdict.SKIP, digest.reason
        assert "same edit is repeated across 12 files" in digest.reason, digest.reason
        assert "also changes logic" not in digest.reason
    code = [_file("engine/sched.py", ["    if budget <= 0:", "        return []"], ["    return []"])]
    plain = heuristic_digest(PRContext(title="Update code", files=code), Coverage(), "en")
    bumped = heuristic_digest(PRContext(title="Bump code", files=code), Coverage(), "en")
    assert "also changes logic" not in bumped.reason and bumped.verdict is plain.verdict, bumped.reason


def test_claims_checker_catches_an_untrue_reason() -> None:
    ctx = PRContext(title="x", files=[_file("engine/a.py", ["    return 2"], ["    return 1"])])
    assert check_claims(ctx, "It removes a guard, `assert x > 0`.")
    assert check_claims(ctx, "Adds the new package along an existing template.")
    assert check_claims(ctx, "It changes the default of `size` (1 → 2).")
    assert not check_claims(ctx, "A small code change (2 changed lines) with no test and no new definition: the title "
                                 "says what changed.")


def test_a_title_that_only_mentions_a_bump_is_not_a_bump_and_docs_are_not_logic() -> None:
    ctx = PRContext(title="Heuristic: a bump that only moves a tag in code is version-only", files=[
        _file("engine/rules.py", ["    if moved_only(line):", "        return True"], ["    return False"]),
        _file("CHANGELOG.md", ["- A bump that only moves a tag is version-only."], []),
    ])
    reason = heuristic_digest(ctx, Coverage(), "en").reason
    assert "version bump" not in reason and "also changes logic" not in reason, reason
    bump = PRContext(title="[CI] Bump nixl to v0.7", files=[
        _file("docker/versions.txt", ["nixl==0.7.0"], ["nixl==0.6.1"]),
        _file("docs/install.md", ["Install nixl 0.7 first."], ["Install nixl 0.6 first."])])
    assert "also changes logic" not in heuristic_digest(bump, Coverage(), "en").reason


def test_the_fix_is_said_only_of_a_fix() -> None:
    code = FileChange(path="engine/cache.py", status=FileStatus.MODIFIED, additions=1, patch="""\
@@ -10,6 +10,7 @@ class Cache:
     def evict(self) -> None:
         block = self.blocks.pop()
         self.free(block)
+        self.size -= block.size
 
     def free(self, block):
         pass""")
    test = FileChange(path="tests/test_cache.py", status=FileStatus.MODIFIED, additions=5, patch="""\
@@ -30,3 +30,8 @@ def test_cache_starts_empty():
     assert Cache().size == 0
+
+
+def test_evict_shrinks_the_cache():
+    cache = Cache()
+    cache.evict()
+    assert cache.size == 0""")
    change = PRContext(title="Cache: evict counts the size", files=[code, test])
    fix = PRContext(title="[Bugfix] evict counts the size", files=[code, test])
    assert check_claims(change, "It backs the fix with a new test (`test_evict_shrinks_the_cache`).")
    assert "backs the change with a new test (`test_evict_shrinks_the_cache`)" in heuristic_digest(
        change, Coverage(), "en").reason
    assert "backs the fix with a new test (`test_evict_shrinks_the_cache`)" in heuristic_digest(
        fix, Coverage(), "en").reason
    assert "为改动补了新测试" in heuristic_digest(change, Coverage(), "zh-CN").reason
    for ctx in (change, fix):
        assert not check_claims(ctx, heuristic_digest(ctx, Coverage(), "en").reason)


def test_a_line_of_script_beside_a_restructured_image_build_is_not_what_the_pr_is() -> None:
    docker = FileChange(path="docker/Dockerfile", status=FileStatus.MODIFIED, additions=9, deletions=2, patch=(
        "@@ -40,6 +40,13 @@ RUN pip install -r requirements/build.txt\n"
        " # the runtime image\n"
        " FROM base AS runtime\n"
        " COPY --from=build /wheels /wheels\n"
        "-FROM runtime AS test\n"
        "-RUN pip install -r requirements/test.txt\n"
        "+# Test dependencies change rarely: keep them in their own stage so app edits do not reinstall them\n"
        "+FROM runtime AS test-deps\n"
        "+COPY requirements/test.txt requirements/test.txt\n"
        "+RUN pip install -r requirements/test.txt\n"
        "+\n"
        "+FROM test-deps AS test\n"
        "+COPY . /app\n"
        "+RUN pip install /app\n"
        "+RUN pytest --collect-only -q\n"))
    script = _file("tools/check_stages.py", added=["    return ['base', 'build', 'runtime', 'test-deps', 'test']"],
                   removed=["    return ['base', 'build', 'runtime', 'test']"])
    title = "Cache test dependencies in their own image stage"
    reason = heuristic_digest(PRContext(title=title, files=[docker, script]), Coverage(), "en").reason
    assert "`test-deps`" in reason and "code change" not in reason
    # the same line of script alone is a small code change, and the reason says so
    alone = heuristic_digest(PRContext(title=title, files=[script]), Coverage(), "en").reason
    assert "small code change (2 changed lines)" in alone
