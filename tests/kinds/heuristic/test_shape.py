"""A heuristic rubric's shape conditions — regular expressions (`matches` / `no_match`), `json_schema` and the
`json_valid` feature — against independent references (Python's `re`, orjson, `jsonschema`), located errors for a
bad expression or schema, and the time limit that keeps hostile text from holding the run or dodging a penalty."""

from __future__ import annotations

import json
import random
import re
import time

import jsonschema
import orjson
import pytest

from gate.errors import ConfigError, InputError
from gate.kinds import expressions as patterns
from gate.kinds.heuristic.rubric import Feature, load_rubric
from gate.kinds.heuristic.rules import Text, Written, score_response
from gate.kinds.json_schema import violations
from tests.conftest import EXAMPLES
from tests.kinds.heuristic.test_scorer import score, write_rubric
from tests.support.cli import outside_actions, run_main

RUBRIC = """\
version: 1
name: structured
categories:
  answer:
    match_on: raw
    metrics:
      format:
        weight: 0.5
        base: 5
        indicators:
          - {label: a heading, matches: ['(?m)^#{1,3} \\w'], points: 2}
          - {label: heading and list, matches: ['(?m)^# ', '(?m)^- '], points: 1}
          - {label: no link, no_match: ['https?://\\S+'], points: 1}
          - {label: shouting, case: lower, matches: ['\\bplease\\b'], points: -1}
      json:
        weight: 0.5
        base: 0
        indicators:
          - {label: valid JSON, when: {feature: json_valid, ge: 1}, points: 10}
"""

TEXTS = ["# Title\n- a\n- b", "## Sub\ntext", "see https://example.com now", "PLEASE do", "", "#nope\n-x",
         '{"a": [1, 2.5, null, true]}', "TRUE", "true", " [1, 2] \n", "[1, 2,]", "NaN", "'single'", '"str"',
         "```json\n{}\n```", "1 2", "-0.0e+5", "{\"a\": 1, \"a\": 2}"]


def test_matches_and_no_match_are_res_search_on_the_case_each_indicator_reads(tmp_path):
    rubric = load_rubric("rubric.yml", write_rubric(tmp_path, RUBRIC), "f")
    for text in TEXTS:
        fired = {f.label for f in score_response(rubric, "answer", text, "A1").fired}
        expected = {
            "a heading": bool(re.search(r"(?m)^#{1,3} \w", text)),
            "heading and list": bool(re.search(r"(?m)^# ", text) and re.search(r"(?m)^- ", text)),
            "no link": not re.search(r"https?://\S+", text),
            "shouting": bool(re.search(r"\bplease\b", text.lower())),
            "valid JSON": _orjson_valid(text),
        }
        assert fired == {label for label, holds in expected.items() if holds}, text


