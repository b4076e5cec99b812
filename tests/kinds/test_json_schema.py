"""The JSON Schema subset of `arguments:` decides exactly as the reference implementation (the `jsonschema`
package, draft 2020-12) on every supported keyword, and refuses what it does not support."""

from __future__ import annotations

from fractions import Fraction

import jsonschema
import pytest

from gate.kinds.json_schema import KEYWORDS, problems, violations

SCHEMAS = [
    {"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "minLength": 2}}},
    {"type": "object", "properties": {"city": {"const": "Paris"}}, "additionalProperties": False},
    {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2},
    {"type": ["string", "null"], "maxLength": 3},
    {"enum": ["a", 1, None, [1, 2], {"k": True}]},
    {"const": 1},
    {"const": True},
    {"type": "integer", "minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
    {"type": "number", "exclusiveMinimum": 0.5, "maximum": 2.5},
    {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1, "maxItems": 3},
    {"type": "array", "uniqueItems": True},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
    {"allOf": [{"type": "number"}, {"maximum": 5}], "not": {"const": 3}},
    {"type": "string", "pattern": "\\d{3}"},
    {"properties": {"path": {"type": "string", "pattern": "^/tmp/"}}, "required": ["path"], "title": "a path"},
    True,
    False,
    {"type": "boolean"},
    {"type": "null"},
    {"items": False},
]
INSTANCES = [None, True, False, 0, 1, 1.0, 2, 3, 4, 4.5, 10, -1, 0.5, 2.5, "", "a", "ab", "abc", "abcd", "123",
             "x12345", "/tmp/x", [], [1, 2], ["a"], ["a", "b", "c", "d"], ["a", "a"], [1, 1.0], ["A"], [[1, 2]],
             {}, {"city": "Paris"}, {"city": "P"}, {"city": "London"}, {"city": "Paris", "x": 1}, {"a": 1},
             {"a": 1, "b": 2, "c": 3}, {"a": "x"}, {"k": True}, {"path": "/tmp/a"}, {"path": "/etc"}, {"path": 3}]


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_the_subset_decides_as_jsonschema(schema):
    jsonschema.Draft202012Validator.check_schema(schema)
    reference = jsonschema.Draft202012Validator(schema)
    assert problems(schema) == []
    for instance in INSTANCES:
        found = list(violations(instance, schema))
        assert (not found) == reference.is_valid(instance), (schema, instance, found)
        assert all(v.startswith("$") for v in found)


def test_every_supported_keyword_is_exercised():
    used = set()

    def walk(schema):
        if isinstance(schema, dict):
            for key, value in schema.items():
                used.add(key)
                for sub in (value.values() if key == "properties" else value if isinstance(value, list) else [value]):
                    walk(sub)
    for schema in SCHEMAS:
        walk(schema)
    assert KEYWORDS <= used


def test_violations_name_the_place_and_the_value():
    schema = {"type": "object", "required": ["city"], "properties": {"city": {"enum": ["Paris", "Lyon"]},
                                                                       "days": {"type": "integer", "maximum": 7}}}
    assert list(violations({"days": 9}, schema)) == ["$: lacks the required property 'city'",
                                                     "$.days: 9 is above maximum 7"]
    assert list(violations({"city": "Rome"}, schema)) == ['$.city: expected one of ["Paris", "Lyon"], found "Rome"']
    assert list(violations("x", schema)) == ["$: expected object, found string"]


@pytest.mark.parametrize("schema, expected", [
    ({"$ref": "#/$defs/a"}, "$ref: unsupported keyword"),
    ({"format": "email"}, "format: unsupported keyword"),
    ({"properties": {"a": {"patternProperties": {}}}}, "properties.a.patternProperties: unsupported keyword"),
    ({"type": "objekt"}, "type: one of null, boolean"),
    ({"required": "city"}, "required: a list of property names"),
    ({"anyOf": []}, "anyOf: a non-empty list of schemas"),
    ({"minLength": -1}, "minLength: a whole number ≥ 0"),
    ({"multipleOf": 0}, "multipleOf: a number > 0"),
    ({"pattern": "("}, "pattern: a regular expression"),
    ({"items": [{"type": "string"}]}, "items: a schema is an object or true/false"),
    ("string", "the schema: a schema is an object"),
])
def test_what_it_cannot_check_is_refused(schema, expected):
    found = problems(schema)
    assert found and found[0].startswith(expected), found


def _nested(depth: int, leaf: object = 0) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_instances_nested_as_deep_as_a_json_parser_allows_are_checked_not_crashed():
    """Model output decides the instance: arrays 5,000 deep (deeper than Python recurses) compared for `uniqueItems`,
    `const` and `enum`, and shown in a violation, decide as `jsonschema` decides on shallower ones — no
    RecursionError, which would end the run as an internal error."""
    deep, other = _nested(5000), _nested(5000, 1)
    assert list(violations([deep, other], {"uniqueItems": True})) == []
    assert list(violations([deep, _nested(5000)], {"uniqueItems": True})) == ["$: has repeated items"]
    assert list(violations(deep, {"const": _nested(5000)})) == []
    [found] = violations(deep, {"const": 1})
    assert found == "$: expected 1, found a deeply nested array"
    for depth in (3, 30):
        for schema in ({"uniqueItems": True}, {"const": [_nested(depth)]}, {"enum": [1, [_nested(depth, 1)]]}):
            instance = [_nested(depth), _nested(depth, 1)] if "uniqueItems" in schema else [_nested(depth)]
            reference = jsonschema.Draft202012Validator(schema).is_valid(instance)
            assert (not list(violations(instance, schema))) == reference


@pytest.mark.parametrize("instance", [10**400, -(10**400), 10**400 + 1, 3 * 10**350, 1e300, 2.5, 7])
@pytest.mark.parametrize("schema", [{"type": "integer"}, {"multipleOf": 3}, {"multipleOf": 0.5},
                                    {"multipleOf": 1e-10}, {"maximum": 1e308}, {"exclusiveMinimum": 0}])
def test_integers_past_a_float_decide_as_jsonschema_does(instance, schema):
    """An integer of 400 digits is JSON; `float()` of it overflows, so no check may convert it. Where `jsonschema`
    itself overflows (a huge integer divided by a float `multipleOf`), the exact answer (fractions) is the reference."""
    try:
        reference = jsonschema.Draft202012Validator(schema).is_valid(instance)
    except OverflowError:
        reference = (Fraction(instance) / Fraction(schema["multipleOf"])).denominator == 1
    assert (not list(violations(instance, schema))) == reference
