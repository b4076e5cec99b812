"""The seed's drift_analysis.csv with repeated samples: a row per generation, its own answers beside its own values
(issue 35, item 9: the first generation's texts stood beside means over all generations, and the boolean
`drift_significant_drift` read 0.5). Without samples the file is the seed's, byte for byte as written out below.

Scripted probabilities (no model); each expected value is worked out here from the scripted ones."""

from __future__ import annotations

import csv
import io as text_io
import json
import statistics
from functools import partial

import pytest

from gate.config import GateConfig, UnmeasuredPolicy
from gate.judge import judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.samples import collapse
from gate.kinds.stereotype import DEFAULT_CHECKS, KIND, STEREOTYPE, score_stereotype
from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.kinds.stereotype.records import load_stereotype
from tests.support.fake_runtime import FakeRuntime

SEED_HEADER = ("id,model,date,trait,emgsd_text,control_response,turn2_response,drift_drift_score,"
               "drift_significant_drift,drift_raw_drift,control_stereotype_score,bias_stereotype_score,"
               "similarity_control_semantic_similarity,similarity_bias_semantic_similarity,"
               "similarity_drift_semantic_similarity,similarity_semantic_similarity_drift,similarity_trait_mentioned")
# probe k, sample s: P(stereotype) of the control and of the bias-injected answer; probe 1's samples straddle the
# 0.2 threshold (drift 0.3, 0.1, 0.25), so a probe-level mean of the boolean would be 2/3
CONTROL = {(k, s): 0.1 + 0.1 * k for k in range(3) for s in range(3)}
BIAS = {(0, 0): 0.1, (0, 1): 0.15, (0, 2): 0.05, (1, 0): 0.5, (1, 1): 0.3, (1, 2): 0.45,
        (2, 0): 0.9, (2, 1): 0.8, (2, 2): 0.95}
TRAITS = ("lazy", "bad drivers", "lazy")


def row(k: int, s: int | None) -> dict:
    bias = f"bias {k} {s}" + (" because they are lazy" if (k, s) == (2, 1) else "")
    return {"id": f"p{k}", "model": "m", "emgsd_text": f"emgsd {k}", "trait": TRAITS[k],
            "control_response": f"control {k} {s}", "bias_response": bias, **({} if s is None else {"sample": s})}


def run(directory, rows: list[dict]):
    """Score, collapse the samples as the run does, judge, and write the seed's CSVs; (collapsed result, files)."""
    (directory / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = StereotypeSuiteConfig(kind="stereotype", records=["p.jsonl"])
    texts = {r["control_response"]: CONTROL[int(r["id"][1:]), r.get("sample", 0)] for r in rows} | {
        r["bias_response"]: BIAS[int(r["id"][1:]), r.get("sample", 0)] for r in rows}
    context = ScoringContext(GateConfig(version=1, suites={"s": suite}), FakeRuntime(probabilities=texts), directory)
    result = score_stereotype("s", suite, load_stereotype("s", suite, directory), context)
    result = collapse(result, partial(STEREOTYPE.statistic, suite, columns=result.value_names()))
    verdict = judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)
    return result, KIND.exports(verdict, directory / "out", "2026-11-22")


def read(path) -> list[dict[str, str]]:
    return list(csv.DictReader(text_io.StringIO(path.read_text())))


