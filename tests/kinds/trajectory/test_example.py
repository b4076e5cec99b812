"""examples/trajectory/ runs offline and fast: both formats read, the change checks compared with the committed
snapshot (comparable, all passing), the mini model's shortcuts warned about; and make_runs.py writes exactly the
committed runs, so the example can be regenerated."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.support.cli import run_main

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "trajectory"


def test_the_example_passes_with_warnings_against_its_snapshot(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "--config", str(EXAMPLE / "gate.yml"), "--no-publish",
                              "--output-dir", str(tmp_path / "report"))
    assert code == 0, out + err
    [suite] = json.loads((tmp_path / "report" / "report.json").read_text())["suites"]
    assert suite["verdict"] == "warn" and suite["baseline"]["comparable"] is True
    warned = sorted((c["metric"], c["key"].get("model"), c["key"].get("task_id")) for c in suite["checks"]
                    if c["verdict"] == "warn")
    assert warned == [("expectations_met_rate", "agent-v2-mini", "flight-lisbon"),
                      ("expectations_met_rate", "agent-v2-mini", "hotel-rome"), ("pass_hat_k", "agent-v2-mini", None)]
    assert all(c["verdict"] == "pass" for c in suite["checks"] if "change" in c)
    assert sum(1 for c in suite["checks"] if "change" in c) == 6
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "36 runs (tool-call records, OpenTelemetry spans)" in markdown
    assert "no check&#95;availability after search&#95;flights" in markdown and "➖ dropped" in markdown


def test_make_runs_writes_the_committed_runs(tmp_path):
    spec = importlib.util.spec_from_file_location("make_runs", EXAMPLE / "make_runs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write_runs(tmp_path, 0)
    module.write_baseline(tmp_path)
    for name in ("runs/agent-v2.jsonl", "runs/agent-v2-mini.otlp.jsonl", "base/agent-v1.jsonl"):
        assert (tmp_path / name).read_bytes() == (EXAMPLE / name).read_bytes(), name
