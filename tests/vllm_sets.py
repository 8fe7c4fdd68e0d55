"""The real vLLM development sets (conftest.py's `vllm_fixture_sets`): their PR numbers, contexts and labels."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import PRContext


def fixture_numbers(root: Path) -> list[int]:
    """Every PR of a fixture folder (a numbered directory with a diff.patch)."""
    return sorted(int(d.name) for d in root.iterdir() if d.name.isdigit() and (d / "diff.patch").is_file())


def fixture_context(root: Path, number: int) -> PRContext:
    return context_from_source(LocalSource(patch=str(root / str(number) / "diff.patch")))


def fixture_contexts(roots: Sequence[Path]) -> Iterator[tuple[int, PRContext]]:
    for root in roots:
        for number in fixture_numbers(root):
            yield number, fixture_context(root, number)


def fixture_labels(roots: Sequence[Path]) -> list[dict[str, object]]:
    """Every label line of every folder, with the folder it came from (`root`)."""
    out: list[dict[str, object]] = []
    for root in roots:
        for line in (root / "labels.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append({**json.loads(line), "root": root})
    return out
