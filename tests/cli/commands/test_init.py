"""`llm-gate init` from an empty repository: a gate that runs offline on the first try, example records where
gate.yml points, a .gitignore for what runs generate, and next steps in the order that works (issue 22, item 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from huggingface_hub import constants as hf_constants

from gate.cli.commands.init import GITIGNORE, init_repository, parse_kinds, starters
from gate.errors import ExitCode, InputError
from tests.support.cli import run_main

# every kind whose models the package embeds (or that loads none)
OFFLINE_KINDS = ("drift", "stability", "heuristic", "rag", "trajectory")
KINDS = ("drift", "stability", "heuristic", "rag", "stereotype", "trajectory")  # the built-in kinds, gate.yml's order


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """As a new user's machine: the hub off, an empty Hugging Face cache (whatever this machine has cached), no
    workflow inputs."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("LLM_GATE_MODEL_DIR", "INPUT_MODEL_DIR", "INPUT_CONFIG", "GITHUB_ACTIONS", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))


def report(directory: Path) -> dict:
    return json.loads((directory / "gate-report" / "report.json").read_text())


# ---------------------------------------------------------------- the first hour, end to end (the test)


@pytest.mark.slow
def test_init_then_run_passes_offline_without_editing_thresholds_then_bless_and_run_again(in_tmp, monkeypatch,
                                                                                          capsys):
    code, out, err = run_main(monkeypatch, capsys, "init", "--kinds", ",".join(OFFLINE_KINDS))
    assert code == 0, err
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED, out + err
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "--quiet")
    # The first run: every absolute threshold judged and passed; change checks have no snapshot yet, which is
    # inconclusive and counts as neutral (exit 0) — not a failure caused by thresholds meant for another model.
    assert code == ExitCode.PASSED, out + err
    first = report(in_tmp)
    assert {s["name"] for s in first["suites"]} == {"feedback-drift", "stability", "rubric", "retrieval", "agent"}
    checks = [c for s in first["suites"] for c in s["checks"]]
    judged = [c for c in checks if c["verdict"] != "inconclusive"]
    assert judged and all(c["verdict"] == "pass" for c in judged), judged  # not even a warning
    assert all("no baseline snapshot" in c["reason"] for c in checks if c["verdict"] == "inconclusive")
    drift_f1 = next(c for c in judged if c["metric"] == "bertscore_f1")
    assert drift_f1["fail"] == 0.70 and drift_f1["value"] > 0.80  # MiniLM's thresholds; reworded feedback clears them

    code, out, err = run_main(monkeypatch, capsys, "baseline", "bless")
    assert code == 0, out + err
    assert sorted(p.name for p in (in_tmp / "baselines" / "metrics").glob("*.json")) == [
        "agent.json", "feedback-drift.json", "retrieval.json", "rubric.json", "stability.json"]
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "--quiet")
    assert code == ExitCode.PASSED, out + err
    reasons = {c.get("reason") or "" for s in report(in_tmp)["suites"] for c in s["checks"]}
    assert not any("no baseline snapshot" in r for r in reasons)  # the blessed snapshot is compared with now


