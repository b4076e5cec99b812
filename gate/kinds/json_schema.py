"""The JSON Schema the kinds check model output with (a trajectory suite's `arguments:`, a heuristic rubric's
`json_schema:`): a subset of draft 2020-12.

Supported (with 2020-12's meaning): `type` (one or a list; "integer" is a number with no fractional part; true and
false are booleans, never numbers), `enum`, `const`, `properties`, `required`, `additionalProperties` (true/false
or a schema), `minProperties`, `maxProperties`, `items` (one schema for every item), `minItems`, `maxItems`,
`uniqueItems`, `minLength`, `maxLength` (in code points), `pattern` (searched anywhere in the string, Python's
`re` syntax, under `gate.kinds.expressions`' time limit: `SlowSearch` past it), `minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum` (numbers), `multipleOf`, `allOf`, `anyOf`, `oneOf`, `not`, and the boolean
schemas `true`/`false`. Annotations (`title`, `description`, `$comment`, `default`, `examples`, `$schema`,
`deprecated`) are allowed and ignored. Any other keyword (`$ref`, `format`, `patternProperties`, `if`, ...) is
refused when the config is read, never silently skipped, so a constraint the gate cannot check never passes. Pure:
`problems` checks a schema, `violations` an instance against it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from gate.kinds.expressions import found, invalid_because

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
ANNOTATIONS = frozenset({"title", "description", "$comment", "default", "examples", "$schema", "deprecated"})
_SCHEMA = frozenset({"additionalProperties", "items", "not"})  # keyword -> one schema
_SCHEMAS = frozenset({"allOf", "anyOf", "oneOf"})  # keyword -> a non-empty list of schemas
_COUNTS = frozenset({"minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength"})
_NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
KEYWORDS = frozenset({"type", "enum", "const", "properties", "required", "uniqueItems", "pattern",
                      *_SCHEMA, *_SCHEMAS, *_COUNTS, *_NUMBERS})


def problems(schema: Any, where: str = "") -> list[str]:
    """What makes `schema` unusable (an unsupported keyword, a malformed value), each naming its place."""
    at = where or "the schema"
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{at}: a schema is an object or true/false, found {type(schema).__name__}"]
    found: list[str] = []
    for keyword, value in schema.items():
        here = f"{where}.{keyword}" if where else keyword
        if keyword in ANNOTATIONS:
            continue
        if keyword not in KEYWORDS:
            found.append(f"{here}: unsupported keyword (supported: {', '.join(sorted(KEYWORDS))})")
        elif keyword == "type":
            names = value if isinstance(value, list) else [value]
            if not names or any(n not in TYPES for n in names):
                found.append(f"{here}: one of {', '.join(TYPES)}, or a list of them")
        elif keyword == "enum" and not isinstance(value, list):
            found.append(f"{here}: a list of values")
        elif keyword == "properties":
            if not isinstance(value, dict):
                found.append(f"{here}: an object of schemas")
            else:
                found += [p for name, sub in value.items() for p in problems(sub, f"{here}.{name}")]
        elif keyword == "required" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            found.append(f"{here}: a list of property names")
        elif keyword in _SCHEMA:
            found += problems(value, here)
        elif keyword in _SCHEMAS:
            if not isinstance(value, list) or not value:
                found.append(f"{here}: a non-empty list of schemas")
            else:
                found += [p for i, sub in enumerate(value) for p in problems(sub, f"{here}[{i}]")]
        elif keyword in _COUNTS and not (_is_int(value) and value >= 0):
            found.append(f"{here}: a whole number ≥ 0")
        elif keyword in _NUMBERS and not (_is_number(value) and (keyword != "multipleOf" or value > 0)):
            found.append(f"{here}: a number" + (" > 0" if keyword == "multipleOf" else ""))
        elif keyword == "uniqueItems" and not isinstance(value, bool):
            found.append(f"{here}: true or false")
        elif keyword == "pattern":
            why = invalid_because(value) if isinstance(value, str) else "not a string"
            if why is not None:
                found.append(f"{here}: a regular expression ({why})")
    return found


def violations(instance: Any, schema: Any, path: str = "$") -> Iterator[str]:
    """Why `instance` does not match `schema` (a schema `problems` accepted), each naming where; none: it does."""
    if schema is True:
        return
    if schema is False:
        yield f"{path}: no value is allowed here"
        return
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_has_type(instance, name) for name in names):
            yield f"{path}: expected {' or '.join(names)}, found {_type_name(instance)}"
            return
    if "const" in schema and not equal(instance, schema["const"]):
        yield f"{path}: expected {_shown(schema['const'])}, found {_shown(instance)}"
    if "enum" in schema and not any(equal(instance, v) for v in schema["enum"]):
        yield f"{path}: expected one of {_shown(schema['enum'])}, found {_shown(instance)}"
    if isinstance(instance, dict):
        yield from _object(instance, schema, path)
    elif isinstance(instance, list):
        yield from _array(instance, schema, path)
    elif isinstance(instance, str):
        yield from _string(instance, schema, path)
    elif _is_number(instance):
        yield from _number(instance, schema, path)
    for sub in schema.get("allOf", ()):
        yield from violations(instance, sub, path)
    if "anyOf" in schema and not any(_valid(instance, s) for s in schema["anyOf"]):
        yield f"{path}: matches none of anyOf's {len(schema['anyOf'])} schemas"
    if "oneOf" in schema:
        matched = sum(1 for s in schema["oneOf"] if _valid(instance, s))
        if matched != 1:
            yield f"{path}: matches {matched} of oneOf's {len(schema['oneOf'])} schemas, not exactly one"
    if "not" in schema and _valid(instance, schema["not"]):
        yield f"{path}: matches the schema under `not`"


def _valid(instance: Any, schema: Any) -> bool:
    return next(violations(instance, schema), None) is None


def _object(instance: dict, schema: dict, path: str) -> Iterator[str]:
    for name in schema.get("required", ()):
        if name not in instance:
            yield f"{path}: lacks the required property {name!r}"
    properties = schema.get("properties", {})
    for name, value in instance.items():
        if name in properties:
            yield from violations(value, properties[name], f"{path}.{name}")
        elif "additionalProperties" in schema:
            extra = schema["additionalProperties"]
            if extra is False:
                yield f"{path}: has the property {name!r}, which the schema does not allow"
            else:
                yield from violations(value, extra, f"{path}.{name}")
    if len(instance) < schema.get("minProperties", 0):
        yield f"{path}: has {len(instance)} properties, fewer than {schema['minProperties']}"
    if "maxProperties" in schema and len(instance) > schema["maxProperties"]:
        yield f"{path}: has {len(instance)} properties, more than {schema['maxProperties']}"


def _array(instance: list, schema: dict, path: str) -> Iterator[str]:
    if "items" in schema:
        for i, value in enumerate(instance):
            yield from violations(value, schema["items"], f"{path}[{i}]")
    if len(instance) < schema.get("minItems", 0):
        yield f"{path}: has {len(instance)} items, fewer than {schema['minItems']}"
    if "maxItems" in schema and len(instance) > schema["maxItems"]:
        yield f"{path}: has {len(instance)} items, more than {schema['maxItems']}"
    if schema.get("uniqueItems") and any(equal(a, b) for i, a in enumerate(instance) for b in instance[i + 1:]):
        yield f"{path}: has repeated items"


def _string(instance: str, schema: dict, path: str) -> Iterator[str]:
    if len(instance) < schema.get("minLength", 0):
        yield f"{path}: is {len(instance)} characters long, shorter than {schema['minLength']}"
    if "maxLength" in schema and len(instance) > schema["maxLength"]:
        yield f"{path}: is {len(instance)} characters long, longer than {schema['maxLength']}"
    if "pattern" in schema and not found(schema["pattern"], instance):
        yield f"{path}: {_shown(instance)} does not match the pattern {schema['pattern']!r}"


def _number(instance: float, schema: dict, path: str) -> Iterator[str]:
    bounds = (("minimum", lambda v, b: v >= b, "below"), ("maximum", lambda v, b: v <= b, "above"),
              ("exclusiveMinimum", lambda v, b: v > b, "not above"), ("exclusiveMaximum", lambda v, b: v < b,
                                                                       "not below"))
    for keyword, holds, word in bounds:
        if keyword in schema and not holds(instance, schema[keyword]):
            yield f"{path}: {_shown(instance)} is {word} {keyword} {_shown(schema[keyword])}"
    if "multipleOf" in schema and not _multiple(instance, schema["multipleOf"]):
        yield f"{path}: {_shown(instance)} is not a multiple of {_shown(schema['multipleOf'])}"


def _multiple(value: float, step: float) -> bool:
    """Whether `value` is a multiple of `step`: exact for integers; for floats within 1e-9 of a whole quotient, and
    exact (fractions) where the quotient overflows a float — a huge integer cannot raise, as `jsonschema` does."""
    if _is_int(value) and _is_int(step):
        return value % step == 0
    try:
        quotient = value / step
    except OverflowError:
        return (Fraction(value) / Fraction(step)).denominator == 1
    if math.isinf(quotient) and math.isfinite(value):
        return (Fraction(value) / Fraction(step)).denominator == 1
    return math.isfinite(quotient) and math.isclose(quotient, round(quotient), rel_tol=0, abs_tol=1e-9)


def equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 and 1.0 are equal, true and 1 are not, objects and arrays compare element-wise. Iterative:
    model output nested as deep as a JSON parser allows must not exhaust Python's recursion."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif _is_number(x) and _is_number(y):
            if x != y:
                return False
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif not (type(x) is type(y) and x == y):
            return False
    return True


def _has_type(value: Any, name: str) -> bool:
    if name == "integer":  # an int of any size; a float with no fraction (float() of a huge int would overflow)
        return _is_int(value) or (isinstance(value, float) and value.is_integer())
    return _type_name(value) == name or (name == "number" and _is_number(value))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    names: dict[type, str] = {dict: "object", list: "array", str: "string"}
    return names.get(type(value), type(value).__name__)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any, limit: int = 60) -> str:
    """`value` as JSON, cut at `limit` characters; a value too deep or too large to write is named by its type."""
    import json

    if isinstance(value, (dict, list)) and _deeper_than(value, 20):
        return f"a deeply nested {_type_name(value)}"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):  # an integer past str()'s 4,300 digits
        return f"a {_type_name(value)} too large to show"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _deeper_than(value: Any, depth: int) -> bool:
    """Whether `value` nests containers more than `depth` levels (iteratively; stops at the first path that does)."""
    pending = [(value, 1)]
    while pending:
        item, level = pending.pop()
        if level > depth:
            return True
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        pending.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False
