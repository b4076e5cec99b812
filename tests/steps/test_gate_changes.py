"""A pull request judged by the base branch's gate (`--base-checkout`): the regression its own gate.yml would
waive or hide still fails, and what it changes in its gate is shown and counted as the base's `gate_changes` says.
Regression tests for issue 31 item 3 (a waiver with `expires: 9999-12-31`, a loosened threshold, a removed check,
an edited snapshot all turned the verdict green before)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.test_cli import run_cli

GATE = """\
version: 1
name: shipgate
{policy}suites:
  rubric:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {{min: 9.5}}
"""
RECORDS = [{"model": "m", "category": "coding", "prompt_id": f"P{i:02d}", "response": "def f(x):\n    return x\n"}
           for i in range(1, 6)]


def trees(tmp_path: Path, policy: str = "") -> tuple[Path, Path]:
    """The base branch's checkout (`.gate-base`, inside the pull request's workspace) and the workspace."""
    pr = tmp_path / "pr"
    base = pr / ".gate-base"
    for root in (pr, base):
        (root / "ci").mkdir(parents=True)
        (root / "ci" / "gate.yml").write_text(GATE.format(policy=policy))
        (root / "ci" / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return base, pr


def run(monkeypatch, pr: Path, *extra: str) -> tuple[int, dict]:
    monkeypatch.chdir(pr)
    code = run_cli(monkeypatch, "run", "--config", "ci/gate.yml", "--base-checkout", ".gate-base", "--no-publish",
                   "-q", "-o", str(pr / "out"), *extra)
    return code, json.loads((pr / "out" / "report.json").read_text())


def test_a_waiver_and_a_loosened_threshold_in_the_pull_request_do_not_apply(tmp_path, monkeypatch):
    base, pr = trees(tmp_path)
    gate = pr / "ci" / "gate.yml"
    gate.write_text(gate.read_text().replace("{min: 9.5}", "{min: 0.5}") + (
        "waivers:\n  - {suite: rubric, metric: final_score_mean, reason: trust me, owner: '@mallory', "
        "expires: 2026-12-20}\n"))
    (pr / "ci" / "baselines" / "metrics").mkdir(parents=True)  # a snapshot the pull request blessed itself
    (pr / "ci" / "baselines" / "metrics" / "rubric.json").write_text('{"halved": 1}\n')
    code, report = run(monkeypatch, pr)
    assert code == 1 and report["verdict"] == "fail"  # the base's threshold judged it
    changes = report["gate_changes"]
    assert {c["what"] for c in changes["changes"]} == {"waiver added", "check loosened", "snapshot added"}
    assert changes["applied"] is False and changes["proposed_verdict"] in ("pass", "warn")
    shown = (pr / "out" / "report.md").read_text()
    assert "This pull request changes its own gate" in shown and "&#64;mallory" in shown


def test_gate_changes_warn_by_default_and_fail_when_the_base_says_so(tmp_path, monkeypatch):
    base, pr = trees(tmp_path)
    for root in (base, pr):
        gate = root / "ci" / "gate.yml"
        gate.write_text(gate.read_text().replace("{min: 9.5}", "{min: 0.5}"))  # the run itself passes
    gate = pr / "ci" / "gate.yml"
    gate.write_text(gate.read_text().replace("{min: 0.5}", "{min: 0.1}"))
    code, report = run(monkeypatch, pr)
    assert (code, report["verdict"]) == (0, "warn")
    base_gate = base / "ci" / "gate.yml"
    base_gate.write_text(base_gate.read_text().replace("suites:", "gate_changes: fail\nsuites:"))
    code, report = run(monkeypatch, pr)
    assert (code, report["verdict"]) == (1, "fail")
    # the pull request cannot relax the policy itself: its own `gate_changes: allow` is one more change
    gate.write_text(gate.read_text().replace("suites:", "gate_changes: allow\nsuites:"))
    code, report = run(monkeypatch, pr)
    assert (code, report["verdict"]) == (1, "fail")


def test_an_unchanged_gate_reports_no_change(tmp_path, monkeypatch):
    base, pr = trees(tmp_path)
    code, report = run(monkeypatch, pr)
    assert code == 1 and report["gate_changes"]["changes"] == []
    assert "changes its own gate" not in (pr / "out" / "report.md").read_text()


def test_the_candidate_data_comes_from_the_pull_request_and_the_rest_from_the_base(tmp_path, monkeypatch):
    base, pr = trees(tmp_path)
    (base / "ci" / "h.jsonl").write_text("not even json\n")  # the base's own outputs are never read
    code, report = run(monkeypatch, pr)
    assert code == 1
    shutil.rmtree(pr / "ci")  # and without the pull request's data there is nothing to judge: exit 2, located
    (pr / "ci").mkdir()
    monkeypatch.chdir(pr)
    assert run_cli(monkeypatch, "run", "--config", "ci/gate.yml", "--base-checkout", ".gate-base", "--no-publish",
                   "-q", "-o", str(pr / "out")) == 2


def test_a_pull_request_whose_gate_does_not_load_is_shown_not_fatal(tmp_path, monkeypatch):
    base, pr = trees(tmp_path)
    (pr / "ci" / "gate.yml").write_text("version: 1\nsuites: [not, a, mapping]\n")
    code, report = run(monkeypatch, pr)
    assert code == 1
    assert any("invalid" in p for p in report["gate_changes"]["problems"])


def test_without_a_base_checkout_a_pull_requests_own_gate_is_applied_said_and_warned(tmp_path, monkeypatch,
                                                                                      github_api):
    """The old single-job recipe (no `base_checkout`): the run can only use the pull request's gate; GitHub lists
    gate.yml among the pull request's files and serves the base's version, so the report says the change was
    applied and the verdict is at least a warning — even though the PR's gate.yml says `gate_changes: allow`."""
    from tests.support.fake_github import REPO

    base_gate = GATE.format(policy="")
    pr = tmp_path / "pr"
    (pr / "ci").mkdir(parents=True)
    (pr / "ci" / "gate.yml").write_text(GATE.format(policy="gate_changes: allow\n").replace("{min: 9.5}",
                                                                                          "{min: 0.5}"))
    (pr / "ci" / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    base_sha = "ba5e" * 10
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": "feed" * 10},
                                                               "base": {"sha": base_sha}}}))
    github_api.pull_files[7] = [{"filename": "ci/gate.yml"}]
    github_api.branches[base_sha] = {"ci/gate.yml": base_gate.encode()}
    for name, value in {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
                        "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": github_api.base_url, "GITHUB_TOKEN": "ghs_x" * 4,
                        "GITHUB_WORKSPACE": str(pr)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(pr)
    code = run_cli(monkeypatch, "run", "--config", "ci/gate.yml", "-q", "-o", str(pr / "out"))
    report = json.loads((pr / "out" / "report.json").read_text())
    changes = report["gate_changes"]
    assert changes["applied"] is True
    assert {c["what"] for c in changes["changes"]} >= {"check loosened", "setting changed"}
    assert (code, report["verdict"]) == (0, "warn")  # passes its own loosened check, but never silently
    assert "applied" in (pr / "out" / "report.md").read_text()
