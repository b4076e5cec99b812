"""Pairing a run's items with the baseline snapshot's, by identity: each group's items in both runs as rows of
a statistic's columns, with the snapshot's run-to-run moments and the current run's sample spread, and the
blessed items the run does not cover (`gate.judge.changes` tests and judges them). Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from gate.judge.types import BaselineSnapshot
from gate.results import GroupIndex, Key, SuiteResult, identity


class Members:
    """The items of each group, current and blessed (each indexed once: `gate.results.GroupIndex`).

    The run's scope is the models it has items of: a `--model` filter (a matrix job per model) leaves the other
    models' blessed items out, so they are neither compared nor missing."""

    def __init__(self, result: SuiteResult, snapshot: BaselineSnapshot | None):
        self._now = GroupIndex(result.items)
        self.models = run_models(result)
        self._then = GroupIndex(b for b in (snapshot.items if snapshot is not None else ()) if self.in_run(b.key))

    def in_run(self, key: Key) -> bool:
        model = dict(identity(key)).get("model")
        return model is None or not self.models or model in self.models

    def of(self, key: Key) -> tuple[list[Any], dict[Key, Any]]:
        """(the group's current items, its blessed items by identity)."""
        return self._now.of(key), {identity(blessed.key): blessed for blessed in self._then.of(key)}


def run_models(result: SuiteResult) -> frozenset[str]:
    """The models this run has items of (empty: its items have no `model`)."""
    return frozenset(value for item in result.items for field, value in identity(item.key) if field == "model")


@dataclass(frozen=True)
class Pairs:
    """A group's items present in both runs, as rows of the statistic's columns (NaN where a value is missing)."""

    current: np.ndarray  # (n, c)
    baseline: np.ndarray  # (n, c): the means over the snapshot's runs
    variances: np.ndarray  # (n, c): the snapshot's run-to-run variances (NaN: unknown)
    runs: np.ndarray  # (n,): the runs (and repeated samples) each baseline item's mean is over
    current_variances: np.ndarray  # (n, c): the spread of the current item's repeated samples (NaN: one)
    current_draws: np.ndarray  # (n,): the samples each current item's value is the mean of
    total: int  # the group's items in this run, paired or not
    unpaired: int = 0  # of them, those the snapshot does not have
    unmeasured: int = 0  # of them, those in both without a value now where the snapshot has one
    missing: tuple[Key, ...] = ()  # the snapshot's items of the group (with a value) that this run does not have
    valueless: tuple[Key, ...] = ()  # the keys of the unmeasured ones
    thirds: np.ndarray | None = None  # (n, c): the snapshot's run-to-run third central moments (NaN: unknown)


def paired_rows(result: SuiteResult, snapshot: BaselineSnapshot, key: Key, columns: tuple[str, ...]) -> Pairs:
    """The items of group `key` present in both runs; an item missing a column on either side has NaN there,
    and one missing all (its only one, for a one-column statistic) is left out."""
    return pair(*Members(result, snapshot).of(key), columns)


def pair(current_items: list[Any], blessed: dict[tuple[tuple[str, str], ...], Any], columns: tuple[str, ...]) -> Pairs:
    current, baseline, variances, runs, spreads, draws, thirds = [], [], [], [], [], [], []
    unpaired = 0
    valueless: list[Key] = []
    seen = set()
    for item in current_items:
        ident = identity(item.key)
        then = blessed.get(ident)
        if then is None:
            unpaired += 1
            continue
        seen.add(ident)
        now_row = [_nan(item.values.get(c)) for c in columns]
        then_row = [_nan(then.values.get(c)) for c in columns]
        usable = [not (math.isnan(a) or math.isnan(b)) for a, b in zip(now_row, then_row, strict=True)]
        if all(usable) if len(columns) == 1 else any(usable):
            current.append(now_row)
            baseline.append(then_row)
            variances.append([_nan(then.variances.get(c)) for c in columns])
            thirds.append([_nan(then.thirds.get(c)) for c in columns])
            runs.append(float(then.runs))
            spreads.append([_nan(item.spread.get(c)) for c in columns])
            draws.append(float(item.draws))
        elif _valued(then, columns):  # the snapshot measured it, this run did not
            valueless.append(then.key)
    missing = tuple(then.key for ident, then in blessed.items() if ident not in seen and _valued(then, columns))
    width = len(columns)

    def rows(values: list[list[float]]) -> np.ndarray:
        return np.asarray(values, dtype=float).reshape(-1, width)

    return Pairs(rows(current), rows(baseline), rows(variances), np.asarray(runs, dtype=float), rows(spreads),
                 np.asarray(draws, dtype=float), len(current_items), unpaired, len(valueless), missing,
                 tuple(valueless), rows(thirds))


def _valued(blessed: Any, columns: tuple[str, ...]) -> bool:
    """Whether a blessed item has a value in any of the columns (one without is not the run's to cover)."""
    return any(not math.isnan(_nan(blessed.values.get(c))) for c in columns)


def paired_values(result: SuiteResult, snapshot: BaselineSnapshot, key: Key,
                  column: str) -> tuple[list[float], list[float]]:
    """(current, baseline) values of `column` for the items of group `key` present in both runs."""
    pairs = paired_rows(result, snapshot, key, (column,))
    return [float(x) for x in pairs.current[:, 0]], [float(x) for x in pairs.baseline[:, 0]]


def _nan(value: Any) -> float:
    number = finite(value)
    return math.nan if number is None else number


def finite(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)  # a rate is the mean of booleans
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None
