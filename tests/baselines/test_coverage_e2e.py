"""Issue 31 end to end through the CLI, on the example's rubric suite (no model, fast): a candidate set whose item
ids were renamed no longer covers the blessed snapshot and FAILS (it used to be a neutral "could not tell" that
branch protection accepts); a gate that passes only thanks to a waiver says "passed with 1 waiver" wherever it
states its verdict in words, never a plain "passed"; a waiver reaching past `max_waiver_days` is a located error."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from tests.baselines.test_baselines_e2e import GATE, change_checks, degrade, report
from tests.baselines.test_baselines_e2e import gate as gate  # noqa: F401 (the fixture)
from tests.test_cli import run_cli

RESPONSES = Path("heuristic") / "responses.jsonl"


def rewrite(path: Path, change) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps(change(r)) + "\n" for r in records))


def published(directory: Path) -> dict:
    return json.loads((directory / "out" / "publish.json").read_text())


def test_renamed_item_ids_fail_the_change_check_on_coverage(gate, monkeypatch, capsys):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    rewrite(gate / RESPONSES, lambda r: {**r, "prompt_id": r["prompt_id"] + "x"})
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 1
    checks = change_checks(report(gate))
    assert checks and {c["verdict"] for c in checks} == {"fail"}
    for check in checks:
        assert "blessed items have no candidate: e.g. " in check["reason"]
        assert "the candidate set no longer covers the baseline" in check["reason"]
        assert check["change"]["paired_share"] == 0 and check["change"]["missing"] > 0
    assert report(gate)["verdict"] == "fail"
    assert published(gate)["conclusion"] == "failure"


def test_unchanged_items_pair_fully_and_new_items_do_not_count(gate, monkeypatch):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    path = gate / RESPONSES
    first = json.loads(path.read_text().splitlines()[0])
    path.write_text(path.read_text() + json.dumps({**first, "prompt_id": "C99"}) + "\n")  # one new item
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 0
    checks = change_checks(report(gate))
    assert checks and all(c["change"]["paired_share"] == 1 and c["change"]["missing"] == 0 for c in checks)
    assert {c["verdict"] for c in checks} == {"pass"}


def test_a_gate_passed_thanks_to_a_waiver_says_so_everywhere(gate, monkeypatch, capsys):
    assert run_cli(monkeypatch, "baseline", "bless") == 0
    degrade(gate / RESPONSES, "gpt-4.1-mini")
    expires = dt.datetime.now(dt.timezone.utc).date() + dt.timedelta(days=30)
    waiver = (f"waivers:\n  - {{suite: rubric, metric: final_score_mean, where: {{model: gpt-4.1-mini}}, "
              f"reason: 'terser answers by design, #7', owner: '@ana', expires: {expires}}}\n")
    (gate / "gate.yml").write_text(GATE.format(extra=waiver))
    capsys.readouterr()
    assert run_cli(monkeypatch, "run", "--no-publish") == 0
    out = capsys.readouterr().out
    assert "rubric-gate: passed with 1 waiver\n" in out
    markdown = (gate / "out" / "report.md").read_text()
    assert "## ✅ rubric-gate: passed with 1 waiver\n" in markdown  # the headline (and the job summary's)
    bundle = published(gate)
    assert bundle["title"].startswith("passed with 1 waiver: ") and bundle["conclusion"] == "success"
    assert "passed with 1 waiver" in bundle["summary"] and "passed with 1 waiver" in bundle["comment"]
    assert "rubric-gate: passed\n" not in out and "## ✅ rubric-gate: passed\n" not in markdown


def test_a_waiver_that_never_expires_is_a_located_error(gate, monkeypatch, capsys):
    waiver = ("waivers:\n  - {suite: rubric, metric: final_score_mean, reason: 'forever', owner: '@ana', "
              "expires: 9999-12-31}\n")
    (gate / "gate.yml").write_text(GATE.format(extra=waiver))
    capsys.readouterr()
    assert run_cli(monkeypatch, "run", "-q", "--no-publish") == 2
    err = capsys.readouterr().err
    assert "gate.yml:11" in err and "waivers.0.expires" in err and "max_waiver_days (90)" in err, err
