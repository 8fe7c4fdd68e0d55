"""CODEOWNERS with GitHub's semantics, and config areas."""

from __future__ import annotations

from readworthy.gather.owners import first_codeowners, match_areas, match_owners

CODEOWNERS = """\
# default owners
*                                   @vllm-project/core
*.md                                @vllm-project/docs
docs/*                              @docs-lead
/vllm/v1/worker/                    @vllm-project/mrv2
vllm/model_executor/layers/quantization/  @quant-a @quant-b
**/logs                             @ops
vllm/third_party/                   # no owners: un-owned
"""


def test_last_matching_rule_wins_with_github_semantics() -> None:
    paths = ["setup.py", "README.md", "docs/a.md", "docs/deep/b.md", "vllm/v1/worker/gpu_worker.py",
             "vllm/model_executor/layers/quantization/fp8.py", "build/logs/x.txt", "vllm/third_party/x.py"]
    assert match_owners(CODEOWNERS, paths) == {
        "@vllm-project/core": ["setup.py"],
        "@vllm-project/docs": ["README.md", "docs/deep/b.md"],  # docs/* is not recursive on GitHub
        "@docs-lead": ["docs/a.md"],
        "@vllm-project/mrv2": ["vllm/v1/worker/gpu_worker.py"],
        "@quant-a": ["vllm/model_executor/layers/quantization/fp8.py"],
        "@quant-b": ["vllm/model_executor/layers/quantization/fp8.py"],
        "@ops": ["build/logs/x.txt"],
    }


def test_lookup_order_is_github_root_docs() -> None:
    assert first_codeowners({"docs/CODEOWNERS": "d", "CODEOWNERS": "r"}) == ("CODEOWNERS", "r")
    assert first_codeowners({".github/CODEOWNERS": "g", "CODEOWNERS": "r"}) == (".github/CODEOWNERS", "g")
    assert first_codeowners({".github/CODEOWNERS": None}) is None


def test_empty_or_comment_only_codeowners_owns_nothing() -> None:
    assert match_owners("# nothing yet\n\n", ["a.py"]) == {}


def test_areas_use_gitignore_globs_and_last_match_wins() -> None:
    areas = {"vllm/**": "Engine", "vllm/v1/worker/**": "MRV2 / worker", "*.md": "Docs", "/csrc/": "Kernels"}
    got = match_areas(areas, ["vllm/engine/a.py", "vllm/v1/worker/b.py", "docs/x.md", "csrc/ops.cu", "csrcx/y"])
    assert got == {"Engine": ["vllm/engine/a.py"], "MRV2 / worker": ["vllm/v1/worker/b.py"], "Docs": ["docs/x.md"],
                   "Kernels": ["csrc/ops.cu"]}
