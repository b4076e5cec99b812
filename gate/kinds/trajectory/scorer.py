"""The trajectory suite's scorer: each run checked against its task's expectations and compared with the nearest
baseline run of its task, folded per (model, task), per model and for the suite (`statistics` has the formulas).

An item is one run, keyed (model, task_id[, sample]); runs of one task with samples are merged into one item per
task after scoring (`gate.kinds.samples.collapse`: the rates become the task's share of runs). What the report view
reads is typed here (`TrajectorySettings`, `TrajectoryDetails`, per-run `TrajectoryItemDetails`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.kinds.base import Kind, ScoringContext
from gate.kinds.expressions import in_time
from gate.kinds.samples.field import sample_columns, sample_key
from gate.kinds.trajectory.answers import answer_scores
from gate.kinds.trajectory.config import EVERY_TASK, TrajectorySuiteConfig, trajectory_models
from gate.kinds.trajectory.expectations import expectations_for, failures
from gate.kinds.trajectory.records import TrajectoryData, load_trajectory
from gate.kinds.trajectory.runs import Run, Step
from gate.kinds.trajectory.sequences import Row, compare, nearest
from gate.kinds.trajectory.statistics import (
    DEFAULT_CHECKS,
    ITEM_MEANS,
    METRICS,
    check_problem,
    pass_at_k,
    pass_hat_k,
    value_columns,
)
from gate.results import GroupResult, Item, ItemDetails, SuiteDetails, SuiteResult, SuiteSettings, Unmeasured

METHOD = "trajectory-1"  # bumped when a value's definition changes: older snapshots become not comparable


@dataclass(frozen=True)
class TrajectorySettings(SuiteSettings):
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    runs: int
    formats: tuple[str, ...]  # "runs" (tool-call records), "otel" (spans)
    pass_k: int | None  # None: each task's number of runs
    expectations: int  # tasks with an `expect:` entry ("*" not counted)
    baseline_runs: int | None  # None: no `baseline:`
    skipped_traces: int


@dataclass(frozen=True)
class Counts:
    """A model's runs as counts, for the report's Wilson intervals (the rates after samples merge are means)."""

    passed: int
    verdicts: int  # runs that pass or fail (expectations, or the harness's verdict)
    succeeded: int
    reported: int  # runs whose harness gives a verdict


@dataclass(frozen=True)
class TrajectoryDetails(SuiteDetails):
    settings: TrajectorySettings
    missing: tuple[tuple[str, str], ...]  # (model, task) expected but without a run
    counts: Mapping[str, Counts]  # by model


@dataclass(frozen=True)
class RunDetails:
    """One run as the report shows it."""

    sample: str | None
    source: str | None
    steps: tuple[Step, ...]
    final_answer: str | None
    failures: tuple[str, ...]  # what of its expectations the run does not do
    distance: int | None
    baseline: tuple[Step, ...] | None  # the nearest baseline run's calls, where the task has one
    baseline_source: str | None
    rows: tuple[Row, ...]  # the two sequences aligned (empty without a baseline run)


@dataclass(frozen=True)
class TrajectoryItemDetails(ItemDetails):
    """Every run of the item's (model, task), its samples included: the merged item keeps its first sample's details,
    so each sample's item carries them all."""

    runs: tuple[RunDetails, ...]


@dataclass(frozen=True)
class Scored:
    run: Run
    failures: tuple[str, ...] | None  # None: no expectation applies
    passed: bool | None
    distance: int | None
    nearest: Run | None

    @property
    def met(self) -> bool | None:
        return None if self.failures is None else not self.failures


def score_run(run: Run, data: TrajectoryData, baseline: dict[str, list[Run]],
              similarity: Mapping[tuple[str, str], float] | None = None) -> Scored:
    applying = expectations_for(run.task_id, data.expectations)
    missed = tuple(failures(run, applying, similarity)) if applying else None
    met = None if missed is None else not missed
    passed = None if met is None and run.success is None else (met is not False and run.success is not False)
    found = nearest(run, baseline.get(run.task_id, ()))
    return Scored(run, missed, passed, found[1] if found else None, found[0] if found else None)


def _rate(values: Sequence[bool | None]) -> float | None:
    given = [v for v in values if v is not None]
    return sum(given) / len(given) if given else None


