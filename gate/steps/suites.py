"""Suites → typed records → scores: which suites run, their records loaded, and the scorers run over them.

`score` runs the scorers against any `ModelRuntime`: the planning pass's recorder, or the store the model
work filled (`gate.steps.model_work`). Scorers measure only; the verdicts are `gate.run.judge`'s.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from gate.config import GateConfig, SuiteBase
from gate.config.located import locate
from gate.errors import ConfigError, InputError, Problem, interrupt
from gate.judge import passrates
from gate.kinds import get_kind, samples
from gate.kinds.base import Grader, ScoringContext
from gate.results import SuiteResult
from gate.runtime.api import ModelRuntime
from gate.runtime.facade import Reporter


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
            loaded.append(LoadedSuite(name, suite, get_kind(suite.kind).load(name, suite, base_dir)))
        except InputError as exc:
            problems += [_prefixed(locate(p, suite.place), name) for p in exc.problems]
    if problems:
        raise InputError("input files are invalid", problems)
    return loaded


def _prefixed(problem: Problem, suite: str) -> Problem:
    if problem.record or problem.file:
        return problem
    return Problem(**{**problem.__dict__, "record": f"suite {suite}"})


def ask(loaded: Sequence[LoadedSuite], config: GateConfig, runtime: ModelRuntime, base_dir: Path) -> None:
    """The planning pass: each suite asks `runtime` (a recorder) what its scoring will ask — through the scorer's
    `plan` where it has one, else by scoring (the result is dropped). No LLM grader: a suite that grades plans
    without it."""
    context = ScoringContext(gate=config, runtime=runtime, base_dir=base_dir, grader=None)
    for s in loaded:
        interrupt.checkpoint()
        scorer = get_kind(s.config.kind)
        (scorer.plan or scorer.score)(s.name, s.config, s.data, context)


def score(loaded: Sequence[LoadedSuite], config: GateConfig, runtime: ModelRuntime,
          base_dir: Path, grader: Grader | None = None, shown: Reporter | None = None) -> list[SuiteResult]:
    """Every loaded suite's scorer over its records; `grader` is the suites' LLM grader (None: none); `shown`
    shows each suite's scoring as a step of the run's progress (None: silent, as in the planning pass)."""
    context = ScoringContext(gate=config, runtime=runtime, base_dir=base_dir, grader=grader)
    results, problems = [], []
    for s in loaded:
        interrupt.checkpoint()  # a signal held through a scorer's import acts here at the latest
        scorer = get_kind(s.config.kind)
        if shown is None:
            result = scorer.score(s.name, s.config, s.data, context)
        else:
            with shown.step(s.name, f"scoring ({s.config.kind})"):
                result = scorer.score(s.name, s.config, s.data, context)
        columns = result.value_names()
        # repeated samples of a prompt become one item: its mean, and the spread between samples as its noise
        result = samples.collapse(result, partial(scorer.statistic, s.config, columns=columns))
        if s.config.items is not None:  # k-of-n per item: each item's draws against the suite's criterion
            found = passrates.problems(result, s.config.items)
            problems += [locate(Problem(field=f"suites.{s.name}.items.{p.field}", expected=p.expected, found=p.found,
                                        fix=p.fix), s.config.place) for p in found]
            result = result if found else passrates.with_pass_rates(result, s.config.items)
        results.append(result)
    if problems:
        raise ConfigError("the suites' `items:` criteria do not fit their records", problems)
    return results
