"""How often the trajectory kind's verdicts are wrong: false alarms when agents take equivalent paths, detection
of a dropped or a misused tool on a fraction f of the tasks.

    .venv/bin/python benchmarks/trajectory_trust.py                     # 200 trials per cell, 40 and 100 tasks
    .venv/bin/python benchmarks/trajectory_trust.py --trials 50 --tasks 40 --json out.json

Unlike benchmarks/trust.py, which draws item values, this draws agent *runs* and sends them through the gate's own
pieces: the trajectory scorer (`gate.kinds.trajectory`: expectations, nearest-baseline edit distance, rates),
`gate.kinds.samples.collapse` (three runs per task merged into one item with its spread), the baseline snapshot
(`Snapshot.from_result` + `add_run`, as `llm-gate baseline bless` / `bless --add`), `compare` and the judge
(`gate.run.judge`: the change test, Holm's correction, the MDE, the verdicts).

The world (seeded, `--seed`; assumptions stated so they can be argued with). n tasks; each has an ideal path of
2–5 distinct tools from a vocabulary of 10, its last call the action (`book`-like) and the one before it the guard
(`check`-like); expectations `tools_called: [guard, action]`, `order: [guard, action]`, and the action's
arguments `{type: object, required: [id], properties: {id: {type: integer}}}`. The harness's success per run is
Bernoulli(p_task), p_task ~ Beta(8, 2); cost per run = the task's base (lognormal) × calls × lognormal(0, 0.15).
An unchanged agent takes **equivalent paths**: the calls before the guard in any order, a retried call with
probability 0.25, the search wording varied, and with probability 0.03 a flaky run that skips the guard (as
real agents sometimes do). The main branch's runs (`baseline:`) are each task's ideal path once. A regression
breaks a fraction f of the tasks in every run: **dropped** — the guard is never called (the harness notices a
third of the time: p × 2/3); **misused** — the action is called with a text id ("A-17"), which its schema refuses
(p × 2/3 too).

The recipe (docs/baselines.md): bless K = 5 runs of 3 samples per task; four change checks at suite scope with
`significant: true` and a zero bound — `expectations_met_rate` and `success_rate` (max_decrease 0),
`tool_edit_distance_mean` and `cost_mean` (max_increase 0); `alpha: 0.05`, `correction: holm`. Each trial draws a
world, blesses it, then judges a fresh unchanged run and, per regression and f, a fresh broken run of the same
world. Printed: the gate-level false-alarm and inconclusive rates, detection (gate FAILS) per regression and f,
with binomial 95 % half-widths. Exit code 1 when false alarms are significantly above 5 % or f = 0.1 is detected
below 95 % at ≥ 40 tasks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate.baselines.snapshots import Snapshot, compare  # noqa: E402
from gate.config import GateConfig  # noqa: E402
from gate.judge import Verdict  # noqa: E402
from gate.kinds import KINDS  # noqa: E402
from gate.kinds.base import ScoringContext  # noqa: E402
from gate.kinds.samples import collapse  # noqa: E402
from gate.kinds.trajectory.records import TrajectoryData  # noqa: E402
from gate.kinds.trajectory.runs import Run, Step  # noqa: E402
from gate.results import SuiteResult  # noqa: E402
from gate.run import judge  # noqa: E402

TOOLS = ["search", "lookup", "fetch_profile", "read_file", "get_weather", "convert", "summarise", "send_email",
         "check", "book"]
FRACTIONS = (0.05, 0.1, 0.2)
REGRESSIONS = ("dropped", "misused")
SAMPLES, RUNS, ALPHA = 3, 5, 0.05
CHECKS = {"expectations_met_rate": {"max_decrease": 0, "significant": True, "scope": "suite"},
          "success_rate": {"max_decrease": 0, "significant": True, "scope": "suite"},
          "tool_edit_distance_mean": {"max_increase": 0, "significant": True, "scope": "suite"},
          "cost_mean": {"max_increase": 0, "significant": True, "scope": "suite"}}
KIND = KINDS["trajectory"]


class World:
    """One agent on n tasks: each task's ideal path, success chance and cost; `run` draws one run of all tasks."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.n, self.rng = n, rng
        self.paths = [[TOOLS[j] for j in rng.choice(len(TOOLS), size=rng.integers(2, 6), replace=False)]
                      for _ in range(n)]
        self.success = rng.beta(8, 2, n)
        self.cost = rng.lognormal(math.log(0.002), 0.5, n)
        expect: dict[str, Any] = {}
        for t, path in enumerate(self.paths):
            guard, action = path[-2], path[-1]
            expect[f"t{t:03d}"] = {"tools_called": [guard, action], "order": [guard, action], "arguments": {
                action: {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}}}
        self.gate = GateConfig.model_validate({"version": 1, "name": "trust", "alpha": ALPHA, "correction": "holm",
                                               "suites": {"agent": {"kind": "trajectory", "records": "runs/*",
                                                                    "baseline": "base/*", "expect": expect,
                                                                    "checks": CHECKS}}})
        self.suite = self.gate.suites["agent"]
        self.baseline = tuple(Run(f"t{t:03d}", "main", None, tuple(Step(tool, self._arguments(tool, path))
                                                                    for tool in path))
                              for t, path in enumerate(self.paths))

    def _arguments(self, tool: str, path: list[str], misused: bool = False) -> dict[str, Any]:
        if tool == path[-1]:
            return {"id": "A-17" if misused else 17}
        return {"query": f"{tool} {self.rng.integers(4)}"}  # wording varies between runs

    def _path(self, t: int, broken: str | None) -> tuple[Step, ...]:
        path, rng = self.paths[t], self.rng
        prefix = [path[i] for i in rng.permutation(len(path) - 2)]  # the calls before the guard, in any order
        calls = [*prefix, path[-2], path[-1]]
        if rng.random() < 0.25:  # a retried call
            i = int(rng.integers(len(calls) - 1))
            calls.insert(i, calls[i])
        if broken == "dropped" or rng.random() < 0.03:  # the guard skipped: deliberately, or a flaky run
            calls = [tool for tool in calls if tool != path[-2]]
        return tuple(Step(tool, self._arguments(tool, path, broken == "misused")) for tool in calls)

    def run(self, broken: np.ndarray | None = None, how: str | None = None) -> SuiteResult:
        runs = []
        for t in range(self.n):
            bad = how if broken is not None and broken[t] else None
            for sample in range(SAMPLES):
                steps = self._path(t, bad)
                p = self.success[t] * (2 / 3 if bad else 1)
                cost = float(self.cost[t] * len(steps) * self.rng.lognormal(0, 0.15))
                runs.append(Run(f"t{t:03d}", "agent", str(sample), steps, "done", bool(self.rng.random() < p),
                                cost=round(cost, 8)))
        data = TrajectoryData(runs=tuple(runs), models=("agent",), expectations=dict(self.suite.expect or {}),
                              baseline=self.baseline, skipped_traces=0, formats=("runs",))
        result = KIND.score("agent", self.suite, data, ScoringContext(self.gate, None, Path(".")))  # type: ignore[arg-type]
        return collapse(result, partial(KIND.statistic, self.suite, columns=result.value_names()))


