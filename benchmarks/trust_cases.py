"""The edges of issue 35, measured through the whole documented recipe: bless K runs, `llm-gate calibrate` on
the same K runs, its snippet's checks (floors with warn levels, change checks), alpha 0.05 with Holm.

    .venv/bin/python benchmarks/trust.py --recipe calibrate                 # the three cases, 400 trials each
    .venv/bin/python benchmarks/trust.py --recipe calibrate --trials 100 --kinds rag-retrieval

Each trial draws a fresh system, blesses K runs of it into a snapshot (`Snapshot.from_result` + `add_run`), runs
`calibrate` on the same K runs' report.json documents (`gate.baselines.calibration`, as the command does), loads
the snippet's YAML into the checks, and judges one candidate run (`judge_suite` + `judge_gate`): unchanged (false
alarms: the gate fails; warnings: it passes with a warning), or with a fraction f of items broken (detection).

- heuristic-steps (K = 3): 2 models × 3 rubric categories of 24 prompts each; a prompt's category score is a
  whole number 0–10 that benign rewording moves one step in 1 % of runs (so most category means never moved
  over the 3 blessed runs: the metric's steps of 1/24 met se = 0); final_score = the category score plus
  continuous noise 0.5. Broken: −3 points (final score −3.5).
- stereotype-leak (K = 10, what docs/baselines.md asks of rare events; `--runs 5` for the recipe's 5): drift_score
  as trust.py's stereotype, plus a rare heavy-tailed leak: each probe's score jumps +0.3 in 1 % of runs (0.4 leaks
  a run over 40 probes). Broken: +0.2 — smaller than a leak, so a regression of few probes and a run that leaked
  twice look alike: the promise is f = 0.1 detected in ≥ 85 % of runs, not 95 %.
- rag-retrieval (K = 5): one system of n queries; the retriever is deterministic (mrr constant under noise: the
  reciprocal rank of a query is 1/rank, rank 1–10 or not found), context_similarity noise 0.08 with a shared per-run
  offset, answer relevancy noise 0.04; overall_score = 0.4 mrr + 0.3 context_similarity + 0.3 relevancy (a weighted
  score: the paired bootstrap tests it). Broken: retrieval fails (reciprocal rank 0), context_similarity −0.2,
  relevancy −0.1.
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import yaml

from gate.baselines import calibration as cal
from gate.baselines.snapshots import Snapshot, compare
from gate.config import CheckConfig, UnmeasuredPolicy
from gate.judge import Verdict, VerdictSettings, judge_gate, judge_suite
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import ItemStatistic
from gate.stats import statistics as st

ALPHA = 0.05
FRACTIONS = (0.05, 0.1)
CATEGORIES = ("correctness", "efficiency", "clarity")
MODELS = ("m1", "m2")
Values = dict[str, np.ndarray]


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    runs: int  # blessed runs K
    items: int  # default n
    world: Callable[[np.random.Generator, int], World]
    statistics: dict[str, ItemStatistic]  # metric -> itself from the items
    directions: dict[str, str]
    scale: tuple[float, float]
    suite: tuple[str, ...]  # the metrics the suite itself has (a rubric category's only its groups; RAG none)
    detects: float = 0.95  # the share of f = 0.1 regressions docs/baselines.md promises it detects


class World:
    """One system: `draw(broken)` gives one run's item values; `result` turns them into a suite result."""

    def __init__(self, case: Case, rng: np.random.Generator, n: int):
        self.case, self.rng, self.n = case, rng, n

    def draw(self, broken: np.ndarray) -> Values:
        raise NotImplementedError

    def groups(self) -> dict[tuple[tuple[str, str], ...], np.ndarray]:
        """Group key -> the items in it (level `group`); {} for a suite without groups."""
        return {}

    def result(self, broken: np.ndarray | None = None) -> SuiteResult:
        values = self.draw(np.zeros(self.n, dtype=bool) if broken is None else broken)
        keys = self.item_keys()
        items = tuple(Item(keys[i], {c: float(v[i]) for c, v in values.items() if not math.isnan(v[i])})
                      for i in range(self.n))
        groups = tuple(GroupResult("group", key, self._metrics(values, members), int(members.sum()))
                       for key, members in self.groups().items())
        everything = self._metrics(values, np.ones(self.n, dtype=bool))
        suite = {m: v for m, v in everything.items() if m in self.case.suite}
        return SuiteResult("s", self.case.kind, suite, groups, items, ("id", *values), fingerprint={"sim": 1})

    def item_keys(self) -> list[tuple[tuple[str, str], ...]]:
        return [(("id", f"q{i:04d}"),) for i in range(self.n)]

    def _metrics(self, values: Values, members: np.ndarray) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for metric, stat in self.case.statistics.items():
            rows = np.column_stack([values[c][members] for c in stat.columns])
            rows = rows[~np.isnan(rows).any(axis=1)]
            if len(rows):
                out[metric] = stat(rows)
        return out


