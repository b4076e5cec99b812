"""`llm-gate calibrate` through the CLI: the metrics a user gates on (defaults per kind, `--metrics`), `--alpha`,
`--scope`, the printed gate-level false-alarm rate, and located exit-2 errors for a typo."""

from __future__ import annotations

import json
import re

import numpy as np
import yaml

from tests.test_cli import run_cli


def write_runs(directory, k=6, seed=11):
    """k drift reports: two exercises, bertscore_f1 / bertscore_recall / credit_drift_mean per group,
    bertscore_f1 also at the suite level."""
    rng = np.random.default_rng(seed)
    paths = []
    for run in range(k):
        groups = [{"level": "group", "key": {"exercise": str(g)},
                   "metrics": {"bertscore_f1": float(rng.normal(0.9 - g / 10, 0.01)),
                               "bertscore_recall": float(rng.normal(0.85, 0.01)),
                               "credit_drift_mean": float(rng.normal(1 + g, 0.1))}} for g in range(2)]
        report = {"schema": 1, "suites": [{"name": "fb", "kind": "drift", "fingerprint": {}, "groups": groups,
                                           "metrics": {"bertscore_f1": float(rng.normal(0.85, 0.005))}}]}
        path = directory / f"run{run}.json"
        path.write_text(json.dumps(report))
        paths.append(str(path))
    return paths


def test_defaults_propose_the_gated_metrics_with_change_checks(tmp_path, monkeypatch, capsys):
    paths = write_runs(tmp_path)
    assert run_cli(monkeypatch, "calibrate", *paths) == 0
    text = capsys.readouterr().out
    snippet = yaml.safe_load(text)
    checks = snippet["suites"]["fb"]["checks"]
    assert set(checks) == {"bertscore_f1", "credit_drift_mean"}  # not bertscore_recall: not gated on by default
    floor, change = checks["bertscore_f1"]
    assert floor["scope"] == "group" and change["scope"] == "suite" and change["significant"] is True
    # the recipe: any significant change fails (bound 0); the MDE is in the note
    assert change["max_decrease"] == 0 and checks["credit_drift_mean"][1]["max_increase"] == 0
    assert "detects a change ≥" in text
    assert snippet["alpha"] == 0.05 and "Expected gate-level false-alarm rate" in text


def test_min_effect_bounds_change_checks_at_the_mde_and_the_floors_share_one_budget(tmp_path, monkeypatch, capsys):
    paths = write_runs(tmp_path)
    assert run_cli(monkeypatch, "calibrate", *paths, "--min-effect", "--floor-budget", "0.004") == 0
    text = capsys.readouterr().out
    checks = yaml.safe_load(text)["suites"]["fb"]["checks"]
    assert checks["bertscore_f1"][1]["max_decrease"] > 0 and checks["credit_drift_mean"][1]["max_increase"] > 0
    # the snippet's thresholds share 0.4 %: the guaranteed ceiling is alpha + at most 0.4 %
    ceiling = float(re.search(r"guaranteed ceiling ([0-9.]+)%", text).group(1))
    assert 5.0 < ceiling <= 5.4


def test_metrics_alpha_and_scope_options(tmp_path, monkeypatch, capsys):
    paths = write_runs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run_cli(monkeypatch, "calibrate", *paths, "--metrics", "bertscore_recall, bertscore_f1",
                   "--alpha", "0.01", "--scope", "group", "-o", "proposed.yml") == 0
    out = capsys.readouterr().out
    assert "expected gate-level false-alarm rate ≈" in out and "warning rate ≈" in out
    snippet = yaml.safe_load((tmp_path / "proposed.yml").read_text())
    checks = snippet["suites"]["fb"]["checks"]
    assert set(checks) == {"bertscore_f1", "bertscore_recall"} and snippet["alpha"] == 0.01
    assert {entry["scope"] for c in checks.values() for entry in c} == {"group"}


def test_a_metric_no_suite_has_or_an_unknown_scope_is_exit_2(tmp_path, monkeypatch, capsys):
    paths = write_runs(tmp_path, k=3)
    assert run_cli(monkeypatch, "calibrate", *paths, "--metrics", "bertscore_f2") == 2
    err = capsys.readouterr().err
    assert "--metrics" in err and "bertscore_f2" in err and "bertscore_f1" in err
    assert run_cli(monkeypatch, "calibrate", *paths, "--scope", "grop") == 2
    assert "grop" in capsys.readouterr().err
    assert run_cli(monkeypatch, "calibrate", *paths, "--alpha", "0.6") == 2


def test_warn_levels_share_the_warn_budget_and_zero_means_none(tmp_path, monkeypatch, capsys):
    paths = write_runs(tmp_path)
    assert run_cli(monkeypatch, "calibrate", *paths, "--warn-budget", "0.05") == 0
    text = capsys.readouterr().out
    assert "they share --warn-budget 0.05" in text and "Expected warning rate of an unchanged system" in text
    assert all("warn" in c[0] for c in yaml.safe_load(text)["suites"]["fb"]["checks"].values())
    assert run_cli(monkeypatch, "calibrate", *paths, "--warn-budget", "0") == 0
    checks = yaml.safe_load(capsys.readouterr().out)["suites"]["fb"]["checks"]
    assert not any("warn" in c[0] for c in checks.values())


def test_reports_from_before_a_rename_calibrate_with_later_ones_under_the_new_name(tmp_path, monkeypatch, capsys):
    """RAG's embedding measure was `faithfulness` (issue 36): three reports from before and three after calibrate as
    six runs of `context_similarity`, and `--metrics faithfulness` is read as the new name, each with a warning."""
    rng = np.random.default_rng(5)
    paths = []
    for run in range(6):
        name = "faithfulness" if run < 3 else "context_similarity"
        report = {"schema": 1, "suites": [{"name": "retrieval", "kind": "rag", "fingerprint": {},
                                           "metrics": {name: float(rng.normal(0.8, 0.01)),
                                                       "answer_relevancy": float(rng.normal(0.7, 0.01))}}]}
        paths.append(tmp_path / f"run{run}.json")
        paths[-1].write_text(json.dumps(report))
    monkeypatch.chdir(tmp_path)
    assert run_cli(monkeypatch, "calibrate", *map(str, paths), "--metrics", "faithfulness,answer_relevancy",
                   "-o", "proposed.yml") == 0
    err = capsys.readouterr().err
    assert err.count("faithfulness read as context_similarity (renamed since)") == 3 and "run0.json" in err
    assert "--metrics faithfulness: renamed context_similarity" in err
    text = (tmp_path / "proposed.yml").read_text()
    assert set(yaml.safe_load(text)["suites"]["retrieval"]["checks"]) == {"context_similarity", "answer_relevancy"}
    assert re.search(r"context_similarity: .*over 6 runs", text)  # all six runs, not the three of either name
    assert not any(line.startswith("::") for line in err.splitlines())
