"""The steps of a gate run between config and report (DESIGN.md §1), each a plain function."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate import interrupt
from gate.baselines.snapshots import SnapshotComparison
from gate.config import GateConfig, SuiteBase
from gate.config.located import locate
from gate.errors import ConfigError, InputError, Problem
from gate.judge import GateVerdict, judge_gate, judge_suite
from gate.results import SuiteResult
from gate.runtime.api import ClassifierLabels, ModelRuntime
from gate.runtime.facade import (
    ArrayCache,
    NotInStore,
    ResultStore,
    Shard,
    StoreRuntime,
    TorchRuntime,
    WorkPlan,
    execute,
    merge_stores,
    plan,
    recorder,
)
from gate.scorers import get_scorer
from gate.scorers.base import ScoringContext


@dataclass(frozen=True)
class LoadedSuite:
    name: str
    config: Any  # the suite's config model
    data: Any  # the kind's typed records


def select_suites(config: GateConfig, names: Sequence[str],
                  models: Sequence[str] = ()) -> list[tuple[str, SuiteBase]]:
    """The suites to run: all, or those `--suite` names or matches (`'fair*'`).

    An unknown plain name is a typo and an error; a pattern that matches nothing selects no suite
    and the gate is skipped (a neutral check run), as path filters in workflows do. `--model`
    replaces the `models:` filter of every selected suite that has one.
    """
    selected = _by_name(config, names)
    if not models:
        return selected
    return [(n, s.model_copy(update={"models": list(models)}) if "models" in type(s).model_fields else s)
            for n, s in selected]


def _by_name(config: GateConfig, names: Sequence[str]) -> list[tuple[str, SuiteBase]]:
    if not names:
        return list(config.suites.items())
    unknown = [n for n in names if not _is_pattern(n) and n not in config.suites]
    if unknown:
        raise ConfigError("unknown suite selected", [
            Problem(field="--suite", expected=f"a suite of this gate: {', '.join(config.suites)}",
                    found=repr(name), fix="check the name against `suites:` in gate.yml") for name in unknown])
    return [(n, s) for n, s in config.suites.items() if any(fnmatch.fnmatchcase(n, p) for p in names)]


def _is_pattern(name: str) -> bool:
    return any(c in name for c in "*?[")


def load_suites(selected: Sequence[tuple[str, SuiteBase]], base_dir: Path) -> list[LoadedSuite]:
    """Typed records for every selected suite; the problems of all suites are reported together."""
    loaded, problems = [], []
    for name, suite in selected:
        try:
            loaded.append(LoadedSuite(name, suite, get_scorer(suite.kind).load(name, suite, base_dir)))
        except InputError as exc:
            problems += [_prefixed(locate(p, suite.place), name) for p in exc.problems]
    if problems:
        raise InputError("input files are invalid", problems)
    return loaded


def _prefixed(problem: Problem, suite: str) -> Problem:
    if problem.record or problem.file:
        return problem
    return Problem(**{**problem.__dict__, "record": f"suite {suite}"})


def score(loaded: Sequence[LoadedSuite], config: GateConfig, runtime: ModelRuntime,
          base_dir: Path, judge: Any = None) -> list[SuiteResult]:
    context = ScoringContext(gate=config, runtime=runtime, base_dir=base_dir, judge=judge)
    results = []
    for s in loaded:
        interrupt.checkpoint()  # a signal held through a scorer's import acts here at the latest
        results.append(get_scorer(s.config.kind).score(s.name, s.config, s.data, context))
    return results


# ---------------------------------------------------------------- model work, computed whole or in shards
# A plain run: `store = compute_model_work(...)`, then `score(..., StoreRuntime(store), ...)`. A sharded run:
# each shard `compute_model_work(..., shard=Shard.parse("i/N")).save(path)`; the merge scores
# `StoreRuntime(merge_model_work(paths, ...))`. Both equal the plain run bitwise (gate/runtime/work/plan.py).

def plan_model_work(loaded: Sequence[LoadedSuite], config: GateConfig, base_dir: Path,
                    labels: Callable[[str], ClassifierLabels], block_texts: int | None = None) -> WorkPlan:
    """The planning pass: the scorers of suites with model work ask a `RecordingRuntime`; nothing runs."""
    recording = recorder(labels)
    with_models = [s for s in loaded if get_scorer(s.config.kind).model_roles]
    score(with_models, config, recording, base_dir, judge=_planning_judge)
    return plan(recording.requests, config.runtime, block_texts)


def compute_model_work(loaded: Sequence[LoadedSuite], config: GateConfig, runtime: TorchRuntime, base_dir: Path,
                       shard: Shard | None = None, block_texts: int | None = None,
                       cache: ArrayCache | None = None) -> ResultStore:
    """All model work of the run (`shard` None), or shard i/N's share of it, on `runtime` (a TorchRuntime),
    reusing the persistent `cache` (None: none; a cold run's results are bitwise the sharded ones)."""
    work = plan_model_work(loaded, config, base_dir, runtime.declared_labels, block_texts)
    return execute(work, runtime, shard, cache)


def merge_model_work(paths: Sequence[Path], loaded: Sequence[LoadedSuite], config: GateConfig,
                     base_dir: Path) -> ResultStore:
    """The shards' files merged and checked against this run's own plan (so its inputs must be theirs)."""
    store = merge_stores(paths)
    try:  # the labels come from the store: a merge loads no model
        digest = plan_model_work(loaded, config, base_dir, StoreRuntime(store).classifier_labels,
                                 store.block_texts).digest
    except NotInStore:  # this run asks for a classifier the shards never loaded
        digest = ""
    store.require_plan(digest)
    return store


def _planning_judge(config: Any, items: Sequence[Any]) -> Any:
    """Stands in for the LLM judge in the planning pass: no network, every score unmeasured."""
    from gate.scorers.rag.grader import GraderRun, GraderScore

    scores = tuple(GraderScore(i.key, i.criterion, None, "planning pass", False, 0) for i in items)
    return GraderRun(scores, requests=0, cache_hits=0, tokens=0, cost_usd=0.0, stopped_by_budget=False)


def judge(results: Sequence[SuiteResult], config: GateConfig, skipped_reason: str | None = None,
          comparisons: Mapping[str, SnapshotComparison] | None = None) -> GateVerdict:
    """Verdicts; change checks (`max_decrease`…) compare with each suite's baseline snapshot in `comparisons`."""
    verdicts = []
    for result in results:
        suite = config.suites[result.name]
        scorer = get_scorer(suite.kind)
        verdicts.append(judge_suite(result, scorer.checks_for(suite), suite.unmeasured,
                                    (comparisons or {}).get(result.name),
                                    lambda metric, r=result, s=scorer: s.item_column(metric, r.item_columns)))
    return judge_gate(config.name, verdicts, skipped_reason)
