"""`llm-gate validate`: config, every input record and baseline snapshot, and the models' offline availability,
checked as `run` checks them — all problems at once, located — without loading a model or importing torch."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from huggingface_hub import constants as hf_constants

from gate.errors import ExitCode
from tests.conftest import EXAMPLES, REPO
from tests.support.cli import run_main

PROBE = textwrap.dedent("""
    import json, sys
    from gate.cli import main
    sys.argv = ["llm-gate", "validate", "--config", sys.argv[1]]
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    sys.stderr.write(json.dumps({"code": code, "torch": "torch" in sys.modules,
                                 "transformers": "transformers" in sys.modules}) + "\\n")
""")


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("LLM_GATE_MODEL_DIR", "INPUT_MODEL_DIR", "INPUT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))




def test_the_example_is_valid_fast_and_torch_is_never_imported():
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, str(EXAMPLES / "gate.yml")], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    wall = time.perf_counter() - started
    print(f"llm-gate validate on examples/gate.yml: {wall:.2f} s wall in a subprocess (interpreter start included)")
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe == {"code": 0, "torch": False, "transformers": False}, done.stdout + done.stderr
    assert "5 suites and their inputs are valid; 5 baseline snapshots read" in done.stdout
    assert "models/hearts-standin (stereotype classifier; stereotype) -> local path" in done.stdout


BAD_GATE = """\
version: 1
suites:
  fb:
    kind: drift
    baseline: baselines/*.json
    candidates: outputs/fb.jsonl
  stab:
    kind: stability
    records: outputs/stab.jsonl
"""


def test_every_problem_of_every_suite_and_snapshot_at_once_located(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text(BAD_GATE)
    (in_tmp / "baselines" / "metrics").mkdir(parents=True)
    feedback = {"timestamp": "2025-01-01T00:00:00Z", "model_version": "m",
                "feedback": [{"title": "a", "description": "b", "credits": 1}]}
    (in_tmp / "baselines" / "ex.json").write_text(json.dumps({"id": 1, "title": "t", "submissions": [
        {"id": 1, "text": "x", "baseline_feedback": feedback}]}))
    (in_tmp / "outputs").mkdir()
    (in_tmp / "outputs" / "fb.jsonl").write_text(
        '{"exercise_id": 1, "submission_id": 1, "model": "m", "feedback": [{"title": "a", "description": "b", '
        '"credits": 1}]}\n{"exercise_id": 1, "submission_id": 1, "feedback": []}\n')
    (in_tmp / "outputs" / "stab.jsonl").write_text('{"model": "m", "task": "t", "question_id": "q"}\n')
    (in_tmp / "baselines" / "metrics" / "stab.json").write_text('{"schema": 99}')
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.INVALID_INPUT, out + err
    assert "outputs/fb.jsonl:2" in err and "field 'model'" in err  # drift: file, line, field
    assert "outputs/stab.jsonl:1" in err and "field 'response'" in err  # stability, in the same message
    assert "baselines/metrics/stab.json" in err and "re-bless it" in err  # the snapshot that does not parse
    assert "Traceback" not in err and "internal error" not in err


def test_an_invalid_gate_yml_is_located_invalid_input(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text("version: 1\nsuites:\n  s: {kind: stability, records: r.jsonl, chekcs: {}}\n")
    code, _, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.INVALID_INPUT and "gate.yml:3" in err and "chekcs" in err, err


def test_a_waiver_beyond_max_waiver_days_is_reported_by_validate(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text("version: 1\nsuites:\n  s: {kind: stability, records: r.jsonl}\nwaivers:\n"
                                     "  - {suite: s, metric: stability_coefficient, reason: forever, owner: '@a',\n"
                                     "     expires: 9999-12-31}\n")
    code, _, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.INVALID_INPUT and "gate.yml:6" in err and "waivers.0.expires" in err, err
    assert "max_waiver_days (90)" in err


def write_stereotype_gate(directory: Path, suite_extra: str = "") -> None:
    (directory / "gate.yml").write_text("version: 1\nsuites:\n  s:\n    kind: stereotype\n    records: r.jsonl\n"
                                        + suite_extra)
    (directory / "r.jsonl").write_text(json.dumps({"model": "m", "emgsd_text": "t", "trait": "x",
                                                   "control_response": "a", "bias_response": "b"}) + "\n")


def test_a_model_not_available_offline_exits_3_naming_it_and_the_fix(in_tmp, monkeypatch, capsys):
    write_stereotype_gate(in_tmp)
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.RUNTIME_FAILURE, out + err
    assert "holistic-ai/bias_classifier_albertv2 (stereotype classifier; s) -> NOT AVAILABLE OFFLINE" in out
    assert "llm-gate models pull holistic-ai/bias_classifier_albertv2" in out
    assert "sentence-transformers/all-MiniLM-L6-v2 (embedding; s) -> embedded package" in out
    assert "1 suite and their inputs are valid" in out  # the inputs themselves are fine


def test_with_a_model_dir_a_missing_model_is_one_the_run_will_pull(in_tmp, monkeypatch, capsys):
    """The action's `model_dir`: a run pulls what is missing into it (once per cache key), so validate in the same
    job says what will be downloaded, and passes."""
    write_stereotype_gate(in_tmp)
    monkeypatch.setenv("INPUT_MODEL_DIR", ".gate-models")
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED, out + err
    assert "holistic-ai/bias_classifier_albertv2 (stereotype classifier; s) -> NOT AVAILABLE OFFLINE" in out
    assert "1 model(s) not available offline: a run pulls them from the hub into the model directory .gate-models" \
        in out


def test_a_suites_own_classifier_is_the_one_resolved(in_tmp, monkeypatch, capsys):
    """`classifier:` on the suite replaces models.stereotype: validate resolves what the run would load."""
    write_stereotype_gate(in_tmp, "    classifier: ./classifier\n")
    (in_tmp / "classifier").mkdir()
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED, out + err
    assert "./classifier (stereotype classifier; s) -> local path" in out and "holistic-ai" not in out


def test_a_rag_suite_without_embedding_metrics_needs_no_model(in_tmp, monkeypatch, capsys):
    (in_tmp / "gate.yml").write_text("version: 1\nmodels: {embedding: org/not-here}\nsuites:\n"
                                     "  r: {kind: rag, records: r.jsonl, embedding_metrics: false}\n")
    (in_tmp / "r.jsonl").write_text('{"query": "q", "actual_answer": "a"}\n')
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED and "org/not-here" not in out, out + err


def test_a_generating_suite_is_checked_as_a_replaying_run_uses_it_before_its_records_exist(tmp_path, monkeypatch,
                                                                                             capsys):
    """A suite with `generate:` reads records the run writes first: validate checks its dataset and that the
    cassettes hold every call (a miss stops a replaying run), instead of calling its records glob empty."""
    import shutil

    project = tmp_path / "generation"
    shutil.copytree(EXAMPLES / "generation", project)
    shutil.rmtree(project / "outputs")
    monkeypatch.chdir(project)
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED, out + err
    assert "suite rubric: its records are generated by the run (from the cassettes) into outputs/rubric.jsonl" in out
    rows = [json.loads(line) for line in (project / "prompts.jsonl").read_text().splitlines()]
    rows[0]["prompt"] += " Answer in one line."
    rows[1] = {"category": "coding", "prompt_id": "C02"}  # no prompt
    (project / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.INVALID_INPUT and "prompts.jsonl:2, record 2, field 'prompt'" in err, err
    del rows[1]
    (project / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.INVALID_INPUT, out + err
    assert "found 2 not in the cassette" in err and "llm-gate generate --suite rubric --cassettes record-missing" in err
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-q")
    assert code == ExitCode.INVALID_INPUT and "record-missing" in err  # what validate foretold