@pytest.mark.slow
def test_the_default_init_runs_offline_on_records_written_as_the_docs_show(in_tmp, monkeypatch, capsys):
    """The default init (drift) with the user's own records in place of the examples: exit 0 offline. Before
    this starter, gate.yml named roberta-large, which is not available offline: exit 3."""
    code, _, err = run_main(monkeypatch, capsys, "init")
    assert code == 0, err
    for example in in_tmp.glob("*/feedback/example*"):
        example.unlink()
    exercise = {"id": 7, "title": "Recursion", "submissions": [{
        "id": 1, "text": "A recursive function calls itself until it reaches a base case.",
        "baseline_feedback": {"timestamp": "2025-01-01T00:00:00Z", "model_version": "gpt-4o", "feedback": [
            {"title": "Base case", "description": "You correctly explain that recursion stops at a base case.",
             "credits": 2}]}}]}
    for folder in ("baselines", "outputs"):
        (in_tmp / folder / "feedback").mkdir(parents=True, exist_ok=True)
    (in_tmp / "baselines" / "feedback" / "recursion.json").write_text(json.dumps(exercise))
    (in_tmp / "outputs" / "feedback" / "gpt-4o-mini.jsonl").write_text(json.dumps({
        "exercise_id": 7, "submission_id": 1, "model": "gpt-4o-mini", "feedback": [
            {"title": "Base case", "description": "You explain correctly that the recursion stops at a base case.",
             "credits": 2}]}) + "\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "--quiet")
    assert code == ExitCode.PASSED, out + err
    assert "not available offline" not in err


# ---------------------------------------------------------------- what init writes


def test_each_kind_gets_a_suite_and_example_records_where_gate_yml_points(in_tmp, capsys):
    written = init_repository(in_tmp, kinds=KINDS)
    config = yaml.safe_load((in_tmp / "gate.yml").read_text())
    assert {s["kind"] for s in config["suites"].values()} == set(KINDS)
    for suite in config["suites"].values():
        for key in ("candidates", "records", "baseline"):
            if key in suite:
                assert list(in_tmp.glob(suite[key])), f"{suite['kind']}.{key}: {suite[key]} matches no example"
    assert {p.relative_to(in_tmp).as_posix() for p in written} >= {p for k in KINDS for p in starters()[k].records}
    # the embedded backbone at layer 6, roberta-large only in comments, with its own thresholds next to it
    assert config["models"]["bertscore"] == {"model": "sentence-transformers/all-MiniLM-L6-v2", "layer": 6}
    text = (in_tmp / "gate.yml").read_text()
    assert "# bertscore: {model: roberta-large, layer: 17}" in text and "# - {min: 0.80, warn: 0.85}" in text


def test_the_default_is_one_drift_suite(in_tmp, capsys):
    init_repository(in_tmp)
    config = yaml.safe_load((in_tmp / "gate.yml").read_text())
    assert [s["kind"] for s in config["suites"].values()] == ["drift"]
    assert "stereotype" not in config["models"]  # a kind not chosen names no model
    assert not (in_tmp / "outputs" / "stability").exists()


def test_next_steps_come_in_the_order_that_works(in_tmp, capsys):
    init_repository(in_tmp, kinds=("drift", "stereotype"))
    out = capsys.readouterr().out
    steps = out[out.index("Next:"):]
    order = ["replace the example records", "models pull holistic-ai/bias_classifier_albertv2", "llm-gate validate",
             "llm-gate run", "llm-gate baseline bless", "commit"]
    positions = [steps.index(s) for s in order]
    assert positions == sorted(positions), steps


def test_gitignore_is_created_or_appended_without_duplicates(in_tmp, capsys):
    (in_tmp / ".gitignore").write_text("node_modules/\n/gate-report\n*.log")  # no final newline
    init_repository(in_tmp)
    lines = (in_tmp / ".gitignore").read_text().splitlines()
    assert lines[:3] == ["node_modules/", "/gate-report", "*.log"]  # kept as it was
    assert ".gate-cache/" in lines and ".gate-models/" in lines
    assert "gate-report/" not in lines  # already there, spelled /gate-report
    before = (in_tmp / ".gitignore").read_text()
    init_repository(in_tmp, force=True)
    assert (in_tmp / ".gitignore").read_text() == before  # nothing appended twice

    fresh = in_tmp / "fresh"
    init_repository(fresh)
    assert [line for line in (fresh / ".gitignore").read_text().splitlines() if not line.startswith("#")] == list(
        GITIGNORE)


def test_refuses_to_overwrite_records_too(in_tmp, capsys):
    (in_tmp / "outputs" / "feedback").mkdir(parents=True)
    (in_tmp / "outputs" / "feedback" / "example.jsonl").write_text("mine\n")
    with pytest.raises(InputError) as caught:
        init_repository(in_tmp)
    assert [p.file for p in caught.value.problems] == ["outputs/feedback/example.jsonl"]
    assert (in_tmp / "outputs" / "feedback" / "example.jsonl").read_text() == "mine\n"
    assert not (in_tmp / "gate.yml").exists()  # all or nothing


def test_kinds_are_parsed_and_an_unknown_one_is_located_invalid_input(in_tmp, monkeypatch, capsys):
    assert parse_kinds("stability, drift") == ("drift", "stability")  # gate.yml's order
    assert parse_kinds("all") == KINDS  # the registered kinds with a starter (`Kind.starter`), in their order
    assert parse_kinds(None) == ("drift",)  # the default: the kinds whose starter says so
    code, _, err = run_main(monkeypatch, capsys, "init", "--kinds", "drift,stereotypes")
    assert code == ExitCode.INVALID_INPUT
    assert "field '--kinds'" in err and "'stereotypes'" in err and "Traceback" not in err
    assert not (in_tmp / "gate.yml").exists()


# ---------------------------------------------------------------- the offline path for a stereotype classifier


def as_pulled(model: Path, model_dir: Path, repo_id: str) -> Path:
    """`model` laid out as `llm-gate models pull REPO_ID --target MODEL_DIR` leaves it (the hub cache layout)."""
    repo = model_dir / ("models--" + repo_id.replace("/", "--"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    shutil.copytree(model, repo / "snapshots" / commit)
    return repo / "snapshots" / commit


@pytest.mark.slow
def test_a_stereotype_suite_runs_offline_from_a_model_dir_or_a_local_directory(in_tmp, monkeypatch, capsys,
                                                                               tmp_path_factory):
    """No classifier is embedded: validate says so (exit 3) until one is in LLM_GATE_MODEL_DIR (what `models pull
    --target` fills, and the action's `model_dir` caches) or models.stereotype names a local directory. The tiny
    ALBERT stands in for HEARTS (tests never reach the hub)."""
    from tests.support.tiny_models import build_tiny_albert_classifier

    classifier = Path(build_tiny_albert_classifier(tmp_path_factory.mktemp("albert") / "albert"))
    init_repository(in_tmp, kinds=("stereotype",))
    code, out, _ = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.RUNTIME_FAILURE and "NOT AVAILABLE OFFLINE" in out

    pulled = as_pulled(classifier, in_tmp / ".gate-models", "holistic-ai/bias_classifier_albertv2")
    monkeypatch.setenv("LLM_GATE_MODEL_DIR", ".gate-models")
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED, out + err
    assert f"gate model cache: {pulled.relative_to(in_tmp)}" in out
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "--quiet")
    assert code in (ExitCode.PASSED, ExitCode.GATE_FAILED), out + err  # a verdict: the classifier loaded
    suite = report(in_tmp)["suites"][0]
    assert suite["name"] == "stereotype" and suite["metrics"].get("drift_score_mean") is not None

    monkeypatch.delenv("LLM_GATE_MODEL_DIR")
    shutil.copytree(classifier, in_tmp / "models" / "bias-classifier")
    text = (in_tmp / "gate.yml").read_text()
    (in_tmp / "gate.yml").write_text(text.replace("stereotype: holistic-ai/bias_classifier_albertv2",
                                                  "stereotype: ./models/bias-classifier"))
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == ExitCode.PASSED and "./models/bias-classifier (stereotype classifier; stereotype) -> local path" \
        in out, out + err


# ---------------------------------------------------------------- the workflows (issue 31: the base owns the verdict)


def test_init_writes_the_trusted_recipe_by_default_and_the_single_job_on_request(in_tmp, monkeypatch, capsys):
    from gate.cli.commands.init import CANDIDATES_WORKFLOW, GATE_WORKFLOW

    code, out, err = run_main(monkeypatch, capsys, "init")
    assert code == 0, err
    gate = yaml.safe_load((in_tmp / GATE_WORKFLOW).read_text())
    candidates = yaml.safe_load((in_tmp / CANDIDATES_WORKFLOW).read_text())
    assert list(gate[True]) == ["workflow_run"] and list(candidates[True]) == ["pull_request"]
    step = next(s for s in gate["jobs"]["quality-gate"]["steps"] if "llm-quality-gate@" in str(s.get("uses")))
    assert step["with"]["candidates_dir"] == ".gate-candidates" and step["with"]["check_name"] == "llm-quality-gate"
    steps = out[out.index("Next:"):]
    assert "placeholder step 'Produce candidate outputs'" in steps and CANDIDATES_WORKFLOW in steps
    assert "merge to the default branch" in steps and "require the check 'llm-quality-gate'" in steps

    single = in_tmp / "single"
    code, out, err = run_main(monkeypatch, capsys, "init", str(single), "--single-job")
    assert code == 0, err
    assert not (single / CANDIDATES_WORKFLOW).exists()
    flow = yaml.safe_load((single / GATE_WORKFLOW).read_text())
    steps = flow["jobs"]["quality-gate"]["steps"]
    gate_step = next(s for s in steps if "llm-quality-gate@" in str(s.get("uses")))
    base = next(s for s in steps if (s.get("with") or {}).get("path") == ".gate-base")
    assert gate_step["with"]["base_checkout"] == ".gate-base" and steps.index(base) < steps.index(gate_step)
    assert "pull_request.base.sha" in base["with"]["ref"] and base["with"]["persist-credentials"] is False


def test_the_placeholder_pipeline_step_warns_and_gates_the_committed_records(in_tmp, capsys):
    """A fresh init's first pull request is not red for a confusing reason: the placeholder step says what to put
    there (a warning annotation) and passes while the example records are committed; with none it fails, saying
    why. The layout step stores outputs/… in the artifact, as in the repository."""
    import subprocess

    from gate.cli.commands.init import CANDIDATES_WORKFLOW

    init_repository(in_tmp)
    steps = yaml.safe_load((in_tmp / CANDIDATES_WORKFLOW).read_text())["jobs"]["candidates"]["steps"]
    placeholder = next(s for s in steps if s.get("name") == "Produce candidate outputs")["run"]
    layout = next(s for s in steps if s.get("name") == "Keep the repository layout")["run"]
    done = subprocess.run(["bash", "-e", "-c", placeholder], cwd=in_tmp, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("::warning title=Placeholder pipeline step::Replace")
    done = subprocess.run(["bash", "-e", "-c", layout], cwd=in_tmp, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (in_tmp / "gate-candidates" / "outputs" / "feedback" / "example.jsonl").is_file()
    shutil.rmtree(in_tmp / "outputs")
    done = subprocess.run(["bash", "-e", "-c", placeholder], cwd=in_tmp, capture_output=True, text=True)
    assert done.returncode == 1 and "::error title=No candidate outputs::" in done.stdout
