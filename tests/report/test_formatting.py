"""How a value meets its bound in the report: the digits that decide the verdict (gate.report.formatting)."""

from __future__ import annotations

import pytest

from gate.report.formatting import decisive


@pytest.mark.parametrize(("value", "bounds", "fmt", "shown"), [
    (0.69981, (0.7, 0.8), ".3f", "0.6998"),  # issue 32: a failing F1 shown as 0.700 beside ≥ 0.7
    (0.7000004, (0.7,), ".3f", "0.7000004"),  # passing by a hair: the digits that pass
    (0.7, (0.7,), ".3f", "0.700"),  # exactly at the bound: the bound
    (0.8123, (0.7, 0.8), ".3f", "0.812"),  # far from both: as ever
    (0.04996, (0.05,), ".0%", "4.996%"),  # a rate: the percentage grows digits too
    (3.0004, (3.0,), ".2f", "3.0004"),
    (None, (0.7,), ".3f", "n/a"),
    (float("nan"), (0.7,), ".3f", "nan"),
])
def test_a_value_beside_its_bound_shows_the_digits_that_decide(value, bounds, fmt, shown):
    assert decisive(value, bounds, fmt) == shown
    if value is not None and value == value and shown.replace("%", "") != "n/a":
        read = float(shown[:-1]) / 100 if shown.endswith("%") else float(shown)
        for bound in bounds:  # the shown number is on the value's side of every bound (a formula, independently)
            assert (read > bound) == (value > bound) and (read < bound) == (value < bound)
