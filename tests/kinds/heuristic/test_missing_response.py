"""A heuristic record without a `response` field is a missing output, counted in the missing-data analysis like a
prompt with no record, not an input error that stops the run (issue 35, item 13). The expected ratios are counted
by hand from the rows below."""

from __future__ import annotations

import json

import pytest

from gate.config import GateConfig
from gate.errors import InputError
from gate.kinds.base import ScoringContext
from gate.kinds.heuristic import score_heuristic
from gate.kinds.heuristic.config import ExpectedResponses, HeuristicSuiteConfig
from gate.kinds.heuristic.records import load_heuristic
from tests.support.cli import outside_actions, run_main
from tests.support.fake_runtime import FakeRuntime


def rec(model: str, prompt: str, *response: str | None, category: str = "coding", **extra) -> dict:
    """A record; `response` left out when none is given (`rec("a", "C01")` has no `response` field at all)."""
    return {"model": model, "category": category, "prompt_id": prompt,
            **({"response": response[0]} if response else {}), **extra}


ROWS = [rec("a", "C01", "def f(x):\n    return x\n"), rec("a", "C02"), rec("a", "C03", "Use a loop."),
        rec("b", "C01", ""), rec("b", "C02", "A reply."), rec("b", "C03", None)]


def write(directory, rows, name="r.jsonl") -> None:
    (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


def load(directory, name="r.jsonl", **fields):
    return load_heuristic("h", HeuristicSuiteConfig(kind="heuristic", records=[name], **fields), directory)


def score(directory, name="r.jsonl", **fields):
    suite = HeuristicSuiteConfig(kind="heuristic", records=[name], **fields)
    data = load_heuristic("h", suite, directory)
    context = ScoringContext(GateConfig(version=1, suites={"h": suite}), FakeRuntime(), directory)
    return score_heuristic("h", suite, data, context), data


def groups(result) -> dict:
    return {tuple(v for _, v in g.key): g for g in result.groups}


def test_a_record_without_response_is_a_missing_output_not_an_error(in_tmp):
    write(in_tmp, ROWS)
    result, data = score(in_tmp)
    assert [(r.model, r.prompt_id) for r in data.unanswered] == [("a", "C02")]
    assert len(result.items) == 5  # the six records less the one without a response
    a, b = groups(result)[("a", "coding")], groups(result)[("b", "coding")]
    # expected: the ids found, C01-C03 (C02 too: it was asked). a answered 2 of 3; b all 3, two of them empty
    assert a.metrics["missing_ratio"] == pytest.approx(1 / 3) and a.metrics["responses"] == 2 and a.n == 2
    assert a.metrics["empty_ratio"] == 0
    assert b.metrics["missing_ratio"] == 0 and b.metrics["empty_ratio"] == pytest.approx(2 / 3)
    assert groups(result)[("a",)].metrics["missing_ratio"] == pytest.approx(1 / 3)
    assert [(s.model, s.prompt_id) for s in result.details.missing] == [("a", "C02")]
    finals = [i.values["final_score"] for i in result.items if dict(i.key)["model"] == "a"]
    assert a.metrics["final_score_mean"] == pytest.approx(sum(finals) / 2)  # of the two answers, no zero for C02
    [note] = [n for n in result.notes if "`response`" in n]
    assert note.startswith("1 record(s) have no `response` field (r.jsonl:2)") and "missing" in note


def test_null_response_is_empty_and_a_wrong_type_is_still_a_located_error(tmp_path):
    write(tmp_path, [rec("a", "C01", None), rec("a", "C02", "x")])
    data = load(tmp_path)
    assert [r.response for r in data.records] == ["", "x"] and data.unanswered == ()
    write(tmp_path, [rec("a", "C01", "x"), {**rec("a", "C02"), "response": 5}, {**rec("a", "C03"), "model": ""}])
    with pytest.raises(InputError) as caught:
        load(tmp_path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "response"), (3, "model")]


def test_a_record_without_response_still_needs_its_other_fields_and_no_duplicate(tmp_path):
    write(tmp_path, [rec("a", "C01", "x"), {"model": "a", "category": "coding"}, rec("a", "C01"),
                     rec("a", "C04", category="codng")])
    with pytest.raises(InputError) as caught:
        load(tmp_path)
    rendered = [(p.line, p.field) for p in caught.value.problems]
    assert rendered == [(2, "prompt_id"), (3, "prompt_id"), (4, "category")]  # 3: C01 again for a


def test_a_table_without_the_response_column_stays_an_error(tmp_path):
    (tmp_path / "r.csv").write_text("model,category,prompt_id\na,coding,C01\n")
    with pytest.raises(InputError) as caught:
        load(tmp_path, "r.csv")
    [problem] = caught.value.problems
    assert (problem.line, problem.field) == (1, "response") and "required column `response`" in problem.expected


def test_an_empty_cell_is_an_empty_response_not_a_missing_one(tmp_path):
    (tmp_path / "r.csv").write_text("model,category,prompt_id,response\na,coding,C01,\na,coding,C02,x\n")
    data = load(tmp_path, "r.csv")
    assert [r.response for r in data.records] == ["", "x"] and data.unanswered == ()


def test_with_samples_a_prompt_is_missing_only_when_no_sample_answered(tmp_path):
    rows = [rec("a", "C01", "x", sample=0), rec("a", "C01", sample=1), rec("a", "C02", sample=0),
            rec("a", "C02", sample=1), rec("a", "C03", "y", sample=0), rec("a", "C03", "z", sample=1)]
    write(tmp_path, rows)
    result, data = score(tmp_path)
    assert len(data.unanswered) == 3 and len(result.items) == 3
    group = groups(result)[("a", "coding")]
    assert group.metrics["missing_ratio"] == pytest.approx(1 / 3)  # C02: neither sample answered
    assert group.metrics["responses"] == 2


def test_a_counted_expectation_and_other_models_records(tmp_path):
    write(tmp_path, [*ROWS, rec("c", "C01")])
    result, data = score(tmp_path, models=["a", "b"], expected=ExpectedResponses(prompts={"coding": 4}))
    assert [(r.model, r.prompt_id) for r in data.unanswered] == [("a", "C02")]  # c's is not this run's
    assert groups(result)[("a", "coding")].metrics["missing_ratio"] == pytest.approx(2 / 4)  # 2 answered of 4


def test_the_run_goes_on_and_reports_it(tmp_path, monkeypatch, capsys):
    """Through the CLI: no exit 2; the report's missing-data analysis counts it."""
    (tmp_path / "h").mkdir()
    write(tmp_path / "h", ROWS)
    (tmp_path / "gate.yml").write_text("version: 1\nsuites:\n  rubric:\n    kind: heuristic\n"
                                       "    records: h/r.jsonl\n    checks: {}\n")
    outside_actions(monkeypatch, tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code in (0, 1), err  # judged, not stopped on input
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    [suite] = report["suites"]
    text = json.dumps(suite)
    assert "no `response` field" in text
    rows = (tmp_path / "out" / "rubric" / "items.csv").read_text().splitlines()
    assert len(rows) == 1 + 5
