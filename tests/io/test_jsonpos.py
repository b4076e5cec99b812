"""The position-tracking JSON parser agrees with json.loads and knows where things start."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.io.jsonpos import JsonSyntaxError, loads_with_lines

DOC = """{
  "id": 14676,
  "title": "Observer \\u00e9 \\"quoted\\"",
  "submissions": [
    {"id": 1, "text": "a"},
    {
      "id": 2,
      "baseline_feedback": {"feedback": [{"credits": 1.5e0}]}
    }
  ]
}"""


def test_values_equal_json_loads_and_lines_are_right():
    value, lines = loads_with_lines(DOC)
    assert value == json.loads(DOC)
    assert lines[()] == 1
    assert lines[("submissions",)] == 4
    assert lines[("submissions", 0)] == 5
    assert lines[("submissions", 1)] == 6
    assert lines[("submissions", 1, "baseline_feedback")] == 8


@pytest.mark.parametrize("text, line, message", [
    ('{"a": 1,\n "b": }', 2, "Expecting value"),
    ('[1, 2\n, 3', 2, "Expecting ',' delimiter"),
    ('{"a": NaN}', 1, "NaN is not valid JSON"),
    ('{"a": 1} x', 1, "Extra data"),
    ('{"a" 1}', 1, "Expecting ':' delimiter"),
    ('{a: 1}', 1, "Expecting property name"),
    ('"unterminated', 1, "Unterminated string"),
])
def test_syntax_errors_have_line_and_message(text, line, message):
    with pytest.raises(JsonSyntaxError) as caught:
        loads_with_lines(text)
    assert caught.value.line == line
    assert message in caught.value.message


def test_bom_is_accepted():
    assert loads_with_lines("\ufeff[1]")[0] == [1]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 2]))
def test_agrees_with_json_on_any_document(value, indent):
    text = json.dumps(value, indent=indent)
    assert loads_with_lines(text)[0] == json.loads(text)


def test_a_lone_surrogate_is_found_where_the_string_is():
    from gate.io.jsonpos import LoneSurrogate

    text = '{\n  "a": [1,\n    "ok \\ud83d\\ude00",\n    "x\\udc00y"]\n}'
    with pytest.raises(LoneSurrogate) as caught:
        loads_with_lines(text)
    assert (caught.value.line, caught.value.path, caught.value.at) == (4, ("a", 2), 1)  # the escaped pair is fine
    assert "\\udc00" in caught.value.message


def test_lone_surrogates_walks_values_and_keys_in_document_order():
    from gate.io.jsonpos import lone_surrogates

    value = json.loads('{"k\\ud800": 1, "b": ["fine \\ud83d\\ude00", {"c": "\\udfff!"}]}')
    assert [(path, at) for path, _, at in lone_surrogates(value)] == [((), 1), (("b", 1, "c"), 0)]
    assert list(lone_surrogates(json.loads('["\\ud83d\\ude00", "é", 1, null]'))) == []
