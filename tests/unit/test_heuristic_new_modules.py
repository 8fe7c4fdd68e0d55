"""New modules beside existing ones (a model file among the other models) are a drop of new code: never a
skip, and the reason sends the reader to the shared files the drop changes."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.analyzer import NEW_MODULE_LINES
from readworthy.analyze.heuristic.signals import measure
from readworthy.models import Coverage, FileChange, FileStatus, PRContext, Verdict


def _added(path: str, lines: list[str]) -> FileChange:
    return FileChange(path=path, status=FileStatus.ADDED, additions=len(lines),
                      patch=f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join("+" + x for x in lines))


def _model(methods: int) -> FileChange:
    body = ['"""Inference-only Comet model."""', "", "import torch", ""]
    for cls in ("CometMLP", "CometAttention", "CometDecoderLayer"):
        body += [f"class {cls}(torch.nn.Module):", "    def __init__(self, config):", "        super().__init__()"]
        body += [f"        self.w{i} = torch.nn.Linear(config.hidden, config.hidden)" for i in range(methods)]
        body += ["", "    def forward(self, x):"]
        body += [f"        x = self.w{i}(x)" for i in range(methods)]
        body += ["        return x", ""]
    return _added("engine/models/comet.py", body)


_SHARED = FileChange(path="engine/layers/rotary.py", status=FileStatus.MODIFIED, additions=3, deletions=1, patch=(
    "@@ -10,4 +10,6 @@\n-def get_rope(head_size, base):\n+def get_rope(head_size, base, partial_factor=1.0):\n"
    "+    if not 0.0 < partial_factor <= 1.0:\n+        raise ValueError('partial_factor must be in (0, 1]')\n"
    "     return RotaryEmbedding(head_size, base)\n"))
_REGISTRY = FileChange(path="engine/models/registry.py", status=FileStatus.MODIFIED, additions=1, patch=(
    '@@ -30,2 +30,3 @@\n     "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),\n'
    '+    "CometForCausalLM": ("comet", "CometForCausalLM"),\n'))
_TEST = _added("tests/models/test_comet.py", ["def test_comet_is_registered():",
                                              "    assert 'CometForCausalLM' in registry.names()"])


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_model_file_beside_the_other_models_is_no_skip_and_names_the_shared_files(language: str) -> None:
    ctx = PRContext(title="[Model] Add Comet", files=[_model(6), _SHARED, _REGISTRY, _TEST])
    digest = heuristic_digest(ctx, Coverage(), language)
    assert digest.verdict is not Verdict.SKIP
    assert "`comet.py`" in digest.reason and "`rotary.py`" in digest.reason, digest.reason
    assert ("new files" if language == "en" else "新文件") in digest.reason


def test_a_small_new_helper_file_is_not_a_drop_of_new_code() -> None:
    helper = _added("engine/utils/starts.py", ["def start_locs(lengths):", "    out = [0]",
                                                "    for n in lengths:", "        out.append(out[-1] + n)",
                                                "    return out"])
    sig = measure(PRContext(title="Share start offsets", files=[helper, _SHARED]))
    assert sig.new_file_share > 0.5 and sig.new_file_code_lines < NEW_MODULE_LINES
    digest = heuristic_digest(PRContext(title="Share start offsets", files=[helper, _SHARED]), Coverage(), "en")
    assert "new files" not in digest.reason


def test_the_share_counts_code_in_created_files_only() -> None:
    sig = measure(PRContext(title="[Model] Add Comet", files=[_model(6), _SHARED, _REGISTRY, _TEST]))
    model_lines = _model(6).additions
    assert sig.new_code_files == ("engine/models/comet.py",)
    assert sig.new_file_share == pytest.approx(model_lines / (model_lines + 3 + 1))
