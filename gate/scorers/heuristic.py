"""Seed heuristic-rubric: rule-based scores of coding and paraphrasing responses, and what is missing.

Per response: every metric of its category (base score + indicators, clamped to [0, 10]) and the
weighted final score. Per (model, category) and per model: mean, median, std (sample, like pandas),
min and max of each, and the missing-data analysis against the expected models × categories × prompts.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate import io
from gate.config import CheckConfig, HeuristicSuiteConfig
from gate.config.base import CheckProblem
from gate.records.heuristic import HeuristicData, HeuristicRecord, load_heuristic
from gate.records.samples import sample_columns, sample_key
from gate.results import (
    Direction,
    GroupResult,
    Item,
    ItemDetails,
    Key,
    MetricSpec,
    SuiteDetails,
    SuiteResult,
    SuiteSettings,
    Unmeasured,
)
from gate.rubric import DEFAULT_RUBRIC, RUBRICS, STATS, Rubric
from gate.scorers.base import KnownMetrics, Scorer, ScoringContext
from gate.scorers.heuristic_rules import Fired, ResponseScore, score_response
from gate.scorers.item_statistics import heuristic_statistic
from gate.stats import maximum, mean

STAT_PATTERN = re.compile(rf"^[a-z][a-z0-9_]*_({'|'.join(STATS)})$")


def _catalogue(metric_names: Sequence[str]) -> dict[str, MetricSpec]:
    """Every suite metric described, in `gate.rubric.suite_metric_names`' order (the names gate.yml may check)."""
    specs = {}
    for metric in [*metric_names, "final_score"]:
        for stat in STATS:
            direction = Direction.LOWER_IS_BETTER if stat == "std" else Direction.HIGHER_IS_BETTER
            specs[f"{metric}_{stat}"] = MetricSpec(f"{metric}_{stat}", direction, f"{stat} of {metric} (0–10)", ".2f")
    specs["responses"] = MetricSpec("responses", Direction.HIGHER_IS_BETTER, "Responses scored", ".0f")
    specs["missing_ratio"] = MetricSpec("missing_ratio", Direction.LOWER_IS_BETTER,
                                        "Expected responses that are missing", ".0%")
    specs["empty_ratio"] = MetricSpec("empty_ratio", Direction.LOWER_IS_BETTER, "Expected responses that are empty",
                                      ".0%")
    return specs


@functools.cache
def _packaged_metric_names(name: str = DEFAULT_RUBRIC) -> tuple[str, ...]:
    """A rubric's metric names, read at import (METRICS): libyaml where installed (pure Python: ~40 ms a start)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(io.read_text(RUBRICS / f"{name}.yml", "rubric"), Loader=loader)  # noqa: S506 (a safe loader)
    return tuple(dict.fromkeys(m for c in data["categories"].values() for m in c["metrics"]))


def _packaged_metrics(suite: Mapping[str, Any]) -> KnownMetrics | None:
    """The metrics of a suite on a packaged rubric (`rubric:` left out or a packaged name, as `load_rubric`
    resolves it); None for a rubric file, read only with the suite's inputs."""
    name = suite.get("rubric") or DEFAULT_RUBRIC
    if not _packaged(name):
        return None
    return KnownMetrics(f"rubric {name}", tuple(_catalogue(_packaged_metric_names(name))),
                        "metrics are <rubric metric>_<mean|median|std|min|max>, final_score_…, missing_ratio")


def _check_problem(suite: HeuristicSuiteConfig, metric: str, check: CheckConfig) -> CheckProblem | None:
    """A packaged rubric's category metric (`correctness_mean`) exists only per model × category: at scope
    `model` or `suite` it would never be measured."""
    name, base = suite.rubric or DEFAULT_RUBRIC, metric.rsplit("_", 1)[0]
    if check.scope == "group" or not STAT_PATTERN.match(metric) or not _packaged(name) \
            or base not in _packaged_metric_names(name):
        return None
    return CheckProblem(expected=f"scope: group for {metric} (the rubric scores {base} only in its "
                        "category's model × category groups)", found=f"scope: {check.scope}",
                        fix="use scope: group, or check final_score_… at this scope")


