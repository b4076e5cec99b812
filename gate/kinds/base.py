"""The contract every suite kind implements (a test runs it over every registered kind).

A kind is a `Kind[ConfigT, RecordsT]`: `load` turns the suite's config model (`ConfigT`, a `SuiteBase`
subclass with `kind: Literal["<its name>"]`) into its typed records (`RecordsT`), `score` measures those
records, and `view` turns the judged suite into what its templates (in `templates`) show. The type parameters
are inferred from the functions a kind registers, so a type checker catches a `score` that expects another
kind's records; the registry (`gate.kinds.KINDS`) holds them as `Kind[Any, Any]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from pydantic import ValidationError

from gate.config import CheckConfig, GateConfig, GraderConfig, ModelKey, ModelUse, SuiteBase
from gate.config.base import CheckProblem
from gate.config.items import KOFN_METRICS
from gate.config.located import suggest
from gate.judge import SuiteVerdict
from gate.kinds.generation import Generation
from gate.results import Direction, MetricSpec, SuiteResult
from gate.runtime.api import ModelRuntime
from gate.stats import ItemStatistic
from gate.stats import statistics as item_statistics

# The LLM grader a suite's scorer calls: (its kind, the suite's `judge:` settings, its items) -> their scores. The
# command builds it (`gate.run.llm_grader`): it checks where the key may go, binds the key and the cache, and
# calls the kind's own client (`Kind.grade`) — network I/O, so the scorer never imports that client itself.
# A kind that grades calls it with its own item and run types.
Grader = Callable[[str, GraderConfig, Sequence[Any]], Any]
# A kind's LLM grading client: (judge settings, API key, items, cache directory or None) -> the run.
GradeClient = Callable[[GraderConfig, str, Sequence[Any], Path | None], Any]


class ComparedMetric(Protocol):
    """One metric of a baseline-vs-candidate comparison a kind makes inside one run (two systems), as the
    dashboard draws it (read-only, so a frozen dataclass is one)."""

    @property
    def metric(self) -> str: ...
    @property
    def baseline(self) -> float | None: ...
    @property
    def candidate(self) -> float | None: ...
    @property
    def delta(self) -> float | None: ...
    @property
    def delta_pct(self) -> float | None: ...
    @property
    def n(self) -> int | None: ...
    @property
    def low(self) -> float | None: ...
    @property
    def high(self) -> float | None: ...
    @property
    def p_value(self) -> float | None: ...
    @property
    def outcome(self) -> str: ...  # improvement | regression | no significant change | n/a


ConfigT = TypeVar("ConfigT", bound=SuiteBase)  # the kind's suite config model
RecordsT = TypeVar("RecordsT")  # the kind's typed records, what `load` returns and `score` reads


@dataclass(frozen=True)
class ScoringContext:
    gate: GateConfig
    runtime: ModelRuntime
    base_dir: Path  # the directory of gate.yml: relative paths in the config start here
    grader: Grader | None = None  # None where no suite grades (or the planning pass records what it would)


@dataclass(frozen=True)
class KnownMetrics:
    """The exact metrics a suite may check, where its config entry alone tells (a suite on a packaged
    rubric): gate.yml's loader then reports a typo with the schema errors instead of after reading the inputs."""

    owner: str  # what defines them, for the message: "rubric seed-v1"
    names: tuple[str, ...]
    hint: str  # the fix when no name is close


