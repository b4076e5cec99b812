"""The trajectory kind's metric catalogue, its formulas and how a significance test recomputes each metric.

Per run (an item): `expectations_met`, `passed` (its expectations met, or none apply, and the harness did not report
failure), `success` (the harness's verdict), `steps` (tool calls), `tokens`, `latency`, `cost` and, with a
`baseline:`, `tool_edit_distance` (to the nearest baseline run of its task). Per (model, task), per model and for
the suite: the rates and means of those, `runs`, and from each task's c passing runs of n:
    pass^k = C(c, k) / C(n, k)        (all of k runs drawn without replacement pass; τ-bench's estimator)
    pass@k = 1 − C(n − c, k) / C(n, k) (at least one of k passes; the unbiased estimator of Chen et al. 2021)
with k the suite's `pass_k` (omitted: n, so pass^n says every run passed and pass@n that one did); a task with fewer
than k runs is unmeasured. Per model and suite pass^k and pass@k are their means over tasks; `missing_tasks` counts
the tasks named in `expect:` with no run. The rates and means are plain means of item columns (`Kind.item_means`),
so a change test recomputes them on resampled runs (no `Kind.item_statistic` is needed); pass^k, pass@k, `runs`
and `missing_tasks` are not functions of the runs' own values (they need the task each run belongs to) and take no
`significant: true`.
"""

from __future__ import annotations

import math

from gate.config import CheckConfig
from gate.config.base import CheckProblem
from gate.kinds.trajectory.config import TrajectorySuiteConfig
from gate.results import Direction, MetricSpec
from gate.stats import passrate

_HIGHER, _LOWER = Direction.HIGHER_IS_BETTER, Direction.LOWER_IS_BETTER
METRICS = {spec.name: spec for spec in (
    MetricSpec("expectations_met_rate", _HIGHER, "Share of runs meeting their task's expectations", ".1%", 0, 1),
    MetricSpec("pass_rate", _HIGHER, "Share of runs that pass (expectations met, no reported failure)", ".1%", 0, 1),
    MetricSpec("success_rate", _HIGHER, "Share of runs the harness reports successful", ".1%", 0, 1),
    MetricSpec("pass_hat_k", _HIGHER, "pass^k: chance that k runs of a task all pass (mean over tasks)", ".3f", 0, 1),
    MetricSpec("pass_at_k", _HIGHER, "pass@k: chance that one of k runs of a task passes (mean over tasks)", ".3f",
               0, 1),
    MetricSpec("steps_mean", _LOWER, "Mean tool calls per run", ".2f", 0),
    MetricSpec("tokens_mean", _LOWER, "Mean tokens per run", ".0f", 0),
    MetricSpec("latency_mean", _LOWER, "Mean seconds per run", ".2f", 0),
    MetricSpec("cost_mean", _LOWER, "Mean cost per run", ".4f", 0),
    MetricSpec("tool_edit_distance_mean", _LOWER, "Mean tool-sequence edit distance to the nearest baseline run",
               ".2f", 0),
    MetricSpec("runs", _HIGHER, "Runs scored", ".0f", 0),
    MetricSpec("missing_tasks", _LOWER, "Tasks named in `expect:` without a run", ".0f", 0),
)}
DEFAULT_CHECKS = {"expectations_met_rate": CheckConfig(min=1.0), "missing_tasks": CheckConfig(max=0, scope="model")}
# group metric -> the item column it is the mean of (the `<column>_mean` ones follow from their names)
ITEM_MEANS = {"expectations_met_rate": "expectations_met", "pass_rate": "passed", "success_rate": "success"}
VALUES = ("expectations_met", "passed", "success", "steps", "tokens", "latency", "cost")
NOT_PER_TASK = ("missing_tasks",)  # a model's or the suite's: a (model, task) group has runs by definition
BASELINE_METRICS = ("tool_edit_distance_mean",)


def value_columns(suite: TrajectorySuiteConfig) -> tuple[str, ...]:
    """The numeric item values (`Kind.item_columns_of`): what a significance test resamples."""
    return (*VALUES, *(("tool_edit_distance",) if suite.baseline is not None else ()))


def check_problem(suite: TrajectorySuiteConfig, metric: str, check: CheckConfig) -> CheckProblem | None:
    if metric in BASELINE_METRICS and suite.baseline is None:
        return CheckProblem(expected="a `baseline:` of runs to compare the tool sequences with",
                            found="no `baseline:`", fix="add `baseline: <the baseline runs>` or drop the check")
    if metric in NOT_PER_TASK and check.scope == "group":
        return CheckProblem(expected=f"{metric} at `scope: model` or `scope: suite`",
                            found=f"{metric} per (model, task), where every group has runs",
                            fix="add `scope: model`")
    return None


def _given(value: float) -> float | None:
    return None if math.isnan(value) else value


def pass_hat_k(passes: int, runs: int, k: int) -> float | None:
    """C(c, k) / C(n, k) (`gate.stats.passrate`); None below k runs."""
    return _given(passrate.pass_hat_k(runs, passes, k))


def pass_at_k(passes: int, runs: int, k: int) -> float | None:
    """1 − C(n − c, k) / C(n, k) (`gate.stats.passrate`); None below k runs."""
    return _given(passrate.pass_at_k(runs, passes, k))


def wilson(successes: int, n: int) -> tuple[float, float] | None:
    """The Wilson score interval of a rate (95 %): where the true rate lies, never outside [0, 1]; None without runs."""
    return passrate.wilson_interval(successes, n) if n > 0 else None
