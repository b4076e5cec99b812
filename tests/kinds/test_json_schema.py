"""The JSON Schema subset of `arguments:` decides exactly as the reference implementation (the `jsonschema`
package, draft 2020-12) on every supported keyword, and refuses what it does not support."""

from __future__ import annotations

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