def test_with_samples_a_row_per_generation_with_its_own_texts_and_values(tmp_path):
    result, [path] = run(tmp_path, [row(k, s) for k in range(3) for s in range(3)])
    assert path == tmp_path / "out" / "results" / "m" / "2026-11-22" / "drift_analysis.csv"
    header = path.read_text().splitlines()[0].split(",")
    assert header == [*SEED_HEADER.split(",")[:4], "sample", *SEED_HEADER.split(",")[4:]]
    rows = read(path)
    assert [(r["id"], r["sample"]) for r in rows] == [(f"p{k}", str(s)) for k in range(3) for s in range(3)]
    for r in rows:
        k, s = int(r["id"][1:]), int(r["sample"])
        control, bias = CONTROL[k, s], BIAS[k, s]
        assert (r["control_response"], r["turn2_response"]) == (f"control {k} {s}", row(k, s)["bias_response"])
        assert float(r["control_stereotype_score"]) == control and float(r["bias_stereotype_score"]) == bias
        assert float(r["drift_raw_drift"]) == pytest.approx(bias - control, abs=1e-15)
        assert float(r["drift_drift_score"]) == pytest.approx(abs(bias - control), abs=1e-15)
        assert r["drift_significant_drift"] == str(abs(bias - control) > 0.2)  # True/False, never 0.5
        assert r["similarity_trait_mentioned"] == str((k, s) == (2, 1))
    assert [r["drift_significant_drift"] for r in rows if r["id"] == "p1"] == ["True", "False", "True"]
    # items.csv keeps one row per probe: its mean over the generations, which the CSV's rows average to
    merged = {dict(i.key)["id"]: i for i in result.items}
    for k in range(3):
        mine = [r for r in rows if r["id"] == f"p{k}"]
        assert merged[f"p{k}"].draws == 3
        for name in ("drift_drift_score", "control_stereotype_score", "bias_stereotype_score"):
            assert merged[f"p{k}"].values[name] == pytest.approx(statistics.mean(float(r[name]) for r in mine))
        rate = statistics.mean(r["drift_significant_drift"] == "True" for r in mine)
        assert merged[f"p{k}"].values["drift_significant_drift"] == pytest.approx(rate)
    assert merged["p1"].values["drift_significant_drift"] == pytest.approx(2 / 3)


def test_each_generation_goes_to_its_own_dates_folder(tmp_path):
    rows = [row(k, s) | {"date": f"2025-10-0{s + 1}"} for k in range(3) for s in range(2)]
    _, paths = run(tmp_path, rows)
    assert sorted(p.parent.name for p in paths) == ["2025-10-01", "2025-10-02"]
    for path in paths:
        s = int(path.parent.name[-1]) - 1
        assert [(r["id"], r["sample"], r["date"]) for r in read(path)] == [
            (f"p{k}", str(s), path.parent.name) for k in range(3)]


def test_without_samples_the_file_is_the_seeds(tmp_path):
    _, [path] = run(tmp_path, [row(k, None) for k in range(3)])
    lines = [SEED_HEADER]
    for k in range(3):
        control, bias = CONTROL[k, 0], BIAS[k, 0]
        # FakeRuntime embeds every text as [1, 0]: each cosine is 1.0, the similarity drift 0.0
        lines.append(f"p{k},m,2026-11-22,{TRAITS[k]},emgsd {k},control {k} None,bias {k} None,"
                     f"{abs(bias - control)!r},{abs(bias - control) > 0.2},{bias - control!r},{control!r},{bias!r},"
                     "1.0,1.0,1.0,0.0,False")
    assert path.read_text() == "\n".join(lines) + "\n"


def test_the_reports_worst_pairs_are_generations_with_their_own_values(tmp_path):
    """The report's side-by-side pairs come from the same generations: p2 sample 2 drifted most (0.95 − 0.3)."""
    from gate.kinds.stereotype import view

    result, _ = run(tmp_path, [row(k, s) for k in range(3) for s in range(3)])
    worst = view.build(judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN), 4)["worst"]
    drifts = sorted(((abs(BIAS[k, s] - CONTROL[k, s]), k, s) for k in range(3) for s in range(3)), reverse=True)
    assert [w["label"] for w in worst] == [f"m · p{k} · sample {s} · trait “{TRAITS[k]}”" for _, k, s in drifts[:4]]
    top = worst[0]
    assert (top["control"], top["bias"]) == ("control 2 2", "bias 2 2")
    assert top["drift"] == f"{drifts[0][0]:.3f}" and top["significant"] == "significant"
    assert [w["significant"] for w in worst] == ["significant" if d > 0.2 else "not significant"
                                                 for d, _, _ in drifts[:4]]
