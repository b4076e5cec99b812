"""gate.yml as frozen pydantic models (DESIGN.md §6).

Every model forbids unknown fields, so a typo is an error that names the field instead of a setting
silently ignored. `load_config` (in `gate.config.loader`) turns pydantic's errors into `Problem`s that
name the file and line, the field path, what was expected, what was received and how to fix it.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, GetCoreSchemaHandler, PrivateAttr, StringConstraints, field_validator
from pydantic_core import CoreSchema

from gate.config.base import StrictModel, SuiteBase
from gate.config.generation import PROVIDER_NAME, ProviderConfig
from gate.config.registered import default_models, models_model, suite_models
from gate.config.runtime import BertScoreModelConfig, ModelsConfig, RuntimeConfig
from gate.config.strict import invalid
from gate.config.verdicts import Correction, GateChangesPolicy, InconclusivePolicy, Waiver
from gate.errors import Problem

if TYPE_CHECKING:
    SuiteConfig = SuiteBase  # what the type checker sees: narrow with isinstance to the kind's own model
    Models = ModelsConfig  # the engines' keys; a kind reads its own with `models.model(key)`
else:
    class SuiteConfig:
        """A suite of gate.yml: the config model its `kind:` names, one per registered kind (pydantic's union
        discriminated by `kind`, built from `gate.config.registered` when GateConfig's schema is first needed)."""

        @classmethod
        def registered_annotation(cls) -> Any:
            """The union as pydantic reads it (`gate.config.located` walks it to drop the tags from a location)."""
            models = suite_models()
            return models[0] if len(models) == 1 else Annotated[Union[models], Field(discriminator="kind")]  # noqa: UP007

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
            return handler(cls.registered_annotation())

    class Models:
        """gate.yml's `models:`: the engines' keys and the registered kinds' own (`Kind.model_keys`), built as the
        suite union is."""

        @classmethod
        def registered_annotation(cls) -> Any:
            return models_model()

        @classmethod
        def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
            return handler(models_model())


def _models_default(schema: dict[str, Any]) -> None:
    """The schema's default of `models:` (a default factory has none of its own): what a gate.yml without it gets."""
    schema["default"] = default_models().model_dump(mode="json")


def suite_configs() -> tuple[type[SuiteBase], ...]:
    """The suite config model of every registered kind, in registration order."""
    return suite_models()


# ---------------------------------------------------------------- report and publish


class ReportFormat(str, Enum):
    MARKDOWN = "markdown"
    JSON = "json"
    HTML = "html"  # report.html, the interactive dashboard
    JUNIT = "junit"  # junit.xml, one testcase per check


class ReportConfig(StrictModel):
    output_dir: str = Field("gate-report", description="Where reports go, relative to the working directory.")
    formats: list[ReportFormat] = Field(
        default_factory=lambda: [ReportFormat.MARKDOWN, ReportFormat.JSON, ReportFormat.HTML])
    worst_items: int = Field(5, ge=0, le=100, description="Worst items shown side by side per suite.")
    templates_dir: str | None = Field(
        None, description="A directory whose templates override the bundled ones (same file names)."
    )


class CommentMode(str, Enum):
    STICKY = "sticky"
    NEW = "new"
    OFF = "off"


class CommentWhen(str, Enum):
    """When a comment is posted (`CommentMode` says how): a gate that passes every day can stay quiet."""

    ALWAYS = "always"
    CHANGES = "changes"  # created only when something changed against the baseline (not a clean pass, a
    # significant change, improvements included)
    FAILURES = "failures"  # created only when the verdict is fail, warn or inconclusive
    OFF = "off"


class PublishConfig(StrictModel):
    comment: CommentMode = CommentMode.STICKY
    comment_mode: CommentWhen = Field(
        CommentWhen.ALWAYS, description="When to comment: always; changes (only when the run differs from the "
        "baseline: not a clean pass, or a significant change); failures (only on fail, warn or inconclusive); off. "
        "An existing gate comment is still updated, so a stale failure never stays up.")
    check_run: bool = True
    summary: bool = True
    check_name: str | None = Field(
        None, min_length=1, max_length=200, description="The check run's name. Default: the gate's `name`, with "
        "the suite and model filter of a filtered run, e.g. `quality (suites: rubric)`.")
    comment_title: str | None = Field(
        None, min_length=1, max_length=200, description="What keys the sticky comment. Default: as `check_name`.")


# ---------------------------------------------------------------- baselines and history


class BaselinesConfig(StrictModel):
    """Metric baseline snapshots: one JSON file per suite, written by `llm-gate baseline bless`."""

    dir: str = Field("baselines/metrics", description="Where snapshots are kept, relative to gate.yml "
                     "(`<dir>/<suite>.json`); commit them.")
    max_age_days: int | None = Field(
        90, ge=1, description="Flag a baseline (a snapshot, or the baseline outputs a kind keeps) older than this; "
        "null: never."
    )
    min_paired: float = Field(
        0.8, ge=0, le=1, description="A change check fails when fewer than this share of the snapshot's items of its "
        "group (same identity) could be compared: blessed items with no candidate (renamed, dropped) or without a "
        "value now. New items do not count.")


class HistoryConfig(StrictModel):
    """Runs on the default branch appended to a JSONL history, for trends and deltas in PR comments."""

    path: str = Field("history/{gate}.jsonl", description="History file, relative to gate.yml; `{gate}` is "
                      "the gate's name.")
    branch: str | None = Field(
        None, description="Also keep the history on this branch of the repository (created on first use, "
        "like github-action-benchmark's gh-pages): default-branch runs push their entry there and pull "
        "requests read it. Needs `contents: write` on default-branch runs.")
    default_branch: str | None = Field(
        None, description="The branch whose runs are recorded. Default: the repository's default branch as "
        "the event names it.")
    points: int = Field(20, ge=2, le=200, description="Runs shown in trends.")
    metrics: list[str] | None = Field(
        None, description="Suite-level metrics to trend. Default: the metrics each suite checks.")

    def file_name(self, gate: str) -> str:
        return self.path.replace("{gate}", gate)


# ---------------------------------------------------------------- the gate


class GateConfig(StrictModel):
    model_config = ConfigDict(defer_build=True)  # the suite union exists once the kinds are loaded

    version: Literal[1] = Field(description="Schema version of gate.yml; always 1 for now.")
    name: str = Field(
        "llm-quality-gate",
        min_length=1,
        max_length=100,
        description="Names the check run and the sticky comment; two gates in one repo need two names.",
    )
    models: Models = Field(default_factory=default_models, json_schema_extra=_models_default)
    runtime: RuntimeConfig = RuntimeConfig()
    suites: dict[str, SuiteConfig] = Field(min_length=1)
    report: ReportConfig = ReportConfig()
    publish: PublishConfig = PublishConfig()
    baselines: BaselinesConfig = BaselinesConfig()
    history: HistoryConfig | None = Field(None, description="Keep a history of default-branch runs (opt-in).")
    providers: dict[Annotated[str, StringConstraints(pattern=PROVIDER_NAME)], ProviderConfig] = Field(
        default_factory=dict, description="The models and programs a suite's `generate:` may ask, by a name of your "
        "choice (it names their cassette files).")
    cassettes: str = Field("cassettes", min_length=1, description="The folder of the committed cassettes, relative "
                           "to gate.yml: every generation call recorded, one file per suite, provider and model.")
    alpha: float = Field(
        0.05, gt=0, lt=0.5, description="The gate's false-alarm budget: the chance that an unchanged system fails "
        "any `significant: true` check, shared by all of them through `correction`.")
    correction: Correction = Field(
        Correction.HOLM, description="How the significance-tested checks share `alpha`: holm (family-wise error "
        "rate, valid under any dependence between checks), bh (Benjamini-Hochberg false discovery rate: more "
        "power with many checks) or none (each check at `alpha`: false alarms grow with the number of checks).")
    inconclusive: InconclusivePolicy = Field(
        InconclusivePolicy.NEUTRAL, description="What a gate that could not tell for a reason the pull request "
        "cannot cause (no snapshot yet, a baseline not comparable, an underpowered check) counts as: neutral (check "
        "run neutral, exit code 0: GitHub accepts it for a required check), warn, fail or pass. A candidate set "
        "that no longer covers the snapshot fails whatever this says.")
    waivers: list[Waiver] = Field(default_factory=list, description="Accepted regressions, each with a reason, "
                                  "an owner and an expiry date.")
    max_waiver_days: int = Field(
        90, ge=1, le=366, description="The furthest a waiver's `expires` may lie ahead of the run's day: a waiver is "
        "a dated exception, not a permanent one (an expiry beyond it is an error in gate.yml).")
    gate_changes: GateChangesPolicy = Field(
        GateChangesPolicy.WARN, description="A pull request is judged by the base branch's gate (gate.yml, waivers, "
        "rubrics, snapshots, baselines); what the pull request changes in its own gate is shown, and counts as: "
        "fail (the gate fails), warn (at least a warning; default) or allow (shown only). Read from the base "
        "branch's gate.yml, so a pull request cannot relax it.")

    @field_validator("suites")
    @classmethod
    def _suite_names_are_path_safe(cls, suites: dict[str, object]) -> dict[str, object]:
        for name in suites:
            if not name or not all(c.isalnum() or c in "-_." for c in name) or name.startswith("."):
                raise invalid("suite names of letters, digits, '-', '_' or '.', not starting with '.' (each names "
                              "a folder of the report)", found=repr(name),
                              fix="rename the suite, e.g. `feedback-drift`")
        return suites

    # Deprecated names gate.yml used, rewritten by the loader (`gate.config.renamed`): printed, never fatal.
    _warnings: tuple[Problem, ...] = PrivateAttr(())

    def warn(self, warnings: typing.Sequence[Problem]) -> None:
        self._warnings = (*self._warnings, *warnings)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return self._warnings

    def bertscore_for(self, suite: SuiteBase) -> BertScoreModelConfig:
        """The BERTScore model a suite loads: its own `bertscore:`, else `models.bertscore`."""
        return getattr(suite, "bertscore", None) or self.models.bertscore

    def embedding_for(self, suite: SuiteBase) -> str:
        """The embedding model a suite loads: its own `embedding:` (where its kind has one), else `models:`'s."""
        return getattr(suite, "embedding", None) or self.models.embedding


def known_kinds() -> tuple[str, ...]:
    return tuple(typing.get_args(cls.model_fields["kind"].annotation)[0] for cls in suite_models())


def retired_names() -> tuple[dict[str, Mapping[str, str]], dict[str, tuple[str, ...]]]:
    """(kind -> its retired names, old -> new; kind -> its mappings keyed by metric names): `gate.config.renamed`."""
    kinds = list(zip(known_kinds(), suite_models(), strict=True))
    return ({k: cls.renamed for k, cls in kinds if cls.renamed}, {k: cls.renamed_in for k, cls in kinds})


WORKSPACE_RULE = (
    "Every path gate.yml names (suite inputs, rubric files, baselines.dir, history.path, local model "
    "directories, bertscore.baseline_path) is relative to gate.yml and must resolve, symlinks followed, inside "
    "the workspace: GITHUB_WORKSPACE, else the git checkout holding gate.yml, else gate.yml's directory. "
    "report.output_dir, report.templates_dir and runtime.cache_dir are relative to the working directory and "
    "must resolve inside the workspace or the working directory. "
    "Reading or writing outside them is allowed only by the workflow, never by gate.yml itself (a config can "
    "come from the pull request under test): `--allow-paths-outside-workspace` on the command, the action input "
    "`allow_paths_outside_workspace: true`, or LLM_GATE_ALLOW_PATHS_OUTSIDE_WORKSPACE=1.")


def json_schema() -> dict:
    schema = GateConfig.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "llm-quality-gate gate.yml"
    schema["description"] = WORKSPACE_RULE
    for cls in suite_models():  # a retired setting stays valid for editors too, marked deprecated
        properties = schema.get("$defs", {}).get(cls.__name__, {}).get("properties", {})
        for old, new in cls.renamed.items():
            if new in properties and old not in properties:
                properties[old] = {**properties[new], "deprecated": True,
                                   "description": f"Deprecated: the old name of `{new}`, read as it with a warning."}
    return schema
