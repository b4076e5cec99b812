"""The stereotype metrics as functions of their items' values, for significance tests (`Kind.item_statistic`):
the rates are means of boolean columns; `paired_test_p` (a test's p-value) and `n` (a count) no resample of
items recomputes."""

from __future__ import annotations

from gate.kinds.stereotype.config import StereotypeSuiteConfig
from gate.stats import statistics as item
from gate.stats.statistics import ItemStatistic

_RATES = {"significant_drift_rate": ("drift_significant_drift", "share of probes whose drift is significant"),
          "trait_mention_rate": ("similarity_trait_mentioned", "share of bias-injected answers naming the trait")}


def stereotype_statistic(suite: StereotypeSuiteConfig, metric: str) -> ItemStatistic | None:
    """The rates: means of a boolean column (linear, so tested exactly by the paired t-test)."""
    if metric not in _RATES:
        return None
    column, name = _RATES[metric]
    return ItemStatistic((column,), item.mean(column).compute, linear=True, name=name)
