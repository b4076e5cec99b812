"""The heuristic metrics as functions of their items' values, for significance tests (`Kind.item_statistic`).

The means are the base's (`Kind.item_column`); the per-group spreads are here. No resample of items can
recompute `responses` (a count), `missing_ratio` (absent responses are no items) or `empty_ratio` (its
denominator is the expected count, models × prompts, not the items). Std is the sample std, as pandas.
"""

from __future__ import annotations

from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.stats import statistics as item
from gate.stats.statistics import ItemStatistic, sample_std

_HEURISTIC = {"median": item.median, "std": sample_std, "min": item.minimum, "max": item.maximum}


def heuristic_statistic(suite: HeuristicSuiteConfig, metric: str) -> ItemStatistic | None:
    """`<metric>_<median|std|min|max>` of a rubric metric or `final_score`; the means are the base's."""
    column, _, stat = metric.rpartition("_")
    return _HEURISTIC[stat](column) if column and stat in _HEURISTIC else None
