"""New fields of a settings class as design points (analyze/heuristic/option_points.py `setting_points`)."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.locate import locate
from readworthy.models import Coverage, Decision, FileChange, FileStatus, PRContext


def _modified(path: str, patch: str) -> FileChange:
    plus = sum(1 for x in patch.split("\n") if x.startswith("+"))
    minus = sum(1 for x in patch.split("\n") if x.startswith("-"))
    return FileChange(path=path, status=FileStatus.MODIFIED, additions=plus, deletions=minus, patch=patch)


def _settings(decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if "setting" in d.title or "配置项" in d.title]


SCHEDULER_CONFIG = _modified("engine/config/scheduler.py", """\
@@ -14,6 +14,15 @@ class SchedulerConfig:
     enable_chunked_prefill: bool = True
     \"\"\"If True, prefill requests can be chunked.\"\"\"
 
+    max_num_partial_prefills: int = 1
+    \"\"\"How many prefills may be partial (chunked) at once. Above 1, a long prompt no longer blocks
+    short ones behind it.\"\"\"
+
+    # A prompt longer than this counts as long; at most one long prefill is partial at a time.
+    long_prefill_token_threshold: int = 0
+
     def verify(self) -> None:
         if self.max_num_seqs > self.max_num_batched_tokens:
             raise ValueError("max_num_seqs must not exceed max_num_batched_tokens")
""")


@pytest.mark.parametrize(("language", "title", "said"), [
    ("en", "A new setting, `SchedulerConfig.max_num_partial_prefills` (default `1`)", "its docstring: “How many"),
    ("zh-CN", "新增配置项 `SchedulerConfig.max_num_partial_prefills`（默认 `1`）", "其说明：“How many"),
])
def test_a_new_field_of_a_settings_class_is_told_with_its_default_and_docstring(language: str, title: str,
                                                                                said: str) -> None:
    digest = heuristic_digest(PRContext(title="Concurrent partial prefills", files=[SCHEDULER_CONFIG]), Coverage(),
                              language)
    first, second = _settings(digest.decisions)
    assert first.title == title
    assert said in first.explanation and "no longer blocks short ones behind it." in first.explanation
    # cited by the field itself, which the locator places on its line (not the class's first line)
    field = "engine/config/scheduler.py::SchedulerConfig.max_num_partial_prefills"
    assert field in first.references
    ctx = PRContext(title="Concurrent partial prefills", files=[SCHEDULER_CONFIG])
    [placed] = [loc for loc in locate(digest, ctx) if loc.ref == field]
    assert (placed.path, placed.start) == ("engine/config/scheduler.py", 17)
    # the comment above a field says what it is for when no docstring does
    assert "`SchedulerConfig.long_prefill_token_threshold`" in second.title
    assert "at most one long prefill is partial at a time" in second.explanation


def test_a_pydantic_field_gives_its_default() -> None:
    change = _modified("service/settings.py", """\
@@ -3,4 +3,6 @@ from pydantic import BaseModel, Field
 class ServerSettings(BaseModel):
     host: str = "0.0.0.0"
+    # Seconds an idle keep-alive connection stays open before the server closes it.
+    keep_alive_timeout: float = Field(default=5.0, ge=0)
     port: int = 8000
""")
    [point] = _settings(heuristic_digest(PRContext(title="Keep-alive timeout", files=[change]), Coverage(),
                                         "en").decisions)
    assert point.title == "A new setting, `ServerSettings.keep_alive_timeout` (default `5.0`)"


@pytest.mark.parametrize("patch", [
    # a parameter of a settings class's constructor is no field
    """\
@@ -61,6 +61,7 @@ class InklingModelConfig(PretrainedConfig):
         hidden_size: int = 4096,
         num_layers: int = 32,
+        num_nextn_predict_layers: int = 0,
         **kwargs,
     ):
         super().__init__(**kwargs)
""",
    # a field moved or retyped, not new
    """\
@@ -8,4 +8,4 @@ class CacheConfig:
     block_size: int = 16
-    swap_space: int = 4
+    swap_space: float = 4.0
     cache_dtype: str = "auto"
""",
    # a field of a new settings class: the class is what is new
    """\
@@ -8,0 +9,4 @@ import os
+@dataclass
+class CompilationConfig:
+    level: int = 0
+    \"\"\"The compilation level.\"\"\"
""",
    # an attribute of a class that is not named for settings
    """\
@@ -8,3 +8,4 @@ class Request:
     request_id: str = ""
+    priority: int = 0
     arrival_time: float = 0.0
""",
])
def test_what_is_not_a_new_setting(patch: str) -> None:
    change = _modified("engine/config/model.py", patch)
    digest = heuristic_digest(PRContext(title="Change a config", files=[change]), Coverage(), "en")
    assert _settings(digest.decisions) == [], digest.decisions
