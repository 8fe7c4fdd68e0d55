"""A condition that only follows a rename in its hunk is not a decision to show; a real change is."""

from __future__ import annotations

from readworthy.analyze.heuristic.code_points import replacements
from readworthy.analyze.heuristic.renames import only_renamed

_RENAMED = """\
@@ -10,7 +10,7 @@ def file_head(patch):
     for line in patch.split("\\n"):
-        match = _HEADER.match(line)
-        if match is None or int(match.group(1)) > 1:
+        parsed = parse_hunk_header(line)
+        if parsed is None or parsed.new_start > 1:
             return ""
"""


def test_a_condition_on_a_renamed_binding_is_no_replacement() -> None:
    assert replacements(_RENAMED, "pkg/classify.py") == []


def test_a_name_swapped_for_another_value_is_a_replacement() -> None:
    patch = """\
@@ -20,6 +20,7 @@ def admit(request, config):
     limit = config.max_model_len
+    budget = config.max_num_batched_tokens
-    if request.num_tokens > limit:
+    if request.num_tokens > budget:
         raise ValueError("too long")
"""
    (rep,) = replacements(patch, "pkg/admit.py")  # `limit` is still bound and used: a new rule, not a rename
    assert (rep.old, rep.new) == ("request.num_tokens > limit", "request.num_tokens > budget")


def test_a_function_swapped_by_its_import_is_a_change_not_a_rename() -> None:
    removed = ["from vllm.platforms import is_cuda"]
    added = ["from vllm.platforms import is_cuda_alike"]
    assert not only_renamed("is_cuda()", "is_cuda_alike()", removed, added)


def test_the_rename_must_be_the_whole_difference() -> None:
    removed, added = ["n_2 = n // 2"], ["hidden = n // 2"]
    assert only_renamed("n_2 % group == 0", "hidden % group == 0", removed, added)
    assert not only_renamed("n_2 % group == 0", "hidden % block == 0", removed, added)
    # the old name still used on the added side: the hunk did not rename it
    assert not only_renamed("n_2 % group == 0", "hidden % group == 0", removed, added + ["log(n_2)"])
