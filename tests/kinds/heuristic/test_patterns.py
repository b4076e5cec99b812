"""A rubric's regular expressions (`matches` / `no_match`) and the `json_valid` feature: the conditions against
independent references (Python's `re`, orjson), located errors for a bad expression, and the time limit that keeps
hostile text from holding the run or dodging a penalty."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from gate.errors import ConfigError, InputError
from gate.kinds.heuristic import patterns
from gate.kinds.heuristic.rubric import Feature, load_rubric
from gate.kinds.heuristic.rules import Text, score_response
from tests.kinds.heuristic.test_scorer import score, write_rubric
from tests.support.cli import run_main

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


def test_found_agrees_with_re_on_generated_texts_and_expressions():
    rng = random.Random(7)
    expressions = [r"\d{3}", r"^\s*[-*] ", r"(?i)error", r"\bfoo\b", r"a.c", r"[A-Z][a-z]+ [A-Z]", r"(?s)<b>.*</b>",
                   r"colou?r", r"\$\d+(\.\d\d)?", r"^$", r"(?m)^#+ ", r"[^\x00-\x7f]"]
    alphabet = "abcfo 01239-*#<>/\n\t$.EeRrOoÆé中"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        for expression in expressions:
            assert patterns.found(expression, text) == bool(re.search(expression, text)), (expression, text)


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
        assert Text(text, text).feature(Feature.JSON_VALID) == float(expected), text
    assert valid > 500  # the corpus holds both kinds


@pytest.mark.parametrize("text, valid", [
    ("1" * 5000, True),  # a number of any length is JSON (Python's int() would refuse past 4,300 digits)
    ("1e400", True),  # the grammar's number, past a double's range
    ('"\\ud800"', True),  # a lone surrogate escape: allowed by RFC 8259's grammar
    ("NaN", False), ("-Infinity", False), ("[Infinity]", False),  # json.loads' own extensions, not JSON
    ("\ufeff[1]", False), ("", False), ("   ", False), ("[1] [2]", False),
    ("[" * 100_000 + "]" * 100_000, False),  # deeper than the parser recurses: counted as not valid
])
def test_json_valid_edges(text, valid):
    assert Text(text, text).feature(Feature.JSON_VALID) == float(valid)


def test_json_valid_reads_the_response_as_written_whatever_the_case():
    assert Text("true", "TRUE").feature(Feature.JSON_VALID) == 0.0
    assert Text('{"a": "x"}', '{"A": "X"}').feature(Feature.JSON_VALID) == 1.0


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
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "INPUT_CONFIG", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)
    code, out, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-o", "out")
    assert code == 2 and "r.jsonl:1, field 'response'" in err and "Traceback" not in err


def test_a_rubric_without_expressions_never_imports_regex(tmp_path):
    (tmp_path / "r.jsonl").write_text(json.dumps({"model": "m", "category": "coding", "prompt_id": "C1",
                                                  "response": "def f(): pass"}) + "\n")
    code = ("import sys, json\nfrom pathlib import Path\nfrom gate.config import GateConfig\n"
            "from gate.kinds.base import ScoringContext\nfrom gate.kinds.heuristic import score_heuristic\n"
            "from gate.kinds.heuristic.config import HeuristicSuiteConfig\n"
            "from gate.kinds.heuristic.records import load_heuristic\n"
            "suite = HeuristicSuiteConfig(kind='heuristic', records=['r.jsonl'])\n"
            "data = load_heuristic('h', suite, Path('.'))\n"
            "score_heuristic('h', suite, data, ScoringContext(GateConfig(version=1, suites={'h': suite}), None, "
            "Path('.')))\nprint('regex' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(Path(__file__).parents[3]), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "False", done.stderr
