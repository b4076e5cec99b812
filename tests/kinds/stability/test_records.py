"""Stability records' token log-probabilities: the C-speed shortcut accepts exactly what the definition does
(each value finite, ≤ 1e-6 and ≥ -1e6)."""

from __future__ import annotations

import math
import random

import pytest
from pydantic import ValidationError

from gate.kinds.stability.records import StabilityRecord


def accepted(values: list[float]) -> bool:
    try:
        StabilityRecord(model="m", task="t", question_id="q", response="r", token_logprobs=values)
    except ValidationError:
        return False
    return True


def by_definition(values: list[float]) -> bool:
    return all(math.isfinite(v) and -1_000_000 <= v <= 1e-6 for v in values)


@pytest.mark.parametrize("values, ok", [
    ([-0.1, -2.5, 0.0], True), ([1e-6, -0.1], True), ([-500_000.0] * 3, True),  # the sum is past -1e6: the loop
    ([-1_000_000.0], True), ([-1_000_000.5], False), ([-2e6, 0.0], False), ([-1e300, -1.0], False),
    ([0.5, -0.1], False), ([1.1e-6], False), ([float("nan")], False), ([float("-inf")], False),
    ([-1e308, -1e308], False),  # the sum overflows to -inf
])
def test_log_probabilities_are_checked_as_defined(values, ok):
    assert accepted(values) is ok


def test_the_shortcut_agrees_with_the_definition_on_random_lists():
    rng = random.Random(3)
    pick = [lambda: -rng.expovariate(6.0), lambda: -rng.uniform(0, 2e6), lambda: rng.uniform(-1e-5, 1e-5),
            lambda: -10.0 ** rng.uniform(-3, 7), lambda: 0.0]
    for _ in range(2000):
        values = [rng.choice(pick)() for _ in range(rng.randint(1, 12))]
        assert accepted(values) is by_definition(values), values