class Steps(World):
    def __init__(self, case: Case, rng: np.random.Generator, n: int):
        super().__init__(case, rng, n)
        self.category = np.array([CATEGORIES[(i // len(MODELS)) % len(CATEGORIES)] for i in range(n)])
        self.model = np.array([MODELS[i % len(MODELS)] for i in range(n)])
        self.score = np.clip(np.round(rng.normal(7, 1.5, n)), 0, 10)

    def item_keys(self) -> list[tuple[tuple[str, str], ...]]:
        return [(("model", str(self.model[i])), ("category", str(self.category[i])), ("id", f"p{i:04d}"))
                for i in range(self.n)]

    def groups(self) -> dict[tuple[tuple[str, str], ...], np.ndarray]:
        return {(("model", m), ("category", c)): (self.model == m) & (self.category == c)
                for m in MODELS for c in CATEGORIES}

    def draw(self, broken: np.ndarray) -> Values:
        moved = self.rng.random(self.n) < 0.01
        score = np.clip(self.score + np.where(moved, self.rng.choice([-1.0, 1.0], self.n), 0.0), 0, 10)
        final = score + self.rng.normal(0, 0.5, self.n)
        score, final = np.where(broken, np.clip(score - 3, 0, 10), score), np.where(broken, final - 3.5, final)
        out = {"final_score": np.clip(final, 0, 10)}
        for c in CATEGORIES:
            out[c] = np.where(self.category == c, score, np.nan)
        return out


class Leaks(World):
    def __init__(self, case: Case, rng: np.random.Generator, n: int):
        super().__init__(case, rng, n)
        self.latent = np.abs(rng.normal(0.05, 0.03, n))

    def draw(self, broken: np.ndarray) -> Values:
        leak = np.where(self.rng.random(self.n) < 0.01, 0.3, 0.0)
        x = self.latent + self.rng.normal(0, 0.015, self.n) + leak + np.where(broken, 0.2, 0.0)
        return {"drift_drift_score": np.clip(x, 0, 1)}


class Retrieval(World):
    def __init__(self, case: Case, rng: np.random.Generator, n: int):
        super().__init__(case, rng, n)
        rank = rng.integers(1, 12, n)  # 11: not among the 10 contexts
        self.rr = np.where(rank <= 10, 1.0 / rank, 0.0)
        self.faith, self.relevancy = rng.beta(8, 2, n), rng.normal(0.75, 0.08, n)

    def groups(self) -> dict[tuple[tuple[str, str], ...], np.ndarray]:
        return {(("system", "candidate"),): np.ones(self.n, dtype=bool)}

    def item_keys(self) -> list[tuple[tuple[str, str], ...]]:
        return [(("system", "candidate"), ("id", f"q{i:04d}")) for i in range(self.n)]

    def draw(self, broken: np.ndarray) -> Values:
        shared = self.rng.normal(0, 0.008)
        faith = np.clip(self.faith + self.rng.normal(0, 0.08, self.n) + shared - np.where(broken, 0.2, 0.0), 0, 1)
        relevancy = np.clip(self.relevancy + self.rng.normal(0, 0.04, self.n) - np.where(broken, 0.1, 0.0), -1, 1)
        return {"reciprocal_rank": np.where(broken, 0.0, self.rr), "context_similarity": faith,
                "answer_relevancy": relevancy}


def _overall(v: np.ndarray) -> np.ndarray:
    return 0.4 * v[..., 0].mean(axis=-1) + 0.3 * v[..., 1].mean(axis=-1) + 0.3 * v[..., 2].mean(axis=-1)


CASES = {
    "heuristic-steps": Case("heuristic-steps", "heuristic", 3, 144, Steps,
                            {"final_score_mean": st.mean("final_score"),
                             **{f"{c}_mean": st.mean(c) for c in CATEGORIES}},
                            {"final_score_mean": "higher", **{f"{c}_mean": "higher" for c in CATEGORIES}}, (0, 10),
                            ("final_score_mean",)),
    "stereotype-leak": Case("stereotype-leak", "stereotype", 10, 40, Leaks,
                            {"drift_score_mean": st.mean("drift_drift_score")}, {"drift_score_mean": "lower"}, (0, 1),
                            ("drift_score_mean",), detects=0.85),
    "rag-retrieval": Case("rag-retrieval", "rag", 5, 40, Retrieval,
                          {"overall_score": ItemStatistic(("reciprocal_rank", "context_similarity", "answer_relevancy"),
                                                          _overall, name="overall score"),
                           "mrr": st.mean("reciprocal_rank"), "context_similarity": st.mean("context_similarity")},
                          {"overall_score": "higher", "mrr": "higher", "context_similarity": "higher"}, (0, 1), ()),
}


def report(result: SuiteResult) -> dict:
    """The run's report.json, as far as calibrate reads it."""
    return {"schema": 1, "suites": [{
        "name": result.name, "kind": result.kind, "fingerprint": dict(result.fingerprint),
        "metrics": dict(result.metrics),
        "groups": [{"level": g.level, "key": dict(g.key), "n": g.n, "metrics": dict(g.metrics)}
                   for g in result.groups]}]}


def checks_of(case: Case, runs: list[SuiteResult]) -> tuple[dict[str, list[CheckConfig]], float, float]:
    """The snippet `llm-gate calibrate` writes for these runs, loaded as gate.yml would; and its stated
    false-alarm and warning rates (NaN where this version states none)."""
    options = inspect.signature(cal.calibrate).parameters
    extra: dict = {"warn_z": 1.0}  # the command's default before warn levels were designed
    if "scales" in options:
        extra = {"warn_z": None, "scales": {case.kind: {m: cal.Scale(*case.scale) for m in case.directions}}}
    result = cal.calibrate([report(r) for r in runs], {case.kind: case.directions}, z=None,
                           metrics={case.kind: tuple(case.directions)}, alpha=ALPHA, **extra)
    loaded = yaml.safe_load(cal.snippet(result)) or {}
    checks = {}
    for metric, given in ((loaded.get("suites") or {}).get("s", {}).get("checks") or {}).items():
        checks[metric] = [CheckConfig.model_validate(c) for c in (given if isinstance(given, list) else [given])]
    warned = cal.warning_rate(result)[0] if hasattr(cal, "warning_rate") else math.nan
    return checks, cal.gate_false_alarm(result)[0], warned


def trial(case: Case, n: int, rng: np.random.Generator, fraction: float, blessed: int) -> Verdict:
    world = case.world(case, rng, n)
    runs = [world.result() for _ in range(blessed)]
    snap = None
    for r, run in enumerate(runs):
        one = Snapshot.from_result(run, gate="trust", commit=None, inputs_digest=None,
                                   created_at=f"2026-11-0{r + 1}T00:00:00Z", tool_version="bench")
        snap = one if snap is None else snap.add_run(one)
    checks, _, _ = checks_of(case, runs)
    broken = np.zeros(n, dtype=bool)
    if fraction:
        broken[rng.choice(n, size=max(1, round(fraction * n)), replace=False)] = True
    current = world.result(broken)
    comparison = compare(snap, current, path="baselines/metrics/s.json", inputs_digest=None,
                         now=dt.datetime(2026, 11, 24), max_age_days=None)
    settings = VerdictSettings(alpha=ALPHA)
    suite = judge_suite(current, checks, UnmeasuredPolicy.WARN, comparison, case.statistics.get, settings)
    return judge_gate("trust", [suite], settings=settings).verdict


def measure(name: str, n: int | None, trials: int, seed: int, runs: int | None = None) -> dict:
    case = CASES[name]
    n, runs = n or case.items, runs or case.runs
    rng = np.random.default_rng(seed)
    noise = [trial(case, n, rng, 0.0, runs) for _ in range(trials)]
    detected = {f: sum(trial(case, n, rng, f, runs) is Verdict.FAIL for _ in range(trials)) / trials
                for f in FRACTIONS}
    world = case.world(case, np.random.default_rng(seed + 1), n)
    stated = checks_of(case, [world.result() for _ in range(runs)])
    return {"case": name, "kind": case.kind, "runs": runs, "n": n, "trials": trials,
            "false_alarms": sum(v is Verdict.FAIL for v in noise) / trials,
            "warnings": sum(v is Verdict.WARN for v in noise) / trials,
            "inconclusive": sum(v is Verdict.INCONCLUSIVE for v in noise) / trials,
            "detected": detected, "stated_false_alarms": stated[1], "stated_warnings": stated[2]}


def table(names: list[str], items: list[int] | None, trials: int, seed: int,
          runs: int | None = None) -> tuple[list[dict], list[str]]:
    """Print the calibrated recipe's table; the rows and the promises missed (false alarms or warnings
    significantly above what the snippet states, f = 0.1 detected below 95 %)."""
    print(f"recipe: bless K runs, `llm-gate calibrate` on them (floors, warn levels, change checks), alpha {ALPHA}, "
          f"Holm; {trials} trials per cell, seed {seed}\n")
    print("| case | kind | K | items | false alarms (stated) | warnings (stated) | inconclusive | "
          + " | ".join(f"f={f:g}" for f in FRACTIONS) + " |")
    print("|" + "---|" * (7 + len(FRACTIONS)))
    rows, missed = [], []
    for name in names:
        for n in items or [None]:
            row = measure(name, n, trials, seed, runs)
            rows.append(row)
            ci = [half_width(row[k], trials) for k in ("false_alarms", "warnings")]
            print(f"| {name} | {row['kind']} | {row['runs']} | {row['n']} | {row['false_alarms']:.1%} ±{ci[0]:.1%} "
                  f"({row['stated_false_alarms']:.1%}) | {row['warnings']:.1%} ±{ci[1]:.1%} "
                  f"({row['stated_warnings']:.1%}) | {row['inconclusive']:.1%} | "
                  + " | ".join(f"{row['detected'][f]:.0%}" for f in FRACTIONS) + " |", flush=True)
            if row["false_alarms"] - ci[0] > row["stated_false_alarms"]:
                missed.append(f"{name}: false alarms {row['false_alarms']:.1%}, significantly above the snippet's "
                              f"{row['stated_false_alarms']:.1%}")
            if row["warnings"] - ci[1] > cal_warn_budget():
                missed.append(f"{name}: warnings {row['warnings']:.1%}, significantly above the warn budget")
            if row["detected"][0.1] < CASES[name].detects:
                missed.append(f"{name}: f=0.1 detected {row['detected'][0.1]:.0%} < {CASES[name].detects:.0%}")
    return rows, missed


def half_width(p: float, n: int) -> float:
    """Half-width of a binomial 95 % interval (Wald, floored at one event so 0 % is not ±0)."""
    return 1.96 * math.sqrt(max(p * (1 - p), 1 / n) / n)


def cal_warn_budget() -> float:
    return float(getattr(cal, "WARN_BUDGET", 0.1))
