"""Load gate.yml: YAML -> `GateConfig`, with every problem named by line, field, expectation and fix."""

from __future__ import annotations

import difflib
import types
import typing
from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from gate import io
from gate.config import SUITE_CONFIGS, GateConfig, known_kinds
from gate.errors import ConfigError, Problem, describe

_SCHEMA_HINT = "see `llm-gate schema` for every field"


def load_config(path: str | Path) -> GateConfig:
    """Read, parse and validate gate.yml; raise `ConfigError` listing every problem found."""
    path = Path(path)
    text = io.read_text(path, what="gate config")
    return parse_config(text, str(path))


def parse_config(text: str, filename: str = "gate.yml") -> GateConfig:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(
            "gate config is not valid YAML",
            [
                Problem(
                    file=filename,
                    line=mark.line + 1 if mark else None,
                    expected="valid YAML",
                    found=str(getattr(exc, "problem", None) or exc),
                    fix="check indentation and quoting around this line",
                )
            ],
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            "gate config must be a mapping",
            [Problem(file=filename, line=1, expected="a YAML mapping with `version:` and `suites:`",
                     found="an empty file" if data is None else describe(data),
                     fix="start from `llm-gate init` or examples/gate.yml")],
        )
    problems = _duplicate_keys(root, filename)
    problems += _kind_problems(data, root, filename)
    if problems:
        raise ConfigError(f"{filename} is invalid", problems)
    try:
        config = GateConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            f"{filename} is invalid", [_to_problem(err, root, filename) for err in exc.errors()]
        ) from None
    problems = _check_problems(config, root, filename)
    if problems:
        raise ConfigError(f"{filename} is invalid", problems)
    return config


# ---------------------------------------------------------------- semantic checks


def _kind_problems(data: dict, root: yaml.Node, filename: str) -> list[Problem]:
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
                line=_line_of(root, loc),
                field=".".join(map(str, loc)) if "kind" in suite else f"suites.{name}.kind",
                expected=f"a known suite kind: {', '.join(kinds)}",
                found=f"unknown kind {kind!r}" if "kind" in suite else "no `kind:`",
                fix=_suggest(kind, kinds) if isinstance(kind, str) else f"add `kind: {kinds[0]}`",
            )
        )
    return problems


def _check_problems(config: GateConfig, root: yaml.Node, filename: str) -> list[Problem]:
    """Checks must name metrics and scopes the suite's kind produces."""
    from gate.scorers import get_scorer

    problems = []
    for name, suite in config.suites.items():
        scorer = get_scorer(suite.kind)
        metrics = tuple(scorer.metrics)
        levels = ("group", *scorer.levels, "suite")
        for metric, check in (suite.checks or {}).items():
            loc = ("suites", name, "checks", metric)
            if metric not in metrics:
                problems.append(
                    Problem(
                        file=filename, line=_line_of(root, loc), field=".".join(loc),
                        expected=f"a metric of kind '{suite.kind}': {', '.join(metrics)}",
                        found=f"unknown metric {metric!r}", fix=_suggest(metric, metrics),
                    )
                )
            if check.scope not in levels:
                problems.append(
                    Problem(
                        file=filename, line=_line_of(root, (*loc, "scope")), field=".".join((*loc, "scope")),
                        expected=f"one of {', '.join(dict.fromkeys(levels))}", found=repr(check.scope),
                        fix=_suggest(check.scope, levels),
                    )
                )
    return problems


# ---------------------------------------------------------------- pydantic errors -> problems


def _to_problem(err: dict, root: yaml.Node, filename: str) -> Problem:
    loc, model = _user_loc(err["loc"])
    field = ".".join(str(p) for p in loc) or None
    line = _line_of(root, loc)
    kind = err["type"]
    if kind == "extra_forbidden":
        known = tuple(model.model_fields) if model else ()
        parent = ".".join(str(p) for p in loc[:-1]) or "the top level"
        return Problem(
            file=filename, line=line, field=field,
            expected=f"a known field of {parent}: {', '.join(known)}" if known else "no such field",
            found=f"unknown field {loc[-1]!r}", fix=_suggest(str(loc[-1]), known),
        )
    if kind == "missing":
        return Problem(file=filename, line=_line_of(root, loc[:-1]), field=field,
                       expected="this required field", found="nothing", fix=f"add `{loc[-1]}:`; {_SCHEMA_HINT}")
    if kind in ("literal_error", "enum"):
        return Problem(file=filename, line=line, field=field, expected=err["msg"].replace("Input should be", "one of"),
                       found=describe(err.get("input")), fix=_SCHEMA_HINT)
    if kind == "value_error":
        message = err["msg"].removeprefix("Value error, ")
        return Problem(file=filename, line=line, field=field, expected="a consistent setting",
                       found=message, fix="adjust the values as described")
    return Problem(
        file=filename, line=line, field=field,
        expected=err["msg"].replace("Input should be ", "").replace("Input ", "input "),
        found=describe(err.get("input")), fix=_SCHEMA_HINT,
    )


def _user_loc(loc: tuple) -> tuple[tuple, type[BaseModel] | None]:
    """Drop pydantic's union tags from a location and find the model that owns its last field."""
    path: list = []
    annotation: object = GateConfig
    owner: type[BaseModel] | None = None
    for part in loc:
        annotation = _unwrap_optional(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            owner = annotation
            field = annotation.model_fields.get(str(part))
            annotation = field.annotation if field else None
            path.append(part)
            continue
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin in (dict, list) and args:
            annotation = args[-1]
            path.append(part)
            continue
        if origin is typing.Annotated and args:
            union_members = typing.get_args(args[0]) or (args[0],)
            chosen = [m for m in union_members if _kind_of(m) == part]
            if chosen:  # a discriminated-union tag: not a user field
                annotation = chosen[0]
                continue
        path.append(part)
        annotation = None
    return tuple(path), owner


def _unwrap_optional(annotation: object) -> object:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return members[0]
    return annotation


def _kind_of(model: object) -> str | None:
    if isinstance(model, type) and model in SUITE_CONFIGS:
        return model.model_fields["kind"].annotation.__args__[0]
    return None


def _suggest(value: str | None, choices: tuple[str, ...] | list[str]) -> str:
    if value:
        close = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.6)
        if close:
            return f"did you mean {close[0]!r}?"
    return f"use one of: {', '.join(choices)}" if choices else _SCHEMA_HINT


# ---------------------------------------------------------------- YAML positions


def _line_of(root: yaml.Node | None, loc: tuple) -> int | None:
    """1-based line of the node at `loc` (or of its deepest existing ancestor)."""
    node = root
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    child = value
                    line = key.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def _duplicate_keys(node: yaml.Node | None, filename: str, path: tuple = ()) -> list[Problem]:
    """PyYAML keeps the last of two equal keys silently; a gate must not."""
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            here = key.start_mark.line + 1
            if key.value in seen:
                problems.append(
                    Problem(file=filename, line=here, field=".".join((*path, str(key.value))),
                            expected="each key once", found=f"a second '{key.value}' (first on line {seen[key.value]})",
                            fix="merge the two entries or rename one")
                )
            seen.setdefault(key.value, here)
            problems += _duplicate_keys(value, filename, (*path, str(key.value)))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += _duplicate_keys(item, filename, (*path, str(index)))
    return problems
