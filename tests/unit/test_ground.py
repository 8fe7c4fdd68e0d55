"""ground_digest(): references must exist in the gathered context."""

from __future__ import annotations

from readworthy.analyze.ground import ContextIndex, ground_digest
from readworthy.models import (
    Comment,
    Commit,
    Decision,
    Digest,
    FileChange,
    FileStatus,
    LinkedIssue,
    PRContext,
    RelatedItem,
    ReviewThread,
    ThreadComment,
    Verdict,
)

CTX = PRContext(
    number=500,
    title="Bound launch geometry",
    body="Fixes #410. See also #77 for background.",
    files=[
        FileChange(
            path="vllm/v1/worker/block_table.py",
            patch="@@ -10,3 +10,6 @@ class BlockTable:\n+    def zero_blocks(self, ids):\n+        _zero_kernel[grid](ids)",
        ),
        FileChange(path="tests/v1/test_block_table.py", status=FileStatus.ADDED,
                   patch="@@ -0,0 +1,2 @@\n+def test_zero_blocks_large():\n+    pass"),
        FileChange(path="csrc/old_name.cu", previous_path="csrc/older_name.cu", status=FileStatus.RENAMED),
        FileChange(path="vllm/legacy/block_table.py", status=FileStatus.REMOVED, deletions=40),
    ],
    commits=[Commit(sha="a" * 40, message="Use int64 offsets in ZeroHelper")],
    comments=[Comment(author="alice", body="Does this cover #512?")],
    threads=[ReviewThread(path="vllm/v1/worker/block_table.py",
                          comments=[ThreadComment(author="bob", body="rename to `clamp_grid`?")])],
    linked_issues=[LinkedIssue(number=410, title="Illegal memory access", body="Trace in MemoryPool.free")],
    related=[RelatedItem(number=9001, title="follow-up")],
)


def _digest(**kw: object) -> Digest:
    base: dict[str, object] = {"verdict": Verdict.SKIM, "reason": "r", "headline": "h"}
    base.update(kw)
    return Digest.model_validate(base)


def test_paths_symbols_and_tests_are_checked() -> None:
    index = ContextIndex.from_context(CTX)
    assert index.has_reference("vllm/v1/worker/block_table.py")
    assert index.has_reference("`worker/block_table.py`")  # unique suffix, backticks stripped
    assert index.has_reference("block_table.py") is None  # two changed files are called block_table.py
    assert index.has_reference("table.py") is None  # suffixes start at a "/"
    assert index.has_reference("csrc/older_name.cu")  # rename source
    assert index.has_reference("BlockTable.zero_blocks()")
    assert index.has_reference("vllm/v1/worker/block_table.py::BlockTable.zero_blocks")
    assert index.has_reference("tests/v1/test_block_table.py::test_zero_blocks_large[fp8]")
    assert index.has_reference("MemoryPool.free")  # named in the linked issue
    assert index.has_reference("clamp_grid")  # named in a review thread
    assert index.has_reference("vllm/v1/worker/made_up.py") is None
    assert index.has_reference("zero_blocks_helper.py") is None  # file-like names must be changed files
    assert index.has_reference("BlockTable.nonexistent") is None
    assert index.has_reference("vllm/v1/worker/block_table.py::Ghost") is None
    assert index.has_reference("the `zero_blocks` method") == "zero_blocks"
    assert index.has_reference("the whole thing") is None


def test_plain_words_from_prose_are_not_code_references() -> None:
    index = ContextIndex.from_context(CTX)
    assert index.has_reference("Bound") is None  # a word of the title, not a name in the code
    assert index.has_reference("Illegal") is None  # a word of the linked issue
    assert index.has_reference("ZeroHelper")  # CamelCase in a commit message is code-shaped
    assert index.has_reference("BlockTable")  # in the patch's hunk header


def test_issue_numbers_must_be_in_the_context() -> None:
    index = ContextIndex.from_context(CTX)
    assert {410, 77, 512, 9001} <= index.numbers
    assert 500 not in index.numbers  # the PR itself
    assert 1234 not in index.numbers


def test_ground_digest_drops_and_counts() -> None:
    digest = _digest(
        reason="Bounds the grid in `BlockTable.zero_blocks`, unlike `GhostHelper` (see #410 and #999).",
        decisions=[
            Decision(title="int64 offsets", explanation="`ZeroHelper` uses int64.",
                     references=["vllm/v1/worker/block_table.py", "vllm/v1/made_up.py"]),
            Decision(title="Invented", explanation="Something in `phantom_module`.", references=["phantom.py"]),
        ],
        start_reading=["vllm/v1/worker/block_table.py::BlockTable.zero_blocks", "docs/nowhere.md"],
        related=[410, 9001, 1234, 500],
        linked_issue_findings=["#410 found an illegal access; #4242 too"],
    )
    grounded, dropped = ground_digest(digest, CTX)
    assert grounded.reason == "Bounds the grid in `BlockTable.zero_blocks`, unlike GhostHelper (see #410 and 999)."
    assert [d.title for d in grounded.decisions] == ["int64 offsets"]
    assert grounded.decisions[0].references == ["vllm/v1/worker/block_table.py"]
    assert grounded.start_reading == ["vllm/v1/worker/block_table.py::BlockTable.zero_blocks"]
    assert grounded.related == [410, 9001]
    assert grounded.linked_issue_findings == ["#410 found an illegal access; 4242 too"]
    # reason: GhostHelper + #999; decision 1: made_up.py; decision 2: phantom.py, `phantom_module`, the decision;
    # start_reading: 1; related: 1234 and 500; findings: #4242
    assert dropped == 2 + 1 + 3 + 1 + 2 + 1


def test_a_grounded_digest_is_unchanged() -> None:
    digest = _digest(
        decisions=[Decision(title="t", explanation="`zero_blocks` bounds the grid",
                            references=["tests/v1/test_block_table.py"])],
        start_reading=["vllm/v1/worker/block_table.py"],
        related=[410],
    )
    grounded, dropped = ground_digest(digest, CTX)
    assert dropped == 0 and grounded == digest


def test_findings_and_discussion_need_something_to_be_about() -> None:
    bare = PRContext(title="t", files=CTX.files)
    digest = _digest(discussion="Reviewers argued at length.", linked_issue_findings=["#1 showed a leak", "x"])
    grounded, dropped = ground_digest(digest, bare)
    assert grounded.discussion == "" and grounded.linked_issue_findings == [] and dropped == 3
    kept, dropped = ground_digest(_digest(discussion="alice asked about #512", linked_issue_findings=["ok"]), CTX)
    assert kept.discussion == "alice asked about #512" and kept.linked_issue_findings == ["ok"] and dropped == 0


def test_verdict_is_kept_and_output_is_still_a_valid_digest() -> None:
    grounded, _ = ground_digest(_digest(verdict=Verdict.DEEP_READ, related=[1, 2, 3]), CTX)
    assert grounded.verdict is Verdict.DEEP_READ and grounded.related == []
    Digest.model_validate(grounded.model_dump())
