"""`llm-gate run` in Actions while GitHub fails: the report files, job summary and step outputs are written,
each failure is a warning, and the exit code is the gate's verdict — a failed gate still exits 1, a passing
one 0 — never a traceback or exit 3.
"""

from __future__ import annotations

import functools
import json
import re
import time

import pytest
from pytest_httpserver import HTTPServer

from gate.publish.github import GitHubPublisher, RetryPolicy
from gate.publish.github import client as gate_github
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

TOKEN = "ghs_publishfaults_abcdef0123"
HEAD = "feedc0de" * 5


class Waits(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def waits(monkeypatch) -> Waits:
    """The publisher's waits, recorded instead of slept; a small retry budget keeps stalls short."""
    recorded = Waits()
    monkeypatch.setattr(gate_github, "RetryPolicy", functools.partial(RetryPolicy, sleep=recorded, max_total=10))
    monkeypatch.setattr(gate_github, "REQUEST_SPACING", (0, 0))
    return recorded


def project(tmp_path, monkeypatch, api_url: str, minimum: float) -> dict:
    """A one-suite gate (no model to load) that fails when `minimum` is out of reach, in a pull request's job."""
    rows = [{"model": "m", "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text(f"version: 1\nname: faults\nsuites:\n  rubric:\n    kind: heuristic\n"
                                       "    records: h.jsonl\n    checks:\n"
                                       f"      final_score_mean: {{min: {minimum}}}\n")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    files = {"summary": tmp_path / "summary.md", "output": tmp_path / "output.txt"}
    env = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": api_url, "GITHUB_REPOSITORY": REPO,
           "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "5eed" * 10,
           "GITHUB_RUN_ID": "1", "GITHUB_SERVER_URL": "https://github.example", "GITHUB_WORKSPACE": str(tmp_path),
           "GITHUB_STEP_SUMMARY": str(files["summary"]), "GITHUB_OUTPUT": str(files["output"]),
           "INPUT_CONFIG": "gate.yml", "INPUT_GITHUB_TOKEN": TOKEN}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.chdir(tmp_path)
    return files


def assert_verdict_stands(tmp_path, files, capsys, code: int, verdict: str) -> str:
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == code
    captured = capsys.readouterr()
    report = json.loads((tmp_path / "gate-report" / "report.json").read_text())
    assert report["verdict"] == verdict
    assert (tmp_path / "gate-report" / "report.md").is_file() and (tmp_path / "gate-report" / "publish.json").is_file()
    assert files["summary"].read_text() == (tmp_path / "gate-report" / "report.md").read_text()
    outputs = dict(line.split("=", 1) for line in files["output"].read_text().splitlines() if "=" in line)
    assert outputs["verdict"] == verdict
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    shown = [line for line in (captured.out + captured.err).splitlines() if not line.startswith("::add-mask::")]
    assert not [line for line in shown if TOKEN in line]
    return captured.out


@pytest.mark.parametrize(("minimum", "code", "verdict"), [(9.9, 1, "fail"), (0.0, 0, "pass")])
def test_github_answering_5xx_leaves_the_verdict_and_the_files(github_api, waits, tmp_path, monkeypatch, capsys,
                                                               minimum, code, verdict):
    files = project(tmp_path, monkeypatch, github_api.base_url, minimum)
    for _ in range(100):
        for method in ("GET", "POST", "PATCH"):
            github_api.fail_next(method, r"/repos/.*", 502, "Bad Gateway")
    stdout = assert_verdict_stands(tmp_path, files, capsys, code, verdict)
    # reading the pull request's files spent the retry budget, so publishing gives up at once, and says why
    assert ("::warning title=llm-quality-gate%3A publishing::could not comment on pull request #7: not tried: GitHub "
            "kept failing and the 10 s the gate spends on retries are spent (last: 502 Bad Gateway)") in stdout
    assert "::warning title=llm-quality-gate%3A publishing::could not create the check run" in stdout
    assert waits == [1.0, 2.0, 4.0] and not github_api.comments and not github_api.check_runs


def test_a_fork_pull_requests_read_only_token_fails_publishing_not_the_gate(github_api, waits, tmp_path,
                                                                           monkeypatch, capsys):
    files = project(tmp_path, monkeypatch, github_api.base_url, 9.9)
    github_api.read_only = True
    stdout = assert_verdict_stands(tmp_path, files, capsys, 1, "fail")
    assert "Resource not accessible by integration" in stdout and "workflow_run" in stdout and waits == []


def test_a_stalled_github_times_out_and_the_run_still_ends_with_its_verdict(waits, tmp_path, monkeypatch, capsys):
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.expect_request(re.compile(".*")).respond_with_handler(lambda request: time.sleep(2.5))
    server.start()
    try:
        monkeypatch.setattr(gate_github, "TIMEOUT", 1)
        files = project(tmp_path, monkeypatch, server.url_for("").rstrip("/"), 9.9)
        started = time.monotonic()
        stdout = assert_verdict_stands(tmp_path, files, capsys, 1, "fail")
        assert time.monotonic() - started < 30
    finally:
        server.clear()
        server.stop()
    assert "no reply within 1 s (timeout)" in stdout


def test_an_unforeseen_publishing_error_is_a_warning_not_exit_3(github_api, waits, tmp_path, monkeypatch, capsys):
    files = project(tmp_path, monkeypatch, github_api.base_url, 9.9)

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug at the edge")

    monkeypatch.setattr(GitHubPublisher, "publish", broken)
    stdout = assert_verdict_stands(tmp_path, files, capsys, 1, "fail")
    assert "::warning title=llm-quality-gate::publishing failed unexpectedly (RuntimeError: a bug at the edge)" \
        in stdout