def _orjson_valid(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def test_json_valid_agrees_with_orjson_on_generated_documents():
    """orjson (RFC 8259, strict) is the reference; the two kinds of text where it is stricter than the grammar — a
    lone surrogate escape and a number past a double's range — are left out here and pinned below."""
    rng = random.Random(11)
    pieces = ['{', '}', '[', ']', ',', ':', '"k"', '"é\\n"', '1', '-2.5e3', 'true', 'false', 'null', ' ', '\n',
              'NaN', 'Infinity', "'x'", '01', '1.', '"\\u00e9"', '//', 'tru', '"a\tb"']
    valid = 0
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        expected = _orjson_valid(text)
        valid += expected
        assert Text(text, Written(text)).features[Feature.JSON_VALID] == float(expected), text
    assert valid > 500  # the corpus holds both kinds


@pytest.mark.parametrize("text, valid", [
    ("1" * 5000, True),  # a number of any length is JSON (Python's int() refuses past 4,300 digits)
    ("1e400", True),  # the grammar's number, past a double's range
    ('"\\ud800"', True),  # a lone surrogate escape: allowed by RFC 8259's grammar
    ("NaN", False), ("-Infinity", False), ("[Infinity]", False),  # json.loads' own extensions, not JSON
    ("\ufeff[1]", False), ("", False), ("   ", False), ("[1] [2]", False),
    ("[" * 100_000 + "]" * 100_000, False),  # deeper than the parser recurses: counted as not valid
])
def test_json_valid_edges(text, valid):
    assert Text(text, Written(text)).features[Feature.JSON_VALID] == float(valid)


def test_json_valid_reads_the_response_as_written_whatever_the_case():
    assert Text("true", Written("TRUE")).features[Feature.JSON_VALID] == 0.0
    assert Text('{"a": "x"}', Written('{"A": "X"}')).features[Feature.JSON_VALID] == 1.0


@pytest.mark.parametrize("expression, found", [("(", "missing )"), ("a{2,1}", "min repeat greater than max"),
                                               ("[z-a]", "bad character range")])
def test_a_bad_expression_is_a_located_rubric_error(tmp_path, expression, found):
    text = RUBRIC.replace("'https?://\\S+'", "'" + expression + "'")
    with pytest.raises(ConfigError) as caught:
        load_rubric("rubric.yml", write_rubric(tmp_path, text), "suites.h.rubric")
    [problem] = caught.value.problems
    assert problem.field == "categories.answer.metrics.format.indicators.2.no_match.0"
    assert problem.line == 13 and problem.file and problem.file.endswith("rubric.yml")
    assert problem.expected == "a regular expression (Python's `re` syntax)"
    assert problem.found.startswith(repr(expression) + ": ") and found in problem.found


HOSTILE = "a" * 5000 + "!"
SLOW = """\
version: 1
name: guarded
categories:
  answer:
    metrics:
      safety:
        weight: 1
        base: 10
        indicators:
          - {label: repeated a, no_match: ['(a+)+$'], points: 0}
          - {label: runaway, matches: ['(a|aa)+$'], points: -10}
"""


def test_a_search_past_its_time_limit_is_an_input_error_naming_the_response(tmp_path, monkeypatch):
    """`(a+)+$` on a long run of `a` backtracks for ever: read as "not found", the response would dodge what the
    indicator means. The run stops with the record, the expression and the indicator instead, and looks at no more
    than ten responses."""
    monkeypatch.setattr(patterns, "SEARCH_SECONDS", 0.05)
    write_rubric(tmp_path, SLOW)
    rows = [{"model": "m", "category": "answer", "prompt_id": f"A{i}", "response": HOSTILE} for i in range(30)]
    rows.insert(3, {"model": "m", "category": "answer", "prompt_id": "A99", "response": "fine"})
    start = time.monotonic()
    with pytest.raises(InputError) as caught:
        score(tmp_path, rows, rubric="rubric.yml")
    assert time.monotonic() - start < 10
    problems = caught.value.problems
    assert len(problems) == 10 and [p.line for p in problems] == [1, 2, 3, *range(5, 12)]
    assert all(p.file.endswith("r.jsonl") and p.field == "response" for p in problems)
    assert problems[0].found == ("'(a+)+$' (indicator 'repeated a') still searching after 0.05 s: it backtracks "
                                 "without end on this text")
    assert "possessive" in problems[0].fix


def test_the_slow_search_fails_the_run_it_never_passes_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(patterns, "SEARCH_SECONDS", 0.05)
    write_rubric(tmp_path, SLOW)
    (tmp_path / "r.jsonl").write_text(json.dumps({"model": "m", "category": "answer", "prompt_id": "A1",
                                                  "response": HOSTILE}) + "\n")
    (tmp_path / "gate.yml").write_text("version: 1\nsuites:\n  h:\n    kind: heuristic\n    records: r.jsonl\n"
                                       "    rubric: rubric.yml\n    checks:\n      safety_mean: {min: 5}\n")
    outside_actions(monkeypatch, tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code == 2 and "r.jsonl:1, field 'response'" in err and "Traceback" not in err


SHAPE = {"type": "object", "required": ["answer", "confidence"], "additionalProperties": False,
         "properties": {"answer": {"type": "string", "minLength": 1, "pattern": "^[A-Z]"},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "sources": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}}}


def _reference_conforms(text: str) -> bool:
    try:
        value = json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    except ValueError:
        return False
    return jsonschema.Draft202012Validator(SHAPE).is_valid(value)


def test_json_schema_holds_when_the_response_parses_and_jsonschema_accepts_it(tmp_path):
    text = RUBRIC.replace("          - {label: valid JSON, when: {feature: json_valid, ge: 1}, points: 10}\n",
                          "          - {label: valid JSON, when: {feature: json_valid, ge: 1}, points: 10}\n"
                          "          - label: the shape\n            json_schema: " + json.dumps(SHAPE) + "\n"
                          "            points: 5\n")
    rubric = load_rubric("rubric.yml", write_rubric(tmp_path, text), "f")
    rng = random.Random(3)
    answers = ["Yes", "no", "", "Paris", 5, None]
    confidences = [0, 0.5, 1, 1.5, -0.1, "high", True, None]
    sources = [[], [1, 2], [1, 1], [1.5], ["a"], None]
    held = 0
    for _ in range(3000):
        value = {k: rng.choice(options) for k, options in (("answer", answers), ("confidence", confidences),
                                                            ("sources", sources)) if rng.random() < 0.85}
        value = {k: v for k, v in value.items() if v is not None or rng.random() < 0.3}
        if rng.random() < 0.1:
            value["extra"] = 1
        text = json.dumps(value, indent=rng.choice([None, 2]))
        if rng.random() < 0.05:
            text = text[:-1]  # cut short: not JSON at all
        fired = {f.label for f in score_response(rubric, "answer", text, "A1").fired}
        held += "the shape" in fired
        assert ("the shape" in fired) == _reference_conforms(text), text
    assert 100 < held < 2900  # both outcomes occur


@pytest.mark.parametrize("schema, found", [
    ({"type": "object", "format": "email"}, "format: unsupported keyword"),
    ({"$ref": "#/defs/a"}, "$ref: unsupported keyword"),
    ({"type": "text"}, "type: one of null, boolean"),
    ({"properties": {"a": {"pattern": "("}}}, "properties.a.pattern: a regular expression (missing )"),
])
def test_a_schema_the_gate_cannot_check_is_a_located_rubric_error(tmp_path, schema, found):
    text = RUBRIC.replace("{label: no link, no_match: ['https?://\\S+'], points: 1}",
                          "{label: no link, json_schema: " + json.dumps(schema) + ", points: 1}")
    assert text != RUBRIC
    with pytest.raises(ConfigError) as caught:
        load_rubric("rubric.yml", write_rubric(tmp_path, text), "suites.h.rubric")
    [problem] = caught.value.problems
    assert problem.field == "categories.answer.metrics.format.indicators.2.json_schema" and problem.line == 13
    assert problem.expected == "a JSON Schema the gate can check (a subset of draft 2020-12)"
    assert found in problem.found


def test_a_schema_pattern_past_its_time_limit_fails_the_run_naming_the_response(tmp_path, monkeypatch):
    monkeypatch.setattr(patterns, "SEARCH_SECONDS", 0.05)
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^(a|aa)+$"}}}
    write_rubric(tmp_path, SLOW.replace("          - {label: repeated a, no_match: ['(a+)+$'], points: 0}\n",
                                        "          - {label: shaped, json_schema: " + json.dumps(schema)
                                        + ", points: -5}\n"))
    rows = [{"model": "m", "category": "answer", "prompt_id": "A1", "response": json.dumps({"name": HOSTILE})}]
    with pytest.raises(InputError) as caught:
        score(tmp_path, rows, rubric="rubric.yml")
    [problem] = caught.value.problems
    assert problem.line == 1 and "'^(a|aa)+$' (indicator 'shaped') still searching" in problem.found


def test_a_rubric_that_uses_no_shape_condition_keeps_its_fingerprint(tmp_path):
    """The rubric's hash is in every blessed snapshot's fingerprint: the seed rubric's is the one the example's
    committed snapshot holds (examples/baselines/metrics/rubric.json), so snapshots blessed before these conditions
    existed stay comparable; a rubric that does use one hashes differently."""
    from gate.kinds.heuristic.scorer import _rubric_hash

    committed = json.loads((EXAMPLES / "baselines/metrics/rubric.json").read_text())
    assert _rubric_hash(load_rubric(None, tmp_path, "f")) == committed["fingerprint"]["rubric_hash"] \
        == "sha256:b080cb4979a1bbbf"
    plain = RUBRIC.replace("          - {label: no link, no_match: ['https?://\\S+'], points: 1}\n", "")
    assert plain != RUBRIC
    hashes = {_rubric_hash(load_rubric("rubric.yml", write_rubric(tmp_path, text), "f")) for text in (plain, RUBRIC)}
    assert len(hashes) == 2


UNMET = """\
version: 1
name: shaped
categories:
  answer:
    metrics:
      format:
        weight: 1
        base: 0
        indicators:
          - {label: the shape, json_schema: {type: object, required: [answer]}, points: 5}
          - {label: only for A2, prompts: [2], json_schema: {type: array}, points: 5}
          - {label: a penalty, json_schema: {type: object, required: [debug]}, points: -1}
          - label: first of
            first_of:
              - {label: strict, json_schema: {type: object, maxProperties: 1}, points: 2}
              - {label: loose, any: ['"'], points: 1}
"""


def test_a_rewarded_schema_that_did_not_hold_says_why_and_only_then(tmp_path):
    """Why a rewarded `json_schema` indicator missed — "not one JSON value" or the schema's first violation, the one
    `gate.kinds.json_schema.violations` names first — when its other conditions held and its rule applied nothing;
    nothing for a penalty, for an indicator another condition ruled out, or for one that held."""
    rubric = load_rubric("rubric.yml", write_rubric(tmp_path, UNMET), "f")
    cases = {
        "not json": {("the shape", "not one JSON value"), ("strict", "not one JSON value")},
        '{"answer": "x", "b": 1}': set(),  # `strict` missed, but its choice applied `loose`
        "[1, 2]": {("the shape", next(violations([1, 2], {"type": "object", "required": ["answer"]}))),
                   ("strict", next(violations([1, 2], {"type": "object", "maxProperties": 1})))},
        '{"other": 1}': {("the shape", next(violations({"other": 1}, {"type": "object", "required": ["answer"]})))},
        '{"answer": "x"}': set(),
    }
    for text, expected in cases.items():
        scored = score_response(rubric, "answer", text, "A1")
        assert {(u.label, u.why) for u in scored.unmet} == expected, text
        assert all(u.metric == "format" for u in scored.unmet)
    result, _ = score(tmp_path, [{"model": "m", "category": "answer", "prompt_id": "A1", "response": '{"other": 1}'}],
                      rubric="rubric.yml")
    [item] = result.items
    assert item.values["indicators"] == ("format: strict (+2); format: not met: the shape ($: lacks the required "
                                         "property 'answer')")


def test_a_response_nested_deep_is_judged_not_crashed(tmp_path):
    """Arrays nested 400 deep parse as JSON; comparing them for `uniqueItems` recursed past Python's limit and ended
    the run as an internal error. Now the schema decides: two different deep items are unique."""
    text = RUBRIC.replace("          - {label: valid JSON, when: {feature: json_valid, ge: 1}, points: 10}\n",
                          "          - {label: valid JSON, when: {feature: json_valid, ge: 1}, points: 10}\n"
                          "          - {label: distinct, json_schema: {type: array, uniqueItems: true}, points: 5}\n")
    rubric = load_rubric("rubric.yml", write_rubric(tmp_path, text), "f")
    deep = "[" * 400 + "0" + "]" * 400
    other = "[" * 400 + "1" + "]" * 400
    fired = {f.label for f in score_response(rubric, "answer", f"[{deep}, {other}]", "A1").fired}
    assert {"valid JSON", "distinct"} <= fired
    unmet = score_response(rubric, "answer", f"[{deep}, {deep}]", "A1").unmet
    assert [(u.label, u.why) for u in unmet] == [("distinct", "$: has repeated items")]
