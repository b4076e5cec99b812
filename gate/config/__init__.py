"""What configures a run: gate.yml as frozen pydantic models, loaded with every problem located (DESIGN.md §2,
§6), and the workflow's side — `settings`, every variable, action input and flag read once into a frozen
`Settings` (import it from `gate.config.settings`).

`gate` holds `GateConfig` and its report, publish, baselines and history sections; `base` the shared pieces
(strict models, checks, the suite base); `runtime` the models and runtime settings; `verdicts` alpha, its
correction, the inconclusive policy and waivers; `grader` an LLM grader's settings (a suite's `judge:`).
`loader` turns gate.yml into a `GateConfig` (YAML and pydantic errors
become located `Problem`s through `located`, which rubric files use too; `paths` confines the paths it names to
the workspace); import `load_config` from `gate.config.loader` itself; it checks the metric names of `checks:`
against the catalogue its caller passes in (`gate.run.read_config` passes the scorers'), so config imports no scorer.
`endpoints` and `grader_access` decide where a suite's LLM grader may send its API key: the workflow's
allow-list, never gate.yml's. A suite kind's model lives in its own folder (`gate.kinds`) and joins the
`SuiteConfig` union of `gate` by registering (`registered`: the `llm_quality_gate.kinds` entry points,
`suite_configs()` lists them); a new top-level section of gate.yml goes
into `gate`. Models are imported from here.
"""

from gate.config.base import CheckConfig, Globs, StrictModel, SuiteBase, UnmeasuredPolicy
from gate.config.gate import (
    WORKSPACE_RULE,
    BaselinesConfig,
    CommentMode,
    CommentWhen,
    GateConfig,
    HistoryConfig,
    PublishConfig,
    ReportConfig,
    ReportFormat,
    SuiteConfig,
    json_schema,
    known_kinds,
    suite_configs,
)
from gate.config.grader import GraderConfig
from gate.config.grader_access import GraderAccess
from gate.config.runtime import (
    BERTSCORE,
    EMBEDDING,
    BertScoreModelConfig,
    Device,
    ModelKey,
    ModelRole,
    ModelsConfig,
    ModelUse,
    Precision,
    RuntimeConfig,
)
from gate.config.verdicts import Correction, GateChangesPolicy, InconclusivePolicy, Waiver

__all__ = [
    "BERTSCORE", "EMBEDDING", "WORKSPACE_RULE", "BaselinesConfig", "BertScoreModelConfig", "CheckConfig",
    "CommentMode", "CommentWhen", "Correction", "Device", "GateChangesPolicy",
    "GateConfig",
    "Globs", "GraderAccess", "GraderConfig", "HistoryConfig", "InconclusivePolicy",
    "ModelKey", "ModelRole", "ModelUse", "ModelsConfig", "Precision", "PublishConfig", "ReportConfig", "ReportFormat",
    "RuntimeConfig",
    "StrictModel", "SuiteBase",
    "SuiteConfig", "UnmeasuredPolicy", "Waiver", "json_schema", "known_kinds", "suite_configs",
]
