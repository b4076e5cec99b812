"""`gate.report.views`: each kind gets its own view; a kind without one gets the generic view, a table per
group level with the scorer's metrics in their formats and each group's verdict."""

from __future__ import annotations

from gate.config import UnmeasuredPolicy
from gate.judge import CheckResult, CheckVerdict, Op, SuiteVerdict, Verdict
from gate.kinds import KINDS
from gate.kinds.drift import view as drift
from gate.kinds.heuristic import view as heuristic
from gate.kinds.rag import view as rag
from gate.kinds.stability import view as stability
from gate.kinds.stereotype import view as stereotype
from gate.kinds.trajectory import view as trajectory
from gate.report import views
from gate.results import GroupResult, SuiteResult
from tests.support.kinds import with_view


def test_every_kind_has_its_own_view():
    assert {kind: KINDS[kind].view for kind in KINDS} == {
        "drift": drift.build, "stereotype": stereotype.build, "stability": stability.build,
        "heuristic": heuristic.build, "rag": rag.build, "trajectory": trajectory.build}


def test_a_kind_without_a_view_of_its_own_gets_a_table_per_level(monkeypatch):
    with_view(monkeypatch, "stability", None)
    cell = GroupResult("group", (("model", "a|b"), ("task", "qa")),
                       {"stability_coefficient": 0.81234, "questions": 12.0}, 12)
    model = GroupResult("model", (("model", "a|b"),), {"stability_coefficient": None}, 12)
    result = SuiteResult("st", "stability", {}, (cell, model), (), ())
    checks = (CheckResult("stability_coefficient", "group", cell.key, Op.MIN, 0.9, None, 0.81, CheckVerdict.FAIL),)
    view = views.build(SuiteVerdict(result, checks, Verdict.FAIL, UnmeasuredPolicy.WARN), 5)
    per_cell, per_model = view["tables"]  # no variation groups: no table for them
    metrics = ["stability_coefficient", "stability_coefficient_std", "mean_similarity", "answer_probability",
               "questions"]
    assert per_cell == {"title": "per model × task", "columns": ["model", "task", *metrics, "verdict"],
                        "rows": [["a&#124;b", "qa", "0.812", "n/a", "n/a", "n/a", "12", "❌"]],
                        "ranks": [3], "more": None}  # ranks: how bad each group is, for a cut (failing first)
    assert per_model["title"] == "per model" and per_model["columns"][0] == "model"
    assert per_model["rows"] == [["a&#124;b", "n/a", "n/a", "n/a", "n/a", "n/a", "·"]]


def test_a_kind_without_groups_gets_no_tables(monkeypatch):
    with_view(monkeypatch, "stability", None)
    result = SuiteResult("st", "stability", {}, (), (), ())
    assert views.build(SuiteVerdict(result, (), Verdict.PASS, UnmeasuredPolicy.WARN), 5) == {"tables": []}
