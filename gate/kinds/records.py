"""Typed, frozen input records per suite kind (DESIGN.md §3), validated with located errors.

Unknown extra fields in input files are kept on the record (and otherwise ignored); missing or
mistyped required fields are problems naming file, line, record and field.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError

from gate.config.strict import invalid as invalid  # re-exported: the kinds' record validators raise it
from gate.errors import Problem, describe
from gate.io import RawRecord, SourceRef


class InputModel(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    # Where the record was read from; private so a user field named `source` cannot collide with it.
    _source: SourceRef | None = PrivateAttr(None)

    @property
    def source_ref(self) -> SourceRef | None:
        # read from pydantic's private-attribute slot: `self._source` goes through BaseModel.__getattr__ (~5 us;
        # a scorer asks tens of thousands of times)
        private = self.__pydantic_private__
        return private.get("_source") if private else None


def _as_id(value: Any) -> Any:
    """Ids are compared as strings: 14676 and "14676" name the same exercise."""
    if isinstance(value, bool):
        raise invalid("an id (a non-empty string or an integer)", "write the id as text or a whole number, "
                      "not true/false")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise invalid("an id (a non-empty string or an integer)", "give every record its id, e.g. \"q1\" or 17")


def _finite(value: Any) -> Any:
    if isinstance(value, bool):
        raise invalid("a number", "write a number, not true/false")
    if isinstance(value, str):  # "NaN" and "inf" would parse as floats: a CSV cell or a quoted JSON number
        try:
            number = float(value)
        except ValueError:
            return value  # pydantic says it is not a number
        value = number if not math.isfinite(number) else value  # finite text: pydantic parses it as before
    if isinstance(value, (int, float)) and not math.isfinite(value):
        raise invalid("a finite number", "write a finite number, or null for an unknown value")
    return value


def _whole(value: Any) -> Any:
    """JSON's true/false are not counts: pydantic's lax int would take true as 1."""
    if isinstance(value, bool):
        raise invalid("a whole number", "write a whole number, e.g. 12, not true/false")
    return value


def short(text: str, limit: int = 60) -> str:
    """A user's id or name inside a message: as written, unless it is long enough to flood the message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: Any) -> Any:
    return "" if value is None else value


Id = Annotated[str, BeforeValidator(_as_id)]
FiniteFloat = Annotated[float, BeforeValidator(_finite)]
Text = Annotated[str, BeforeValidator(_text)]
# Magnitudes no real record reaches: a credit, a latency in seconds (11.6 days), a cost, a graded judgment. Past
# them a sum or a squared deviation overflows a float and a run would crash instead of naming the record.
MAX_MAGNITUDE = 1_000_000
Magnitude = Annotated[FiniteFloat, Field(ge=0, le=MAX_MAGNITUDE)]
Count = Annotated[int, BeforeValidator(_whole), Field(ge=0, le=10**9)]  # tokens: a billion per query at most

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
            expected, found, fix = explain(err)
            if err["type"] == "missing":
                found = "nothing"
                expected, fix = "this required field", f"add `{err['loc'][-1]}` to the record"
            problems.append(Problem(file=source.file, line=source.line, record=record, field=field or None,
                                    expected=expected, found=found, fix=fix))
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


def validate_each(model: type[M], raw: list[RawRecord], problems: list[Problem]) -> list[M]:
    """`validate_raw` of every record, in order, emptying `raw` as it goes: each raw record (its dict) is let go
    once its typed record exists, so that a file of a million records never holds a million of each at once.
    A required column a table (CSV/XLSX) lacks is one problem for the file (`missing_columns`), not one per row."""
    absent = missing_columns(model, raw, problems)
    records: list[M] = []
    raw.reverse()
    while raw:
        row = raw.pop()
        lacking = absent.get(row.source.file, set())
        found = validate_raw(model, row, sink := [] if lacking else problems)
        if lacking:  # the row's own problems, less the missing columns already said once for the file
            problems += [p for p in sink if not (p.found == "nothing" and p.field in lacking)]
        if found is not None:
            records.append(found)
    return records


