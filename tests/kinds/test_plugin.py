"""A suite kind defined outside the package (tests/kinds/wordcount/) registers through the same entry point group
as the built-in kinds and runs end to end — config with located errors, scoring, judging, report.json, the
Markdown report with its own template — with no change to the core."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from gate.cli import app
from gate.config import GateConfig, known_kinds
from gate.config.loader import parse_config
from gate.errors import ConfigError
from gate.kinds import KINDS, reload


@pytest.fixture
def wordcount(tmp_path, monkeypatch):
    """Install a distribution whose only content is the entry point naming the test kind."""
    site = tmp_path / "site"
    info = site / "gate_wordcount-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gate-wordcount\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[llm_quality_gate.kinds]\nwordcount = tests.kinds.wordcount:KIND\n")
    monkeypatch.syspath_prepend(str(site))
    reload()
    yield tmp_path
    monkeypatch.undo()
    sys.path[:] = [p for p in sys.path if p != str(site)]
    reload()


GATE = """version: 1
suites:
  lengths:
    kind: wordcount
    records: answers.jsonl
    max_words: {max_words}
"""


def test_the_kind_is_registered_beside_the_built_in_ones(wordcount):
    assert "wordcount" in KINDS and "wordcount" in known_kinds()
    assert {"drift", "stereotype", "stability", "heuristic", "rag"} <= set(KINDS)
    config = GateConfig.model_validate({"version": 1, "suites": {"w": {"kind": "wordcount", "records": "a.jsonl"}}})
    assert type(config.suites["w"]).__name__ == "WordcountSuiteConfig"


def test_its_config_errors_are_located(wordcount):
    with pytest.raises(ConfigError) as raised:
        parse_config(GATE.format(max_words="many") + "    colour: blue\n", "gate.yml", metrics=KINDS)
    problems = {p.field: p for p in raised.value.problems}
    assert set(problems) == {"suites.lengths.max_words", "suites.lengths.colour"}
    assert problems["suites.lengths.max_words"].line == 6 and problems["suites.lengths.colour"].line == 7
    with pytest.raises(ConfigError) as raised:
        parse_config("version: 1\nsuites:\n  lengths: {kind: wordcount}\n", "gate.yml", metrics=KINDS)
    assert [(p.field, p.line) for p in raised.value.problems] == [("suites.lengths.records", 3)]
    with pytest.raises(ConfigError) as raised:
        parse_config("version: 1\nsuites:\n  lengths: {kind: wordcont, records: a.jsonl}\n", "gate.yml",
                     metrics=KINDS)
    assert "did you mean 'wordcount'?" in raised.value.problems[0].fix


def test_it_scores_judges_and_reports(wordcount):
    (wordcount / "gate.yml").write_text(GATE.format(max_words=3))
    (wordcount / "answers.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [
        {"model": "small", "response": "short answer"}, {"model": "small", "response": "a b"},
        {"model": "big", "response": "a much longer answer than allowed"}, {"model": "big", "response": "ok"}]))
    out = wordcount / "out"
    result = CliRunner().invoke(app, ["run", "--config", str(wordcount / "gate.yml"), "--no-publish", "--quiet",
                                      "--output-dir", str(out)])
    assert result.exit_code == 1, result.output  # too_long_rate 0.25 > the default 0.1
    report = json.loads((out / "report.json").read_text())
    suite = report["suites"][0]
    assert (suite["kind"], suite["verdict"]) == ("wordcount", "fail")
    assert suite["metrics"] == {"words_mean": 2.75, "too_long_rate": 0.25}
    assert sorted((c["metric"], c["key"]["model"], c["verdict"]) for c in suite["checks"]) == [
        ("too_long_rate", "big", "fail"), ("too_long_rate", "small", "pass")]  # the default check, per group
    markdown = (out / "report.md").read_text()
    assert "Words per response, by model:" in markdown and "| big | 3.5 |" in markdown
    assert (out / "lengths" / "items.csv").read_text().splitlines()[0] == "model,index,words,too_long"


def test_init_offers_it_and_writes_its_starter(wordcount, capsys):
    """`llm-gate init --kinds wordcount`: its gate.yml entry and example records come from its own folder
    (`Kind.starter`, templates compiled from source), and the first run passes on them."""
    from gate.cli.commands.init import init_repository, parse_kinds

    assert parse_kinds("all")[-1] == "wordcount" and parse_kinds(None) == ("drift",)  # its order: after the built-in
    repo = wordcount / "repo"
    written = init_repository(repo, kinds=parse_kinds("wordcount"))
    assert "outputs/wordcount/example.jsonl" in {p.relative_to(repo).as_posix() for p in written}
    text = (repo / "gate.yml").read_text()
    assert "  lengths:\n    kind: wordcount\n" in text and "feedback-drift" not in text
    out = wordcount / "out"
    result = CliRunner().invoke(app, ["run", "--config", str(repo / "gate.yml"), "--no-publish", "--quiet",
                                      "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["suites"][0]["metrics"]["too_long_rate"] == 0.0
