"""benchmarks/trajectory_trust.py runs through the gate's own pieces: a tiny run prints its table, an unchanged
agent taking equivalent paths meets its expectations, and a broken one is caught."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import trajectory_trust  # noqa: E402


def test_a_tiny_run_prints_its_table(capsys):
    trajectory_trust.main(["--trials", "2", "--tasks", "12"])
    out = capsys.readouterr().out
    assert "| tasks | false alarms | inconclusive | dropped f=0.05 |" in out and "| 12 | " in out


def test_equivalent_paths_meet_the_expectations_and_regressions_do_not():
    world = trajectory_trust.World(30, np.random.default_rng(1))
    unchanged = world.run()
    assert unchanged.metrics["expectations_met_rate"] > 0.9 and unchanged.metrics["tool_edit_distance_mean"] > 0
    broken = np.zeros(30, dtype=bool)
    broken[:6] = True
    for how in trajectory_trust.REGRESSIONS:
        result = world.run(broken, how)
        items = {dict(i.key)["task_id"]: i for i in result.items}
        assert all(items[f"t{t:03d}"].values["expectations_met"] == 0 for t in range(6)), how
