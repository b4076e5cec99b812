"""The snippet says how to merge it into gate.yml, and when its whole false-alarm rate is above the `alpha` it was
asked for (the floors' --floor-budget adds to the change checks' alpha) it says so and what to change: the recipe's
`llm-gate calibrate` printed 'about 6.0 %' beside a 5 % recipe without a word (issue 32, item 14d)."""

from __future__ import annotations

import yaml

from gate.baselines.calibration import calibrate, gate_false_alarm, over_alpha, snippet
from tests.baselines.test_calibration_promises import HIGHER, drift_runs


def test_the_default_snippet_says_it_is_above_alpha_and_which_alpha_keeps_the_whole_within():
    result = calibrate(drift_runs(), HIGHER, z=None, alpha=0.05, floor_budget=0.01)  # the CLI's defaults
    estimate, ceiling = gate_false_alarm(result)
    assert estimate > 0.05 and ceiling > 0.05
    text = snippet(result)
    advice = over_alpha(result)
    assert advice is not None and f"#   {advice}" in text
    assert "Above alpha = 5%" in advice and "--alpha 0.04" in advice
    shared = calibrate(drift_runs(), HIGHER, z=None, alpha=0.04, floor_budget=0.01)  # as the advice says
    assert gate_false_alarm(shared)[1] <= 0.05 + 1e-9
    assert "# Merge into gate.yml: `alpha:` at its top level" in text
    assert yaml.safe_load(text)["alpha"] == 0.05  # the comments leave the YAML as it was


def test_a_snippet_within_alpha_says_nothing_more():
    result = calibrate(drift_runs(), HIGHER, z=None, alpha=0.05, floor_budget=0.01)
    without_floors = type(result)((), result.skipped, result.changes, result.alpha)
    assert over_alpha(without_floors) is None