@dataclass(frozen=True)
class Starter:
    """What `llm-gate init` writes for a kind chosen with `--kinds`: its part of the starter gate.yml and the
    example records that part points at, so the first run passes offline. Templates are paths in the kind's
    `templates` directory, rendered with init's context (`repository`, `action`, `kinds`: the chosen ones,
    `timestamp`); each renders whole lines, ending with a newline."""

    order: int  # its place among the kinds: in gate.yml, in `--kinds all` and in the next steps
    suite: str  # its entry under gate.yml's `suites:` (indented two spaces)
    # target path (relative to the repository: where the entry's `records:`/`candidates:`/`baseline:` point)
    # -> the template of the example file written there
    records: Mapping[str, str] = field(default_factory=dict)
    models: str | None = None  # its lines under gate.yml's `models:` (a model it needs), or None
    models_first: bool = False  # those lines go above the embedded embedding model's, not below
    default: bool = False  # written when `--kinds` is not given
    next_step: str | None = None  # a step init prints before `llm-gate validate` (fetch a model no package embeds)
    bless_hint: str | None = None  # what init adds to its `llm-gate baseline bless` step


@dataclass(frozen=True)
class Blessing:
    """`baseline bless --model`: whose outputs become a suite's baseline outputs (`Kind.bless_outputs`)."""

    model: str
    model_version: str | None  # --model-version; None: the kind's choice (the records' own version, else the model)
    dry_run: bool  # report what would change, write nothing
    now: datetime  # the blessing's time, recorded with the outputs


