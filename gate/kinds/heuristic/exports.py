"""The heuristic seed's own output files, written next to the gate's report: `<suite>/records.xlsx` (a row per
response, summary sheets) and `<suite>/comprehensive_analysis_report.txt` (`Kind.exports`)."""

from __future__ import annotations

from pathlib import Path

from gate import io
from gate.judge import SuiteVerdict
from gate.kinds.heuristic.groups import Shortfall
from gate.kinds.heuristic.scorer import HeuristicDetails
from gate.results import details_as


def write(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    from gate.report.markdown import render

    result = suite.result
    details = details_as(result.details, HeuristicDetails)
    settings = details.settings
    stats = ("mean", "median", "std", "min", "max")
    groups = {tuple(v for _, v in g.key): g for g in result.groups_at("group")}
    summary_rows: list[list[object]] = []
    tables: dict[str, list[dict[str, object]]] = {}  # category -> per model: n and each metric's statistics
    for category, weights in settings.weights.items():
        if category not in settings.categories:
            continue
        tables[category] = []
        for model in settings.models:
            group = groups.get((model, category))
            if group is None:
                continue
            metrics = [*weights, "final_score"]
            summary_rows += [[model, category, m, group.n, *(group.metrics.get(f"{m}_{s}") for s in stats)]
                             for m in metrics]
            tables[category].append({"model": model, "n": group.n, "stats": [
                {"metric": m, **{s: _fixed(group.metrics.get(f"{m}_{s}")) for s in stats}} for m in metrics]})
    ranking = {c: _ranking([(m, groups[(m, c)].metrics.get("final_score_mean")) for m in settings.models
                            if (m, c) in groups]) for c in tables}
    ranking["overall"] = _ranking([(dict(g.key)["model"], g.metrics.get("final_score_mean"))
                                   for g in result.groups_at("model")])
    missing, empty, slots = details.missing, details.empty, details.missing_slots
    counted = [x for x in slots if x.prompt_ids is None]  # `expected` gave a count: ids unknowable
    shortfall = {(x.model, x.category): x for x in slots}
    xlsx = directory / "records.xlsx"
    io.write_xlsx_atomic(xlsx, {
        "records": (result.item_columns, [[{**dict(i.key), **i.values}.get(c) for c in result.item_columns]
                                          for i in result.items]),
        "summary": (["model", "category", "metric", "n", *stats], summary_rows),
        "ranking": (["category", "rank", "model", "final_score_mean"],
                    [[c, k + 1, r["model"], r["value"]] for c, rows in ranking.items() for k, r in enumerate(rows)]),
        "missing": (["model", "category", "prompt_id", "problem", "expected", "found", "missing"],
                    [[x.model, x.category, x.prompt_id, "missing", *_slot_counts(shortfall.get((x.model, x.category)))]
                     for x in missing]
                    + [[x.model, x.category, None, "missing (prompt ids unknown: expected gives a count)",
                        *_slot_counts(x)] for x in counted]
                    + [[x.model, x.category, x.prompt_id, "empty", None, None, None] for x in empty]),
    })
    expected = settings.expected
    text = render({"suite": result.name, "rubric": settings.rubric, "generated_at": run_day,
                   "models": settings.models, "categories": list(tables), "expected": expected,
                   "total_expected": sum(expected.values()) * len(settings.models),
                   "received": len(result.items), "weights": settings.weights, "tables": tables,
                   "ranking": ranking, "missing": missing, "counted": counted, "empty": empty,
                   "missing_total": sum(x.missing for x in slots) if slots else len(missing)},
                  template="kinds/heuristic/exports/comprehensive_analysis_report.txt.j2")
    report = directory / "comprehensive_analysis_report.txt"
    io.write_text_atomic(report, text)
    return [xlsx, report]


def _slot_counts(slot: Shortfall | None) -> list[int | None]:
    return [None, None, None] if slot is None else [slot.expected, slot.found, slot.missing]


def _fixed(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.2f}"


def _ranking(scores: list[tuple[str, float | None]]) -> list[dict]:
    ranked = sorted(((m, v) for m, v in scores if v is not None), key=lambda mv: -mv[1])
    return [{"model": m, "value": v, "score": f"{v:.2f}"} for m, v in ranked]
