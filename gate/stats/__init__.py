"""Pure statistics (DESIGN.md §10): descriptive values, paired tests, the change test behind every
significance-tested check, metrics as functions of their items, and the multiple-testing correction.

- `descriptive`: mean, std, maximum over measured values (None = unmeasured, skipped, never zero).
- `paired`: the Wilcoxon signed-rank test and the paired bootstrap of a mean difference.
- `statistics`: `ItemStatistic`, a metric recomputed from item rows (means, percentiles, spreads…).
- `change`: `change_test` — Δ of a metric against the baseline's distribution, its SE, p and MDE.
- `multiple`: Holm and Benjamini–Hochberg adjusted p-values.
"""

from gate.stats.change import POWER, ChangeTest, change_test, t_cdf, t_quantile
from gate.stats.descriptive import maximum, mean, measured, std
from gate.stats.multiple import Correction, adjust, strictest_level
from gate.stats.paired import PairedDifference, PairedTest, paired_difference, paired_differences, wilcoxon_signed_rank
from gate.stats.statistics import ItemStatistic

__all__ = ["POWER", "ChangeTest", "Correction", "ItemStatistic", "PairedDifference", "PairedTest", "adjust",
           "change_test", "maximum", "mean", "measured", "paired_difference", "paired_differences", "std",
           "strictest_level", "t_cdf", "t_quantile", "wilcoxon_signed_rank"]
