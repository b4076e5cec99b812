"""Baseline vs candidate (pure): per-metric Δ and Δ%, direction-aware, and a paired significance test.

Queries pair by `id` and query text (`records.RagRecord.pair`: an id whose question differs between the runs is
two queries, paired with nothing; `pairing` says so in a note). For each per-query metric the queries measured
in both runs are compared: a row's `baseline` and `candidate` are the means over those `n` paired queries, Δ =
candidate − baseline (the mean paired difference), Δ% = 100 · Δ / |baseline|, with a seeded paired bootstrap CI
of the mean difference (or a Wilcoxon signed-rank p). So the values a row shows are the values its Δ and Δ% are
computed from, and their signs always agree. Each system's own mean over every query it measured (the system
table's figure) is `system_baseline`/`system_candidate` over `n_baseline`/`n_candidate` queries; it differs
from the paired mean only where the runs measured different queries. A significant difference in the better
direction is an improvement, in the worse direction a regression — lower latency and cost are better.
System-level figures (corpus BLEU, latency percentiles, throughput, overall score) compare the systems' own
figures, Δ and Δ% without a test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.kinds.rag.config import Significance
from gate.kinds.rag.records import PairKey
from gate.stats import paired_differences

LOWER_IS_BETTER = {"latency", "cost", "latency_p50", "latency_p95", "latency_p99", "cost_per_query"}
# per-query item metric -> the name of its per-system mean (and of the Δ metric: delta_<name>)
SUMMARY_NAME = {"reciprocal_rank": "mrr", "latency": "latency_mean", "cost": "cost_mean", "bleu": "sentence_bleu"}
SYSTEM_LEVEL = ("bleu", "latency_p50", "latency_p95", "latency_p99", "throughput_qps", "cost_per_query",
                "overall_score")


@dataclass(frozen=True)
class Row:
    metric: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    delta_pct: float | None
    n: int | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    outcome: str = "n/a"  # improvement | regression | no significant change | n/a
    method: str | None = None
    system_baseline: float | None = None  # each system's mean over every query it measured (the system table's)
    system_candidate: float | None = None
    n_baseline: int | None = None  # queries each system measured (the system means' sample)
    n_candidate: int | None = None

    @property
    def lower_is_better(self) -> bool:
        return self.metric in LOWER_IS_BETTER or self.metric in ("latency_mean", "cost_mean")


def compare(candidate: Mapping[PairKey, Mapping[str, float | None]],
            baseline: Mapping[PairKey, Mapping[str, float | None]],
            per_query: Sequence[str], system_level: tuple[Mapping[str, float | None], Mapping[str, float | None]],
            significance: Significance) -> list[Row]:
    cand_sys, base_sys = system_level
    shared = [key for key in candidate if key in baseline]
    paired: dict[str, tuple[list[float], list[float]]] = {}
    for metric in per_query:
        pairs = [(c, b) for c, b in ((candidate[k].get(metric), baseline[k].get(metric)) for k in shared)
                 if c is not None and b is not None]
        if pairs:
            paired[metric] = ([c for c, _ in pairs], [b for _, b in pairs])
    # One call for all metrics: the bootstrap draws its resamples once per number of pairs.
    tests = dict(zip(paired, paired_differences(list(paired.values()), method=significance.method.value,
                                                alpha=significance.alpha, resamples=significance.resamples,
                                                seed=significance.seed), strict=True))
    rows = []
    for metric in per_query:
        name = SUMMARY_NAME.get(metric, metric)
        n_base = sum(1 for v in baseline.values() if v.get(metric) is not None)
        n_cand = sum(1 for v in candidate.values() if v.get(metric) is not None)
        if metric not in paired:
            rows.append(Row(name, None, None, None, None, n=0, system_baseline=base_sys.get(name),
                            system_candidate=cand_sys.get(name), n_baseline=n_base, n_candidate=n_cand))
            continue
        cs, bs = paired[metric]
        test = tests[metric]
        base, cand = math.fsum(bs) / len(bs), math.fsum(cs) / len(cs)
        difference = cand - base  # the test's mean difference, from the means shown beside it
        row = Row(name, base, cand, difference, _pct(difference, base), test.n, test.low, test.high, test.p_value,
                  method=test.method, system_baseline=base_sys.get(name), system_candidate=cand_sys.get(name),
                  n_baseline=n_base, n_candidate=n_cand)
        rows.append(_outcome(row, test.significant))
    for metric in SYSTEM_LEVEL:
        c, b = cand_sys.get(metric), base_sys.get(metric)
        delta = c - b if c is not None and b is not None else None
        rows.append(Row(metric, b, c, delta, _pct(delta, b), system_baseline=b, system_candidate=c))
    return rows


def _pct(delta: float | None, base: float | None) -> float | None:
    return None if delta is None or not base else 100 * delta / abs(base)


def _outcome(row: Row, significant: bool) -> Row:
    if not significant or row.delta is None:
        outcome = "no significant change"
    else:
        better = row.delta < 0 if row.lower_is_better else row.delta > 0
        outcome = "improvement" if better else "regression"
    return Row(**{**row.__dict__, "outcome": outcome})


def comparison_metrics(rows: Sequence[Row]) -> dict[str, float | None]:
    """The checkable figures of a comparison: delta_<metric> per row, and the significant counts."""
    metrics: dict[str, float | None] = {f"delta_{r.metric}": r.delta for r in rows}
    metrics["regressions"] = float(sum(r.outcome == "regression" for r in rows))
    metrics["improvements"] = float(sum(r.outcome == "improvement" for r in rows))
    return metrics
