"""The trajectory suite's entry in gate.yml: where the agent runs are, what each task's run must do (`expect:`, or a
file of them), the baseline runs the tool sequences are compared with, pass^k's k and the OpenTelemetry attributes
that carry what the GenAI conventions do not name (the task, the sample, success, cost, the final answer)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from gate.config import BERTSCORE, BertScoreModelConfig, GateConfig, ModelUse
from gate.config.base import Globs, StrictModel, SuiteBase
from gate.config.strict import invalid
from gate.kinds.json_schema import problems as schema_problems

DEFAULT_MIN_F1 = 0.9  # an answer's least BERTScore F1 against `similar_to` where `min_f1` is not given
EVERY_TASK = "*"  # the `expect:` key whose expectations apply to every task's runs


def _task_key(value: Any) -> Any:
    """A YAML key 42 names task "42", as a record's task_id 42 does."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


TaskKey = Annotated[str, BeforeValidator(_task_key), Field(min_length=1)]
Limit = Annotated[float, Field(ge=0)]


class AnswerExpectation(StrictModel):
    """The final answer: equal to `exact`, containing every `contains` text (surrounding whitespace ignored), and/or
    saying what `similar_to` says: its BERTScore F1 against it (the suite's BERTScore model) at least `min_f1`."""

    exact: str | None = Field(None, description="The final answer, exactly (surrounding whitespace ignored).")
    contains: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Texts the final answer must each contain.")
    ignore_case: bool = Field(False, description="Compare without regard to letter case (`exact`, `contains`).")
    similar_to: Annotated[str, Field(min_length=1)] | None = Field(
        None, description="A reference answer: the final answer's BERTScore F1 against it (`models.bertscore`, or "
        "the suite's `bertscore:`) must be at least `min_f1`.")
    min_f1: float | None = Field(None, gt=0, le=1, description="The least BERTScore F1 against `similar_to`; "
                                 "omitted: 0.9 (set it for the backbone: MiniLM-L6 at layer 6 gives a rewording "
                                 "about 0.9, roberta-large about 0.95).")

    @property
    def least_f1(self) -> float:
        return self.min_f1 if self.min_f1 is not None else DEFAULT_MIN_F1

    @model_validator(mode="after")
    def _something(self) -> AnswerExpectation:
        if self.exact is None and not self.contains and self.similar_to is None:
            raise invalid("one of `exact`, `contains` or `similar_to`", found="an `answer:` with none of them",
                          fix="e.g. `answer: {contains: [Paris]}`")
        return self


class Expectation(StrictModel):
    """What one task's every run must do. Each given field is one check; a run meets its expectations when all
    hold (and those under `"*"`)."""

    tools_called: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Tools the run must call (each at least once).")
    tools_never: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Tools the run must never call.")
    order: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Tool names the run's calls must contain in this order (a subsequence: other calls may "
        "come between).")
    arguments: dict[str, Any] | None = Field(
        None, description="Per tool, a JSON Schema the arguments of its every call must match (see docs/suites/"
        "trajectory.md for the keywords supported).")
    max_steps: Annotated[int, Field(ge=0)] | None = Field(None, description="At most this many tool calls.")
    max_tokens: Annotated[int, Field(ge=0)] | None = Field(None, description="At most this many tokens in the run.")
    max_latency: Limit | None = Field(None, description="At most this many seconds for the run.")
    max_cost: Limit | None = Field(None, description="At most this cost for the run.")
    answer: AnswerExpectation | None = Field(None, description="The final answer's expected value.")

    @field_validator("arguments")
    @classmethod
    def _schemas(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        found = [p for tool, given in (value or {}).items() for p in schema_problems(given, tool)]
        if found:
            raise invalid("per tool, a JSON Schema the gate can check (a subset of draft 2020-12)",
                          found="; ".join(found[:5]) + (f" (and {len(found) - 5} more)" if len(found) > 5 else ""),
                          fix="use the supported keywords (docs/suites/trajectory.md)")
        return value

    def limits(self) -> dict[str, float]:
        """The run limits given: metric name ("steps", "tokens", "latency", "cost") -> the most allowed."""
        given = {"steps": self.max_steps, "tokens": self.max_tokens, "latency": self.max_latency,
                 "cost": self.max_cost}
        return {name: float(value) for name, value in given.items() if value is not None}


Expectations = dict[TaskKey, Expectation]


class OtelAttributes(StrictModel):
    """The span (or resource) attributes an OpenTelemetry trace gives the run's fields in: the GenAI semantic
    conventions name the model, the tools and the token usage, but not the task, the sample, the harness's success
    verdict, the cost or the final answer."""

    task_id: str = Field("task.id", min_length=1, description="The task the run is of (required on some span).")
    sample: str = Field("task.sample", min_length=1, description="Which run of the task it is (optional).")
    success: str = Field("task.success", min_length=1, description="The harness's verdict, true/false (optional).")
    cost: str = Field("task.cost", min_length=1, description="The run's cost, summed over the spans giving it.")
    final_answer: str = Field(
        "task.final_answer", min_length=1, description="The final answer (else the last model call's output "
        "messages).")
    model: str = Field("gen_ai.request.model", min_length=1, description="The model (the first span giving it).")


class TrajectorySuiteConfig(SuiteBase):
    """Agent runs: the tools each task's runs call, in which order and with which arguments, their cost and
    whether they succeed, against per-task expectations and (optionally) baseline runs."""

    kind: Literal["trajectory"]
    records: Globs = Field(description="The agent runs: JSONL/JSON tool-call logs or OpenTelemetry GenAI spans "
                           "exported as JSON (OTLP or the SDK's span JSON), globs.")
    baseline: Globs | None = Field(None, description="Baseline runs of the same tasks (same formats): each run's "
                                   "tool sequence is compared with the nearest baseline run of its task.")
    expect: Expectations | None = Field(None, description="Per task id, what its runs must do; the key \"*\" "
                                        "applies to every task.")
    expect_file: str | None = Field(None, description="A YAML or JSON file of more expectations, as `expect:` "
                                    "(relative to gate.yml).")
    pass_k: Annotated[int, Field(ge=1)] | None = Field(
        None, description="k of pass^k and pass@k; omitted: each task's number of runs.")
    models: list[str] | None = Field(None, description="Only score these models.")
    otel: OtelAttributes = Field(default_factory=OtelAttributes)
    bertscore: BertScoreModelConfig | None = Field(
        None, description="Overrides `models.bertscore` for `answer: {similar_to: …}`.")


def trajectory_models(gate: GateConfig, suite: TrajectorySuiteConfig) -> tuple[ModelUse, ...]:
    """The BERTScore backbone a trajectory suite loads (`Kind.models_of`) where an answer is compared by similarity:
    an inline `similar_to`, or an `expect_file` that may hold one (a run loads it only when one applies)."""
    similar = any(e.answer is not None and e.answer.similar_to is not None for e in (suite.expect or {}).values())
    return (ModelUse(BERTSCORE, gate.bertscore_for(suite).model),) if similar or suite.expect_file else ()
