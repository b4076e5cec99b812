"""YAML files validated into pydantic models, with every problem located by line and field.

Shared by gate.yml (`gate.config.loader`) and the YAML files a kind reads (rubrics): YAML syntax errors,
duplicate keys (which PyYAML would silently merge) and pydantic errors all become `Problem`s naming
the file, the line, the field path, what was expected, what was found and how to fix it.
"""

from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, Tag, ValidationError

from gate.config.base import BoolForNumber
from gate.errors import ConfigError, Problem, describe

M = TypeVar("M", bound=BaseModel)
SCHEMA_HINT = "see `llm-gate schema` for every field"


def parse_yaml(text: str, filename: str, what: str) -> tuple[Any, yaml.Node | None]:
    """(data, node tree for line numbers); invalid YAML is a `ConfigError` with its line."""
    loader = None
    try:  # one parse gives both the node tree and the data (what yaml.safe_load does inside)
        loader = yaml.SafeLoader(text)  # raises for control characters
        root = loader.get_single_node()
        if "\\u" in text or "\\U" in text:  # only an escape in a double-quoted scalar makes a lone surrogate
            bad = _lone_surrogates(root, filename)
            if bad:
                raise ConfigError(f"{what} is not valid Unicode text", bad)
        return (loader.construct_document(root) if root is not None else None), root
    except yaml.YAMLError as exc:
        if isinstance(exc, yaml.reader.ReaderError):  # a control character: it has a position, not a mark
            raise ConfigError(f"{what} is not valid YAML", [Problem(
                file=filename, line=text[: exc.position].count("\n") + 1, expected="printable YAML text",
                found=f"the control character #x{exc.character:04x}" if isinstance(exc.character, int)
                else "undecodable bytes", fix="delete it, or write it as an escape inside double quotes")]) from None
        mark = getattr(exc, "problem_mark", None)
        raise ConfigError(f"{what} is not valid YAML", [Problem(
            file=filename, line=mark.line + 1 if mark else None, expected="valid YAML",
            found=(str(getattr(exc, "problem", None) or exc).strip() or "invalid YAML").splitlines()[0],
            fix="check indentation and quoting around this line")]) from None
    except RecursionError:
        raise ConfigError(f"{what} is nested too deeply", [Problem(
            file=filename, expected="YAML nested a few levels deep", found="thousands of levels",
            fix="flatten the structure; see `llm-gate schema` for the fields")]) from None
    except ValueError as exc:  # an integer past Python's 4300-digit limit
        raise ConfigError(f"{what} has an unreadable value", [Problem(
            file=filename, expected="numbers of ordinary size", found=str(exc)[:200],
            fix="write numbers under 4300 digits")]) from None
    finally:
        if loader is not None:
            loader.dispose()


def validate(model: type[M], data: Any, root: yaml.Node | None, filename: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{filename} is invalid",
                          [to_problem(err, root, filename, model) for err in exc.errors()]) from None


# ---------------------------------------------------------------- pydantic errors -> problems


def to_problem(err: Mapping[str, Any], root: yaml.Node | None, filename: str, model: type[BaseModel]) -> Problem:
    """A pydantic error as a problem: the user's field path (no union tags), its line, the fix."""
    loc, owner = _user_loc(err["loc"], model)
    field = ".".join(str(p) for p in loc) or None
    line = line_of(root, loc)
    kind = err["type"]
    if isinstance(err.get("input"), BoolForNumber):
        return Problem(file=filename, line=line, field=field, expected="a number, not true/false",
                       found=f"{err['input'].value} (a YAML boolean)", fix="write the number itself, e.g. 0.8 or 3")
    if kind == "extra_forbidden":
        known = tuple(owner.model_fields) if owner else ()
        parent = ".".join(str(p) for p in loc[:-1]) or "the top level"
        return Problem(
            file=filename, line=line, field=field,
            expected=f"a known field of {parent}: {', '.join(known)}" if known else "no such field",
            found=f"unknown field {loc[-1]!r}", fix=suggest(str(loc[-1]), known),
        )
    if kind == "missing":
        return Problem(file=filename, line=line_of(root, loc[:-1]), field=field,
                       expected="this required field", found="nothing", fix=f"add `{loc[-1]}:`; {SCHEMA_HINT}")
    if kind in ("literal_error", "enum"):
        return Problem(file=filename, line=line, field=field, expected=err["msg"].replace("Input should be", "one of"),
                       found=describe(err.get("input")), fix=SCHEMA_HINT)
    if kind == "gate_input":  # a validator's own expectation, finding and fix (`gate.config.strict.invalid`)
        ctx = err.get("ctx") or {}
        return Problem(file=filename, line=line, field=field, expected=ctx["expected"],
                       found=ctx.get("found") or describe(err.get("input")), fix=ctx["fix"])
    if kind == "value_error":
        message = err["msg"].removeprefix("Value error, ")
        return Problem(file=filename, line=line, field=field, expected="a consistent setting",
                       found=message, fix="adjust the values as described")
    return Problem(
        file=filename, line=line, field=field,
        expected=err["msg"].replace("Input should be ", "").replace("Input ", "input ")
        .replace("String should have", "a string of").replace("List should have", "a list of")
        .replace("Dictionary should have", "a mapping of"),
        found=describe(err.get("input")), fix=SCHEMA_HINT,
    )


