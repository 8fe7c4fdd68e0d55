"""bench/verdicts.py: reading recorded answers, and scoring them against labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_modules import load_bench

vd = load_bench("verdicts")

LABELS = {
    1: vd.Verdict("deep-read", "a pattern", "high"),
    2: vd.Verdict("skim", "one idea", "medium"),
    3: vd.Verdict("skip", "a pin", "high"),
    4: vd.Verdict("skip", "a lock file", "medium"),
}


def test_agreement_matrix_shares_and_disagreements() -> None:
    answers = {1: vd.Verdict("skim", "small"), 2: vd.Verdict("skim"), 3: vd.Verdict("skip"), 9: vd.Verdict("skip")}
    result = vd.agreement("model", LABELS, answers)
    assert result.scored == [1, 2, 3]
    assert result.agree == [2, 3]
    assert result.rate == pytest.approx(2 / 3)
    assert result.matrix[("deep-read", "skim")] == 1 and result.matrix[("skim", "skim")] == 1
    assert sum(result.matrix.values()) == 3
    assert result.shares == {"deep-read": 0.0, "skim": pytest.approx(2 / 3), "skip": pytest.approx(1 / 3)}
    assert result.high_confidence == (1, 2)
    assert [(n, label.verdict, given.verdict) for n, label, given in result.disagreements] == [(1, "deep-read", "skim")]
    assert result.unanswered == [4] and result.unlabelled == [9]
    text = vd.report(result)
    assert "2/3 = 0.67" in text and "#1: label deep-read" in text and "a pattern" in text and "small" in text


def test_answers_read_from_jsonl_and_from_concatenated_cli_json(tmp_path: Path) -> None:
    lines = tmp_path / "answers.jsonl"
    lines.write_text('{"pr": 1, "verdict": "deep-read", "reason": "r1"}\n{"pr": "2", "verdict": "skip"}\n')
    assert vd.read_answers(lines) == {1: vd.Verdict("deep-read", "r1"), 2: vd.Verdict("skip", "")}
    # `readworthy local --patch ... --format json`: number 0, the PR number only in the commit subject
    cli = {"verdict": "skim", "digest": {"verdict": "skim", "reason": "why"}, "number": 0, "analyzer": "model",
           "title": "[Bugfix] Bound KV block zeroing launch geometry (#52058)"}
    other = {**cli, "title": "Something", "url": "https://github.com/o/r/pull/7"}
    recorded = tmp_path / "run.json"
    recorded.write_text(json.dumps(cli, indent=2) + "\n" + json.dumps(other, indent=2))
    model = vd.Verdict("skim", "why", analyzer="model")
    assert vd.read_answers(recorded) == {52058: model, 7: model}


def test_a_directory_of_answers_takes_the_number_from_the_file_name(tmp_path: Path) -> None:
    (tmp_path / "53034.json").write_text(json.dumps({"verdict": "skim", "number": 0, "title": "no number",
                                                     "analyzer": "heuristic"}))
    answers = vd.read_answers(tmp_path)
    assert answers == {53034: vd.Verdict("skim", "", analyzer="heuristic")}
    labels = {53034: vd.Verdict("skim", "two-line overflow fix", "high")}
    assert "1 answers were written by the heuristic" in vd.report(vd.agreement("dir", labels, answers))


@pytest.mark.parametrize("record", [{"pr": 1, "verdict": "must-read"}, {"verdict": "skip", "title": "no number"}])
def test_bad_answers_are_refused_with_the_file_named(tmp_path: Path, record: dict[str, object]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="bad.jsonl"):
        vd.read_answers(path)


def test_heuristic_scores_every_labelled_fixture(vllm_fixture_sets: list[Path]) -> None:
    labels = vd.load_all_labels(vllm_fixture_sets)
    answers = vd.heuristic_answers(vllm_fixture_sets, sorted(labels))
    result = vd.agreement("heuristic", labels, answers)
    assert result.scored == sorted(labels) and not result.unanswered
    assert len(result.agree) + len(result.disagreements) == len(labels)


# --------------------------------------------------------------------------- --memory


tm = load_bench("taste_memory")


def test_memory_split_is_seeded_disjoint_and_whole() -> None:
    numbers = list(range(1, 31))
    train, test = tm.split(numbers, 17)
    assert (train, test) == tm.split(list(reversed(numbers)), 17)  # the seed decides, not the input order
    assert sorted(train + test) == numbers and len(train) == 15 and not set(train) & set(test)
    assert tm.split(numbers, 18) != (train, test)


def test_shuffled_control_keeps_the_verdicts_and_moves_them() -> None:
    from readworthy.models import Correction
    from readworthy.models import Verdict as V

    memory = [Correction(pr=n, analysed=V.SKIM, team=team) for n, team in
              enumerate([V.SKIP] * 5 + [V.DEEP_READ] * 5 + [V.SKIM] * 5, 1)]
    control = tm.shuffled(memory, 18)
    assert sorted(c.team.value for c in control) == sorted(c.team.value for c in memory)
    assert [c.pr for c in control] == [c.pr for c in memory]
    assert [c.team for c in control] != [c.team for c in memory]


def test_memory_bench_on_the_vllm_prs(vllm_fixtures: Path) -> None:
    labels = vd.load_labels(vllm_fixtures / "labels.jsonl")
    text = tm.memory_bench(vllm_fixtures, labels, 17, 3, "en", shifted_splits=2)
    assert "split seed 17" in text and "held-out half (15)" in text
    held_out = [line.strip() for line in text.splitlines() if "/15 = " in line]
    assert [line.split("  ")[0] for line in held_out[:3]] == ["without memory", "with memory", "shuffled control"]
    assert "over 3 more seeded splits" in text
    assert "teams whose taste differs" in text and "each over 2 seeded splits" in text


# --------------------------------------------------------------------------- the reading-value model's fit

fv = load_bench("fit_verdicts")
cv = load_bench("verdict_cv")


def test_the_fit_learns_which_way_a_fact_points() -> None:
    rows, labels = [], []
    for i in range(30):  # `value` rises with the verdict, `noise` does not
        label = ("skip", "skim", "deep-read")[i % 3]
        rows.append({"value": float(i % 3) + (i % 5) * 0.1, "noise": float((i * 7) % 4)})
        labels.append(label)
    model = fv.fit(rows, labels, 1.0)
    assert model.weights["value"] > 1.0 > abs(model.weights["noise"])
    assert model.cuts[0] < model.cuts[1]
    assert [fv.predict(model, {"value": v, "noise": 1.0})[0] for v in (0.0, 1.0, 2.0)] == ["skip", "skim", "deep-read"]
    probs = fv.predict(model, {"value": 1.0, "noise": 2.0})[2]
    assert sum(probs.values()) == pytest.approx(1.0)


def test_the_fit_keeps_a_rubric_fact_on_the_rubric_side_of_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    rows, labels = [], []
    for i in range(30):  # `interface` is present only on skips here: a free fit would weigh it against reading
        label = ("skip", "skim", "deep-read")[i % 3]
        rows.append({"value": float(i % 3) + (i % 5) * 0.1, "interface": float(label == "skip")})
        labels.append(label)
    monkeypatch.setattr(fv, "RUBRIC_PRIOR", {})
    assert fv.fit(rows, labels, 1.0).weights["interface"] < 0
    monkeypatch.setattr(fv, "RUBRIC_PRIOR", {"interface": 1.0})
    model = fv.fit(rows, labels, 1.0)
    assert model.weights["interface"] == 0.0 and model.weights["value"] > 1.0
    assert [fv.predict(model, {"value": v, "interface": 0.0})[0] for v in (0.0, 1.0, 2.0)] == ["skip", "skim", "deep-read"]


def test_folds_and_the_held_out_split_are_seeded_disjoint_and_whole() -> None:
    numbers = list(range(100, 162))
    parts = cv.folds(numbers, 10, 24)
    assert sorted(n for p in parts for n in p) == numbers and len(parts) == 10
    assert parts == cv.folds(list(reversed(numbers)), 10, 24) != cv.folds(numbers, 10, 25)
    held = cv.held_out(numbers)
    assert len(held) == 20 and held == cv.held_out(list(reversed(numbers))) and set(held) <= set(numbers)


def test_the_shipped_weights_are_the_fit_on_the_development_sets(vllm_fixture_sets: list[Path]) -> None:
    """verdict_weights.py holds what bench/fit_verdicts.py --write fits now: a feature changed without a
    refit would ship weights measured on other facts."""
    from readworthy.analyze.heuristic import verdict_weights

    if len(vllm_fixture_sets) < 2:
        pytest.skip("the weights are fitted on both development sets")
    labels = vd.load_all_labels(vllm_fixture_sets)
    cases = [c for c in cv.load_cases(vllm_fixture_sets, labels) if c.features is not None]
    model, _ = fv.fit_selected([c.features for c in cases], [c.label for c in cases])
    assert set(model.weights) == set(verdict_weights.WEIGHTS)
    for name, weight in model.weights.items():
        assert weight == pytest.approx(verdict_weights.WEIGHTS[name], abs=2e-3), name
    assert model.cuts == pytest.approx(verdict_weights.CUTS, abs=2e-3)
