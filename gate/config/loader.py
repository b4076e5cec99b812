"""Load gate.yml: YAML -> `GateConfig`, with every problem named by line, field, expectation and fix."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import yaml

from gate import io
from gate.config.base import CheckProblem
from gate.config.criterion import kinds_own, unknown_value
from gate.config.gate import GateConfig, known_kinds, retired_names
from gate.config.generation import generation_problems
from gate.config.items import KOFN_COLUMNS, KOFN_METRICS
from gate.config.located import duplicate_keys, line_of, parse_yaml, suggest, validate
from gate.config.paths import confine_config_paths
from gate.config.renamed import apply_renames
from gate.errors import ConfigError, Problem, describe


class KindMetrics(Protocol):
    """What the loader must know of a suite kind to check the metrics and scopes its `checks:` name. A
    `gate.scorers.Kind` is one: the pipeline passes `gate.scorers.KINDS` in, so config imports no scorer."""

    @property
    def metrics(self) -> Mapping[str, Any]: ...
    @property
    def levels(self) -> tuple[str, ...]: ...  # scopes beyond "group" and "suite"
    @property
    def metrics_of(self) -> Callable[[Mapping[str, Any]], Any] | None: ...  # exact names, from the entry alone
    def knows(self, metric: str) -> bool: ...
    # (the suite's raw entry, a known metric at a known scope, the check's raw entry) -> why it can never be
    # measured (so would silently never fail), or None
    def impossible(self, entry: Mapping[str, Any], metric: str, check: Mapping[str, Any]) -> CheckProblem | None: ...
    # (the suite's raw entry) -> its numeric item values where the entry alone tells, else None
    def item_values(self, entry: Mapping[str, Any]) -> tuple[str, ...] | None: ...


MetricCatalogue = Mapping[str, KindMetrics]  # suite kind -> its metrics


def load_config(path: str | Path, *, metrics: MetricCatalogue | None, output_dir_given: bool = False,
                today: dt.date | None = None) -> GateConfig:
    """Read, parse and validate gate.yml; raise `ConfigError` listing every problem found.

    Every path it names for the gate to write or read (output, cache, templates, history, baselines) must lie
    inside the workspace (`gate.config.paths`); `output_dir_given`: the command line or the workflow set the
    output directory, so report.output_dir is not used and not checked. `metrics`: each kind's metrics, to
    check the names `checks:` use (`gate.run.read_config` passes the scorers'; None: names are not checked).
    `today`: the run's day (UTC), which bounds how far ahead a waiver may expire (`max_waiver_days`)."""
    path = Path(path)
    text = io.read_text(path, what="gate config")
    today = today or dt.datetime.now(dt.timezone.utc).date()
    config = parse_config(text, str(path), metrics=metrics, today=today)
    confine_config_paths(config, path, text, output_dir_given=output_dir_given)
    return config


def parse_config(text: str, filename: str = "gate.yml", *, metrics: MetricCatalogue | None,
                 today: dt.date | None = None) -> GateConfig:
    """gate.yml's text validated; `today` (the run's day) also bounds the waivers' expiry (None: not checked)."""
    data, root = parse_yaml(text, filename, "gate config")
    if not isinstance(data, dict):
        raise ConfigError(
            "gate config must be a mapping",
            [Problem(file=filename, line=1, expected="a YAML mapping with `version:` and `suites:`",
                     found="an empty file" if data is None else describe(data),
                     fix="start from `llm-gate init` or examples/gate.yml")],
        )
    # Every problem in one pass: YAML structure, suite kinds, the schema and the semantic checks (metrics,
    # scopes) are all collected before anything is raised, so a fixed typo never uncovers the next one.
    problems = duplicate_keys(root, filename)
    problems += _kind_problems(data, root, filename)
    renamed, deprecations = apply_renames(data, root, filename, *retired_names())
    problems += renamed
    config = None
    try:
        config = validate(GateConfig, data, root, filename)
    except ConfigError as exc:  # a suite of unknown kind gets our message above, not pydantic's "tag" one
        unknown = {f"suites.{p.field.split('.')[1]}" for p in problems if p.field and p.field.endswith(".kind")}
        problems += [p for p in exc.problems if not any(_within(p.field, u) for u in unknown)]
    problems += _check_problems(data, root, filename, metrics or {})
    problems += _criterion_problems(data, root, filename, metrics or {})
    if config is not None and today is not None:
        problems += waiver_horizon_problems(config, root, filename, today)
    if config is not None:
        problems += _generation_problems(config, root, filename, metrics or {})
    if problems or config is None:
        raise ConfigError(f"{filename} is invalid", sorted(problems, key=lambda p: p.line or 0))
    for suite in config.suites.values():  # problems found later, reading the suites' inputs, name gate.yml:LINE
        suite.locate_in(filename, root)
    config.warn(deprecations)
    return config


def _within(field: str | None, prefix: str) -> bool:
    return field is not None and (field == prefix or field.startswith(prefix + "."))


# ---------------------------------------------------------------- semantic checks


def waiver_horizon_problems(config: GateConfig, root: yaml.Node | None, filename: str,
                            today: dt.date) -> list[Problem]:
    """Every waiver whose `expires` lies more than `max_waiver_days` after `today`: a waiver is a dated exception,
    so one that reaches further (a `9999-12-31`) is a permanent pass in disguise. An expired one is not a problem
    here: the judge notes it and does not apply it."""
    latest = today + dt.timedelta(days=config.max_waiver_days)
    return [Problem(file=filename, line=line_of(root, ("waivers", i, "expires")), field=f"waivers.{i}.expires",
                    expected=f"a date at most max_waiver_days ({config.max_waiver_days}) after today ({today}), "
                             f"i.e. on or before {latest}",
                    found=f"{waiver.expires} ({(waiver.expires - today).days:,} days ahead), waiving "
                          f"{waiver.suite}.{waiver.metric}",
                    fix=f"set `expires: {latest}` or earlier and renew it when it runs out (it says so in the report)")
            for i, waiver in enumerate(config.waivers) if waiver.expires > latest]



def _kind_problems(data: dict, root: yaml.Node | None, filename: str) -> list[Problem]:
    """Unknown suite kinds get a message listing the known ones (pydantic's says 'tag')."""
    suites = data.get("suites")
    if not isinstance(suites, dict):
        return []
    kinds = known_kinds()
    problems = []
    for name, suite in suites.items():
        if not isinstance(suite, dict):
            continue
        kind = suite.get("kind")
        if kind in kinds:
            continue
        loc = ("suites", name, "kind") if "kind" in suite else ("suites", name)
        problems.append(
            Problem(
                file=filename,
                line=line_of(root, loc),
                field=".".join(map(str, loc)) if "kind" in suite else f"suites.{name}.kind",
                expected=f"a known suite kind: {', '.join(kinds)}",
                found=f"unknown kind {kind!r}" if "kind" in suite else "no `kind:`",
                fix=suggest(kind, kinds) if isinstance(kind, str) else f"add `kind: {kinds[0]}`",
            )
        )
    return problems


def _generation_problems(config: GateConfig, root: yaml.Node | None, filename: str,
                         catalogue: MetricCatalogue) -> list[Problem]:
    """Each `generate:` names a provider gate.yml defines, on a kind that has a recipe, writing a file its records
    glob matches (`Kind.generation`; a catalogue that is no registry of kinds skips the recipe check)."""
    problems = []
    for name, suite in config.suites.items():
        kind = catalogue.get(suite.kind)
        recipe = getattr(kind, "generation", None) if kind is not None else None
        reads = recipe.reads if recipe is not None else (None if kind is not None and hasattr(kind, "generation")
                                                         else "records")
        for field, expected, found, fix in generation_problems(name, suite, reads, config.providers):
            loc = tuple(field.split("."))
            problems.append(Problem(file=filename, line=line_of(root, loc), field=field, expected=expected,
                                    found=found, fix=fix))
    return problems


def _suites_of_known_kinds(data: dict, catalogue: MetricCatalogue) -> Iterator[tuple[str, dict, KindMetrics]]:
    """(name, raw entry, its kind's metrics) of each suite of gate.yml's YAML whose kind `catalogue` knows."""
    suites = data.get("suites")
    for name, suite in (suites.items() if isinstance(suites, dict) else ()):
        kind = suite.get("kind") if isinstance(suite, dict) else None
        scorer = catalogue.get(kind) if isinstance(kind, str) else None
        if scorer is not None:
            yield str(name), suite, scorer


def _check_problems(data: dict, root: yaml.Node | None, filename: str, catalogue: MetricCatalogue) -> list[Problem]:
    """Checks must name metrics and scopes the suite's kind produces (as `catalogue` tells). Read from the YAML
    itself, so that they are reported together with schema errors, even in a suite whose other fields are invalid."""
    problems: list[Problem] = []
    for name, suite, scorer in _suites_of_known_kinds(data, catalogue):
        checks = suite.get("checks")
        if not isinstance(checks, dict):
            continue
        exact = scorer.metrics_of(suite) if scorer.metrics_of else None  # e.g. a packaged rubric
        levels = ("group", *scorer.levels, "suite")
        for metric, given in checks.items():
            if not isinstance(metric, str):
                continue  # pydantic says keys are names
            listed = isinstance(given, list)
            for index, check in enumerate(given if listed else [given]):
                loc = ("suites", str(name), "checks", metric, *((index,) if listed else ()))
                problems += _check_problem(scorer, suite, exact, levels, metric, check, loc, filename, root)
    return problems


def _criterion_problems(data: dict, root: yaml.Node | None, filename: str,
                        catalogue: MetricCatalogue) -> list[Problem]:
    """An `items:` criterion must read an item value its suite measures, on a kind that does not measure pass rates
    itself: checked here where the suite's entry alone tells its values, so a typo fails before anything is scored
    (a rubric file's values are known only with its inputs: `gate.judge.passrates` checks those)."""
    problems: list[Problem] = []
    for name, suite, scorer in _suites_of_known_kinds(data, catalogue):
        items = suite.get("items")
        criterion = items.get("criterion") if isinstance(items, dict) else None
        if not isinstance(criterion, dict) or (values := scorer.item_values(suite)) is None:
            continue
        metric, taken, kind = criterion.get("metric"), [c for c in KOFN_COLUMNS if c in values], suite["kind"]
        found = [kinds_own(kind, taken)] if taken else []
        if isinstance(metric, str) and metric not in values:
            found.append(unknown_value(kind, metric, values))
        for p in found:
            loc = ("suites", name, "items", *p.field.split("."))
            problems.append(Problem(file=filename, line=line_of(root, loc), field=".".join(map(str, loc)),
                                    expected=p.expected, found=p.found, fix=p.fix))
    return problems


def _check_problem(scorer: KindMetrics, suite: dict, exact: Any, levels: tuple[str, ...], metric: str, check: Any,
                   loc: tuple[str | int, ...], filename: str, root: yaml.Node | None) -> list[Problem]:
    """What is wrong with one check of a metric: a metric the kind does not have, a scope it does not have, or
    a check that can never be measured."""
    problems: list[Problem] = []
    field = ".".join(str(part) for part in loc)
    scope = check.get("scope", "group") if isinstance(check, dict) else "group"
    if metric in KOFN_METRICS:  # k-of-n per item: a mean over items of the suite's `items:` values, any kind
        if isinstance(suite.get("items"), dict) or (loc[-1] != 0 and isinstance(loc[-1], int)):
            return _scope_problem(scope, levels, loc, filename, root)
        return [Problem(file=filename, line=line_of(root, loc), field=field,
                        expected=f"`items:` on the suite: {metric} is a k-of-n metric, the mean over items of their "
                        "pass rates against a per-item criterion",
                        found=f"{metric} on a suite without `items:`",
                        fix="add e.g. `items: {criterion: {metric: <an item value>, min: <bound>}}` to the suite "
                        "(docs/configuration.md, \"k-of-n per item\")"),
                *_scope_problem(scope, levels, loc, filename, root)]
    known = exact.names.__contains__(metric) if exact is not None else scorer.knows(metric)
    why = scorer.impossible(suite, metric, check) if known and scope in levels and isinstance(check, dict) \
        else None
    if why is not None:  # a check that can never be measured would never fail: the gate silently off
        problems.append(Problem(file=filename, line=line_of(root, loc), field=field,
                                expected=why.expected, found=why.found, fix=why.fix))
    if loc[-1] != 0 and isinstance(loc[-1], int):
        return problems  # the metric's name is reported once, with its first check
    if exact is not None and metric not in exact.names:
        close = suggest(metric, exact.names)
        problems.append(Problem(file=filename, line=line_of(root, loc), field=field,
                                expected=f"a metric of {exact.owner}", found=f"unknown metric {describe(metric)}",
                                fix=close if close.startswith("did you") else exact.hint))
    elif exact is None and not scorer.knows(metric):
        metrics = tuple(scorer.metrics)
        problems.append(Problem(file=filename, line=line_of(root, loc), field=field,
                                expected=f"a metric of kind '{suite['kind']}': {', '.join(metrics)}",
                                found=f"unknown metric {describe(metric)}", fix=suggest(metric, metrics)))
    return problems + _scope_problem(scope, levels, loc, filename, root)


def _scope_problem(scope: Any, levels: tuple[str, ...], loc: tuple[str | int, ...], filename: str,
                   root: yaml.Node | None) -> list[Problem]:
    if not isinstance(scope, str) or scope in levels:
        return []
    where = (*loc, "scope")
    return [Problem(file=filename, line=line_of(root, where), field=".".join(str(p) for p in where),
                    expected=f"one of {', '.join(dict.fromkeys(levels))}", found=repr(scope),
                    fix=suggest(scope, levels))]