def missing_columns(model: type[BaseModel], raw: list[RawRecord], problems: list[Problem]) -> dict[str, set[str]]:
    """Per table file, the required fields its header lacks, each said once with the file's row count; a header
    of one column holding `;` or a tab is named as the likely cause (a file saved with another delimiter)."""
    columns: dict[str, tuple[set[str], int]] = {}
    for row in raw:
        if row.from_table and row.source.file is not None:
            seen, rows = columns.get(row.source.file, (set(row.data), 0))
            columns[row.source.file] = (seen, rows + 1)
    required = [field.alias or name for name, field in model.model_fields.items() if field.is_required()]
    absent: dict[str, set[str]] = {}
    for file, (header, rows) in columns.items():
        lacking = [name for name in required if name not in header]
        if not lacking:
            continue
        absent[file] = set(lacking)
        [only] = header if len(header) == 1 else [None]
        delimiter = next((d for d in (";", "\t") if only and d in only), None)
        shown = ", ".join(f"`{short(c, 40)}`" for c in sorted(header)[:12]) or "none"
        fix = (f"the header is one column holding {'a tab' if delimiter == chr(9) else '`;`'}: the file looks "
               f"{'tab' if delimiter == chr(9) else 'semicolon'}-delimited; save it comma-separated (CSV)"
               if delimiter else f"add the column{'s' if len(lacking) > 1 else ''} to the header")
        problems.append(Problem(file=file, line=1, field=", ".join(lacking), expected=f"the required column"
                                f"{'s' if len(lacking) > 1 else ''} {', '.join(f'`{n}`' for n in lacking)}",
                                found=f"the columns {shown} ({rows:,} {'row lacks' if rows == 1 else 'rows lack'} it)",
                                fix=fix))
    return absent


# pydantic error type -> (what was expected, how to fix it); `{name}` is the field, `{ctx}` pydantic's context.
_EXPLAINED = {
    "string_type": ("a string", "write `{name}` as text (in double quotes in JSON)"),
    "string_too_short": ("a non-empty string", "fill in `{name}`"),
    "float_type": ("a number", "write `{name}` as a plain number, e.g. 2.5"),
    "float_parsing": ("a number", "write `{name}` as a plain number, e.g. 2.5"),
    "int_type": ("a whole number", "write `{name}` as a whole number, e.g. 12"),
    "int_parsing": ("a whole number", "write `{name}` as a whole number, e.g. 12"),
    "int_from_float": ("a whole number", "write `{name}` as a whole number, e.g. 12"),
    "list_type": ("a list", "write `{name}` as a JSON list: [...]"),
    "dict_type": ("an object", "write `{name}` as a JSON object: {{...}}"),
    "model_type": ("an object with its fields", "write `{name}` as a JSON object: {{...}}"),
    "model_attributes_type": ("an object with its fields", "write `{name}` as a JSON object: {{...}}"),
    "bool_type": ("true or false", "write `{name}` as true or false"),
    "bool_parsing": ("true or false", "write `{name}` as true or false"),
    "finite_number": ("a finite number", "write a finite number, or null for an unknown value"),
    "greater_than_equal": ("a number ≥ {ge}", "use a value of at least {ge}"),
    "greater_than": ("a number > {gt}", "use a value above {gt}"),
    "less_than_equal": ("a number ≤ {le}", "use a value of at most {le}"),
    "less_than": ("a number < {lt}", "use a value below {lt}"),
}


def explain(err: Any) -> tuple[str, str | None, str]:
    """(expected, found, fix) for one pydantic error: plain words, never pydantic's own phrasing."""
    ctx = err.get("ctx") or {}
    found = describe(err.get("input"))
    if err["type"] == "gate_input":
        return ctx["expected"], ctx.get("found") or (found if err["loc"] else None), ctx["fix"]
    name = next((str(p) for p in reversed(err["loc"]) if isinstance(p, str)), "the value")
    if err["type"] in _EXPLAINED:
        expected, fix = _EXPLAINED[err["type"]]
        return expected.format(**ctx), found, fix.format(name=name, **ctx)
    message = err["msg"].removeprefix("Value error, ").replace("Input should be ", "")
    return message, found if err["loc"] else None, f"correct `{name}` as described" if err["loc"] else \
        "correct the record as described"


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
                                    found=f"{describe(model)} has none",
                                    fix=f"did you mean {close[0]!r}?" if close else
                                    f"models found: {', '.join(found) or 'none'}"))
    return tuple(m for m in found if m in wanted)
