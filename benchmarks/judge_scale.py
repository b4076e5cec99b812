"""How long the judge takes at scale: change checks with significance over many items and groups.

    .venv/bin/python benchmarks/judge_scale.py                      # 10,000 items in 500 groups
    .venv/bin/python benchmarks/judge_scale.py --groups 2000 --per-group 10

Builds a drift-shaped suite (exercise × model groups of submissions) and a snapshot blessed from two runs of it,
then times `judge_suite` + `judge_gate` for a floor per group and a significance-tested change check per group
(no model work: this is the judge alone). Prints the wall time and the number of checks.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate.baselines.snapshots import Snapshot, compare  # noqa: E402
from gate.config import CheckConfig, UnmeasuredPolicy  # noqa: E402
from gate.judge import judge_gate, judge_suite  # noqa: E402
from gate.results import GroupResult, Item, SuiteResult  # noqa: E402
from gate.stats import statistics  # noqa: E402


def result(rng: random.Random, groups: int, per_group: int, shift: float = 0.0) -> SuiteResult:
    items, grouped = [], []
    for e in range(groups):
        values = [0.8 + rng.gauss(0, 0.05) + shift for _ in range(per_group)]
        items += [Item((("exercise", str(e)), ("submission", str(s)), ("model", "m")), {"f1": v})
                  for s, v in enumerate(values)]
        grouped.append(GroupResult("group", (("exercise", str(e)), ("model", "m")), {"f1": sum(values) / per_group},
                                   per_group))
    return SuiteResult("s", "drift", {"f1": 0.8}, tuple(grouped), tuple(items), ("exercise", "submission", "model",
                                                                                 "f1"), fingerprint={"bench": 1})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=500)
    parser.add_argument("--per-group", type=int, default=20)
    args = parser.parse_args(argv)
    rng = random.Random(0)

    def bless(run: SuiteResult, day: int) -> Snapshot:
        return Snapshot.from_result(run, gate="g", created_at=f"2026-11-0{day}T00:00:00Z", commit=None,
                                    inputs_digest=None, tool_version="bench")

    snapshot = bless(result(rng, args.groups, args.per_group), 1).add_run(bless(result(rng, args.groups,
                                                                                        args.per_group), 2))
    current = result(rng, args.groups, args.per_group, shift=-0.01)
    comparison = compare(snapshot, current, path="p", inputs_digest=None, now=dt.datetime(2026, 11, 24),
                         max_age_days=None)
    checks = {"f1": [CheckConfig(min=0.7), CheckConfig(max_decrease=0, significant=True)]}
    started = time.perf_counter()
    suite = judge_suite(current, checks, UnmeasuredPolicy.WARN, comparison, lambda metric: statistics.mean("f1"))
    gate = judge_gate("g", [suite])
    seconds = time.perf_counter() - started
    print(f"{len(current.items):,} items in {args.groups:,} groups: {len(suite.checks):,} checks "
          f"({gate.tested:,} significance-tested) judged in {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
