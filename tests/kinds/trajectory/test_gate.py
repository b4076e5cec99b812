"""The trajectory kind end to end through the CLI: a gate over both formats, its report (escaped: every name,
argument and answer came from an agent), change checks against a blessed snapshot, and checks it can never
measure refused when gate.yml is loaded."""

from __future__ import annotations

import json
import os

import pytest

from tests.kinds.trajectory.traces import agent_spans, jsonl, otlp_export, record, write
from tests.support.cli import run_main

TASKS = [f"task-{i:02d}" for i in range(12)]
GOOD = [("search", {"q": "weather"}), ("get_weather", {"city": "Paris"})]
HEAD = "version: 1\nreport: {output_dir: out, formats: [markdown, json, html]}\nsuites:\n  agent:\n" \
       "    kind: trajectory\n    records: runs/*\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    for name in [n for n in list(os.environ) if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_runs(directory, broken: int = 0, seed: int = 0) -> None:
    """Three runs per task; in the first `broken` tasks the agent drops get_weather and fails. Half the tasks are
    logged records, half OpenTelemetry traces; the search query varies with `seed` (equivalent paths)."""
    rows, exports = [], []
    for t, task in enumerate(TASKS):
        for sample in range(3):
            calls = GOOD[:1] if t < broken else GOOD
            calls = [(calls[0][0], {"q": f"weather {seed}"}), *calls[1:]]
            ok = t >= broken
            if t % 2:
                rows.append(record(task, calls, model="agent-v2", sample=sample, success=ok, cost=0.01 * (1 + t % 3),
                                   final_answer="18 °C" if ok else "I don't know"))
            else:
                exports.append(otlp_export(*agent_spans(f"{t:04x}{sample:04x}" + "0" * 24, task, calls,
                                                        model="agent-v2", sample=sample, success=ok,
                                                        cost=0.01 * (1 + t % 3), answer="18 °C" if ok else "no")))
    write(directory / "runs" / "logged.jsonl", jsonl(*rows))
    write(directory / "runs" / "traces.jsonl", jsonl(*exports))


def report(directory) -> dict:
    return json.loads((directory / "out" / "report.json").read_text())


def test_a_gate_over_both_formats_and_its_escaped_report(project, monkeypatch, capsys):
    write_runs(project)
    hostile = record("evil", [("@octocat <img src=x onerror=alert(1)>", {"path": "</details> #1 `rm -rf`"})],
                     model="agent-v2", final_answer="<script>alert(1)</script> @here", success=True)
    write(project / "runs" / "evil.jsonl", jsonl(hostile))
    write(project / "base" / "b.jsonl", jsonl(*(record(t, GOOD, model="v1") for t in [*TASKS, "evil"])))
    write(project / "gate.yml", HEAD + "    baseline: base/*.jsonl\n    expect:\n"
          "      '*': {tools_called: [get_weather], answer: {exact: 18 °C}}\n")
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-q")
    assert code == 1, err  # the evil task calls no get_weather
    markdown = (project / "out" / "report.md").read_text()
    assert "<img" not in markdown and "<script>" not in markdown and "@octocat" not in markdown
    assert "&#64;octocat &lt;img src=x onerror=alert(1)&gt;" in markdown and "&lt;/details&gt;" in markdown
    assert "&#35;1 &#96;rm -rf&#96;" in markdown
    assert "| 1. search({&quot;q&quot;: &quot;weather&quot;}) |" in markdown  # the baseline's side
    suite = report(project)["suites"][0]
    assert suite["kind"] == "trajectory"
    failed = [c for c in suite["checks"] if c["verdict"] == "fail"]
    assert [c["metric"] for c in failed] == ["expectations_met_rate"] and "evil" in json.dumps(failed)
    html = (project / "out" / "report.html").read_text()
    assert "<script>alert(1)</script>" not in html


def test_change_checks_against_the_blessed_runs(project, monkeypatch, capsys):
    write_runs(project)
    write(project / "base" / "b.jsonl", jsonl(*(record(t, GOOD, model="v1") for t in TASKS)))
    write(project / "gate.yml", HEAD + "    baseline: base/*.jsonl\n    checks:\n"
          "      success_rate: {max_decrease: 0, significant: true, scope: model}\n"
          "      tool_edit_distance_mean: {max_increase: 0, significant: true, scope: model}\n"
          "      cost_mean: {max_increase: 0, significant: true, scope: model}\n")
    assert run_main(monkeypatch, capsys, "baseline", "bless")[0] == 0
    assert (project / "baselines" / "metrics" / "agent.json").is_file()
    write_runs(project, seed=1)  # equivalent paths: other search queries, the same tools and outcomes
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-q")
    verdicts = {c["metric"]: c["verdict"] for c in report(project)["suites"][0]["checks"]}
    assert code == 0 and set(verdicts.values()) == {"pass"}, (err, verdicts)
    write_runs(project, broken=6)  # half the tasks drop get_weather and fail
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-q")
    checks = {c["metric"]: c for c in report(project)["suites"][0]["checks"]}
    assert code == 1, err
    assert checks["success_rate"]["verdict"] == "fail" and checks["tool_edit_distance_mean"]["verdict"] == "fail"
    assert checks["success_rate"]["change"]["p_value"] < 0.05 and checks["cost_mean"]["verdict"] == "pass"


@pytest.mark.parametrize("checks, expected", [
    ("tool_edit_distance_mean: {max: 1}", "a `baseline:` of runs to compare the tool sequences with"),
    ("missing_tasks: {max: 0}", "missing_tasks at `scope: model` or `scope: suite`"),
    ("pass_hat_k: {max_decrease: 0, significant: true}", "a metric the items determine"),
    ("pass_at_k_mean: {min: 1}", "pass_at_k"),
])
def test_checks_it_can_never_measure_are_refused(project, monkeypatch, capsys, checks, expected):
    write_runs(project)
    write(project / "gate.yml", HEAD + f"    checks:\n      {checks}\n")
    code, _, err = run_main(monkeypatch, capsys, "run", "--no-publish", "-q")
    assert code == 2 and "gate.yml:8" in err and expected in err, err
