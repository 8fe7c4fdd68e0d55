"""The digest example workflows: actionlint-clean, and every `readworthy digest` they run is a command
the CLI accepts, wired list -> analyse (matrix) -> assemble (cached only)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from readworthy.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
BACKFILL = ROOT / "examples" / "digest-backfill.yml"
DAILY = ROOT / "examples" / "digest-daily.yml"


def _load(path: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads `on` as True
    return data


def _commands(job: dict) -> list[list[str]]:  # type: ignore[type-arg]
    """`readworthy digest ...` invocations in a job's run steps, with ${VARS} as placeholders."""
    out = []
    for step in job["steps"]:
        for line in re.findall(r"readworthy digest[^\n)]*", " ".join(str(step.get("run", "")).split("\n"))):
            words = shlex.split(line.replace('"$', '"X').replace("$", "X"))
            out.append(words[1:])
    return out


def _parse(words: list[str]):  # type: ignore[no-untyped-def]
    return build_parser().parse_args([w if not w.startswith("X") else "1" for w in words])


def test_actionlint_passes() -> None:
    actionlint = Path(sys.executable).parent / "actionlint"
    binary = str(actionlint) if actionlint.exists() else shutil.which("actionlint")
    if binary is None:
        pytest.fail("actionlint is missing: install the test extra")
    proc = subprocess.run([binary, str(BACKFILL), str(DAILY)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_backfill_is_list_then_matrix_then_cached_only_assembly() -> None:
    wf = _load(BACKFILL)
    jobs = wf["jobs"]
    assert list(jobs) == ["list", "analyse", "assemble"]
    assert wf["permissions"] == {"contents": "read"}  # each job asks for what it needs

    (listing,) = _commands(jobs["list"])
    args = _parse(listing)
    assert args.list_chunks == "auto" and args.date_from and args.date_to  # planned from the request budget
    assert jobs["list"]["permissions"] == {"contents": "read", "pull-requests": "read"}
    assert "plan" in jobs["list"]["outputs"]

    analyse = jobs["analyse"]
    assert analyse["needs"] == "list"
    assert "fromJSON(needs.list.outputs.plan).chunks" in analyse["strategy"]["matrix"]["prs"]
    (chunk,) = _commands(analyse)
    args = _parse(chunk)
    assert args.prs and args.publish == "none" and not args.dry_run and not args.cached_only
    assert args.max_cost  # each matrix job is capped
    assert analyse["permissions"]["pull-requests"] == "write"  # it writes each PR's comment (the cache)
    assert "OPENAI_API_KEY" in str(analyse["steps"])

    assemble = jobs["assemble"]
    assert assemble["needs"] == ["list", "analyse"]
    assert "!cancelled()" in assemble["if"]  # a failed chunk still gets a digest of the rest
    (final,) = _commands(assemble)
    args = _parse(final)
    assert args.cached_only and args.prs and args.publish == "issue"
    assert "OPENAI_API_KEY" not in str(assemble["steps"])  # zero model calls by construction
    assert assemble["permissions"]["issues"] == "write"
    assert "pull-requests" not in assemble["permissions"] or assemble["permissions"]["pull-requests"] == "read"


def test_daily_digest_uses_the_action_with_a_cost_cap_and_a_discussion() -> None:
    wf = _load(DAILY)
    assert "schedule" in wf["on"]
    (step,) = wf["jobs"]["digest"]["steps"]
    inputs = step["with"]
    assert inputs["mode"] == "digest" and inputs["digest-target"] == "discussion"
    assert inputs["digest-max-cost"] and inputs["digest-since"] == "24h"
    assert wf["permissions"]["discussions"] == "write"
    declared = set(yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"])
    assert set(inputs) <= declared


def test_the_assembly_takes_every_planned_pr_beyond_the_dispatch_inputs_limit() -> None:
    """`--list-chunks auto` plans up to MAX_AUTO_CHUNKS chunks of about AUTO_CHUNK_SIZE PRs and the assembly
    gets them all in one `--prs`: the action's `pr-number` limit (50 a run) must not refuse them."""
    from datetime import UTC, datetime

    from readworthy.digest.run import AUTO_CHUNK_SIZE, MAX_AUTO_CHUNKS, request_from_args

    planned = ",".join(str(n) for n in range(1, MAX_AUTO_CHUNKS * AUTO_CHUNK_SIZE + 1))
    args = build_parser().parse_args(["digest", "--repo", "o/r", "--prs", planned, "--from", "2026-01-01",
                                      "--to", "2026-01-31", "--cached-only"])
    request = request_from_args(args, datetime(2026, 2, 1, tzinfo=UTC))
    assert len(request.prs) == MAX_AUTO_CHUNKS * AUTO_CHUNK_SIZE > 50
