"""The seeds' own output files, written next to the gate's report for users of the original tools.

- drift: `<suite>/quality_drift_report.json` (the seed's structure, with `passed` per exercise × model);
- stereotype: `<suite>/results/{model}/{date}/drift_analysis.csv` with the seed's column names;
- heuristic: `<suite>/records.xlsx` (a row per response, summary sheets) and
  `<suite>/comprehensive_analysis_report.txt`;
- rag: `<suite>/evaluation.<system>.json` (the seed's evaluation report) per system, and
  `<suite>/comparison.json` when there is a baseline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from gate import io
from gate.judge import SuiteVerdict
from gate.report.kinds import drift
from gate.results import details_as
from gate.scorers.heuristic import HeuristicDetails, Shortfall
from gate.scorers.rag import RagDetails
from gate.scorers.stereotype import SEED_COLUMNS, StereotypeItemDetails

STEREOTYPE_TEXT_COLUMNS = ("id", "model", "date", "trait", "emgsd_text", "control_response", "turn2_response")


def write_seed_exports(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    writer = _WRITERS.get(suite.result.kind)
    return writer(suite, directory, run_day) if writer else []


def _drift(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    path = directory / "quality_drift_report.json"
    io.write_json_atomic(path, drift.quality_drift_report(suite))
    return [path]


def _stereotype(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    """One CSV per model and date, like the seed's drift_analysis/results/{model}/{date}/."""
    batches: dict[tuple[str, str], list[list[object]]] = {}
    for item in suite.result.items:
        key, details = dict(item.key), details_as(item.details, StereotypeItemDetails)
        day = details.date or run_day
        texts = [key["id"], key["model"], day, key["trait"], details.emgsd_text, details.control_response,
                 details.bias_response]
        batches.setdefault((key["model"], day), []).append(texts + [item.values[c] for c in SEED_COLUMNS])
    written = []
    for (model, day), rows in batches.items():
        path = directory / "results" / _folder(model) / _folder(day) / "drift_analysis.csv"
        # pandas' True/False, as the seed's CSVs have them
        io.write_csv_atomic(path, [*STEREOTYPE_TEXT_COLUMNS, *SEED_COLUMNS], rows, booleans=("True", "False"))
        written.append(path)
    return written


def _heuristic(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
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
                  template="exports/comprehensive_analysis_report.txt.j2")
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


def _rag(suite: SuiteVerdict, directory: Path, run_day: str) -> list[Path]:
    result = suite.result
    details = details_as(result.details, RagDetails)
    settings = details.settings
    written = []
    levels = [("candidate", g) for g in result.groups_at("group")] + [("baseline", g) for g in
                                                                       result.groups_at("baseline")]
    for index, (which, group) in enumerate(levels, start=1):
        system = dict(group.key)["system"]
        summary = details.systems[(which, system)]
        m = group.metrics
        report = {
            "evaluation_id": f"eval_{run_day.replace('-', '')}_{index:04d}",
            "dataset_name": settings.dataset, "system": system, "role": which, "num_samples": group.n,
            "overall_score": m.get("overall_score"), "grade": summary.grade,
            "metrics": {
                **{name: {str(k): m.get(f"{name}.{k}") for k in settings.k}
                   for name in ("precision_at_k", "recall_at_k", "ndcg_at_k")},
                **{name: m.get(name) for name in ("mrr", "ndcg", "context_precision", "bleu", "rouge_l",
                                                   "faithfulness", "answer_relevancy", "latency_p50", "latency_p95",
                                                   "latency_p99", "throughput_qps", "cost_per_query")},
                **{name: value for name, value in m.items() if name.startswith("judge_")},
            },
            "issues": summary.issues, "insights": summary.insights,
        }
        path = directory / f"evaluation.{_folder(system)}.json"
        io.write_json_atomic(path, report)
        written.append(path)
    if details.comparisons:
        path = directory / "comparison.json"
        io.write_json_atomic(path, {"significance": settings.significance, "comparisons": {
            title: {"rows": [asdict(r) for r in rows],
                    "significant_improvements": [r.metric for r in rows if r.outcome == "improvement"],
                    "regressions": [r.metric for r in rows if r.outcome == "regression"]}
            for title, rows in details.comparisons.items()}})
        written.append(path)
    return written


def _folder(name: str) -> str:
    """A model name or date as one safe path component ("org/model" -> "org_model")."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "_"
    return safe[:100]


_WRITERS: dict[str, Callable[[SuiteVerdict, Path, str], list[Path]]] = {
    "drift": _drift, "stereotype": _stereotype, "heuristic": _heuristic, "rag": _rag}
