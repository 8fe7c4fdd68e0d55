"""A call-site sweep (one callee swapped for another at many sites, and nothing else) is a skip that names
the swap; anything beside it, or fewer sites, and the diff is judged as code."""

from __future__ import annotations

import pytest

from readworthy.analyze.heuristic import heuristic_digest
from readworthy.analyze.heuristic.analyzer import judgement
from readworthy.analyze.heuristic.signals import measure
from readworthy.analyze.heuristic.sweeps import HOME_MAX_LINES, call_site_sweep
from readworthy.analyze.heuristic.triage import CONFIDENT_SKIP
from readworthy.models import Coverage, FileChange, FileStatus, PRContext, Verdict


def _site(path: str, arg: str = "value", old: str = "ast.literal_eval", new: str = "safe_literal_eval") -> FileChange:
    patch = (
        "@@ -1,4 +1,4 @@\n"
        "-import ast\n"
        f"+from parsers.utils import {new.rsplit('.', 1)[-1]}\n"
        " \n"
        f" def parse({arg}):\n"
        f"-    return {old}({arg})\n"
        f"+    return {new}({arg})\n"
    )
    return FileChange(path=path, status=FileStatus.MODIFIED, additions=2, deletions=2, patch=patch)


def _home(body_lines: int = 3, name: str = "safe_literal_eval") -> FileChange:
    body = [f"def {name}(text):", "    with warnings.catch_warnings():",
            "        return ast.literal_eval(text)"][:body_lines]
    body += [f"    x{i} = {i}" for i in range(body_lines - 3)]
    patch = "@@ -1,2 +1,3 @@\n import ast\n+import warnings\n \n@@ -30,2 +31,5 @@\n" + "".join(f"+{x}\n" for x in body)
    return FileChange(path="parsers/utils.py", status=FileStatus.MODIFIED, additions=len(body) + 1, deletions=0,
                      patch=patch)


_SITES = [_site(f"parsers/p{i}.py", arg) for i, arg in enumerate(("value", "raw", "text", "value"))]


def test_a_swap_at_every_site_with_its_new_helper_is_a_sweep() -> None:
    sweep = call_site_sweep([*_SITES, _home()])
    assert sweep is not None
    assert sweep.swaps == (("ast.literal_eval", "safe_literal_eval"),)
    assert (sweep.files, sweep.sites, sweep.home) == (4, 4, "parsers/utils.py")
    # the helper may exist already: the sites alone are the sweep
    assert call_site_sweep(_SITES) is not None


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_a_sweep_is_skip_and_the_reason_names_the_swap_and_the_helper(language: str) -> None:
    digest = heuristic_digest(PRContext(title="Use safe_literal_eval", files=[*_SITES, _home()]), Coverage(), language)
    assert digest.verdict is Verdict.SKIP
    assert "`ast.literal_eval` → `safe_literal_eval`" in digest.reason
    assert "`parsers/utils.py`" in digest.reason
    assert ("4 files" if language == "en" else "4 个文件") in digest.reason, digest.reason


def test_fewer_sites_are_no_sweep() -> None:
    assert call_site_sweep([*_SITES[:2], _home()]) is None


def test_a_site_that_also_changes_logic_is_no_sweep() -> None:
    changed = _SITES[0].model_copy(update={"patch": _SITES[0].patch + "@@ -9,1 +9,1 @@\n-    if x > 1:\n+    if x > 2:\n"})
    assert call_site_sweep([changed, *_SITES[1:], _home()]) is None


def test_swaps_must_agree_across_sites() -> None:
    other = _site("parsers/p9.py", new="careful_literal_eval")
    assert call_site_sweep([*_SITES, other]) is None  # ast.literal_eval became two different things


def test_more_than_one_other_file_or_a_large_helper_is_more_than_a_sweep() -> None:
    second = _home(name="safe_json_loads").model_copy(update={"path": "parsers/json_utils.py"})
    assert call_site_sweep([*_SITES, _home(), second]) is None
    assert call_site_sweep([*_SITES, _home(HOME_MAX_LINES + 5)]) is None
    # the other file must define what the sites now call
    assert call_site_sweep([*_SITES, _home(name="unrelated_helper")]) is None


def test_a_docstring_may_swap_the_name_but_no_other_text() -> None:
    def with_doc(doc_before: str, doc_after: str) -> FileChange:
        site = _SITES[0]
        extra = f'@@ -20,1 +20,1 @@\n-    """{doc_before}"""\n+    """{doc_after}"""\n'
        return site.model_copy(update={"patch": site.patch + extra})

    same = with_doc("Parse with ast.literal_eval.", "Parse with safe_literal_eval.")
    assert call_site_sweep([same, *_SITES[1:]]) is not None
    reworded = with_doc("Parse with ast.literal_eval.", "Parse safely, never raising.")
    assert call_site_sweep([reworded, *_SITES[1:]]) is None


def test_a_changed_default_beside_the_sweep_keeps_it_out_of_the_shortcut() -> None:
    default = FileChange(path="parsers/config.py", status=FileStatus.MODIFIED, additions=1, deletions=1,
                         patch="@@ -1,1 +1,1 @@\n-MAX_DEPTH = 10\n+MAX_DEPTH = 100\n")
    assert judgement(measure(PRContext(title="Sweep", files=[*_SITES, default])), "en").shortcut != "call_sweep"
    settled = judgement(measure(PRContext(title="Sweep", files=_SITES)), "en")
    assert settled.shortcut == "call_sweep"
    assert settled.confidence < CONFIDENT_SKIP  # a safer callee swapped in is a sweep too: the model may look


def test_a_rename_whose_definition_also_changes_what_it_does_is_no_sweep() -> None:
    sites = [_site(f"sched/s{i}.py", old="check_stop", new="check_request_stop") for i in range(3)]
    home = FileChange(path="sched/utils.py", status=FileStatus.MODIFIED, additions=2, deletions=2, patch=(
        "@@ -37,6 +37,6 @@\n"
        "-def check_stop(request, max_len):\n"
        "+def check_request_stop(request, max_len):\n"
        "     if (\n"
        "-        request.num_output_tokens >= request.max_tokens\n"
        "+        request.num_output_tokens > request.max_tokens\n"
        "     ):\n"))
    assert call_site_sweep(sites) is not None
    assert call_site_sweep([*sites, home]) is None



def test_a_file_whose_patch_is_missing_may_hold_anything() -> None:
    unread = FileChange(path="parsers/huge.py", status=FileStatus.MODIFIED, additions=900, deletions=40, patch=None)
    assert call_site_sweep([*_SITES, unread]) is None
    assert call_site_sweep([*_SITES, _home(), unread]) is None
