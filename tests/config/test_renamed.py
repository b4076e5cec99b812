"""gate.config.renamed: a kind's retired names (the RAG `faithfulness`, now `context_similarity`, issue 36) are read
under their new names with a located deprecation warning, never silently; both names at once is an error."""

from __future__ import annotations

import textwrap

import pytest

from gate.config.loader import parse_config
from gate.config.renamed import warning_lines
from gate.errors import ConfigError
from gate.kinds import KINDS

OLD = textwrap.dedent("""\
    version: 1
    suites:
      r:
        kind: rag
        records: rag/*.jsonl
        embedding_metrics: false
        faithfulness_threshold: 0.5
        overall_weights: {faithfulness: 0.3, mrr: 0.7}
        items: {criterion: {metric: faithfulness, min: 0.5}}
        checks:
          faithfulness: {min: 0.5}
          pass_rate_mean: {min: 0.5}
      d:
        kind: drift
        baseline: b/*.json
        candidates: c/*.jsonl
    waivers:
      - {suite: r, metric: faithfulness, reason: known slip, owner: "@me", expires: 2026-12-01}
    """)


def test_old_names_are_read_as_the_new_ones_with_located_warnings():
    config = parse_config(OLD, "gate.yml", metrics=KINDS)
    suite = config.suites["r"]
    assert suite.context_similarity_threshold == 0.5
    assert suite.overall_weights == {"context_similarity": 0.3, "mrr": 0.7}
    assert list(suite.checks) == ["context_similarity", "pass_rate_mean"]
    assert suite.items.criterion.metric == "context_similarity"
    assert config.waivers[0].metric == "context_similarity"
    where = {(w.line, w.field) for w in config.warnings}
    assert where == {(7, "suites.r.faithfulness_threshold"), (8, "suites.r.overall_weights.faithfulness"),
                     (9, "suites.r.items.criterion.metric"), (11, "suites.r.checks.faithfulness"),
                     (18, "waivers.0.metric")}
    lines = warning_lines(config.warnings)
    assert all(line.startswith("warning: gate.yml:") for line in lines)
    assert "rename `faithfulness_threshold` to `context_similarity_threshold`" in "\n".join(lines)


def test_new_names_warn_about_nothing():
    config = parse_config(OLD.replace("faithfulness", "context_similarity"), "gate.yml", metrics=KINDS)
    assert config.warnings == ()


@pytest.mark.parametrize("both", [
    ("faithfulness_threshold: 0.5", "faithfulness_threshold: 0.5\n    context_similarity_threshold: 0.4"),
    ("faithfulness: {min: 0.5}", "faithfulness: {min: 0.5}\n      context_similarity: {min: 0.4}"),
])
def test_both_names_is_one_located_error(both):
    with pytest.raises(ConfigError) as caught:
        parse_config(OLD.replace(*both), "gate.yml", metrics=KINDS)
    problems = caught.value.problems
    assert len(problems) == 1, problems
    assert problems[0].found.startswith("both `") and problems[0].line in (7, 11)
    assert "delete" in problems[0].fix


def test_another_kind_keeps_its_own_names():
    """Only the kind that retired the name reads it: on a drift suite `faithfulness` is an unknown metric."""
    text = OLD.replace("    candidates: c/*.jsonl", "    candidates: c/*.jsonl\n    checks: {faithfulness: {min: 0.5}}")
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "gate.yml", metrics=KINDS)
    assert any(p.field == "suites.d.checks.faithfulness" and "unknown metric" in (p.found or "")
               for p in caught.value.problems)


def test_a_run_prints_the_warnings_on_stderr(tmp_path, capsys, monkeypatch):
    from gate.run import read_config

    monkeypatch.chdir(tmp_path)
    (tmp_path / "gate.yml").write_text(OLD)
    config = read_config(tmp_path / "gate.yml")
    err = capsys.readouterr().err.splitlines()
    assert len(err) == len(config.warnings) == 5
    assert all(line.startswith("warning: ") and not line.startswith("::") for line in err)


def test_the_json_schema_accepts_a_retired_setting_as_deprecated():
    """Editors validating gate.yml against `llm-gate schema` accept the old name too, marked deprecated."""
    import jsonschema
    import yaml

    from gate.config import json_schema

    schema = json_schema()
    old = schema["$defs"]["RagSuiteConfig"]["properties"]["faithfulness_threshold"]
    assert old["deprecated"] is True and old["maximum"] == 1
    document = yaml.safe_load(OLD.replace("2026-12-01", "\"2026-12-01\""))  # YAML reads a bare date as a date
    jsonschema.validate(document, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**document, "suites": {"r": {**document["suites"]["r"], "faithfulness_treshold": 0.5}}},
                            schema)
