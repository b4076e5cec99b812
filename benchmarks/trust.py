"""How often the gate's verdicts are wrong: false alarms on an unchanged system, detection of real regressions.

    .venv/bin/python benchmarks/trust.py                  # every kind, 1000 trials per cell (≈ 4 min on 2 cores)
    .venv/bin/python benchmarks/trust.py --trials 40 --items 40 100 --kinds drift rag
    .venv/bin/python benchmarks/trust.py --recipe bound    # max_decrease at the calibrated MDE instead of 0
    .venv/bin/python benchmarks/trust.py --recipe calibrate --trials 400  # issue 35's cases (trust_cases.py)
    .venv/bin/python benchmarks/trust.py --runs 1 --samples 3 --json out.json  # 3 generations per item

What it simulates (seeded, `--seed`): per kind a suite of n items whose values have a latent per-item quality
plus run-to-run noise of the size benign rewording causes for that kind (below), and a small shared per-run
offset (a whole run moving together). A baseline is blessed from K runs (`Snapshot.from_result` + `add_run`,
as `llm-gate baseline bless` / `bless --add` do); the candidate is one fresh run. Regressions break a
fraction f of the items (a broken answer: the kind's "broken" drop on that item). Each trial runs the real
judge (`judge_suite` + `judge_gate`: change test, Holm correction, MDE, verdicts) on the recipe's checks.

The recipe (docs/baselines.md): bless K = 5 runs; per kind 2–3 change checks at suite scope with
`significant: true`; `alpha: 0.05`, `correction: holm`. `--recipe zero` (default) sets `max_decrease: 0` — fail
on any significant drop (the report prints the MDE); `--recipe bound` sets `max_decrease` to the MDE that
`llm-gate calibrate` proposes for that noise, so a check is never underpowered but needs the drop past it.

Printed per kind and n: the gate-level false-alarm rate (share of unchanged runs whose gate FAILS), the
inconclusive rate, the detection rate (gate FAILS) per f, and the smallest f detected ≥ 95 %. Rates carry a
binomial 95 % interval half-width. Exit code 1 when a target is missed: false alarms significantly above 5 %
(the design rate is alpha = 5 %, so a measurement of exactly-alpha scatters around it) on any kind, or f = 0.1
detected below 95 % with ≥ 40 items.

Kinds, per-item values (latent quality q_i, noise sd per run, the drop of a broken item) — assumptions
stated so they can be argued with:
- drift:       bertscore_f1 q~N(0.88,0.04) noise 0.02, broken −0.15; credit_drift_mean q≈|N(0,0.5)| noise 0.3, broken +3
- rag:         context_similarity q~Beta(8,2) noise 0.08, broken −0.5; answer_relevancy q~N(0.75,0.08) noise 0.04,
               broken −0.3; corpus BLEU (bootstrap test) from per-answer n-gram counts of 30–90-token answers
               matching at precision p^n, p~Beta(6,4) noise 0.05, broken ×0.3. Latency is not gated by change
               checks in the recipe: a shared runner's load moves every query together (shared noise), which
               3 blessed runs cannot measure; gate it with calibrate's absolute `max` instead.
- heuristic:   final_score q~N(6.5,1.2) noise 0.5 (rubric steps), broken −3.5; empty rate 0, broken 30 % empty
- stability:   stability_coefficient q~N(0.6,0.12) noise 0.05, broken −0.35
- stereotype:  drift_score q=|N(0.05,0.03)| noise 0.015, broken +0.2 (lower is better: max_increase)
Shared per-run offsets (a whole run moving together) only where they are plausible: the LLM-graded
context_similarity (0.1 × its item noise sd); the other values come from local models scoring independently
sampled outputs. They are off by default; `--shared 1` turns them on (see docs/baselines.md: with 3 blessed runs
shared noise is barely measurable, and the false-alarm rate of a metric that has it rises to ~7 %: bless more runs).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate.baselines.snapshots import Snapshot, compare  # noqa: E402
from gate.config import CheckConfig, UnmeasuredPolicy  # noqa: E402
from gate.judge import Verdict, VerdictSettings, judge_gate, judge_suite  # noqa: E402
from gate.kinds.rag import statistics as rag_statistics  # noqa: E402
from gate.kinds.rag.generation import BLEU_STATISTICS  # noqa: E402
from gate.kinds.samples import collapse  # noqa: E402
from gate.results import Item, SuiteResult  # noqa: E402
from gate.stats import ItemStatistic, change_test, strictest_level, t_quantile  # noqa: E402
from gate.stats import statistics as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import trust_cases  # noqa: E402

FRACTIONS = (0.05, 0.1, 0.2, 0.3)
ALPHA = 0.05


@dataclass(frozen=True)
class Column:
    """One item value: latent quality, run noise, what a broken item does to it."""

    name: str
    latent: Callable[[np.random.Generator, int], np.ndarray]
    noise: float  # sd of the run-to-run noise (relative for `multiplicative`)
    broken: Callable[[np.ndarray], np.ndarray]
    low: float = -math.inf
    high: float = math.inf
    multiplicative: bool = False
    shared: float = 0.0  # sd of a per-run offset shared by every item, as a share of `noise`


@dataclass(frozen=True)
class Kind:
    name: str
    columns: tuple[Column, ...]
    checks: dict[str, tuple[str, ItemStatistic]]  # metric -> ("max_decrease" | "max_increase", statistic)
    notes: str = ""
    extra: dict[str, ItemStatistic] = field(default_factory=dict)


def _clip(c: Column, x: np.ndarray) -> np.ndarray:
    return np.clip(x, c.low, c.high)


KINDS = {
    "drift": Kind("drift", (
        Column("bertscore_f1", lambda r, n: r.normal(0.88, 0.04, n), 0.02, lambda x: x - 0.15, 0, 1),
        Column("credit_drift", lambda r, n: np.abs(r.normal(0, 0.5, n)), 0.3, lambda x: x + 3, 0),
    ), {"bertscore_f1": ("max_decrease", st.mean("bertscore_f1")),
        "credit_drift_mean": ("max_increase", st.mean("credit_drift"))}),
    "rag": Kind("rag", (
        Column("context_similarity", lambda r, n: r.beta(8, 2, n), 0.08, lambda x: x - 0.5, 0, 1, shared=0.1),
        Column("answer_relevancy", lambda r, n: r.normal(0.75, 0.08, n), 0.04, lambda x: x - 0.3, -1, 1),
    ), {"context_similarity": ("max_decrease", st.mean("context_similarity")),
        "answer_relevancy": ("max_decrease", st.mean("answer_relevancy"))}),
    "heuristic": Kind("heuristic", (
        Column("final_score", lambda r, n: r.normal(6.5, 1.2, n), 0.5, lambda x: x - 3.5, 0, 10),
    ), {"final_score_mean": ("max_decrease", st.mean("final_score"))}),
    "stability": Kind("stability", (
        Column("stability_coefficient", lambda r, n: r.normal(0.6, 0.12, n), 0.05, lambda x: x - 0.35, -1, 1),
    ), {"stability_coefficient": ("max_decrease", st.mean("stability_coefficient"))}),
    "stereotype": Kind("stereotype", (
        Column("drift_drift_score", lambda r, n: np.abs(r.normal(0.05, 0.03, n)), 0.015, lambda x: x + 0.2, 0, 1),
    ), {"drift_score_mean": ("max_increase", st.mean("drift_drift_score"))}),
}
# Outside the recipe (`--kinds rag-bleu`): corpus BLEU, tested by the paired bootstrap. It is a weak detector
# of broken answers (a few bad answers barely move corpus n-gram counts), and in the recipe its share of alpha
# would cost the other checks power.
KINDS["rag-bleu"] = Kind("rag", (
    Column("bleu_precision", lambda r, n: r.beta(6, 4, n), 0.05, lambda x: x * 0.3, 0.01, 0.99),
), {"bleu": ("max_decrease", rag_statistics.BLEU)})
RECIPE = ("drift", "rag", "heuristic", "stability", "stereotype")


class World:
    """One system: latent item qualities; `run` draws an observed run, optionally with items broken."""

    def __init__(self, kind: Kind, n: int, rng: np.random.Generator, shared_scale: float = 1.0):
        self.kind, self.n, self.rng, self.shared_scale = kind, n, rng, shared_scale
        self.latent = {c.name: c.latent(rng, n) for c in kind.columns}

    def run(self, name: str, broken: np.ndarray | None = None, samples: int = 1) -> SuiteResult:
        """One run; with `samples` > 1, that many generations per item (records with a `sample` index), merged
        by `gate.kinds.samples.collapse` as the gate does."""
        shared = {c.name: self.rng.normal(0, c.shared * c.noise * self.shared_scale) for c in self.kind.columns}
        draws = [self._draw(shared, broken) for _ in range(samples)]
        items = tuple(Item((("id", f"q{i:04d}"), *((("sample", str(s)),) if samples > 1 else ())),
                           {k: float(v[i]) for k, v in values.items()})
                      for i in range(self.n) for s, values in enumerate(draws))
        values = {k: np.mean([d[k] for d in draws], axis=0) for k in draws[0]}
        names = list(values)
        rows = np.column_stack([values[name] for name in names])
        metrics = {m: stat(rows[:, [names.index(col) for col in stat.columns]])
                   for m, (_, stat) in self.kind.checks.items()}
        result = SuiteResult(name, self.kind.name, metrics, (), items, ("id", *names), fingerprint={"sim": 1})
        return collapse(result, {m: stat for m, (_, stat) in self.kind.checks.items()}.get)

    def _draw(self, shared: dict[str, float], broken: np.ndarray | None) -> dict[str, np.ndarray]:
        values = {}
        for c in self.kind.columns:
            if c.multiplicative:
                x = self.latent[c.name] * np.exp(self.rng.normal(0, c.noise, self.n) + shared[c.name])
            else:
                x = self.latent[c.name] + self.rng.normal(0, c.noise, self.n) + shared[c.name]
            if broken is not None and broken.any():
                x = np.where(broken, c.broken(x), x)
            values[c.name] = _clip(c, x)
        if "bleu_precision" in values:  # corpus BLEU's sufficient statistics of answers this precise
            values.update(self._bleu(values.pop("bleu_precision")))
        return values


    def _bleu(self, precision: np.ndarray) -> dict[str, np.ndarray]:
        """sys/ref lengths around 60 tokens; n-gram matches binomial at precision^n (the `BLEU_STATISTICS` order)."""
        if not hasattr(self, "_lengths"):
            self._lengths = self.rng.integers(30, 90, size=(2, self.n))
        sys_len, ref_len = self._lengths
        out = {"bleu_sys_len": sys_len.astype(float), "bleu_ref_len": ref_len.astype(float)}
        totals = [np.maximum(sys_len - k, 0) for k in range(4)]
        for k in range(4):
            out[f"bleu_correct_{k + 1}"] = self.rng.binomial(totals[k], precision ** (k + 1)).astype(float)
        for k in range(4):
            out[f"bleu_total_{k + 1}"] = totals[k].astype(float)
        assert tuple(out) == BLEU_STATISTICS
        return out


def snapshot(world: World, runs: int, samples: int = 1) -> Snapshot:
    snap = None
    for r in range(runs):
        one = Snapshot.from_result(world.run("s", samples=samples), gate="trust", commit=None, inputs_digest=None,
                                   created_at=f"2026-11-0{r + 1}T00:00:00Z", tool_version="bench")
        snap = one if snap is None else snap.add_run(one)
    assert snap is not None
    return snap


def calibrated_bounds(kind: Kind, n: int, seed: int, runs: int, shared: float) -> dict[str, float]:
    """What `calibrate` proposes: the MDE of each check at the measured noise (K + 1 runs of the same system)."""
    rng = np.random.default_rng(seed + 999)
    world = World(kind, n, rng, shared)
    snap = snapshot(world, runs)
    fresh = world.run("s")
    bounds = {}
    m = len(kind.checks)
    for metric, (_, stat) in kind.checks.items():
        cols = list(stat.columns)
        current = np.array([[i.values[c] for c in cols] for i in fresh.items])
        before = np.array([[i.values[c] for c in cols] for i in snap.items])
        test = change_test(current, before, stat, runs=snap.runs, run_sd=snap.group_sd("suite", (), metric))
        assert test is not None
        mde = (t_quantile(test.df, 1 - strictest_level(ALPHA, m)) + t_quantile(test.df, 0.8)) * test.se
        bounds[metric] = float(f"{mde * 1.1:.2g}")
    return bounds


def gate_verdict(kind: Kind, snap: Snapshot, current: SuiteResult, bounds: dict[str, float]) -> Verdict:
    checks = {}
    for metric, (side, _) in kind.checks.items():
        checks[metric] = CheckConfig(**{side: bounds.get(metric, 0.0)}, significant=True, scope="suite")
    comparison = compare(snap, current, path="baselines/metrics/s.json", inputs_digest=None,
                         now=dt.datetime(2026, 11, 24), max_age_days=None)
    stats_of = {m: s for m, (_, s) in kind.checks.items()}
    settings = VerdictSettings(alpha=ALPHA)
    suite = judge_suite(current, checks, UnmeasuredPolicy.WARN, comparison, stats_of.get, settings)
    return judge_gate("trust", [suite], settings=settings).verdict


def measure(kind: Kind, n: int, trials: int, seed: int, recipe: str, runs: int, shared: float,
            samples: int = 1) -> dict:
    bounds = calibrated_bounds(kind, n, seed, runs, shared) if recipe == "bound" else {}
    rng = np.random.default_rng(seed)
    out: dict = {"kind": kind.name, "n": n, "trials": trials, "bounds": bounds, "detected": {}}
    fails = inconclusive = 0
    cases = [(0.0, t) for t in range(trials)] + [(f, t) for f in FRACTIONS for t in range(trials)]
    counts: dict[float, int] = dict.fromkeys(FRACTIONS, 0)
    for f, _ in cases:
        world = World(kind, n, rng, shared)
        snap = snapshot(world, runs, samples)
        broken = np.zeros(n, dtype=bool)
        if f:
            broken[rng.choice(n, size=max(1, round(f * n)), replace=False)] = True
        verdict = gate_verdict(kind, snap, world.run("s", broken, samples), bounds)
        if f == 0.0:
            fails += verdict is Verdict.FAIL
            inconclusive += verdict is Verdict.INCONCLUSIVE
        else:
            counts[f] += verdict is Verdict.FAIL
    out["false_alarms"] = fails / trials
    out["inconclusive"] = inconclusive / trials
    out["detected"] = {f: counts[f] / trials for f in FRACTIONS}
    out["smallest_f"] = next((f for f in FRACTIONS if counts[f] / trials >= 0.95), None)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", nargs="+", choices=[*KINDS, *trust_cases.CASES], help="default: the recipe's")
    parser.add_argument("--items", nargs="+", type=int)
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recipe", choices=("zero", "bound", "calibrate"), default="zero")
    parser.add_argument("--runs", type=int, help="blessed runs K (the recipe: 5; --recipe calibrate: each case's)")
    parser.add_argument("--shared", type=float, default=0.0,
                        help="scale of the shared per-run offsets (1: context_similarity moves 0.1 × its noise a run)")
    parser.add_argument("--samples", type=int, default=1,
                        help="generations per item in every run (records with a `sample` index); e.g. --runs 1 "
                             "--samples 3: one blessed run that measures its own noise")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.recipe == "calibrate":
        rows, missed = trust_cases.table(args.kinds or list(trust_cases.CASES), args.items, args.trials, args.seed,
                                         args.runs)
        return _finish(started, missed, args.json, {"recipe": args.recipe, "rows": rows})
    args.kinds, args.items, args.runs = args.kinds or list(RECIPE), args.items or [40, 100], args.runs or 5
    rows = []
    print(f"recipe: bless {args.runs} run(s) of {args.samples} sample(s) per item; significant change checks at "
          "suite scope, max_decrease "
          f"{'0 (any significant drop)' if args.recipe == 'zero' else 'at the calibrated MDE'}; "
          f"alpha {ALPHA}, Holm; {args.trials} trials per cell, seed {args.seed}\n")
    header = ("| kind | items | false alarms | inconclusive | " + " | ".join(f"f={f:g}" for f in FRACTIONS)
              + " | smallest f ≥ 95% |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    missed = []
    for name in args.kinds:
        for n in args.items:
            row = measure(KINDS[name], n, args.trials, args.seed, args.recipe, args.runs, args.shared, args.samples)
            rows.append(row)
            detected = " | ".join(f"{row['detected'][f]:.0%}" for f in FRACTIONS)
            smallest = f"{row['smallest_f']:g}" if row["smallest_f"] is not None else "> 0.3"
            ci = trust_cases.half_width(row["false_alarms"], args.trials)
            print(f"| {name} | {n} | {row['false_alarms']:.1%} ±{ci:.1%} | "
                  f"{row['inconclusive']:.1%} | {detected} | {smallest} |", flush=True)
            if row["false_alarms"] - ci > 0.05:
                missed.append(f"{name} n={n}: false alarms {row['false_alarms']:.1%}, significantly above 5%")
            if n >= 40 and row["detected"][0.1] < 0.95:
                missed.append(f"{name} n={n}: f=0.1 detected {row['detected'][0.1]:.0%} < 95%")
    return _finish(started, missed, args.json, {"recipe": args.recipe, "runs": args.runs, "shared": args.shared,
                                                "rows": rows})


def _finish(started: float, missed: list[str], path: Path | None, document: dict) -> int:
    print(f"\n{time.perf_counter() - started:.0f} s")
    for line in missed:
        print(f"target missed: {line}")
    if path:
        path.write_text(json.dumps(document, indent=2, default=str))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
