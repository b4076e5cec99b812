"""Typed, frozen input records per suite kind (DESIGN.md §3), validated with located errors.

Unknown extra fields in input files are kept on the record (and otherwise ignored); missing or
mistyped required fields are problems naming file, line, record and field.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, PrivateAttr, ValidationError

from gate.errors import Problem, describe
from gate.io import RawRecord, SourceRef


class InputModel(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    # Where the record was read from; private so a user field named `source` cannot collide with it.
    _source: SourceRef | None = PrivateAttr(None)

    @property
    def source_ref(self) -> SourceRef | None:
        return self._source


def _as_id(value: Any) -> Any:
    """Ids are compared as strings: 14676 and "14676" name the same exercise."""
    if isinstance(value, bool):
        raise ValueError("an id must be a string or an integer, not a boolean")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ValueError("an id must be a non-empty string or an integer")


def _finite(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number, not a boolean")
    if isinstance(value, (int, float)) and not math.isfinite(value):
        raise ValueError("expected a finite number")
    return value


def _text(value: Any) -> Any:
    return "" if value is None else value


Id = Annotated[str, BeforeValidator(_as_id)]
FiniteFloat = Annotated[float, BeforeValidator(_finite)]
Text = Annotated[str, BeforeValidator(_text)]

M = TypeVar("M", bound=BaseModel)


def validate(
    model: type[M],
    data: Any,
    source: SourceRef,
    record: str,
    problems: list[Problem],
    prefix: str = "",
    **extra: Any,
) -> M | None:
    """Validate `data` into `model`; on failure append one located problem per error and return None."""
    try:
        result = model.model_validate({**data, **extra} if isinstance(data, dict) else data)
    except ValidationError as exc:
        for err in exc.errors():
            field = prefix + _format_loc(err["loc"])
            if err["type"] == "missing":
                problems.append(Problem(file=source.file, line=source.line, record=record, field=field or None,
                                        expected="this required field", found="nothing",
                                        fix=f"add `{err['loc'][-1]}` to the record"))
            else:
                message = err["msg"].removeprefix("Value error, ").replace("Input should be ", "")
                problems.append(Problem(file=source.file, line=source.line, record=record, field=field or None,
                                        expected=message, found=describe(err.get("input"))))
        return None
    if isinstance(result, InputModel):
        result._source = source
    return result


def validate_raw(model: type[M], raw: RawRecord, problems: list[Problem], **extra: Any) -> M | None:
    data = raw.data
    if raw.from_table:  # an empty cell of an optional column is "not given"; of a required one, empty text
        fields = model.model_fields
        data = {k: v for k, v in data.items()
                if not (v == "" and (k not in fields or not fields[k].is_required()))}
    return validate(model, data, raw.source, raw.label, problems, **extra)


def _format_loc(loc: tuple) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def selected_models(found: Sequence[str], wanted: Sequence[str] | None, field: str,
                    problems: list[Problem]) -> tuple[str, ...]:
    """The models to score, in order of appearance: all found, or the `models:` (or `--model`) selection.

    A selected model without records is a problem naming the close match or the models found.
    """
    found = tuple(dict.fromkeys(found))
    if wanted is None:
        return found
    for model in wanted:
        if model not in found:
            close = difflib.get_close_matches(model, found, n=1, cutoff=0.6)
            problems.append(Problem(field=f"{field}.models", expected="models that have records",
                                    found=f"{model!r} has none",
                                    fix=f"did you mean {close[0]!r}?" if close else
                                    f"models found: {', '.join(found) or 'none'}"))
    return tuple(m for m in found if m in wanted)
