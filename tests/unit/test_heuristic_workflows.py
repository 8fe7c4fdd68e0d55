"""A CI-only PR's design points say what its workflow files now decide: which jobs run when, over what
matrix, in which concurrency group, with which cache key."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.workflow_points import is_workflow, workflow_points
from readworthy.models import Coverage, FileChange, FileStatus, PRContext

WORKFLOW = """\
@@ -6,10 +6,40 @@ on:
   push:
     branches: [main]
 
+# A new push to the same PR cancels the run still in progress for the previous commit.
+concurrency:
+  group: ci-${{ github.ref }}
+  cancel-in-progress: true
+
 jobs:
+  changes:
+    runs-on: ubuntu-22.04
+    steps:
+      - uses: dorny/paths-filter@v3
+        id: filter
+        with:
+          filters: |
+            kernels:
+              - 'csrc/**'
+              - 'setup.py'
+            docs:
+              - 'docs/**'
   unit-tests:
     runs-on: ubuntu-22.04
+    strategy:
+      matrix:
+        python-version: ["3.10", "3.12"]
     steps:
+      - name: Upload report
+        if: always()
+        uses: actions/upload-artifact@v4
+  kernel-tests:
+    needs: changes
+    if: needs.changes.outputs.kernels == 'true'
+    runs-on: [self-hosted, gpu]
"""


def _workflow(patch: str = WORKFLOW) -> FileChange:
    plus = sum(1 for x in patch.split("\n") if x.startswith("+"))
    return FileChange(path=".github/workflows/ci.yml", status=FileStatus.MODIFIED, additions=plus, patch=patch)


def test_a_job_gate_a_paths_filter_and_a_matrix_are_the_points() -> None:
    points = workflow_points([_workflow()], "en")
    titles = [p.title for p in points]
    assert titles == ["`kernel-tests` runs only when `needs.changes.outputs.kernels == 'true'`",
                      "Changed paths decide what runs: `kernels` (`csrc/**`, `setup.py`), `docs` (`docs/**`)",
                      "A matrix over `python-version`: `3.10`, `3.12`"], titles
    assert all(p.references == [".github/workflows/ci.yml"] for p in points)
    # a step's status condition is no gate of what a change runs
    assert not any("always()" in t for t in titles)


def test_concurrency_and_a_cache_key_come_with_the_comment_that_says_why() -> None:
    cache = """\
@@ -19,3 +19,12 @@ jobs:
       - uses: actions/setup-python@v5
+      - name: Restore built extension
+        uses: actions/cache@v4
+        with:
+          path: build/
+          # Keyed on the build's inputs only, so a Python-only PR skips the 40 min build.
+          key: ext-${{ hashFiles('csrc/**', 'setup.py') }}
"""
    (point,) = workflow_points([_workflow(cache)], "en")
    assert point.title == "A cache keyed on `ext-${{ hashFiles('csrc/**', 'setup.py') }}`"
    assert "“Keyed on the build's inputs only, so a Python-only PR skips the 40 min build.”" in point.explanation
    concurrency = WORKFLOW.split(" jobs:")[0]
    (point,) = workflow_points([_workflow(concurrency)], "en")
    assert point.title == "Runs of one concurrency group do not overlap: `ci-${{ github.ref }}`"
    assert "cancels the run still in progress" in point.explanation


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_ci_only_pr_gets_the_workflow_points(language: str) -> None:
    digest = heuristic_digest(PRContext(title="[CI] Gate kernel tests", files=[_workflow()]), Coverage(), language)
    assert digest.decisions and "kernel-tests" in digest.decisions[0].title
    assert ("runs only when" if language == "en" else "仅在") in digest.decisions[0].title


def test_only_ci_files_are_workflows() -> None:
    assert is_workflow(".github/workflows/ci.yml") and is_workflow(".buildkite/test-pipeline.yaml")
    assert is_workflow(".gitlab-ci.yml")
    assert not is_workflow("configs/model.yaml") and not is_workflow("docker/Dockerfile")


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_new_cmake_option_is_a_point_with_its_default_and_help(language: str) -> None:
    cmake = FileChange(path="CMakeLists.txt", status=FileStatus.MODIFIED, additions=3, deletions=1, patch=(
        '@@ -10,2 +10,4 @@ project(fastlib)\n option(FASTLIB_BUILD_TESTS "Build the tests" ON)\n'
        '+option(FASTLIB_ENABLE_NVTX "Emit NVTX ranges around kernel launches" OFF)\n'
        '-option(FASTLIB_FAST_MATH "Fast math" ON)\n+option(FASTLIB_FAST_MATH "Use fast math intrinsics" ON)\n'
        '+set(FASTLIB_ARCHS "80;90" CACHE STRING "CUDA architectures to build for")\n'))
    digest = heuristic_digest(PRContext(title="Build options", files=[cmake]), Coverage(), language)
    titles = [d.title for d in digest.decisions]
    if language == "en":
        assert titles == ["A new build option `FASTLIB_ENABLE_NVTX` (default `OFF`)",
                          "A new build option `FASTLIB_ARCHS` (default `80;90`)"]
    else:
        assert titles == ["新增构建选项 `FASTLIB_ENABLE_NVTX`（默认 `OFF`）", "新增构建选项 `FASTLIB_ARCHS`（默认 `80;90`）"]
    assert "Emit NVTX ranges around kernel launches" in digest.decisions[0].explanation


def test_a_plain_paths_list_names_every_path() -> None:
    paths = ("@@ -1,3 +1,7 @@\n on:\n   pull_request:\n+    paths:\n+      - 'csrc/**'\n+      - 'setup.py'\n"
             "+      - 'requirements/cuda.txt'\n")
    (point,) = workflow_points([_workflow(paths)], "en")
    assert point.title == "Runs only for changes under `csrc/**`, `setup.py`, `requirements/cuda.txt`"
