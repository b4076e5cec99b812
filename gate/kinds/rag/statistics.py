"""A RAG system's figures as functions of its queries' values, so a significance test can recompute them.

Each reproduces `scorer._system` / `summary` from the rows of all the system's queries (`ItemStatistic`):

- `latency_p50/p95/p99`: numpy's percentile of `latency`; `throughput_qps`: queries per second of summed
  latency; `cost_per_query`: the mean of `cost` (its plain mean, so linear).
- `bleu`: corpus BLEU from the summed sufficient statistics each answered query carries
  (`generation.BLEU_STATISTICS`, items.csv's last columns: the query's statistics summed over its generations,
  `generation.query_bleu_values`), computed as sacrebleu's `compute_bleu` does with its corpus defaults: exp
  smoothing, max n-gram order 4, no effective order. With samples too the column sums are every answer's
  statistics, so the value is `sacrebleu.corpus_bleu` over all the system's answers, each generation a segment.
- `overall_score`: `summary.overall`'s weighted mean over its components recomputed from the rows (mrr from
  `reciprocal_rank`, recall_at_k at the largest k, bleu as above, a judge criterion left out like the scorer
  does when more than `max_unscored` of its queries went unscored); a component with no value is left out
  and the other weights rescale.
The means (mrr, k-metrics, sentence_bleu, judge_*) are `Kind.item_column`'s. None: `queries` (a count),
the comparison metrics (`delta_*`, regressions, improvements: two systems, not one group's items), and the
grade, which is a letter in the system's summary, not a metric.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from gate.kinds.rag.checks import item_columns
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.generation import BLEU_STATISTICS
from gate.stats import statistics as item
from gate.stats.statistics import ItemStatistic, Rows

ORDER = 4  # sacrebleu's MAX_NGRAM_ORDER
_FLOOR = -9999999999.0  # sacrebleu's my_log(0)
_COLUMN = {"mrr": "reciprocal_rank"}  # overall-score component -> its item column, where the names differ


def item_values(suite: RagSuiteConfig) -> tuple[str, ...]:
    """The numeric values every query carries: the item columns, then the BLEU statistics."""
    return (*item_columns(suite), *BLEU_STATISTICS)


def corpus_bleu(stats: NDArray[np.float64]) -> NDArray[np.float64]:
    """Corpus BLEU / 100 from summed statistics (..., 10) in `BLEU_STATISTICS` order, as sacrebleu."""
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct, total = stats[..., 2:2 + ORDER], stats[..., 2 + ORDER:2 + 2 * ORDER]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)),
                                                  0.0), 1.0)
        alive = np.cumprod(total > 0, axis=-1).astype(bool)  # sacrebleu stops at the first order with no n-grams
        zero = correct == 0
        smooth = 2.0 ** np.cumsum(zero & alive, axis=-1)  # exp smoothing: halve again at each order with no match
        safe = np.where(total > 0, total, 1.0)
        precision = np.where(alive, np.where(zero, 100.0 / (smooth * safe), 100.0 * correct / safe), 0.0)
        logs = np.where(precision > 0, np.log(np.where(precision > 0, precision, 1.0)), _FLOOR)
        score = bp * np.exp(logs.sum(axis=-1) / ORDER)
    return np.where(correct.sum(axis=-1) > 0, score, 0.0) / 100


def _corpus_bleu_rows(v: Rows) -> NDArray[np.float64]:
    """(..., n, 10) rows (NaN for queries not answered) -> corpus BLEU, NaN where no query was answered."""
    answered = ~np.isnan(v[..., 0])
    stats = np.where(answered[..., None], v, 0.0).sum(axis=-2)
    return np.where(answered.any(axis=-1), corpus_bleu(stats), np.nan)


BLEU = ItemStatistic(BLEU_STATISTICS, _corpus_bleu_rows, name="corpus BLEU of the summed n-gram statistics")


def _nanmean(v: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mean over the items axis (-1) of the measured values; NaN where none is."""
    measured = ~np.isnan(v)
    count = measured.sum(axis=-1)
    return np.where(count > 0, np.where(measured, v, 0.0).sum(axis=-1) / np.maximum(count, 1), np.nan)


def overall_statistic(suite: RagSuiteConfig, max_unscored: float) -> ItemStatistic:
    weights = {name: w for name, w in suite.overall_weights.items() if w > 0}
    largest = max(suite.k)
    parts = {name: BLEU_STATISTICS if name == "bleu" else
             (f"recall_at_k.{largest}",) if name == "recall_at_k" else (_COLUMN.get(name, name),) for name in weights}
    columns = tuple(dict.fromkeys(c for cols in parts.values() for c in cols))
    where = {name: [columns.index(c) for c in cols] for name, cols in parts.items()}

    def compute(v: Rows) -> NDArray[np.float64]:
        num = np.zeros(v.shape[:-2])
        den = np.zeros(v.shape[:-2])
        for name, weight in weights.items():
            block = v[..., where[name]]
            if name == "bleu":
                value = _corpus_bleu_rows(block)
            else:
                value = _nanmean(block[..., 0])
                if name.startswith("judge_"):  # the scorer leaves a criterion out past its unscored share
                    lost = np.isnan(block[..., 0]).sum(axis=-1) > max_unscored * v.shape[-2]
                    value = np.where(lost, np.nan, value)
            used = ~np.isnan(value)
            num = num + np.where(used, weight * value, 0.0)
            den = den + np.where(used, weight, 0.0)
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return ItemStatistic(columns, compute, name="weighted overall score of the recomputed components")


def rag_statistic(suite: RagSuiteConfig, metric: str, max_unscored: float) -> ItemStatistic | None:
    if metric in ("latency_p50", "latency_p95", "latency_p99"):
        return item.percentile("latency", float(metric.removeprefix("latency_p")))
    if metric == "throughput_qps":
        return item.reciprocal_mean("latency")
    if metric == "cost_per_query":
        return ItemStatistic(("cost",), item.mean("cost").compute, linear=True, name="mean cost per query")
    if metric == "bleu":
        return BLEU
    return overall_statistic(suite, max_unscored) if metric == "overall_score" else None
