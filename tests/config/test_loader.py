"""gate.yml: valid configs load; every mistake names line, field, expectation, value and fix."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from gate.config import CheckConfig, GateConfig, json_schema, known_kinds
from gate.config.loader import load_config, parse_config
from gate.errors import ConfigError, ExitCode
from gate.kinds import KINDS
from gate.kinds.drift.config import CreditDriftMode
from tests.conftest import EXAMPLES

MINIMAL = """\
version: 1
suites:
  fb:
    kind: drift
    baseline: base/*.json
    candidates: out.jsonl
"""


def problems_of(text: str) -> list:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "gate.yml", metrics=KINDS)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    return list(caught.value.problems)


def test_example_config_loads():
    config = load_config(EXAMPLES / "gate.yml", metrics=KINDS)
    suite = config.suites["feedback-drift"]
    assert suite.kind == "drift"
    assert config.bertscore_for(suite).layer == 6
    assert suite.checks["bertscore_f1"] == [CheckConfig(min=0.70, warn=0.80),  # the recipe: a floor per group and
                                            CheckConfig(max_decrease=0, significant=True, scope="model")]  # a test
    assert config.alpha == 0.05


def test_defaults_are_the_seed_defaults():
    config = parse_config(MINIMAL, metrics=KINDS)
    assert config.models.bertscore.model == "roberta-large"
    assert config.models.bertscore.layer == 17
    assert config.models.embedding == "sentence-transformers/all-MiniLM-L6-v2"
    assert config.models.stereotype == "holistic-ai/bias_classifier_albertv2"
    suite = config.suites["fb"]
    assert suite.baseline == ["base/*.json"]  # one glob or a list
    assert suite.credit_drift_mode is CreditDriftMode.TOTAL
    assert suite.checks is None  # the kind's defaults apply


def test_typo_in_a_field_names_line_field_and_suggestion():
    [problem] = problems_of(MINIMAL + "    checks:\n      bertscore_f1: {mn: 0.8}\n")
    assert problem.line == 8
    assert problem.field == "suites.fb.checks.bertscore_f1.mn"
    assert "unknown field 'mn'" in problem.found
    assert "min" in problem.expected and "max" in problem.expected
    assert problem.fix == "did you mean 'min'?"
    assert "gate.yml:8" in problem.render()


def test_typo_at_top_level():
    problems = {p.field: p for p in problems_of(MINIMAL.replace("suites:", "suits:"))}
    assert problems["suits"].fix == "did you mean 'suites'?"
    assert problems["suits"].line == 2
    assert problems["suites"].expected == "this required field"


def test_all_problems_are_reported_at_once():
    text = MINIMAL.replace("version: 1", "version: 2") + "    credit_drift_mode: items\nrunttime: {}\n"
    problems = problems_of(text)
    fields = {p.field for p in problems}
    assert {"version", "suites.fb.credit_drift_mode", "runttime"} <= fields
    runtime = next(p for p in problems if p.field == "runttime")
    assert runtime.fix == "did you mean 'runtime'?"


def test_unknown_kind_lists_known_kinds():
    [problem] = problems_of(MINIMAL.replace("kind: drift", "kind: drfit"))
    assert problem.field == "suites.fb.kind"
    assert problem.line == 4
    assert all(kind in problem.expected for kind in known_kinds())
    assert problem.fix == "did you mean 'drift'?"


def test_missing_kind():
    [problem] = problems_of(MINIMAL.replace("    kind: drift\n", ""))
    assert problem.field == "suites.fb.kind"
    assert "kind" in problem.fix


def test_missing_required_field():
    [problem] = problems_of(MINIMAL.replace("    candidates: out.jsonl\n", ""))
    assert problem.field == "suites.fb.candidates"
    assert problem.expected == "this required field"
    assert problem.line == 3  # the suite that lacks it


def test_unknown_metric_and_scope():
    problems = problems_of(MINIMAL + "    checks:\n      bertscore_f2: {min: 0.8, scope: exercise}\n")
    by_field = {p.field: p for p in problems}
    metric = by_field["suites.fb.checks.bertscore_f2"]
    assert "bertscore_f1" in metric.expected and metric.fix == "did you mean 'bertscore_f1'?"
    scope = by_field["suites.fb.checks.bertscore_f2.scope"]
    assert "group" in scope.expected and "model" in scope.expected and "suite" in scope.expected


def test_the_metric_catalogue_is_passed_in():
    """Config imports no scorer: the metric names `checks:` may use are the catalogue the caller passes."""
    from dataclasses import replace

    text = MINIMAL + "    checks:\n      house_metric: {min: 0.8}\n"
    assert parse_config(text, metrics=None).suites["fb"].checks["house_metric"].min == 0.8  # names unchecked
    widened = {**KINDS, "drift": replace(KINDS["drift"], metrics={**KINDS["drift"].metrics,
                                                                      "house_metric": KINDS["drift"].metrics[
                                                                          "bertscore_f1"]})}
    assert parse_config(text, metrics=widened).suites["fb"].checks["house_metric"].min == 0.8
    [problem] = problems_of(text)  # the scorers' own catalogue knows no such metric
    assert problem.field == "suites.fb.checks.house_metric" and "bertscore_f1" in problem.expected


@pytest.mark.parametrize(
    "check, expected, found, fix",
    [
        ("{}", "a bound: `min`, `max`, `max_decrease` or `max_increase`", "a check with none", "{min: 0.8}"),
        ("{min: 0.8, warn: 0.7}", "`warn` at or above `min`", "`warn: 0.7` below `min: 0.8`", "raise `warn`"),
        ("{max: 3, warn: 4}", "`warn` at or below `max`", "`warn: 4` above `max: 3`", "lower `warn`"),
        ("{min: 2, max: 1}", "`min` at or below `max`", "`min` (2) is greater than `max` (1)", "swap them"),
        ("{min: 0.1, max: 0.9, warn: 0.5}", "exactly one of", "`warn: 0.5` with both", "split the check in two"),
        ("{max_decrease: 0.05, warn_decrease: 0.1}", "`warn_decrease` at or below `max_decrease`",
         "`warn_decrease: 0.1` above `max_decrease: 0.05`", "swap them"),
        ("{min: 0.5, significant: true}", "with `significant: true`", "`significant: true` on a `min`/`max` check",
         "max_decrease: 0.05"),
        ("{max_decrease: 0.1, warn: 0.2}", "`warn` beside `min` or `max`", "on a change check", "warn_decrease"),
        ("{min: 0.5, confidence: 0.95}", "`alpha` at the top of gate.yml", "`confidence: 0.95` on a check",
         "`alpha: 0.05`"),
    ],
)
def test_inconsistent_checks_say_what_was_expected_found_and_the_fix(check, expected, found, fix):
    [problem] = problems_of(MINIMAL + f"    checks:\n      bertscore_f1: {check}\n")
    assert problem.field == "suites.fb.checks.bertscore_f1" and problem.line == 8
    assert expected in problem.expected and found in problem.found and fix in problem.fix


def test_wrong_type_names_value_received():
    [problem] = problems_of(MINIMAL + "runtime: {batch_size: many}\n")
    assert problem.field == "runtime.batch_size"
    assert "'many'" in problem.found
    assert "integer" in problem.expected


def test_invalid_enum_lists_choices():
    [problem] = problems_of(MINIMAL + "runtime: {device: tpu}\n")
    assert problem.field == "runtime.device"
    assert "'auto'" in problem.expected and "'cuda'" in problem.expected


def test_yaml_syntax_error_has_a_line():
    [problem] = problems_of("version: 1\nsuites:\n  fb: [unclosed\n")
    assert problem.expected == "valid YAML"
    assert problem.line is not None


def test_duplicate_keys_are_an_error():
    [problem] = problems_of(MINIMAL + "    candidates: other.jsonl\n")
    assert problem.field == "suites.fb.candidates"
    assert "first on line 6" in problem.found


def test_not_a_mapping():
    [problem] = problems_of("- just\n- a list\n")
    assert "mapping" in problem.expected


def test_suite_names_must_be_path_safe():
    [problem] = problems_of(MINIMAL.replace("  fb:", "  ../evil:"))
    assert "folder" in problem.expected and problem.found == "'../evil'" and "rename the suite" in problem.fix


def test_missing_config_file_is_input_error(tmp_path):
    with pytest.raises(Exception) as caught:
        load_config(tmp_path / "nope.yml", metrics=KINDS)
    assert caught.value.exit_code == ExitCode.INVALID_INPUT
    assert "no such file" in str(caught.value)


def test_json_schema_validates_the_example():
    import yaml

    schema = json_schema()
    jsonschema.validate(yaml.safe_load((EXAMPLES / "gate.yml").read_text()), schema)
    assert json.dumps(schema)  # serialisable
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "suites": {"x": {"kind": "nope"}}}, schema)


def test_config_is_frozen():
    config = parse_config(MINIMAL, metrics=KINDS)
    with pytest.raises(ValidationError):
        config.name = "other"  # type: ignore[misc]
    assert isinstance(config, GateConfig)


def test_every_problem_is_reported_in_one_pass_with_its_line():
    """An unknown field, an unknown metric and a bad threshold: one run names all three (issue 18)."""
    found = problems_of(MINIMAL + "    candidate: x\n    checks:\n      bertscore_f: {min: 0.7}\n"
                        "      coverage: {min: yes}\n")
    assert [(p.line, p.field) for p in found] == [
        (7, "suites.fb.candidate"), (9, "suites.fb.checks.bertscore_f"), (10, "suites.fb.checks.coverage.min")]
    assert "did you mean 'bertscore_f1'?" in found[1].fix and found[2].expected == "a number, not true/false"


@pytest.mark.parametrize("text, field", [
    ("version: true\nsuites: {s: {kind: drift, baseline: b, candidates: c}}\n", "version"),
    (MINIMAL + "    checks: {coverage: {max_decrease: false}}\n", "suites.fb.checks.coverage.max_decrease"),
    (MINIMAL + "runtime: {threads: true}\n", "runtime.threads"),
])
def test_true_or_false_is_no_number(text, field):
    [problem] = problems_of(text)
    assert problem.field == field and problem.expected == "a number, not true/false"


def test_yes_stays_a_boolean_where_one_is_wanted():
    config = parse_config(MINIMAL + "    checks: {bertscore_f1: {max_decrease: 0.1, significant: yes}}\n", "gate.yml",
                          metrics=KINDS)
    assert config.suites["fb"].checks["bertscore_f1"].significant is True


def test_a_field_line_is_found_through_suite_names_with_dots():
    import yaml

    from gate.config.located import field_line

    root = yaml.compose("suites:\n  v1.2:\n    records: [a,\n      b]\n  v1:\n    models: [m]\n")
    assert field_line(root, "suites.v1.2.records") == 3
    assert field_line(root, "suites.v1.2.records.1") == 4
    assert field_line(root, "suites.v1.models") == 6
    assert field_line(root, "suites.v1.checks") is None


def test_a_metric_may_have_a_list_of_checks():
    config = parse_config(MINIMAL + "    checks:\n      bertscore_f1:\n        - {min: 0.8, warn: 0.85}\n"
                          "        - {max_decrease: 0, significant: true, scope: suite}\n", "gate.yml", metrics=KINDS)
    checks = KINDS["drift"].checks_for(config.suites["fb"])
    assert [(c.min, c.scope, c.significant) for c in checks["bertscore_f1"]] == [
        (0.8, "group", False), (None, "suite", True)]


def test_a_mistake_in_a_list_of_checks_names_its_entry_and_line():
    text = MINIMAL + ("    checks:\n      bertscore_f1:\n        - {min: 0.8}\n        - {max_decrease: -1}\n"
                      "      credit_drift_mean: {max: high}\n      coverage: []\n")
    with pytest.raises(ConfigError) as err:
        parse_config(text, "gate.yml", metrics=KINDS)
    problems = {p.field: p for p in err.value.problems}
    assert problems["suites.fb.checks.bertscore_f1.1.max_decrease"].line == 10
    assert problems["suites.fb.checks.credit_drift_mean.max"].line == 11  # a single check: no union member names
    empty = problems["suites.fb.checks.coverage"]
    assert empty.line == 12 and "at least 1" in empty.expected
    assert len(err.value.problems) == 3


def test_an_impossible_check_in_a_list_is_located_at_its_entry():
    text = MINIMAL + ("    checks:\n      coverage:\n        - {min: 1.0}\n"
                      "        - {max_decrease: 0, significant: true}\n")
    with pytest.raises(ConfigError) as err:
        parse_config(text, "gate.yml", metrics=KINDS)
    [problem] = err.value.problems
    assert problem.field == "suites.fb.checks.coverage.1" and problem.line == 10
    assert "items determine" in problem.expected