def bless(world: World) -> Snapshot:
    snapshot = None
    for r in range(RUNS):
        one = Snapshot.from_result(world.run(), gate="trust", commit=None, inputs_digest=None,
                                   created_at=f"2026-11-0{r + 1}T00:00:00Z", tool_version="bench")
        snapshot = one if snapshot is None else snapshot.add_run(one)
    assert snapshot is not None
    return snapshot


def verdict(world: World, snapshot: Snapshot, current: SuiteResult) -> Verdict:
    comparison = compare(snapshot, current, path="baselines/metrics/agent.json", inputs_digest=None,
                         now=dt.datetime(2026, 11, 24), max_age_days=None)
    assert comparison.comparable, comparison
    return judge([current], world.gate, None, {"agent": comparison}, dt.date(2026, 11, 24)).verdict


def measure(n: int, trials: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed + n)
    fails = inconclusive = 0
    detected = {(how, f): 0 for how in REGRESSIONS for f in FRACTIONS}
    for _ in range(trials):
        world = World(n, rng)
        snapshot = bless(world)
        unchanged = verdict(world, snapshot, world.run())
        fails += unchanged is Verdict.FAIL
        inconclusive += unchanged is Verdict.INCONCLUSIVE
        for how in REGRESSIONS:
            for f in FRACTIONS:
                broken = np.zeros(n, dtype=bool)
                broken[rng.choice(n, size=max(1, round(f * n)), replace=False)] = True
                detected[(how, f)] += verdict(world, snapshot, world.run(broken, how)) is Verdict.FAIL
    return {"tasks": n, "trials": trials, "false_alarms": fails / trials, "inconclusive": inconclusive / trials,
            "detected": {f"{how} f={f:g}": count / trials for (how, f), count in detected.items()}}


def half_width(rate: float, trials: int) -> float:
    return 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / trials)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", type=int, default=[40, 100])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"recipe: bless {RUNS} runs of {SAMPLES} samples per task; 4 significant change checks at suite scope, "
          f"zero bounds; alpha {ALPHA}, Holm; {args.trials} trials per cell, seed {args.seed}\n")
    header = ("| tasks | false alarms | inconclusive | "
              + " | ".join(f"{how} f={f:g}" for how in REGRESSIONS for f in FRACTIONS) + " |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    rows, missed = [], []
    for n in args.tasks:
        row = measure(n, args.trials, args.seed)
        rows.append(row)
        ci = half_width(row["false_alarms"], args.trials)
        cells = " | ".join(f"{rate:.0%}" for rate in row["detected"].values())
        print(f"| {n} | {row['false_alarms']:.1%} ±{ci:.1%} | {row['inconclusive']:.1%} | {cells} |", flush=True)
        if row["false_alarms"] - ci > 0.05:
            missed.append(f"n={n}: false alarms {row['false_alarms']:.1%}, significantly above 5%")
        for how in REGRESSIONS:
            rate = row["detected"][f"{how} f=0.1"]
            if n >= 40 and rate < 0.95:
                missed.append(f"n={n}: {how} tool at f=0.1 detected {rate:.0%} < 95%")
    print(f"\n{time.perf_counter() - started:.0f} s")
    for line in missed:
        print(f"target missed: {line}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "seed": args.seed}, indent=2))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
