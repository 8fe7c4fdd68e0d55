"""triage(): the heuristic's verdict, how sure it is, and the reading value the quota spender ranks by."""

from __future__ import annotations

from pathlib import Path

import pytest
from vllm_sets import fixture_context, fixture_labels

from readworthy.analyze.heuristic import Triage, heuristic_digest, triage
from readworthy.models import Coverage, FileChange, FileStatus, PRContext, Verdict


def _file(path: str, added: list[str] = (), removed: list[str] = (), status: FileStatus = FileStatus.MODIFIED
          ) -> FileChange:
    lines = [f"-{x}" for x in removed] + [f"+{x}" for x in added]
    patch = f"@@ -1,{len(removed)} +1,{len(added)} @@\n" + "\n".join(lines) if lines else None
    return FileChange(path=path, status=status, additions=len(added), deletions=len(removed), patch=patch)


def _lock_only() -> PRContext:
    return PRContext(title="Regenerate lock", files=[_file("uv.lock", ["x"] * 300, ["y"] * 200)])


def _interface() -> PRContext:
    return PRContext(title="Shared rotary cache", files=[
        _file("engine/attention/backend.py", [
            "class AttentionBackendBase(ABC):", "    supports_shared_rope: bool = False",
            "    @abstractmethod", "    def forward(self, q, k, v):", "        ...",
            "def check_backend(b):", "    if not b.supports_shared_rope:",
            "        raise ValueError('shared rope is not supported by this backend')"]),
        _file("engine/worker/rope_cache.py", ["class RotaryCache:", "    def prepare(self, positions):",
                                              "        return positions"], status=FileStatus.ADDED),
        _file("engine/worker/runner.py", ["        cache = RotaryCache()", "        check_backend(self.backend)"]),
        _file("tests/worker/test_rope_cache.py", ["def test_prepare():", "    assert RotaryCache().prepare(1)"],
              status=FileStatus.ADDED),
    ])


def _small_fix() -> PRContext:
    return PRContext(title="[Bugfix] Fix int32 overflow in row offsets", files=[
        _file("engine/layers/offsets.py", ["        + ram[:, None].to(tl.int64) * stride"],
              ["        + ram[:, None] * stride"])])


def test_the_shape_is_the_interface_the_quota_spender_builds_on() -> None:
    t = triage(_lock_only())
    assert isinstance(t, Triage)
    assert isinstance(t.verdict, Verdict) and isinstance(t.confidence, float) and isinstance(t.score, float)
    with pytest.raises(AttributeError):
        t.score = 1.0  # type: ignore[misc]  # frozen


def test_a_lock_file_refresh_is_a_confident_skip() -> None:
    t = triage(_lock_only())
    assert t.verdict is Verdict.SKIP and t.confident_skip
    assert 0.9 <= t.confidence <= 1.0


def test_an_interface_with_a_capability_check_is_not_skipped_and_ranks_first() -> None:
    interface, fix, lock = triage(_interface()), triage(_small_fix()), triage(_lock_only())
    assert interface.verdict is not Verdict.SKIP and not interface.confident_skip
    assert interface.score > fix.score > lock.score


def test_triage_agrees_with_the_guide_it_stands_beside() -> None:
    for ctx in (_lock_only(), _interface(), _small_fix(), PRContext(title="Empty")):
        assert triage(ctx).verdict is heuristic_digest(ctx, Coverage(), "en").verdict


def test_confidence_is_a_probability_and_a_skim_is_never_a_confident_skip() -> None:
    for ctx in (_lock_only(), _interface(), _small_fix(), PRContext(title="Empty")):
        t = triage(ctx)
        assert 0.0 <= t.confidence <= 1.0
        assert not t.confident_skip or t.verdict is Verdict.SKIP
    assert not triage(_small_fix()).confident_skip


@pytest.mark.vllm_fixtures
def test_on_the_real_prs_a_confident_skip_is_labelled_skip(vllm_fixture_sets: list[Path]) -> None:
    """The quota leaves confident skips without a model: on the labelled PRs every one of them must be a skip.
    (In sample: bench/verdicts.py reports the same out of sample.)"""
    confident = 0
    for label in fixture_labels(vllm_fixture_sets):
        ctx = fixture_context(Path(str(label["root"])), int(str(label["pr"])))
        t = triage(ctx)
        if t.confident_skip:
            confident += 1
            assert label["verdict"] == "skip", (label["pr"], t)
        if label["verdict"] == "deep-read":
            assert t.verdict is not Verdict.SKIP, (label["pr"], t)
    assert confident >= 3  # lock refreshes, pins, binary and empty PRs are among them


def test_verdict_probabilities_are_ordered_by_the_reading_value() -> None:
    from readworthy.analyze.heuristic.verdict_model import ordinal_probabilities

    cuts = (-1.0, 1.0)
    low, mid, high = (ordinal_probabilities(z, cuts) for z in (-4.0, 0.0, 4.0))
    for probs in (low, mid, high):
        assert sum(probs.values()) == pytest.approx(1.0) and min(probs.values()) >= 0.0
    assert max(low, key=low.__getitem__) is Verdict.SKIP
    assert max(mid, key=mid.__getitem__) is Verdict.SKIM
    assert max(high, key=high.__getitem__) is Verdict.DEEP_READ


def test_a_skip_needs_a_clear_majority() -> None:
    from readworthy.analyze.heuristic.analyzer import decide

    assert decide({Verdict.SKIP: 0.55, Verdict.SKIM: 0.35, Verdict.DEEP_READ: 0.10}) is Verdict.SKIM
    assert decide({Verdict.SKIP: 0.90, Verdict.SKIM: 0.08, Verdict.DEEP_READ: 0.02}) is Verdict.SKIP
    assert decide({Verdict.SKIP: 0.05, Verdict.SKIM: 0.40, Verdict.DEEP_READ: 0.55}) is Verdict.DEEP_READ