def _user_loc(loc: tuple, root: type[BaseModel]) -> tuple[tuple, type[BaseModel] | None]:
    """Drop pydantic's union tags from a location and find the model that owns its last field."""
    path: list = []
    annotation: object = root
    owner: type[BaseModel] | None = None
    for part in loc:
        annotation = _unwrap_optional(annotation)
        # gate.yml's suites and models: built from the registered kinds (`gate.config.gate`)
        built = getattr(annotation, "registered_annotation", None)
        annotation = built() if callable(built) else annotation
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
                member = chosen[0]
                annotation = typing.get_args(member)[0] if typing.get_origin(member) is typing.Annotated else member
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
    """The tag of a discriminated-union member: its `Tag(...)`, or its `kind:` (a suite) or `type:` (a provider)
    Literal value."""
    if typing.get_origin(model) is typing.Annotated:
        tags = [m.tag for m in typing.get_args(model)[1:] if isinstance(m, Tag)]
        return tags[0] if tags else None
    for tag in ("kind", "type"):
        if isinstance(model, type) and issubclass(model, BaseModel) and tag in model.model_fields:
            args = typing.get_args(model.model_fields[tag].annotation)
            return args[0] if args else None
    return None


def suggest(value: str | None, choices: tuple[str, ...] | list[str]) -> str:
    if value:
        close = difflib.get_close_matches(str(value), list(choices), n=1, cutoff=0.6)
        if close:
            return f"did you mean {close[0]!r}?"
    return f"use one of: {', '.join(choices)}" if choices else SCHEMA_HINT


# ---------------------------------------------------------------- YAML positions


def line_of(root: yaml.Node | None, loc: tuple) -> int | None:
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


def _lone_surrogates(root: yaml.Node | None, filename: str) -> list[Problem]:
    """Scalars holding half a surrogate pair ("\\ud800"): no report, comment or check run could be written."""
    from gate.io.jsonpos import surrogate_at, surrogate_escape

    problems, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:  # aliases make the tree a graph: visit each node once
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode) and isinstance(node.value, str):
            at = surrogate_at(node.value)
            if at is not None:
                char = surrogate_escape(node.value[at])
                problems.append(Problem(file=filename, line=node.start_mark.line + 1, expected="text that is valid "
                                        "Unicode", found=f"a lone surrogate {char} at character {at + 1}",
                                        fix=f"remove the stray {char} escape, or write the character itself"))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(part for pair in reversed(node.value) for part in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
    return problems


def field_line(root: yaml.Node | None, field: str) -> int | None:
    """1-based line of the key a dotted field path names (`suites.v1.2.checks.bleu`: keys may hold dots, so the
    longest key that fits is taken at each step); None when gate.yml does not have that exact field."""
    node, rest, line = root, field, None
    while rest:
        head = rest.split(".", 1)[0]
        if isinstance(node, yaml.SequenceNode) and head.isdigit() and int(head) < len(node.value):
            node, line, rest = node.value[int(head)], node.value[int(head)].start_mark.line + 1, rest[len(head) + 1:]
            continue
        if not isinstance(node, yaml.MappingNode):
            return None
        fits = [(k, v) for k, v in node.value if isinstance(k.value, str)
                and (rest == k.value or rest.startswith(k.value + "."))]
        if not fits:
            return None
        key, node = max(fits, key=lambda kv: len(kv[0].value))
        line, rest = key.start_mark.line + 1, rest[len(key.value) + 1:]
    return line


def locate(problem: Problem, place: tuple[str, yaml.Node | None] | None) -> Problem:
    """A problem that names a gate.yml field but no file, given that file and the field's line."""
    if place is None or problem.file is not None or not problem.field:
        return problem
    line = field_line(place[1], problem.field)
    return problem if line is None else dataclasses.replace(problem, file=place[0], line=line)


def duplicate_keys(node: yaml.Node | None, filename: str, path: tuple = (), seen_nodes: set | None = None
                   ) -> list[Problem]:
    """PyYAML keeps the last of two equal keys silently; a gate must not."""
    # Aliases make the node tree a graph: visit each node once, or nine nested aliases of nine
    # items each (a "billion laughs") take hours to walk.
    seen_nodes = set() if seen_nodes is None else seen_nodes
    if id(node) in seen_nodes:
        return []
    seen_nodes.add(id(node))
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
            problems += duplicate_keys(value, filename, (*path, str(key.value)), seen_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += duplicate_keys(item, filename, (*path, str(index)), seen_nodes)
    return problems
