"""k-of-n per item through the real CLI (issue 35, items 1 and 2): a heuristic suite with four samples per prompt
and gate.yml's `items:`; items.csv's k-of-n columns, report.json's `pass_rates` and `flaky`, a failing and a passing
k-of-n check, an advisory one, a significance-tested one in the gate's Holm family against a blessed snapshot, and
located errors. Expected values are counted from the draws and the rubric scores the test computes itself."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

from gate.kinds.heuristic.catalogue import RUBRICS
from gate.kinds.heuristic.rubric import load_rubric
from gate.kinds.heuristic.rules import score_response
from tests.support.cli import outside_actions, run_main

CODE = 'def add(a, b):\n    """Add."""\n    return a + b\n'
GOOD = ('def total(values):\n    """Sum."""\n    try:\n        result = sum(values)\n    except TypeError:\n'
        '        raise ValueError("bad")\n    return result\n')
LOOP, SORT = "Use a loop.", "Sort it first."
GOOD_RUN = {"C01": [GOOD] * 4, "C02": [CODE, LOOP, CODE, LOOP], "C03": [LOOP] * 4, "C04": [GOOD, CODE, CODE, SORT]}
BAD_RUN = {"C01": [GOOD, LOOP, LOOP, LOOP], "C02": [LOOP] * 4, "C03": [LOOP] * 4, "C04": [LOOP, CODE, LOOP, SORT]}
# the change test needs more items than four to detect its own bound: each prompt twice (C05-C08 as C01-C04)
GOOD_8 = {**GOOD_RUN, **{f"C0{int(p[2]) + 4}": d for p, d in GOOD_RUN.items()}}
BAD_8 = {**BAD_RUN, **{f"C0{int(p[2]) + 4}": d for p, d in BAD_RUN.items()}}
ITEMS = "    items:\n      criterion: {metric: final_score, min: 6.0}\n      k: 2\n      pass_rate_min: 0.25\n"
CHECKS = ("    checks:\n"
          "      pass_rate_mean: [{min: 0.5}, {max_decrease: 0.1, significant: true, scope: suite}]\n"
          "      pass_hat_k_mean: {min: 0.5}\n"
          "      pass_rate_met_share: {min: 0.9, advisory: true}\n")


def finals(run: dict[str, list[str]]) -> dict[str, list[float]]:
    rubric = load_rubric(None, Path("."), "rubric")
    return {p: [score_response(rubric, "coding", r, p).final_score for r in draws] for p, draws in run.items()}


def setup(tmp_path: Path, monkeypatch, run: dict[str, list[str]], items: str = ITEMS, checks: str = CHECKS) -> None:
    rows = [{"model": "a", "category": "coding", "prompt_id": p, "response": r, "sample": s}
            for p, draws in run.items() for s, r in enumerate(draws)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text("version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: r.jsonl\n"
                                       + items + checks)
    outside_actions(monkeypatch, tmp_path)


def checks_of(report: dict) -> dict[tuple[str, str], dict]:
    return {(c["metric"], c["scope"]): c for c in report["suites"][0]["checks"]}


def test_columns_checks_and_flaky_items(tmp_path, monkeypatch, capsys):
    setup(tmp_path, monkeypatch, GOOD_RUN)
    scores = finals(GOOD_RUN)
    hits = {p: [s >= 6.0 for s in v] for p, v in scores.items()}
    assert [sum(h) for h in hits.values()] == [4, 2, 0, 3]  # the design of the draws above
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code == 1, err  # pass_hat_k_mean fails
    with open(tmp_path / "out" / "rubric" / "items.csv", newline="") as f:
        reader = csv.DictReader(f)
        rows = {r["prompt_id"]: r for r in reader}
        header = reader.fieldnames
    assert header[-8:] == ["draws", "flaky", "passed", "pass_rate", "pass_rate_low", "pass_at_k", "pass_hat_k",
                           "pass_rate_met"]  # the kind's columns and `flaky` first, as before; k-of-n appended
    for prompt, h in hits.items():
        c, n = sum(h), len(h)
        pairs = list(itertools.combinations(h, 2))
        row = rows[prompt]
        assert int(row["passed"]) == c and float(row["pass_rate"]) == pytest.approx(c / n)
        low = proportion_confint(c, n, method="wilson")[0]
        assert float(row["pass_rate_low"]) == pytest.approx(low, abs=1e-12)
        assert float(row["pass_at_k"]) == pytest.approx(sum(any(p) for p in pairs) / len(pairs))
        assert float(row["pass_hat_k"]) == pytest.approx(sum(all(p) for p in pairs) / len(pairs))
        assert float(row["pass_rate_met"]) == float(low >= 0.25)
        assert row["flaky"] == (f"final_score ≥ 6: {c}/{n} draws" if 0 < c < n else "")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    suite = report["suites"][0]
    mean_rate = sum(sum(h) / 4 for h in hits.values()) / 4
    checks = checks_of(report)
    assert checks[("pass_rate_mean", "group")]["verdict"] == "pass"
    assert checks[("pass_rate_mean", "group")]["value"] == pytest.approx(mean_rate)
    assert checks[("pass_hat_k_mean", "group")]["verdict"] == "fail"  # (1 + 1/6 + 0 + 1/2) / 4 < 0.5
    assert checks[("pass_hat_k_mean", "group")]["value"] == pytest.approx((1 + 1 / 6 + 0 + 3 / 6) / 4)
    met = checks[("pass_rate_met_share", "group")]
    assert met["verdict"] == "fail" and met["advisory"] is True and met["value"] == pytest.approx(0.5)
    assert checks[("pass_rate_mean", "suite")]["verdict"] == "inconclusive"  # no snapshot yet
    rates = suite["pass_rates"]
    assert rates["criterion"] == "final_score ≥ 6" and rates["items"] == 4
    assert [r["key"]["prompt_id"] for r in rates["lowest"]] == ["C03", "C02", "C04", "C01"]
    assert rates["metrics"]["pass_rate_mean"] == pytest.approx(mean_rate)
    flaky = suite["flaky"]
    assert flaky["count"] == 2  # C02 (2/4) and C04 (3/4) straddle the criterion; nothing else is listed
    first = flaky["items"][0]
    assert (first["key"]["prompt_id"], first["metric"], first["met"], first["draws"]) == \
        ("C02", "items.criterion", 2, 4)
    assert (first["min"], first["max"]) == (pytest.approx(min(scores["C02"])), pytest.approx(max(scores["C02"])))
    comment = (tmp_path / "out" / "report.md").read_text()
    assert "**🎲 2 flaky items**" in comment and "prompt&#95;id C02 | `final&#95;score ≥ 6` | 2 of 4 |" in comment


SIGNIFICANT = ("    checks:\n      pass_rate_mean: {max_decrease: 0.35, significant: true, scope: suite}\n"
               "      final_score_mean: {max_decrease: 5, significant: true, scope: suite}\n")


def test_a_significance_tested_k_of_n_check_joins_the_gates_family(tmp_path, monkeypatch, capsys):
    setup(tmp_path, monkeypatch, GOOD_8, checks=SIGNIFICANT)
    code, _, err = run_main(monkeypatch, capsys, "baseline", "bless", "--commit", "abc1234")
    assert code == 0, err
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "same")
    unchanged = json.loads((tmp_path / "same" / "report.json").read_text())
    same = checks_of(unchanged)[("pass_rate_mean", "suite")]
    assert same["verdict"] == "pass" and same["value"] == pytest.approx(0.0), same.get("reason")
    setup(tmp_path, monkeypatch, BAD_8, checks=SIGNIFICANT)
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "bad")
    assert code == 1, err
    report = json.loads((tmp_path / "bad" / "report.json").read_text())
    change = checks_of(report)[("pass_rate_mean", "suite")]
    assert change["verdict"] == "fail" and change["change"]["tested"] is True
    assert change["value"] == pytest.approx((1 + 0 + 0 + 1) / 16 - (4 + 2 + 0 + 3) / 16)
    # one family with the rubric's own tested check: Holm over m = 2 (the smaller p times 2, then the running max)
    other = checks_of(report)[("final_score_mean", "suite")]
    assert report["statistics"]["tested"] == 2
    ps = sorted([change["change"]["p_value"], other["change"]["p_value"]])
    holm = [min(1.0, 2 * ps[0]), min(1.0, max(2 * ps[0], ps[1]))]
    assert sorted([change["change"]["p_adjusted"], other["change"]["p_adjusted"]]) == pytest.approx(holm)
    assert change["change"]["p_adjusted"] <= 0.05 and not change["change"]["underpowered"]


def test_located_errors_for_a_bad_items_block(tmp_path, monkeypatch, capsys):
    items = ("    items:\n      criterion: {metric: final_score, min: 6.0, max: 7}\n      pass_rate_min: 1.5\n"
             "      k: 0\n")
    setup(tmp_path, monkeypatch, GOOD_RUN, items=items, checks="")
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code == 2
    assert "gate.yml:7" in err and "exactly one of `min`/`max`" in err  # the criterion's line
    assert "gate.yml:8" in err and "pass_rate_min" in err  # a rate outside [0, 1]
    assert "gate.yml:9" in err and "items.k" in err
    assert "Traceback" not in err


def test_a_criterion_typo_fails_validate_before_anything_is_scored(tmp_path, monkeypatch, capsys):
    items = "    items:\n      criterion: {metric: final_scor, min: 6.0}\n      k: 5\n"
    setup(tmp_path, monkeypatch, GOOD_RUN, items=items, checks="    checks:\n      pass_rate_mean: {min: 0.5}\n")
    (tmp_path / "r.jsonl").unlink()  # gate.yml alone tells a packaged rubric's item values
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == 2
    assert "gate.yml:7, field 'suites.rubric.items.criterion.metric'" in err and "did you mean 'final_score'" in err
    assert "Traceback" not in err


def test_located_errors_found_reading_the_records(tmp_path, monkeypatch, capsys):
    """A rubric file's item values are known only with it: its criterion and `k` are checked on the records, all
    problems at once."""
    items = "    rubric: house.yml\n    items:\n      criterion: {metric: final_scor, min: 6.0}\n      k: 5\n"
    setup(tmp_path, monkeypatch, GOOD_RUN, items=items, checks="    checks:\n      pass_rate_mean: {min: 0.5}\n")
    (tmp_path / "house.yml").write_bytes((RUBRICS / "seed-v1.yml").read_bytes())
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code == 2
    assert "gate.yml:8, field 'suites.rubric.items.criterion.metric'" in err and "did you mean 'final_score'" in err
    assert "gate.yml:9, field 'suites.rubric.items.k'" in err and "the fewest: 4" in err and "`k: 4`" in err
    assert "Traceback" not in err


def test_a_k_of_n_check_without_items_is_a_located_error(tmp_path, monkeypatch, capsys):
    setup(tmp_path, monkeypatch, GOOD_RUN, items="", checks="    checks:\n      pass_rate_mean: {min: 0.5}\n")
    code, out, err = run_main(monkeypatch, capsys, "validate")
    assert code == 2
    assert "gate.yml:7, field 'suites.rubric.checks.pass_rate_mean'" in err and "add e.g. `items:" in err
