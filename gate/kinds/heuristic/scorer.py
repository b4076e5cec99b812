"""The heuristic suite's scorer: every response scored, folded per (model, category) and per model.

What the report view and the seed exports read (`HeuristicSettings`, `HeuristicDetails`, per-response
`HeuristicItemDetails`) is typed here; the statistics and the missing-data analysis are in `groups`, one
response's scoring in `rules`, the metric catalogue in `catalogue`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.kinds.base import Kind, ScoringContext
from gate.kinds.expressions import in_time
from gate.kinds.heuristic.catalogue import (
    DEFAULT_CHECKS,
    METRICS,
    STAT_PATTERN,
    check_problem,
    item_columns,
    packaged_metrics,
)
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.groups import (
    Scored,
    Shortfall,
    Slot,
    absent_prompts,
    coverage,
    expected_matrix,
    sources,
    stats,
)
from gate.kinds.heuristic.records import HeuristicData, HeuristicRecord, load_heuristic
from gate.kinds.heuristic.rubric import Rubric
from gate.kinds.heuristic.rules import Fired, Unmet, score_response
from gate.kinds.heuristic.statistics import heuristic_statistic
from gate.kinds.samples.field import sample_columns, sample_key
from gate.results import GroupResult, Item, ItemDetails, Key, SuiteDetails, SuiteResult, SuiteSettings, Unmeasured


@dataclass(frozen=True)
class HeuristicSettings(SuiteSettings):
    rubric: str
    models: tuple[str, ...]
    categories: tuple[str, ...]  # those with expected prompts
    weights: Mapping[str, Mapping[str, float]]  # category -> metric -> weight, every rubric category
    expected: Mapping[str, int]  # category -> prompts each model should answer


@dataclass(frozen=True)
class HeuristicDetails(SuiteDetails):
    settings: HeuristicSettings
    missing: tuple[Slot, ...]  # the absent prompts, where the ids are known
    # every (model, category) short of its count, with its ids or None, so totals never depend on the form
    missing_slots: tuple[Shortfall, ...]
    empty: tuple[Slot, ...]


@dataclass(frozen=True)
class HeuristicItemDetails(ItemDetails):
    """Why a response scored as it did: its text and the indicators that fired."""

    response: str
    prompt: str
    fired: tuple[Fired, ...]
    metrics: Mapping[str, float]
    unmet: tuple[Unmet, ...]  # rewarded json_schema indicators that missed on their schema alone, with why


def score_heuristic(name: str, suite: HeuristicSuiteConfig, data: HeuristicData,
                    context: ScoringContext) -> SuiteResult:
    rubric = data.rubric
    scored = in_time(data.records, lambda r: Scored(r, score_response(rubric, r.category, r.response, r.prompt_id)),
                     lambda r: r.source_ref, "response")
    expected = expected_matrix(suite, data)
    groups, gaps, missing = [], [], []
    slots: list[Shortfall] = []
    by_group: dict[tuple[str, str], list[Scored]] = {}  # in record order, one pass: groups × records is quadratic
    by_model: dict[str, list[Scored]] = {}
    for s in scored:
        by_group.setdefault((s.record.model, s.record.category), []).append(s)
        by_model.setdefault(s.record.model, []).append(s)
    for model in expected.models:
        for category in expected.prompts:
            mine = by_group.get((model, category), [])
            key: Key = (("model", model), ("category", category))
            absent = absent_prompts(expected, category, mine)
            missing += [Slot(model, category, p) for p in absent[1]]
            if absent[0]:  # with only a count, the slot's shortfall is all that can be said
                slots.append(Shortfall(model, category, expected.count(category), len(mine), absent[0],
                                       None if isinstance(expected.prompts[category], int) else tuple(absent[1])))
            metrics = stats(rubric.categories[category].metrics, mine) | coverage(expected.count(category),
                                                                                 absent[0], mine)
            groups.append(GroupResult("group", key, metrics, len(mine), sources(mine)))
            gaps += [Unmeasured(key, m, "no responses" if not mine else "needs two or more responses")
                     for m, v in metrics.items() if v is None]
        mine = by_model.get(model, [])
        total = sum(expected.count(c) for c in expected.prompts)
        absent_total = sum(absent_prompts(expected, c, by_group.get((model, c), []))[0] for c in expected.prompts)
        metrics = stats({}, mine) | coverage(total, absent_total, mine)
        groups.append(GroupResult("model", (("model", model),), metrics, len(mine), sources(mine)))
    columns = rubric.metric_names()
    with_id = any(r.id is not None for r in data.records)  # DESIGN.md §5: `id` first when the records have one
    empty = sum(1 for s in scored if not s.record.response.strip())
    notes = []
    missing_total = sum(slot.missing for slot in slots)
    if missing_total or empty:
        notes.append(f"Missing-data analysis: {missing_total} expected response(s) missing, {empty} empty "
                     f"(of {sum(expected.count(c) for c in expected.prompts) * len(expected.models)} expected).")
    if data.unanswered:
        notes.append(_unanswered_note(data.unanswered))
    return SuiteResult(
        name=name, kind="heuristic", metrics=stats({}, scored), groups=tuple(groups),
        items=tuple(_item(s, columns, with_id) for s in scored),
        item_columns=(*(("id",) if with_id else ()), "model", "category", "prompt_id",
                      *sample_columns(r.sample for r in data.records), *columns, "final_score",
                      "empty", "word_count", "indicators"),
        unmeasured=tuple(gaps), fingerprint={"rubric": rubric.name, "rubric_hash": _rubric_hash(rubric)},
        details=HeuristicDetails(
            HeuristicSettings(rubric=rubric.name, models=expected.models, categories=tuple(expected.prompts),
                              weights={c: {m: spec.weight for m, spec in cat.metrics.items()}
                                       for c, cat in rubric.categories.items()},
                              expected={c: expected.count(c) for c in expected.prompts}),
            missing=tuple(missing), missing_slots=tuple(slots),
            empty=tuple(Slot(s.record.model, s.record.category, s.record.prompt_id)
                        for s in scored if not s.record.response.strip())),
        notes=tuple(notes),
    )


def _item(s: Scored, columns: Sequence[str], with_id: bool) -> Item:
    record, score = s.record, s.score
    return Item(  # the id is a value, not part of the key: snapshots pair items by (model, category, prompt)
        key=(("model", record.model), ("category", record.category), ("prompt_id", record.prompt_id),
             *sample_key(record.sample)),
        values={**({"id": record.id} if with_id else {}), **{c: score.metrics.get(c) for c in columns},
                "final_score": score.final_score,
                "empty": not record.response.strip(), "word_count": len(record.response.split()),
                "indicators": "; ".join([*(f"{f.metric}: {f.label} ({f.points:+g})" for f in score.fired),
                                         *(f"{u.metric}: not met: {u.label} ({u.why})" for u in score.unmet)])},
        source=record.source_ref,
        details=HeuristicItemDetails(response=record.response, prompt=record.prompt or "", fired=score.fired,
                                     metrics=dict(score.metrics), unmet=score.unmet),
    )


def _unanswered_note(records: Sequence[HeuristicRecord]) -> str:
    where = ", ".join(str(r.source_ref) for r in records[:3] if r.source_ref) + (" …" if len(records) > 3 else "")
    return (f"{len(records)} record(s) have no `response` field ({where}): missing outputs, not scored; each one's "
            "prompt counts as missing for its model unless another sample of it answered.")


def _rubric_hash(rubric: Rubric) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(repr(rubric).encode()).hexdigest()[:16]  # frozen models: a stable repr


HEURISTIC = Kind(
    kind="heuristic",
    config_model=HeuristicSuiteConfig,
    metrics=METRICS,
    group_fields=("model", "category"),
    levels=("model",),
    default_checks=DEFAULT_CHECKS,
    load=load_heuristic,
    score=score_heuristic,
    metric_pattern=STAT_PATTERN,
    metrics_of=packaged_metrics,
    check_problem=check_problem,
    item_columns_of=lambda suite: item_columns(suite.rubric),
    item_statistic=heuristic_statistic,
)
