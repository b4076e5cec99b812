"""gate.yml's strictest building blocks, shared by every section: `StrictModel` (unknown keys, NaN and a YAML
boolean where a number belongs are errors naming the field) and `Globs` (one glob or a list of them)."""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError


class StrictModel(BaseModel):
    # allow_inf_nan=False: YAML's .nan and .inf parse as floats, and a NaN threshold never fails a check.
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, data: Any) -> Any:
        """`min: true` is YAML's boolean, which pydantic's lax mode would take as 1 (and `version: true` as 1):
        such a value is swapped for a `BoolForNumber`, which fails the field's own validation, so the error
        names the field and the other fields are still checked."""
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        return {k: _marked(fields[k].annotation, v) if k in fields else v for k, v in data.items()}


class BoolForNumber:
    """A true/false where gate.yml wants a number (`gate.config.located.to_problem` words its error)."""

    def __init__(self, value: bool):
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def _scalars(annotation: Any) -> set[type]:
    """The scalar types an annotation takes (through Optional, Annotated, unions and Literal); none for containers."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _scalars(args[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_scalars(a) for a in args))
    if origin is typing.Literal:
        return {type(a) for a in args}
    return {annotation} if isinstance(annotation, type) and origin is None else set()


def _items(annotation: Any) -> Any:
    """The item annotation of the list or dict an annotation takes, if it takes one."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated or origin in (typing.Union, types.UnionType):
        found = [i for a in (args[:1] if origin is typing.Annotated else args) if (i := _items(a)) is not None]
        return found[0] if found else None
    return args[-1] if origin in (list, dict) and args else None


def _marked(annotation: Any, value: Any) -> Any:
    if isinstance(value, bool):
        kinds = _scalars(annotation)
        return BoolForNumber(value) if kinds & {int, float} and not kinds & {bool, str} else value
    item = _items(annotation) if isinstance(value, (list, dict)) else None
    if item is None:
        return value
    if isinstance(value, dict):
        return {k: _marked(item, v) for k, v in value.items()}
    return [_marked(item, v) for v in value]


def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


# One glob or a list of globs; always a list once validated.
Globs = Annotated[
    list[Annotated[str, Field(min_length=1)]],
    BeforeValidator(_one_or_many),
    Field(min_length=1),
    WithJsonSchema({"anyOf": [{"type": "string", "minLength": 1},
                              {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}]}),
]


def invalid(expected: str, fix: str, found: str | None = None) -> PydanticCustomError:
    """A validator's error that carries its own expectation, finding and fix into the located `Problem`
    (`gate.config.located.to_problem`, `gate.kinds.records.explain`)."""
    shown = f", found {found}" if found is not None else ""  # pydantic's own rendering (str of the error) says all
    return PydanticCustomError("gate_input", "{expected}{shown}. Fix: {fix}",
                               {"expected": expected, "found": found, "fix": fix, "shown": shown})
