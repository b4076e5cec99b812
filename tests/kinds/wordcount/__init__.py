"""A suite kind defined outside the package, as a third party would write one: words per response.

Everything the kind is lives in this folder (config model, record loading, scorer, view, templates and the
starter `llm-gate init` writes); it is registered through the `llm_quality_gate.kinds` entry point group
(tests/kinds/test_plugin.py installs a `*.dist-info` naming `wordcount = tests.kinds.wordcount:KIND`).
docs/kinds.md walks through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from gate import io
from gate.config import CheckConfig, SuiteBase
from gate.config.generation import GenerateConfig
from gate.errors import InputError, Problem
from gate.generate.providers.types import Request
from gate.judge import SuiteVerdict
from gate.kinds import Kind, ScoringContext, Starter
from gate.kinds.generation import Answered, Call, Generation
from gate.kinds.prompts import asked, draws, parameters
from gate.report.escape import inert
from gate.results import Direction, GroupResult, Item, MetricSpec, SuiteResult


class WordcountSuiteConfig(SuiteBase):
    """Words per response: a length budget for a model's answers."""

    kind: Literal["wordcount"]
    records: str = Field(description="A JSONL file of {model, response} records, relative to gate.yml.")
    max_words: int = Field(100, gt=0, description="A response longer than this counts as too long.")


@dataclass(frozen=True)
class Response:
    model: str
    response: str


def load(name: str, suite: WordcountSuiteConfig, base_dir: Path) -> list[Response]:
    """Read through gate.io as candidate data (`data=True`): confined to the workspace, and under the pull
    request's tree (or its uploaded files) when the gate itself comes from the base branch."""
    paths, problems = io.expand_globs([suite.records], base_dir, f"suites.{name}.records", data=True)
    raw, bad = io.read_records(paths)
    problems += bad
    rows = []
    for record in raw:
        missing = [f for f in ("model", "response") if not isinstance(record.data.get(f), str)]
        problems += [Problem(file=suite.records, line=record.source.line, field=f, expected="a string")
                     for f in missing]
        if not missing:
            rows.append(Response(record.data["model"], record.data["response"]))
    if problems:
        raise InputError(f"suite {name!r}: invalid records", problems)
    return rows


def score(name: str, suite: WordcountSuiteConfig, data: list[Response], context: ScoringContext) -> SuiteResult:
    items = tuple(Item((("model", r.model), ("index", str(i))),
                       {"words": float(len(r.response.split())),
                        "too_long": float(len(r.response.split()) > suite.max_words)})
                  for i, r in enumerate(data))
    groups = []
    for model in sorted({r.model for r in data}):
        mine = [i for i in items if dict(i.key)["model"] == model]
        groups.append(GroupResult("group", (("model", model),), {
            "words_mean": sum(i.values["words"] for i in mine) / len(mine),
            "too_long_rate": sum(i.values["too_long"] for i in mine) / len(mine)}, len(mine)))
    suite_metrics = {"words_mean": sum(i.values["words"] for i in items) / len(items),
                     "too_long_rate": sum(i.values["too_long"] for i in items) / len(items)}
    return SuiteResult(name, "wordcount", suite_metrics, tuple(groups), items, ("model", "index", "words", "too_long"),
                       fingerprint={"counter": "str.split"})


def view(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    return {"rows": [(inert(dict(g.key)["model"]), f"{g.metrics['words_mean']:.1f}")
                     for g in suite.result.groups_at("group")]}


def calls(name: str, suite: WordcountSuiteConfig, generate: GenerateConfig, base_dir: Path) -> list[Call]:
    """One call per (prompt, model, sample): the dataset is JSON Lines of {"prompt": ...}."""
    found = []
    paths, problems = io.expand_globs(generate.dataset or [], base_dir, f"suites.{name}.generate.dataset", data=True)
    raw, bad = io.read_records(paths)
    if problems or bad:
        raise InputError(f"suite {name!r}: invalid dataset", problems + bad)
    for row in raw:
        prompt = (generate.prompt or "{prompt}").format(**row.data)
        found += [Call(Request(model, asked(generate, prompt), parameters=parameters(generate), sample=sample),
                       {"model": model, "line": row.source.line}) for model, sample in draws(generate)]
    return found


def records(suite: WordcountSuiteConfig, generate: GenerateConfig, answered: list[Answered]) -> list[dict[str, Any]]:
    """A {model, response} record per answered call; an unanswered one is left out (its item is missing)."""
    return [{"model": call.fields["model"], "response": response.text, "model_version": response.model_version}
            for call, response in answered if response is not None]


KIND = Kind(
    kind="wordcount",
    config_model=WordcountSuiteConfig,
    metrics={"words_mean": MetricSpec("words_mean", Direction.LOWER_IS_BETTER, "Mean words per response.", ".1f"),
             "too_long_rate": MetricSpec("too_long_rate", Direction.LOWER_IS_BETTER,
                                         "Share of responses over `max_words`.", ".1%")},
    group_fields=("model",),
    levels=(),
    default_checks={"too_long_rate": CheckConfig(max=0.1)},
    load=load,
    score=score,
    view=view,
    templates=Path(__file__).parent / "templates",
    starter=Starter(order=100, suite="init/suite.yml.j2",
                    records={"outputs/wordcount/example.jsonl": "init/records.jsonl.j2"}),
    generation=Generation(calls=calls, records=records, reads="records"),
)
