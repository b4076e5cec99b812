"""What each task's runs must do: read from gate.yml's `expect:` and `expect_file:`, and checked against a run.

A run meets its expectations when every check of its task's entry and of the `"*"` entry holds: `tools_called`
(each called at least once), `tools_never` (none called), `order` (a subsequence of the calls' tool names),
`arguments` (every call of the tool matches its JSON Schema; a tool never called has nothing to check),
`max_steps`/`max_tokens`/`max_latency`/`max_cost` (a limit the run gives no value for is not met: it cannot be
shown to hold) and `answer` (`exact` and/or `contains`, surrounding whitespace ignored, `ignore_case` optional;
`similar_to`: BERTScore F1 ≥ `min_f1`, the F1 computed by `answers` and passed in as `similarity`). A
run whose task has no entry (and no `"*"`) has no expectations: unmeasured, never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import yaml

from gate import io
from gate.config.base import StrictModel
from gate.config.located import duplicate_keys, parse_yaml, validate
from gate.errors import ConfigError, InputError, Problem
from gate.io import paths
from gate.kinds.json_schema import violations
from gate.kinds.trajectory.config import EVERY_TASK, AnswerExpectation, Expectation, Expectations, TrajectorySuiteConfig
from gate.kinds.trajectory.runs import Run

SHOWN_VIOLATIONS = 3  # per call, in the run's failure list


class ExpectationFile(StrictModel):
    """A file of expectations: task id -> what its runs must do (as gate.yml's `expect:`), validated as this
    model's one field so that a problem names the model that owns the field (an unknown key's close match)."""

    tasks: Expectations


def _validated(data: object, root: yaml.Node | None, shown: str) -> dict[str, Expectation]:
    """The file's entries; a problem's line is found through a node tree with the file's mapping under `tasks`."""
    holder = None
    if root is not None:
        key = yaml.ScalarNode("tag:yaml.org,2002:str", "tasks", root.start_mark, root.end_mark)
        holder = yaml.MappingNode("tag:yaml.org,2002:map", [(key, root)], root.start_mark, root.end_mark)
    try:
        return dict(validate(ExpectationFile, {"tasks": data if data is not None else {}}, holder, shown).tasks)
    except ConfigError as exc:
        raise ConfigError(exc.title, [replace(p, field=p.field.removeprefix("tasks.") if p.field else None)
                                      for p in exc.problems]) from None


def load_expectations(config: TrajectorySuiteConfig, base_dir: Path, field: str,
                      problems: list[Problem]) -> dict[str, Expectation]:
    """The inline `expect:` with the file's entries; a task in both is a problem."""
    found = dict(config.expect or {})
    if config.expect_file is None:
        return found
    try:
        path = paths.confine(base_dir / config.expect_file, base_dir, f"{field}.expect_file", config.expect_file)
        shown = io.display_path(path)
        data, root = parse_yaml(io.read_text(path, "expectations file"), shown, "the expectations file")
        duplicated = duplicate_keys(root, shown)
        if duplicated:
            raise ConfigError(f"{shown} is invalid", duplicated)
        entries = _validated(data, root, shown)
    except InputError as exc:
        problems += exc.problems
        return found
    for task, expectation in entries.items():
        if task in found:
            problems.append(Problem(file=shown, field=task, expected="each task's expectations in one place",
                                    found=f"task {task!r} also under `{field}.expect`",
                                    fix="keep the task's entry in gate.yml or in the file, not both"))
        found[task] = expectation
    return found


def expectations_for(task: str, expectations: dict[str, Expectation]) -> tuple[Expectation, ...]:
    return tuple(e for e in (expectations.get(EVERY_TASK), expectations.get(task)) if e is not None)


def failures(run: Run, applying: tuple[Expectation, ...],
             similarity: Mapping[tuple[str, str], float] | None = None) -> list[str]:
    """What the run does not do of what `applying` asks (empty: it meets them all); `similarity`: BERTScore F1 per
    (answer, `similar_to`), both stripped (`answers.answer_scores`)."""
    found: list[str] = []
    tools = run.tools
    for expectation in applying:
        for tool in expectation.tools_called or ():
            if tool not in tools:
                found.append(f"tools_called: {tool} never called")
        for tool in expectation.tools_never or ():
            if tool in tools:
                found.append(f"tools_never: {tool} called (step {tools.index(tool) + 1})")
        if expectation.order and not is_subsequence(expectation.order, tools):
            done = matched_prefix(expectation.order, tools)
            found.append(f"order: expected {' → '.join(expectation.order)}; "
                         + (f"no {expectation.order[done]} after {' → '.join(expectation.order[:done])}" if done
                            else f"{expectation.order[0]} never called"))
        for tool, schema in (expectation.arguments or {}).items():
            for number, step in enumerate(run.steps, start=1):
                if step.tool == tool:
                    wrong = [v for v, _ in zip(violations(step.arguments, schema), range(SHOWN_VIOLATIONS),
                                               strict=False)]
                    if wrong:
                        found.append(f"arguments of {tool} (step {number}): " + "; ".join(wrong))
        found += _limits(run, expectation)
        if expectation.answer is not None:
            found += _answer(run.final_answer, expectation.answer, similarity or {})
    return found


def _limits(run: Run, expectation: Expectation) -> list[str]:
    values = {"steps": float(len(run.steps)), "tokens": run.tokens, "latency": run.latency, "cost": run.cost}
    found = []
    for name, most in expectation.limits().items():
        value = values[name]
        if value is None:
            found.append(f"max_{name}: the run gives no {name}, so the limit {most:g} cannot be shown to hold")
        elif value > most:
            found.append(f"max_{name}: {value:g} > {most:g}")
    return found


def _answer(answer: str | None, expected: AnswerExpectation, similarity: Mapping[tuple[str, str], float]) -> list[
        str]:
    if answer is None:
        return ["answer: the run has no final answer"]

    def norm(text: str) -> str:
        return text.strip().casefold() if expected.ignore_case else text.strip()

    found = []
    if expected.exact is not None and norm(answer) != norm(expected.exact):
        found.append(f"answer: expected {expected.exact.strip()!r}, found {answer.strip()[:200]!r}")
    for text in expected.contains or ():
        if norm(text) not in norm(answer):
            found.append(f"answer: does not contain {text!r}")
    if expected.similar_to is not None:
        f1 = similarity[(answer.strip(), expected.similar_to.strip())]
        if not f1 >= expected.least_f1:  # NaN (an empty text) is not similar
            found.append(f"answer: BERTScore F1 {f1:.3f} < {expected.least_f1:g} against "
                         f"{expected.similar_to.strip()[:200]!r}")
    return found


def is_subsequence(order: list[str], tools: tuple[str, ...]) -> bool:
    return matched_prefix(order, tools) == len(order)


def matched_prefix(order: list[str], tools: tuple[str, ...]) -> int:
    """How many of `order`'s names the calls give in that order (greedy, which is optimal for a subsequence)."""
    done = 0
    for tool in tools:
        if done < len(order) and tool == order[done]:
            done += 1
    return done
