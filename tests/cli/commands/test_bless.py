"""`llm-gate baseline bless`: a model's candidate feedback becomes the baseline; nothing else in the files moves."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gate.cli import app
from gate.cli.commands.bless import bless, bless_baseline
from gate.cli.commands.sample import sample_exercises
from gate.errors import ConfigError, InputError
from gate.kinds.drift.records import load_drift
from gate.run import read_config
from tests.conftest import EXAMPLES
from tests.support.drift_fixtures import (
    GATE_YML,
    candidate,
    feedback,
    submission,
    write_candidates,
    write_exercise,
    write_gate,
)

NOW = datetime(2025, 9, 1, 12, 30, 5, tzinfo=timezone.utc)
OLD = feedback(("Roles", "Names both roles.", 2.0))
NEW = feedback(("Roles", "Both roles are named.", 2.5), ("Example", "Fits well.", 1.0))


@pytest.fixture
def examples(in_tmp) -> Path:
    target = in_tmp / "examples"
    shutil.copytree(EXAMPLES, target, ignore=shutil.ignore_patterns(".gate-cache", "gate-report"))
    return target


def baseline_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "baselines" / "feedback").glob("*.json"))}


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def without_baselines(exercise: dict) -> dict:
    return {**exercise, "submissions": [{k: v for k, v in s.items() if k != "baseline_feedback"}
                                        for s in exercise["submissions"]]}


def test_blessing_the_example_replaces_every_baseline_and_nothing_else(examples, capsys):
    before = {name: json.loads(data) for name, data in baseline_files(examples).items()}
    bless_baseline(examples / "gate.yml", None, "gpt-4o-mini", None, dry_run=False, now=NOW)
    after = {name: json.loads(data) for name, data in baseline_files(examples).items()}
    # the candidates, read straight from the file: (exercise, submission) -> feedback
    expected = {(r["exercise_id"], r["submission_id"]): r["feedback"]
                for r in jsonl(examples / "outputs" / "feedback" / "gpt-4o-mini.jsonl")}
    assert len(expected) == 33
    blessed = 0
    for name, exercise in after.items():
        old = before[name]
        assert list(exercise) == list(old)  # same keys in the same order
        assert without_baselines(exercise) == without_baselines(old)
        for new_sub, old_sub in zip(exercise["submissions"], old["submissions"], strict=True):
            assert list(new_sub) == list(old_sub)
            assert new_sub["baseline_feedback"] == {
                "timestamp": "2025-09-01T12:30:05Z",
                "model_version": "gpt-4o-mini",  # neither --model-version nor a version in the records
                "feedback": expected[(exercise["id"], new_sub["id"])],
            }
            assert new_sub["baseline_feedback"] != old_sub["baseline_feedback"]
            blessed += 1
    assert blessed == 33
    out = capsys.readouterr().out
    assert "Blessed 33 submission(s) with gpt-4o-mini (model_version gpt-4o-mini)" in out
    assert "updated 10 submission(s)" in out and "updated 12 submission(s)" in out
    assert "warning" not in out
    # the gate's loaders still read the blessed suite, all three models
    config = read_config(examples / "gate.yml")
    data = load_drift("feedback-drift", config.suites["feedback-drift"], examples)
    assert data.models == ("gpt-4o-2024-11-20", "gpt-4o-mini", "llama-3.1-8b-instruct")
    assert len(data.candidates) == 99
    assert {s.baseline_feedback.model_version for e in data.exercises for s in e.submissions} == {"gpt-4o-mini"}


def test_explicit_model_version_is_recorded(examples):
    bless_baseline(examples / "gate.yml", "feedback-drift", "gpt-4o-mini", "gpt-4o-mini-2024-07-18",
                   dry_run=False, now=NOW)
    exercise = json.loads((examples / "baselines" / "feedback" / "sampled_exercise-15012.json").read_text())
    assert {s["baseline_feedback"]["model_version"] for s in exercise["submissions"]} == {"gpt-4o-mini-2024-07-18"}


def test_dry_run_writes_nothing(examples, capsys):
    before = baseline_files(examples)
    bless_baseline(examples / "gate.yml", None, "gpt-4o-mini", None, dry_run=True, now=NOW)
    assert baseline_files(examples) == before
    assert sorted(p.name for p in (examples / "baselines" / "feedback").iterdir()) == sorted(before)
    out = capsys.readouterr().out
    assert "would update 10 submission(s)" in out and "Would bless 33 submission(s)" in out


def test_unknown_model_suggests_the_close_one_and_writes_nothing(examples):
    before = baseline_files(examples)
    with pytest.raises(InputError) as caught:
        bless_baseline(examples / "gate.yml", None, "gpt-4o-mni", None, dry_run=False, now=NOW)
    assert "did you mean 'gpt-4o-mini'?" in str(caught.value)
    assert baseline_files(examples) == before


def test_a_failed_write_leaves_the_original_intact(examples, monkeypatch):
    before = baseline_files(examples)

    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        bless_baseline(examples / "gate.yml", None, "gpt-4o-mini", None, dry_run=False, now=NOW)
    assert baseline_files(examples) == before
    assert sorted(p.name for p in (examples / "baselines" / "feedback").iterdir()) == sorted(before)  # no temp files


def test_submission_without_candidate_keeps_its_baseline_with_a_warning(in_tmp, capsys):
    write_exercise(in_tmp / "baselines", 7, [submission(1, OLD), submission(2, OLD, text="second")])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [
        candidate(7, 1, "m", NEW) | {"model_version": "m-2025-01"},
        candidate(7, 2, "other", NEW),
    ])
    write_gate(in_tmp)
    bless_baseline(in_tmp / "gate.yml", None, "m", None, dry_run=False, now=NOW)
    exercise = json.loads((in_tmp / "baselines" / "sampled_exercise-7.json").read_text())
    first, second = exercise["submissions"]
    assert first["baseline_feedback"] == {"timestamp": "2025-09-01T12:30:05Z", "model_version": "m-2025-01",
                                          "feedback": NEW}
    assert second == submission(2, OLD, text="second")
    out = capsys.readouterr().out
    assert "warning: 1 submission(s) have no candidate from m" in out and "7/2" in out


def test_freshly_sampled_exercises_without_any_baseline_can_be_blessed(in_tmp):
    # The seed's workflow: sample exercises, have the reference model answer them, bless its answers.
    sample_exercises([EXAMPLES / "raw" / "exercise-15420.json"], in_tmp / "baselines", per_exercise=3, seed=0)
    sampled = json.loads((in_tmp / "baselines" / "sampled_exercise-15420.json").read_text())
    ids = [s["id"] for s in sampled["submissions"]]
    write_candidates(in_tmp / "outputs" / "ref.jsonl", [candidate(15420, i, "ref", NEW) for i in ids[:2]])
    write_candidates(in_tmp / "outputs" / "new.jsonl", [candidate(15420, i, "new", NEW) for i in ids[:2]])
    write_gate(in_tmp)
    bless_baseline(in_tmp / "gate.yml", None, "ref", None, dry_run=False, now=NOW)
    blessed = json.loads((in_tmp / "baselines" / "sampled_exercise-15420.json").read_text())
    assert [s.get("baseline_feedback", {}).get("model_version") for s in blessed["submissions"]] == ["ref", "ref", None]
    assert blessed["submissions"][2] == sampled["submissions"][2]
    data = load_drift("fb", read_config(in_tmp / "gate.yml").suites["fb"], in_tmp)  # a gate run reads it now
    assert data.models == ("new", "ref")


def test_other_input_problems_still_stop_the_bless(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, OLD), submission(2, None)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 2, "m", NEW), candidate(7, 9, "m", NEW)])
    write_gate(in_tmp)
    before = (in_tmp / "baselines" / "sampled_exercise-7.json").read_bytes()
    with pytest.raises(InputError) as caught:
        bless_baseline(in_tmp / "gate.yml", None, "m", None, dry_run=False, now=NOW)
    [problem] = caught.value.problems  # the unknown submission 9; submission 2 merely has no baseline yet
    assert problem.line == 2 and "a submission of exercise 7" in problem.expected
    assert (in_tmp / "baselines" / "sampled_exercise-7.json").read_bytes() == before


def test_several_drift_suites_need_a_suite_name(in_tmp):
    write_exercise(in_tmp / "baselines", 7, [submission(1, OLD)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "m", NEW)])
    (in_tmp / "gate.yml").write_text(GATE_YML.format(extra="") + "  fb2:\n    kind: drift\n"
                                     "    baseline: baselines/*.json\n    candidates: outputs/*.jsonl\n")
    with pytest.raises(ConfigError) as caught:
        bless_baseline(in_tmp / "gate.yml", None, "m", None, dry_run=False, now=NOW)
    [problem] = caught.value.problems
    assert problem.field == "--suite" and "2 drift suites: fb, fb2" in problem.found
    with pytest.raises(ConfigError, match="unknown suite"):
        bless_baseline(in_tmp / "gate.yml", "nope", "m", None, dry_run=False, now=NOW)
    bless_baseline(in_tmp / "gate.yml", "fb2", "m", None, dry_run=False, now=NOW)
    exercise = json.loads((in_tmp / "baselines" / "sampled_exercise-7.json").read_text())
    assert exercise["submissions"][0]["baseline_feedback"]["feedback"] == NEW


def test_cli_dry_run(examples):
    before = baseline_files(examples)
    result = CliRunner().invoke(app, ["baseline", "bless", "--model", "gpt-4o-mini", "--config",
                                      str(examples / "gate.yml"), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "Would bless 33 submission(s) with gpt-4o-mini" in result.output
    assert baseline_files(examples) == before


def test_exercise_ids_written_as_floats_are_blessed(in_tmp):
    path = in_tmp / "baselines" / "sampled_exercise-7.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"id": 7.0, "title": "T", "submissions": [submission(1, OLD)]}))
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "m", NEW)])
    write_gate(in_tmp)
    bless_baseline(in_tmp / "gate.yml", None, "m", None, dry_run=False, now=NOW)
    assert json.loads(path.read_text())["submissions"][0]["baseline_feedback"]["feedback"] == NEW


def test_blessing_feedback_from_repeated_samples_is_refused_not_the_last_one_kept(in_tmp):
    sample_exercises([EXAMPLES / "raw" / "exercise-15420.json"], in_tmp / "baselines", per_exercise=3, seed=0)
    sampled = json.loads((in_tmp / "baselines" / "sampled_exercise-15420.json").read_text())
    first = sampled["submissions"][0]["id"]
    write_candidates(in_tmp / "outputs" / "ref.jsonl", [{**candidate(15420, first, "ref", NEW), "sample": s}
                                                        for s in (0, 1)])
    write_gate(in_tmp)
    before = (in_tmp / "baselines" / "sampled_exercise-15420.json").read_bytes()
    with pytest.raises(ConfigError) as caught:
        bless_baseline(in_tmp / "gate.yml", None, "ref", None, dry_run=False, now=NOW)
    [problem] = caught.value.problems
    assert problem.field == "--model" and "sample" in problem.found and "without `sample`" in problem.fix
    assert (in_tmp / "baselines" / "sampled_exercise-15420.json").read_bytes() == before  # nothing written


def test_model_with_only_suites_whose_kind_keeps_no_outputs_is_refused_located(in_tmp):
    """`--model` goes to the suites whose kind keeps baseline outputs (`Kind.bless_outputs`); the message names
    those kinds from the registry, so it reads as before: --model needs a drift suite."""
    write_exercise(in_tmp / "baselines", 7, [submission(1, OLD)])
    write_candidates(in_tmp / "outputs" / "m.jsonl", [candidate(7, 1, "m", NEW)])
    write_gate(in_tmp, "  stab:\n    kind: stability\n    records: s.jsonl\n")
    before = (in_tmp / "baselines" / "sampled_exercise-7.json").read_bytes()
    with pytest.raises(ConfigError, match="--model needs a drift suite") as caught:
        bless(in_tmp / "gate.yml", ("stab",), model="m", model_version=None, metrics=False, commit=None,
              dry_run=False, now=NOW, settings=None)  # type: ignore[arg-type]  # refused before it is read
    [problem] = caught.value.problems
    assert (problem.field, problem.found) == ("--suite", "stab")
    assert problem.expected == "at least one drift suite when --model is given"
    assert (in_tmp / "baselines" / "sampled_exercise-7.json").read_bytes() == before
    bless(in_tmp / "gate.yml", ("fb", "stab"), model="m", model_version=None, metrics=False, commit=None,
          dry_run=False, now=NOW, settings=None)  # type: ignore[arg-type]  # only fb takes the outputs
    exercise = json.loads((in_tmp / "baselines" / "sampled_exercise-7.json").read_text())
    assert exercise["submissions"][0]["baseline_feedback"]["feedback"] == NEW
