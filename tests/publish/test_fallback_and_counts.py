"""The status fallback and the step outputs against a local GitHub API: the real check counts whatever the
annotation cap, and the fallback's workflow annotations that say exactly how many more checks GitHub's 10-per-level
limit leaves out."""

from __future__ import annotations

import json
import os
import re

import pytest

from gate.publish.bundle import PublishBundle
from gate.publish.flow import workflow_annotations
from gate.report.annotations import Annotation, Level
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

TOKEN = "ghs_publishcmd_abcdef0123"
HEAD = "feedc0de" * 5


def many_checks_project(tmp_path, monkeypatch, api_url: str, failing: int, warning: int) -> dict:
    """A heuristic gate in a pull request's job: `failing` models fail final_score_mean and `warning` models only
    warn (every model's score is the same, far below 9.9), so the counts are known by construction."""
    models = [f"m{i:03d}" for i in range(failing + warning)]
    rows = [{"model": m, "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}
            for m in models]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text(
        "version: 1\nname: many\nsuites:\n"
        f"  strict:\n    kind: heuristic\n    records: h.jsonl\n    models: {json.dumps(models[:failing])}\n"
        "    checks:\n      final_score_mean: {min: 9.9}\n"
        f"  lenient:\n    kind: heuristic\n    records: h.jsonl\n    models: {json.dumps(models[failing:])}\n"
        "    checks:\n      final_score_mean: {min: 0, warn: 9.9}\n")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD}}}))
    files = {"summary": tmp_path / "summary.md", "output": tmp_path / "output.txt"}
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    env = {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": api_url, "GITHUB_REPOSITORY": REPO,
           "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "5eed" * 10,
           "GITHUB_RUN_ID": "1", "GITHUB_SERVER_URL": "https://github.example", "GITHUB_WORKSPACE": str(tmp_path),
           "GITHUB_STEP_SUMMARY": str(files["summary"]), "GITHUB_OUTPUT": str(files["output"]),
           "INPUT_CONFIG": "gate.yml", "INPUT_GITHUB_TOKEN": TOKEN}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    return files


def read_outputs(path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def run_cli_err(monkeypatch, *args) -> tuple[int, str]:
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = run_cli(pytest.MonkeyPatch(), *args)
    return code, err.getvalue()


def bundle_with(failures: int, warnings: int, notices: int = 0, **counts) -> PublishBundle:
    annotations = [Annotation(f"{level.value}.jsonl", i + 1, level, f"t{i}", f"m{i}")
                   for level, n in ((Level.FAILURE, failures), (Level.WARNING, warnings), (Level.NOTICE, notices))
                   for i in range(n)]
    return PublishBundle(gate="g", verdict="fail", conclusion="failure", title="t", summary="s", comment="c",
                         annotations=tuple(annotations), **counts)


@pytest.mark.parametrize("failures, warnings, notices, counts, expected", [
    (10, 10, 10, {}, {"error": (10, None), "warning": (10, None), "notice": (10, None)}),  # nothing cut
    (15, 12, 11, {"failed_checks": 15, "warned_checks": 12},
     {"error": (9, "6 more failed checks"), "warning": (9, "3 more warned checks"),
      "notice": (9, "2 more inconclusive checks")}),
    (11, 0, 0, {}, {"error": (9, "2 more failed checks")}),  # an old bundle: the annotations are counted
    (6, 3, 0, {"failed_checks": 8, "warned_checks": 3},  # 2 failed checks have no line to pin: nothing was cut
     {"error": (6, None), "warning": (3, None)}),
    (500, 0, 0, {"failed_checks": 3000, "warned_checks": 600},  # the bundle's cap: the real counts, warnings too
     {"error": (9, "2991 more failed checks"), "warning": (0, "600 warned checks")}),
    (499, 1, 0, {"failed_checks": 499, "warned_checks": 2}, {"error": (9, "490 more failed checks"),
                                                              "warning": (1, "1 more warned check")}),
])
def test_the_fallback_annotations_say_how_many_more_there_are(failures, warnings, notices, counts, expected):
    commands = workflow_annotations(bundle_with(failures, warnings, notices, **counts))
    found = {}
    for kind in ("error", "warning", "notice"):
        pinned = [c for c in commands if c.kind == kind and c.file is not None]
        more = [c.title.removeprefix("llm-quality-gate: ") for c in commands if c.kind == kind and c.file is None]
        if pinned or more:
            found[kind] = (len(pinned), more[0] if more else None)
        assert len(pinned) + len(more) <= 10  # GitHub would drop the 11th of a level, the count with it
    assert found == expected


def test_status_fallback_annotates_ten_per_level_and_counts_the_rest(github_api, tmp_path, monkeypatch, capsys):
    """Check runs forbidden: a commit status stands in, and the step's workflow commands pin 9 failures and 9
    warnings and say how many more of each there are (15 - 9 and 12 - 9)."""
    many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=15, warning=12)
    github_api.forbid_checks = True
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    [status] = github_api.statuses
    assert (status["sha"], status["state"]) == (HEAD, "failure")
    stdout = capsys.readouterr().out
    assert len(re.findall(r"^::error file=h\.jsonl,line=\d+,", stdout, flags=re.MULTILINE)) == 9
    assert len(re.findall(r"^::warning file=h\.jsonl,line=\d+,", stdout, flags=re.MULTILINE)) == 9
    assert "::error title=llm-quality-gate%3A 6 more failed checks::6 more failed checks are not annotated" in stdout
    assert "::warning title=llm-quality-gate%3A 3 more warned checks::3 more warned checks" in stdout


def test_merge_queue_runs_post_a_check_run_on_the_queue_commit_and_no_comment(github_api, tmp_path, monkeypatch):
    many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=1, warning=1)
    queued = "abcd" * 10
    (tmp_path / "event.json").write_text(json.dumps({"action": "checks_requested", "merge_group": {
        "head_sha": queued, "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-" + "5eed" * 10,
        "base_sha": "1234" * 10, "base_ref": "refs/heads/main"}}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "merge_group")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    [run] = github_api.check_runs
    assert (run["head_sha"], run["conclusion"]) == (queued, "failure")
    assert not github_api.comments
    assert json.loads((tmp_path / "gate-report" / "publish.json").read_text())["pull_request"] is None