def _item_columns(rubric: str | None) -> tuple[str, ...]:
    """A suite's numeric item columns where its config tells: a packaged rubric's metrics (for a rubric file,
    which only its inputs tell, `metrics_of` is None and these are the rubric-independent columns only)."""
    name = rubric or DEFAULT_RUBRIC
    return (*(_packaged_metric_names(name) if _packaged(name) else ()), "final_score", "empty", "word_count")


def _packaged(name: object) -> bool:
    return isinstance(name, str) and "/" not in name and not name.endswith((".yml", ".yaml")) \
        and (RUBRICS / f"{name}.yml").is_file()


METRICS = _catalogue(_packaged_metric_names())
DEFAULT_CHECKS = {"final_score_mean": CheckConfig(min=5.0), "missing_ratio": CheckConfig(max=0.1)}


@dataclass(frozen=True)
class HeuristicSettings(SuiteSettings):
    rubric: str
    models: tuple[str, ...]
    categories: tuple[str, ...]  # those with expected prompts
    weights: Mapping[str, Mapping[str, float]]  # category -> metric -> weight, every rubric category
    expected: Mapping[str, int]  # category -> prompts each model should answer


@dataclass(frozen=True)
class Slot:
    """One expected response: who should have answered which prompt."""

    model: str
    category: str
    prompt_id: str


@dataclass(frozen=True)
class Shortfall:
    """A (model, category) short of its expected count; `prompt_ids` None where `expected` gave only a count."""

    model: str
    category: str
    expected: int
    found: int
    missing: int
    prompt_ids: tuple[str, ...] | None


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


@dataclass(frozen=True)
class _Scored:
    record: HeuristicRecord
    score: ResponseScore


@dataclass(frozen=True)
class Expected:
    """Who should have answered what: the prompt ids per category, or only how many."""

    models: tuple[str, ...]
    prompts: dict[str, tuple[str, ...] | int]

    def count(self, category: str) -> int:
        prompts = self.prompts.get(category, ())
        return prompts if isinstance(prompts, int) else len(prompts)


def expected_matrix(suite: HeuristicSuiteConfig, data: HeuristicData) -> Expected:
    models = tuple(suite.expected.models or data.models)
    given = suite.expected.prompts or {}
    prompts: dict[str, tuple[str, ...] | int] = {}
    for category in data.rubric.categories:
        if category in given:
            value = given[category]
            prompts[category] = value if isinstance(value, int) else tuple(value)
        else:
            found = sorted({r.prompt_id for r in data.records if r.category == category})
            if found:
                prompts[category] = tuple(found)
    return Expected(models, prompts)


