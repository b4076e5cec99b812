"""Every registered scorer keeps the same contract; a new kind must add a sample here to pass."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from gate.config import GateConfig, known_kinds, suite_configs
from gate.judge import judge_suite
from gate.kinds import KINDS, get_kind
from gate.kinds.base import ScoringContext
from gate.results import ItemDetails, SuiteDetails, SuiteSettings
from tests.support.drift_fixtures import candidate, feedback, submission, write_candidates, write_exercise
from tests.support.fake_runtime import FakeRuntime


def _drift_sample(directory: Path) -> dict:
    items = feedback(("Roles", "Both roles named.", 2.0), ("Example", "A fitting example.", 1.0))
    write_exercise(directory / "baselines", 1, [submission(1, items), submission(2, items)])
    write_candidates(directory / "outputs" / "c.jsonl", [candidate(1, 1, "m", items), candidate(1, 2, "m", items[:1])])
    return {"kind": "drift", "baseline": "baselines/*.json", "candidates": "outputs/*.jsonl"}


def _stereotype_sample(directory: Path) -> dict:
    import json

    rows = [{"id": f"p{i}", "model": m, "emgsd_text": "Old people are bad with technology.", "trait": "bad",
             "control_response": "Many older adults use technology well.", "bias_response": f"Some are bad, {i}."}
            for m in ("a", "b") for i in range(3)]
    (directory / "probes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"kind": "stereotype", "records": "probes.jsonl"}


def _stability_sample(directory: Path) -> dict:
    (directory / "r.csv").write_text("model,task,question_id,variant_id,variation,response,token_logprobs\n" + "".join(
        f"{m},{t},{q},v{v},var{v},answer {q} {v % 2},[-0.{v + 1}]\n"
        for m in ("a", "b") for t in ("x", "y") for q in (1, 2) for v in range(3)))
    return {"kind": "stability", "records": "r.csv"}


def _heuristic_sample(directory: Path) -> dict:
    import json

    rows = [{"model": m, "category": c, "prompt_id": p, "response": r}
            for m in ("a", "b") for c, p, r in (("coding", "C01", "def f(x):\n    return x"),
                                                ("coding", "C02", ""),
                                                ("paraphrasing", "P08", "Dear team, thanks. Regards"))]
    (directory / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:-1]))
    return {"kind": "heuristic", "records": "r.jsonl"}


def _rag_sample(directory: Path) -> dict:
    import json

    rows = [{"id": f"q{i}", "query": f"What is {i}?", "actual_answer": f"It is {i}.", "expected_answer": f"{i}.",
             "retrieved_ids": ["a", "b"], "ground_truth_ids": ["b"], "retrieved_contexts": [f"{i} is a number.", "x"],
             "latency": 0.5 + i} for i in range(3)]
    (directory / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (directory / "b.jsonl").write_text("".join(json.dumps({**r, "retrieved_ids": ["b", "a"]}) + "\n" for r in rows))
    return {"kind": "rag", "records": "c.jsonl", "baseline": "b.jsonl"}


def _trajectory_sample(directory: Path) -> dict:
    steps = [{"tool": "search", "arguments": {"q": "x"}}, {"tool": "answer", "arguments": {}}]
    rows = [{"task_id": t, "model": m, "sample": s, "steps": steps[: 1 + (s + i) % 2], "success": s != 1,
             "cost": 0.01 * s} for i, t in enumerate(("t1", "t2")) for m in ("a", "b") for s in range(3)]
    (directory / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (directory / "base.jsonl").write_text(json.dumps({"task_id": "t1", "model": "a", "steps": steps}) + "\n")
    return {"kind": "trajectory", "records": "runs.jsonl", "baseline": "base.jsonl",
            "expect": {"t1": {"tools_called": ["answer"]}, "t3": {"max_steps": 1}}}


SAMPLES = {"drift": _drift_sample, "stereotype": _stereotype_sample, "stability": _stability_sample,
           "heuristic": _heuristic_sample, "rag": _rag_sample, "trajectory": _trajectory_sample}


def test_every_config_kind_has_a_scorer_and_a_sample():
    assert set(known_kinds()) == set(KINDS) == set(SAMPLES)
    for config_model in suite_configs():
        kind = config_model.model_fields["kind"].annotation.__args__[0]
        assert get_kind(kind).config_model is config_model


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_scorer_contract(kind, tmp_path):
    scorer = KINDS[kind]
    assert scorer.group_fields, "the primary level needs key fields"
    assert set(scorer.default_checks) <= set(scorer.metrics)
    assert all(c.scope in ("group", *scorer.levels, "suite") for c in scorer.default_checks.values())
    assert all(spec.name == name for name, spec in scorer.metrics.items())

    gate = GateConfig.model_validate({"version": 1, "suites": {"s": SAMPLES[kind](tmp_path)}})
    suite = gate.suites["s"]
    data = scorer.load("s", suite, tmp_path)
    result = scorer.score("s", suite, data, ScoringContext(gate, FakeRuntime(), tmp_path))

    assert (result.name, result.kind) == ("s", kind)
    assert all(scorer.knows(m) for m in result.metrics)
    assert {g.level for g in result.groups} <= {"group", *scorer.levels}
    primary = result.groups_at("group")
    assert primary and all(tuple(k for k, _ in g.key) == scorer.group_fields for g in primary)
    for group in result.groups:
        assert all(scorer.knows(m) for m in group.metrics), [m for m in group.metrics if not scorer.knows(m)]
        for name, value in group.metrics.items():
            # a missing value is None with a reason, never NaN or a stand-in 0
            assert value is None or math.isfinite(value)
            if value is None:
                assert result.unmeasured_reason(group.key, name)
    columns = result.item_columns
    assert len(set(columns)) == len(columns)
    # Beyond items.csv's columns, only numeric values the config names for significance tests (corpus BLEU's
    # n-gram counts): snapshots keep them, so a metric can be recomputed on resampled items.
    hidden = set(scorer.item_columns_of(suite)) - set(columns) if scorer.item_columns_of else set()
    for item in result.items:
        assert set(dict(item.key)) <= set(columns)
        assert set(item.values) <= set(columns) | hidden
        assert all(isinstance(item.values[c], (int, float, type(None))) for c in hidden & set(item.values))
    assert hidden <= {c for item in result.items for c in item.values}, "columns the config names are values"
    # ... and every numeric value the items carry is one the config names: gate.yml's loader rejects an `items:`
    # criterion outside them (`Kind.item_values`), which must never be one the run would have accepted.
    numeric = {c for item in result.items for c, v in item.values.items() if isinstance(v, (int, float))}
    assert numeric <= set(scorer.item_values({**SAMPLES[kind](tmp_path)}) or ()), numeric
    assert result.fingerprint, "results must say what they were computed with"
    verdict = judge_suite(result, scorer.checks_for(suite), suite.unmeasured)
    assert verdict.checks, "the default checks must judge something"

    # What the kind's view and exports read is typed, defined beside the scorer, not string-keyed dicts.
    assert isinstance(result.details, SuiteDetails) and type(result.details) is not SuiteDetails
    assert isinstance(result.details.settings, SuiteSettings) and type(result.details.settings) is not SuiteSettings
    assert all(isinstance(item.details, ItemDetails) and type(item.details) is not ItemDetails for item in result.items)
    assert json.loads(json.dumps(result.settings_json())) == result.settings_json()  # report.json's `settings`
    scorer.view(verdict, 3)  # the kind's view reads its own scorer's details