def _mean(values: Sequence[float | None]) -> float | None:
    given = [float(v) for v in values if v is not None]
    return math.fsum(given) / len(given) if given else None


def run_metrics(scored: Sequence[Scored], baseline: bool) -> dict[str, float | None]:
    """The rates and means over runs."""
    runs = [s.run for s in scored]
    metrics: dict[str, float | None] = {
        "runs": float(len(scored)),
        "expectations_met_rate": _rate([s.met for s in scored]),
        "pass_rate": _rate([s.passed for s in scored]),
        "success_rate": _rate([r.success for r in runs]),
        "steps_mean": _mean([len(r.steps) for r in runs]),
        "tokens_mean": _mean([r.tokens for r in runs]),
        "latency_mean": _mean([r.latency for r in runs]),
        "cost_mean": _mean([r.cost for r in runs]),
    }
    if baseline:
        metrics["tool_edit_distance_mean"] = _mean([s.distance for s in scored])
    return metrics


def task_pass(scored: Sequence[Scored], k: int | None) -> tuple[float | None, float | None]:
    """(pass^k, pass@k) of one task's runs: c passing of the n with a verdict, k = `pass_k` or n."""
    verdicts = [s.passed for s in scored if s.passed is not None]
    n, c = len(verdicts), sum(verdicts)
    size = k if k is not None else n
    return pass_hat_k(c, n, size), pass_at_k(c, n, size)


REASONS = {
    "expectations_met_rate": "no run has expectations (`expect:` names none of its tasks)",
    "pass_rate": "no run has expectations or a harness verdict (`success`)",
    "success_rate": "no run gives the harness's verdict (`success`)",
    "tokens_mean": "no run gives tokens", "latency_mean": "no run gives its latency",
    "cost_mean": "no run gives a cost",
    "tool_edit_distance_mean": "no run's task has a baseline run",
    "pass_hat_k": "fewer runs with a verdict than k", "pass_at_k": "fewer runs with a verdict than k",
}


def score_trajectory(name: str, suite: TrajectorySuiteConfig, data: TrajectoryData,
                     context: ScoringContext) -> SuiteResult:
    with_baseline = data.baseline is not None
    baseline: dict[str, list[Run]] = {}
    for run in data.baseline or ():
        baseline.setdefault(run.task_id, []).append(run)
    answers = answer_scores(suite, data, context)
    scored = in_time(data.runs, lambda run: score_run(run, data, baseline, answers.f1), lambda run: run.source,
                     "run")
    by_task: dict[tuple[str, str], list[Scored]] = {}
    for s in scored:
        by_task.setdefault((s.run.model, s.run.task_id), []).append(s)
    expected = [t for t in data.expectations if t != EVERY_TASK]
    groups, gaps, missing = [], [], []
    tasks_pass: dict[str, list[tuple[float | None, float | None]]] = {}
    for (model, task), members in by_task.items():
        metrics = run_metrics(members, with_baseline)
        metrics["pass_hat_k"], metrics["pass_at_k"] = task_pass(members, suite.pass_k)
        tasks_pass.setdefault(model, []).append((metrics["pass_hat_k"], metrics["pass_at_k"]))
        groups.append(GroupResult("group", (("model", model), ("task_id", task)), metrics, len(members),
                                  tuple(s.run.source for s in members if s.run.source)))
    all_pass = []
    for model in data.models:
        members = [s for s in scored if s.run.model == model]
        metrics = run_metrics(members, with_baseline) | _pass_means(tasks_pass.get(model, []))
        lacking = [t for t in expected if (model, t) not in by_task]
        missing += [(model, t) for t in lacking]
        metrics["missing_tasks"] = float(len(lacking))
        all_pass += tasks_pass.get(model, [])
        groups.append(GroupResult("model", (("model", model),), metrics, len(members),
                                  tuple(s.run.source for s in members[:20] if s.run.source)))
    suite_metrics = run_metrics(scored, with_baseline) | _pass_means(all_pass)
    shown = {task: TrajectoryItemDetails(tuple(_details(s) for s in members)) for task, members in by_task.items()}
    suite_metrics["missing_tasks"] = float(len(missing))
    for group in groups:
        gaps += [Unmeasured(group.key, m, REASONS.get(m, "not measured")) for m, v in group.metrics.items()
                 if v is None]
    gaps += [Unmeasured((), m, REASONS.get(m, "not measured")) for m, v in suite_metrics.items() if v is None]
    columns = ("model", "task_id", *sample_columns(r.sample for r in data.runs), *value_columns(suite),
               "tools", "failed")
    notes = [f"{data.skipped_traces} trace(s) without a GenAI span (gen_ai.operation.name) were skipped"] \
        if data.skipped_traces else []
    if missing:
        notes.append(f"{len(missing)} expected (model, task) pair(s) have no run: "
                     + ", ".join(f"{m} · {t}" for m, t in missing[:5]) + (" …" if len(missing) > 5 else ""))
    return SuiteResult(
        name=name, kind="trajectory", metrics=suite_metrics, groups=tuple(groups),
        items=tuple(_item(s, with_baseline, shown[(s.run.model, s.run.task_id)]) for s in scored),
        item_columns=columns, unmeasured=tuple(gaps),
        fingerprint=_fingerprint(suite, data) | ({"answer_bertscore": answers.fingerprint} if answers.fingerprint
                                                 else {}),
        details=TrajectoryDetails(TrajectorySettings(
            models=data.models, tasks=tuple(dict.fromkeys(r.task_id for r in data.runs)), runs=len(scored),
            formats=data.formats, pass_k=suite.pass_k, expectations=len(expected),
            baseline_runs=len(data.baseline) if data.baseline is not None else None,
            skipped_traces=data.skipped_traces), missing=tuple(missing),
            counts={m: _counts([s for s in scored if s.run.model == m]) for m in data.models}),
        notes=tuple(notes))


