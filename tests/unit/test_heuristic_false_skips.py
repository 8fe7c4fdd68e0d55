"""Diffs shaped like routine chores that change behaviour: none is a confident skip (a confident skip is never
read by a model), and each routine twin still is one."""

from __future__ import annotations

from readworthy.analyze.heuristic.shapes import is_cosmetic, is_import_or_path_edit, removed_guards
from readworthy.analyze.heuristic.signals import measure
from readworthy.analyze.heuristic.triage import CONFIDENT_SKIP, triage
from readworthy.models import FileChange, FileStatus, PRContext, Verdict
from readworthy.pack.classify import Classifier, FileKind


def _file(path: str, added: list[str] = (), removed: list[str] = (), status: FileStatus = FileStatus.MODIFIED,
          context: list[str] = (), at: int = 10) -> FileChange:
    lines = [f" {x}" for x in context] + [f"-{x}" for x in removed] + [f"+{x}" for x in added]
    patch = f"@@ -{at},{len(context) + len(removed)} +{at},{len(context) + len(added)} @@\n" + "\n".join(lines)
    return FileChange(path=path, status=status, additions=len(added), deletions=len(removed), patch=patch)


def _confident_skip(title: str, files: list[FileChange]) -> bool:
    t = triage(PRContext(title=title, files=files))
    return t.verdict is Verdict.SKIP and t.confidence >= CONFIDENT_SKIP


def test_a_hand_written_do_not_edit_note_does_not_make_a_source_file_generated() -> None:
    kind = Classifier().kind_of
    note = _file("engine/limits.py", ["MAX_PROMPT_TOKENS = 8192"], ["MAX_PROMPT_TOKENS = 32768"],
                 context=["# Do not edit without updating docs/limits.md"], at=1)
    assert kind(note) is FileKind.SOURCE
    assert not _confident_skip("Tune request limits", [note])
    generated = _file("engine/ops.py", ["X = 2"], ["X = 1"], context=["# DO NOT EDIT: written by gen_ops.py"], at=1)
    assert kind(generated) is FileKind.GENERATED


def test_a_setting_that_holds_digits_is_not_a_version() -> None:
    dtype = _file("configs/serving.toml", ['dtype = "bfloat16"'], ['dtype = "float16"'])
    flag = _file(".github/workflows/ci.yml", ['  RUN_KERNEL_TESTS: "0"', '  python-version: "3.12"'],
                 ['  RUN_KERNEL_TESTS: "1"', '  python-version: "3.11"'])
    assert not measure(PRContext(title="Update serving defaults", files=[dtype])).version_only
    assert not measure(PRContext(title="CI: bump Python to 3.12", files=[flag])).version_only
    pin = _file("configs/deps.toml", ['torch = "2.5.1"'], ['torch = "2.5.0"'])
    assert measure(PRContext(title="Bump torch", files=[pin])).version_only


def test_blanks_inside_a_string_are_not_formatting() -> None:
    key = _file("engine/prefix_cache.py", ['    key = "".join(parts)'], ['    key = " ".join(parts)'])
    assert not is_cosmetic(key.path, key.patch, ['    key = "".join(parts)'], ['    key = " ".join(parts)'])
    spaced = ['    key = " ".join( parts )']
    assert is_cosmetic(key.path, key.patch.replace('"".join(parts)', '" ".join( parts )'), spaced,
                       ['    key = " ".join(parts)'])


def test_a_path_added_to_a_list_is_no_path_edit_of_a_move() -> None:
    assert not is_import_or_path_edit(['    "/tmp/weights",'], [])
    assert is_import_or_path_edit(['CONFIG = "engine/io/paths.yaml"', "from engine.io import paths"],
                                  ['CONFIG = "engine/utils/paths.yaml"', "from engine.utils import paths"])


def test_a_repeated_header_beside_a_changed_condition_is_no_chore() -> None:
    header = "# SPDX-License-Identifier: Apache-2.0"
    files = [_file(f"engine/mod{i}.py", [header]) for i in range(8)]
    sampler = _file("engine/sampler.py", [header, "    keep = cumulative < top_p"], ["    keep = cumulative <= top_p"])
    assert not _confident_skip("Add SPDX headers", [*files, sampler])
    assert _confident_skip("Add SPDX headers", [*files, _file("engine/sampler.py", [header])])
    # the checker that enforces the header is part of the chore
    tool = _file("tools/check_headers.py", ["    if not line.startswith(PREFIX):", "        return False"])
    assert measure(PRContext(title="Add SPDX headers", files=[*files, tool])).repeated_outliers == 0


def test_a_revert_that_adds_a_refusal_is_not_only_a_back_out() -> None:
    params = _file("engine/sampling/params.py", [], ["    def clamp(self, n):", "        self.max_tokens = min(n, 4)",
                                                      "        return self"])
    scheduler = _file("engine/scheduler.py", ["        if len(prompt) + max_tokens > max_len:",
                                              '            raise ValueError("too long")'],
                      ["        params.clamp(max_len)", "        params.check()", "        log(params)"])
    assert not _confident_skip('Revert "Clamp max_tokens (#412)"', [params, scheduler])
    plain = _file("engine/scheduler.py", [], ["        params.clamp(max_len)"])
    assert _confident_skip('Revert "Clamp max_tokens (#412)"', [params, plain])


def test_checks_in_a_deleted_function_that_removed_code_called_are_removed_guards() -> None:
    patch = ("@@ -12,12 +12,1 @@ class ParallelConfig:\n-    def __post_init__(self):\n"
             "-        _validate(self)\n-\n     size: int = 1\n-def _validate(cfg):\n-    if cfg.size < 1:\n"
             '-        raise ValueError("size must be positive")\n')
    assert [shown for _, shown in removed_guards(patch, "engine/config/parallel.py", set())] == \
        ['if cfg.size < 1: raise ValueError("size must be positive")']
    dead = ("@@ -12,4 +12,0 @@\n-def _validate(cfg):\n-    if cfg.size < 1:\n"
            '-        raise ValueError("size must be positive")\n')
    assert removed_guards(dead, "engine/config/parallel.py", set()) == []
