"""`llm-gate sample`: sampled exercise files ready for baseline generation, reproducible, and all problems at once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gate.cli import app
from gate.cli.commands.sample import sample_exercises
from gate.errors import ExitCode, InputError
from tests.conftest import EXAMPLES

RAW = EXAMPLES / "raw" / "exercise-15420.json"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_realistic_exercise_is_sampled_over_its_score_range(in_tmp, capsys):
    sample_exercises([RAW], in_tmp / "out", per_exercise=10, seed=0)
    written = in_tmp / "out" / "sampled_exercise-15420.json"
    assert [p.name for p in (in_tmp / "out").iterdir()] == [written.name]
    original = json.loads(RAW.read_text())
    sampled = json.loads(written.read_text())
    assert list(sampled) == list(original)  # the same top-level fields, in the same order
    assert {k: v for k, v in sampled.items() if k != "submissions"} == \
        {k: v for k, v in original.items() if k != "submissions"}
    # Scores run 0..6; 10 targets k * 6/9 = 0, .67, 1.33, 2, 2.67, 3.33, 4, 4.67, 5.33, 6 and the nearest
    # scores (worked by hand on the file's scores) are these, for any seed:
    scores = [s["score"] for s in sampled["submissions"]]
    assert scores == [0.0, 0.5, 1.5, 2.0, 2.5, 3.5, 4.0, 4.5, 5.5, 6.0]
    by_id = {s["id"]: s for s in original["submissions"]}
    for submission in sampled["submissions"]:
        assert submission == by_id[submission["id"]]  # copied whole, unchanged
    assert sampled["submissions"][3]["id"] == 627  # the only submission scored 2.0
    out = capsys.readouterr().out
    assert "exercise 15420: 10 of 30 submissions" in out and "sampled_exercise-15420.json" in out


def test_same_seed_gives_byte_identical_files_and_seeds_choose_among_ties(in_tmp):
    sample_exercises([RAW], in_tmp / "a", per_exercise=10, seed=5)
    sample_exercises([RAW], in_tmp / "b", per_exercise=10, seed=5)
    name = "sampled_exercise-15420.json"
    assert (in_tmp / "a" / name).read_bytes() == (in_tmp / "b" / name).read_bytes()
    chosen = set()
    for seed in range(8):
        sample_exercises([RAW], in_tmp / f"s{seed}", per_exercise=10, seed=seed)
        chosen.add(tuple(s["id"] for s in json.loads((in_tmp / f"s{seed}" / name).read_text())["submissions"]))
    assert len(chosen) > 1  # e.g. which of the five submissions scored 6.0 is taken


def test_scores_from_feedback_credits_and_fewer_submissions_than_asked(in_tmp):
    exercise = {"id": "ex-1", "title": "T", "extra": {"kept": True}, "submissions": [
        {"id": 2, "text": "b", "feedback": [{"credits": 1}, {"credits": 2}]},  # 3
        {"id": 1, "text": "a", "baseline_feedback": {"feedback": [{"credits": 0.5}]}},  # 0.5
        {"id": 3, "text": "c", "score": 2},
    ]}
    path = write(in_tmp / "ex.json", json.dumps(exercise))
    sample_exercises([path], in_tmp / "out", per_exercise=5, seed=0)
    sampled = json.loads((in_tmp / "out" / "sampled_exercise-ex-1.json").read_text())
    assert [s["id"] for s in sampled["submissions"]] == [1, 3, 2]  # all three, by score 0.5, 2, 3
    assert sampled["extra"] == {"kept": True}


BAD_SUBMISSIONS = """\
{
  "id": 7,
  "title": "T",
  "submissions": [
    {"id": 1, "score": 2},
    {"text": "no id", "score": 3},
    {"id": 3, "text": "no score"},
    {"id": 4, "score": "high"},
    "not an object",
    {"id": 1, "score": 5}
  ]
}
"""


def test_every_problem_is_reported_at_once_and_nothing_is_written(in_tmp):
    bad = write(in_tmp / "in" / "bad.json", BAD_SUBMISSIONS)
    no_id = write(in_tmp / "in" / "no-id.json", json.dumps({"title": "x", "submissions": []}))
    array = write(in_tmp / "in" / "array.json", "[1, 2]\n")
    no_list = write(in_tmp / "in" / "no-list.json", '{"id": 9, "submissions": "none"}')
    broken = write(in_tmp / "in" / "broken.json", '{\n  "id": 9,\n  "submissions": [\n}\n')
    good = RAW
    with pytest.raises(InputError) as caught:
        sample_exercises([good, bad, no_id, array, no_list, broken], in_tmp / "out", per_exercise=3, seed=0)
    error = caught.value
    assert error.exit_code == ExitCode.INVALID_INPUT
    rendered = [p.render() for p in error.problems]
    text = "\n".join(rendered)
    assert "in/bad.json:6, submission 2, field 'id'" in text          # no id
    assert "in/bad.json:7, submission 3: expected a score" in text     # no score
    assert "in/bad.json:8, submission 4: expected a score" in text     # a score that is not a number
    assert "in/bad.json:9, submission 5, field 'id'" in text and "'not an object'" in text
    assert "in/bad.json:10, submission 6, field 'id'" in text and "submission 1 twice" in text
    assert "in/no-id.json:1, field 'id'" in text
    assert "in/array.json:1: expected an exercise object" in text and "[1, 2] (list)" in text
    assert "in/no-list.json:1: expected an exercise object" in text
    assert "in/broken.json:4: expected valid JSON" in text
    assert len(error.problems) == 9
    assert not (in_tmp / "out").exists()


def test_two_files_with_the_same_exercise_id_are_a_problem(in_tmp):
    copy = in_tmp / "copy.json"
    shutil.copy(RAW, copy)
    with pytest.raises(InputError) as caught:
        sample_exercises([RAW, copy], in_tmp / "out", per_exercise=3, seed=0)
    [problem] = caught.value.problems
    assert problem.file == "copy.json" and "exercise 15420 again" in problem.found
    assert not (in_tmp / "out").exists()


def test_cli_writes_the_sample(in_tmp):
    result = CliRunner().invoke(app, ["sample", str(RAW), "--output-dir", "out", "--per-exercise", "4",
                                      "--seed", "1"])
    assert result.exit_code == 0, result.output
    sampled = json.loads((in_tmp / "out" / "sampled_exercise-15420.json").read_text())
    # 4 targets: 0, 2, 4, 6 - each present in the file
    assert [s["score"] for s in sampled["submissions"]] == [0.0, 2.0, 4.0, 6.0]
    assert "4 of 30 submissions" in result.output