def score_heuristic(name: str, suite: HeuristicSuiteConfig, data: HeuristicData,
                    context: ScoringContext) -> SuiteResult:
    rubric = data.rubric
    scored = [_Scored(r, score_response(rubric, r.category, r.response, r.prompt_id)) for r in data.records]
    expected = expected_matrix(suite, data)
    groups, gaps, missing = [], [], []
    slots: list[Shortfall] = []
    by_group: dict[tuple[str, str], list[_Scored]] = {}  # in record order, one pass: groups × records is quadratic
    by_model: dict[str, list[_Scored]] = {}
    for s in scored:
        by_group.setdefault((s.record.model, s.record.category), []).append(s)
        by_model.setdefault(s.record.model, []).append(s)
    for model in expected.models:
        for category in expected.prompts:
            mine = by_group.get((model, category), [])
            key: Key = (("model", model), ("category", category))
            absent = _missing(expected, category, mine)
            missing += [Slot(model, category, p) for p in absent[1]]
            if absent[0]:  # with only a count, the slot's shortfall is all that can be said
                slots.append(Shortfall(model, category, expected.count(category), len(mine), absent[0],
                                       None if isinstance(expected.prompts[category], int) else tuple(absent[1])))
            metrics = _stats(rubric.categories[category].metrics, mine) | _coverage(expected.count(category),
                                                                                   absent[0], mine)
            groups.append(GroupResult("group", key, metrics, len(mine), _sources(mine)))
            gaps += [Unmeasured(key, m, "no responses" if not mine else "needs two or more responses")
                     for m, v in metrics.items() if v is None]
        mine = by_model.get(model, [])
        total = sum(expected.count(c) for c in expected.prompts)
        absent_total = sum(_missing(expected, c, by_group.get((model, c), []))[0] for c in expected.prompts)
        metrics = _stats({}, mine) | _coverage(total, absent_total, mine)
        groups.append(GroupResult("model", (("model", model),), metrics, len(mine), _sources(mine)))
    columns = rubric.metric_names()
    with_id = any(r.id is not None for r in data.records)  # DESIGN.md §5: `id` first when the records have one
    empty = sum(1 for s in scored if not s.record.response.strip())
    notes = []
    missing_total = sum(slot.missing for slot in slots)
    if missing_total or empty:
        notes.append(f"Missing-data analysis: {missing_total} expected response(s) missing, {empty} empty "
                     f"(of {sum(expected.count(c) for c in expected.prompts) * len(expected.models)} expected).")
    return SuiteResult(
        name=name, kind="heuristic", metrics=_stats({}, scored), groups=tuple(groups),
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


def _stats(metrics, scored: Sequence[_Scored]) -> dict[str, float | None]:
    values: dict[str, list[float]] = {m: [s.score.metrics[m] for s in scored] for m in metrics}
    values["final_score"] = [s.score.final_score for s in scored]
    out: dict[str, float | None] = {}
    for metric, xs in values.items():
        out[f"{metric}_mean"] = mean(xs)
        out[f"{metric}_median"] = statistics.median(xs) if xs else None
        out[f"{metric}_std"] = statistics.stdev(xs) if len(xs) > 1 else None  # sample std, as pandas
        out[f"{metric}_min"] = min(xs) if xs else None
        out[f"{metric}_max"] = maximum(xs)
    return out


def _coverage(expected: int, absent: int, scored: Sequence[_Scored]) -> dict[str, float | None]:
    """Counted per prompt: several samples of one prompt answer it once, and it is as empty as the share of its
    samples that are (without samples: 0 or 1)."""
    draws: dict[tuple[str, str], list[bool]] = {}
    for s in scored:
        draws.setdefault((s.record.category, s.record.prompt_id), []).append(not s.record.response.strip())
    empty = sum(sum(e) / len(e) for e in draws.values())
    return {"responses": float(len(draws)),
            "missing_ratio": absent / expected if expected else None,
            "empty_ratio": empty / expected if expected else None}


def _missing(expected: Expected, category: str, scored: Sequence[_Scored]) -> tuple[int, list[str]]:
    prompts = expected.prompts.get(category, ())
    if isinstance(prompts, int):  # only a count: how many, not which (several samples answer one prompt)
        return max(0, prompts - len({s.record.prompt_id for s in scored})), []
    have = {s.record.prompt_id for s in scored}
    absent = [p for p in prompts if p not in have]
    return len(absent), absent


def _sources(scored: Sequence[_Scored]):
    return tuple(s.record.source_ref for s in scored if s.record.source_ref)


def _item(s: _Scored, columns: Sequence[str], with_id: bool) -> Item:
    record, score = s.record, s.score
    return Item(  # the id is a value, not part of the key: snapshots pair items by (model, category, prompt)
        key=(("model", record.model), ("category", record.category), ("prompt_id", record.prompt_id),
             *sample_key(record.sample)),
        values={**({"id": record.id} if with_id else {}), **{c: score.metrics.get(c) for c in columns},
                "final_score": score.final_score,
                "empty": not record.response.strip(), "word_count": len(record.response.split()),
                "indicators": "; ".join(f"{f.metric}: {f.label} ({f.points:+g})" for f in score.fired)},
        source=record.source_ref,
        details=HeuristicItemDetails(response=record.response, prompt=record.prompt or "", fired=score.fired,
                                     metrics=dict(score.metrics)),
    )


def _rubric_hash(rubric: Rubric) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(repr(rubric).encode()).hexdigest()[:16]  # frozen models: a stable repr


HEURISTIC = Scorer(
    kind="heuristic",
    config_model=HeuristicSuiteConfig,
    metrics=METRICS,
    group_fields=("model", "category"),
    levels=("model",),
    default_checks=DEFAULT_CHECKS,
    load=load_heuristic,
    score=score_heuristic,
    model_roles=(),
    metric_pattern=STAT_PATTERN,
    metrics_of=_packaged_metrics,
    check_problem=_check_problem,
    item_columns_of=lambda suite: _item_columns(suite.rubric),
    item_statistic=heuristic_statistic,
)