@dataclass(frozen=True)
class Kind(Generic[ConfigT, RecordsT]):
    kind: str
    config_model: type[ConfigT]
    metrics: Mapping[str, MetricSpec]
    group_fields: tuple[str, ...]  # the key fields of the primary level, "group"
    levels: tuple[str, ...]  # further levels checks may scope to (e.g. "model"); "suite" is always there
    default_checks: Mapping[str, CheckConfig]
    # (suite name, suite config, directory of gate.yml) -> typed data; raises InputError
    load: Callable[[str, ConfigT, Path], RecordsT]
    # (suite name, suite config, data, context) -> measured values; no verdicts
    score: Callable[[str, ConfigT, RecordsT, ScoringContext], SuiteResult]
    # (gate.yml, suite config) -> the models the suite loads (its own settings applied, as `score` applies them):
    # what `validate`, `models list|pull` and the planning pass ask; None: its suites load no model
    models_of: Callable[[GateConfig, ConfigT], tuple[ModelUse, ...]] | None = None
    # The keys it adds under gate.yml's `models:` (a model its suites load unless one sets its own), each with its
    # default and description: gate.yml's schema shows them with the engines' keys (`gate.config.registered`)
    model_keys: tuple[ModelKey, ...] = ()
    # (as `score`) -> nothing: asks `context.runtime` exactly what `score` would, measuring nothing — the
    # planning pass's cheap path (where text metrics cost more than the requests); None: it runs `score`
    plan: Callable[[str, ConfigT, RecordsT, ScoringContext], None] | None = None
    # Metrics a suite's own definitions can add (a custom rubric's `<metric>_mean`), beyond `metrics`.
    metric_pattern: re.Pattern[str] | None = None
    # Group metric -> the item value it is the mean of, where the names differ beyond a `_mean` suffix
    # ("" where a same-named item value is not what the metric averages, e.g. corpus BLEU). Paired
    # significance tests pair items through it.
    item_means: Mapping[str, str] = field(default_factory=dict)
    # (the suite's raw gate.yml entry) -> its exact metrics, or None where only its inputs tell (then `knows`)
    metrics_of: Callable[[Mapping[str, Any]], KnownMetrics | None] | None = None
    # (suite config, metric, check) -> why the check can never be measured (a scope without that metric, a
    # cut-off not in `k:`, a judge criterion not configured), or None; gate.yml's loader asks (`impossible`)
    check_problem: Callable[[ConfigT, str, CheckConfig], CheckProblem | None] | None = None
    # (suite config) -> its item values, where the config alone tells (`significant:` needs a metric they determine)
    item_columns_of: Callable[[ConfigT], tuple[str, ...]] | None = None
    # (suite config, metric) -> the metric as a function of item values, for the metrics that are not a plain mean
    # of one item column (percentiles, spreads, rates of a boolean column, corpus BLEU, a weighted score): what a
    # significance test recomputes on resampled items. Means are found through `item_means` / `item_column`.
    item_statistic: Callable[[ConfigT, str], ItemStatistic | None] | None = None
    # (judged suite, how many worst items to show) -> the escaped, formatted values its templates show; None:
    # the generic view of `gate.report.views`
    view: Callable[[SuiteVerdict, int], dict[str, Any]] | None = None
    # The directory holding its templates: `<kind>.md.j2` (under the suite's heading) and `<kind>.details.md.j2` (in
    # the details), the generic ones where it has none (or None); any other file there is the template named
    # `kinds/<kind>/<its path>` (`gate.report.markdown.KindTemplates`)
    templates: Path | None = None
    # (judged suite, its output directory, the run's day) -> the files written there in its seed's own formats
    exports: Callable[[SuiteVerdict, Path, str], list[Path]] | None = None
    # The suite metrics the dashboard charts first (then the checked ones), and the item value whose distribution
    # it draws with that value's range (None: unbounded)
    charts: tuple[str, ...] = ()
    distribution: tuple[str, tuple[float, float] | None] | None = None
    # (its measured suite) -> the baseline-vs-candidate comparisons the run made, by title (a table each in the
    # dashboard), and the metrics of them it charts; None: it compares nothing inside one run
    comparisons: Callable[[SuiteResult], Mapping[str, Sequence[ComparedMetric]]] | None = None
    comparison_charts: tuple[str, ...] = ()
    # Its LLM grading client, where its suites can grade (gate.yml's `judge:`); imported when first called
    grade: GradeClient | None = None
    # How it produces its own records from a provider (gate.yml's `generate:`; `gate.kinds.generation`); None: its
    # records always come from elsewhere, and a `generate:` on its suites is a config error
    generation: Generation[ConfigT] | None = None
    # The metrics `llm-gate calibrate` proposes checks for by default: the ones a user gates on, not the whole
    # catalogue (each proposed check spends false-alarm budget); `calibrated` adds what only the reports name
    calibration_metrics: tuple[str, ...] = ()
    calibrated: Callable[[Collection[str]], tuple[str, ...]] | None = None
    # (its measured suite) -> when the oldest baseline output the kind keeps in its own inputs was written (a
    # blessed answer), or None; a run flags it past `baselines.max_age_days`
    outputs_blessed_at: Callable[[SuiteResult], str | None] | None = None
    # (suite name, suite config, directory of gate.yml, what to bless) -> the files it wrote (would write, in a dry
    # run): `baseline bless --model` makes that model's outputs the baseline outputs the kind keeps in its own inputs;
    # raises ConfigError/InputError with located problems. None: its suites keep no baseline outputs
    bless_outputs: Callable[[str, ConfigT, Path, Blessing], list[Path]] | None = None
    # (judged suite) -> a line under the suite in the terminal summary (its seed's own pass line); None: none
    summary_line: Callable[[SuiteVerdict], str] | None = None
    # What `llm-gate init` writes for it (gate.yml's part, example records); None: init does not offer it
    starter: Starter | None = None

    def impossible(self, entry: Mapping[str, Any], metric: str, check: Mapping[str, Any]) -> CheckProblem | None:
        """Why a check of gate.yml (its suite's raw entry, the metric, the check's raw entry) can never be
        measured, or None. An entry the schema rejects is left to the schema's own problems."""
        suite, parsed = self._suite(entry), _check(check)
        if suite is None or parsed is None:
            return None
        problem = self.check_problem(suite, metric, parsed) if self.check_problem else None
        if problem or not (parsed.significant and parsed.relative and self.item_columns_of):
            return problem
        if self.metrics_of is not None and self.metrics_of(entry) is None:
            return None  # only the suite's inputs tell its metrics, and so its columns (a rubric file)
        columns = self.item_columns_of(suite)
        if self.statistic(suite, metric, columns) is not None:
            return None
        tested = [m for m in self.metrics if self.statistic(suite, m, columns) is not None]
        close = suggest(metric, tested)  # a close name the items do determine, if any
        alt = close.removeprefix("did you mean ").removesuffix("?").strip("'") if close.startswith("did you") else None
        return CheckProblem(
            expected="with `significant: true`, a metric the items determine (the test recomputes it on resampled "
                     "items)",
            found=f"{metric}, which its group's item values do not determine (a count, a p-value, a comparison "
                  "of two systems or a share of what is missing)",
            fix="drop `significant: true`" + (f", or check {alt} instead" if alt else ""))

    def item_values(self, entry: Mapping[str, Any]) -> tuple[str, ...] | None:
        """The numeric item values a suite measures, from its raw gate.yml entry alone (what an `items:` criterion
        may read), or None where only its inputs tell (a rubric file), the kind does not say, or the schema
        rejects the entry (its own problems say why)."""
        if self.item_columns_of is None or (self.metrics_of is not None and self.metrics_of(entry) is None):
            return None
        suite = self._suite(entry)
        return self.item_columns_of(suite) if suite is not None else None

    def _suite(self, entry: Mapping[str, Any]) -> ConfigT | None:
        """The suite's config from its raw entry without its checks, or None where the schema rejects it."""
        try:
            return self.config_model.model_validate({k: v for k, v in entry.items() if k != "checks"})
        except (ValidationError, TypeError, ValueError):
            return None

    def statistic(self, suite: ConfigT, metric: str, columns: tuple[str, ...]) -> ItemStatistic | None:
        """`metric` as a function of the item columns `columns` (what a significance test resamples), or None
        where the items cannot give it (a count, a p-value, a comparison with another system). A k-of-n metric of a
        suite with `items:` is the mean of its item value (`gate.judge.passrates`)."""
        if metric in KOFN_METRICS and getattr(suite, "items", None) is not None:
            return item_statistics.mean(KOFN_METRICS[metric]) if KOFN_METRICS[metric] in columns else None
        found = self.item_statistic(suite, metric) if self.item_statistic is not None else None
        if found is not None:
            return found if set(found.columns) <= set(columns) else None
        column = self.item_column(metric, columns)
        return item_statistics.mean(column) if column is not None else None

    def item_column(self, metric: str, columns: tuple[str, ...]) -> str | None:
        """The item column whose mean `metric` is, or None when it is not a mean over items."""
        names = [self.item_means[metric]] if metric in self.item_means else [metric, metric.removesuffix("_mean")]
        return next((name for name in names if name and name in columns), None)

    def direction(self, metric: str) -> Direction | None:
        """Which way is better for `metric`; pattern metrics (k-metrics, judge criteria, deltas, custom
        rubric metrics) are higher-is-better unless they are spreads, latencies or costs."""
        if metric in self.metrics:
            return self.metrics[metric].direction
        if not (self.metric_pattern and self.metric_pattern.match(metric)):
            return None
        base = metric.removeprefix("delta_")
        if base in self.metrics:
            return self.metrics[base].direction
        worse = base.endswith("_std") or base.startswith(("latency", "cost"))
        return Direction.LOWER_IS_BETTER if worse else Direction.HIGHER_IS_BETTER

    def knows(self, metric: str) -> bool:
        return metric in self.metrics or bool(self.metric_pattern and self.metric_pattern.match(metric))

    def checks_for(self, suite: SuiteBase) -> Mapping[str, tuple[CheckConfig, ...]]:
        """By metric, its checks (gate.yml may give one or a list); the kind's defaults where gate.yml gives none."""
        given = suite.checks if suite.checks is not None else self.default_checks
        return {metric: tuple(check) if isinstance(check, list) else (check,) for metric, check in given.items()}


def _check(check: Mapping[str, Any]) -> CheckConfig | None:
    """A check's raw gate.yml entry as a `CheckConfig`, or None where the schema rejects it."""
    try:
        return CheckConfig.model_validate(check)
    except (ValidationError, TypeError, ValueError):
        return None