def _counts(scored: Sequence[Scored]) -> Counts:
    return Counts(passed=sum(1 for s in scored if s.passed), verdicts=sum(1 for s in scored if s.passed is not None),
                  succeeded=sum(1 for s in scored if s.run.success),
                  reported=sum(1 for s in scored if s.run.success is not None))


def _pass_means(per_task: Sequence[tuple[float | None, float | None]]) -> dict[str, float | None]:
    return {"pass_hat_k": _mean([p[0] for p in per_task]), "pass_at_k": _mean([p[1] for p in per_task])}


def _item(s: Scored, with_baseline: bool, shown: TrajectoryItemDetails) -> Item:
    run = s.run
    values: dict[str, object] = {
        "expectations_met": s.met, "passed": s.passed, "success": run.success, "steps": len(run.steps),
        "tokens": run.tokens, "latency": run.latency, "cost": run.cost}
    if with_baseline:
        values["tool_edit_distance"] = s.distance
    values["tools"] = " → ".join(run.tools)
    values["failed"] = "; ".join(s.failures or ())
    return Item(key=(("model", run.model), ("task_id", run.task_id), *sample_key(run.sample)), values=values,
                source=run.source, details=shown)


def _details(s: Scored) -> RunDetails:
    run, other = s.run, s.nearest
    return RunDetails(sample=run.sample, source=str(run.source) if run.source else None, steps=run.steps,
                      final_answer=run.final_answer, failures=s.failures or (), distance=s.distance,
                      baseline=other.steps if other else None,
                      baseline_source=str(other.source) if other and other.source else None,
                      rows=compare(other.steps, run.steps) if other else ())


def _fingerprint(suite: TrajectorySuiteConfig, data: TrajectoryData) -> dict[str, object]:
    """What the values depend on beyond the runs: the expectations, k and the baseline runs' sequences."""
    expectations = {task: e.model_dump(mode="json", exclude_none=True) for task, e in data.expectations.items()}
    found: dict[str, object] = {"method": METHOD, "expectations": _digest(expectations), "pass_k": suite.pass_k}
    if data.baseline is not None:
        found["baseline"] = _digest(sorted([r.task_id, list(r.tools)] for r in data.baseline))
    return found


def _digest(value: object) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


TRAJECTORY = Kind(
    kind="trajectory",
    config_model=TrajectorySuiteConfig,
    metrics=METRICS,
    group_fields=("model", "task_id"),
    levels=("model",),
    default_checks=DEFAULT_CHECKS,
    load=load_trajectory,
    score=score_trajectory,
    item_means=ITEM_MEANS,
    check_problem=check_problem,
    item_columns_of=value_columns,
    models_of=trajectory_models,
)
