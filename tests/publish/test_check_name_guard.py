"""Issue 31, item 2 (`run`): a check-run name that gate.yml chose may not be another check's. `llm-gate run` against
the loopback GitHub API (real PyGithub), with what the server stored as the evidence: CI's failing `tests` on the
head commit, or `tests` required by the base branch's ruleset or protection, and a pull request's gate.yml naming
its check `tests`."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import EXAMPLES
from tests.support.fake_github import REPO
from tests.test_cli import run_cli

HEAD = "feedc0de" * 5
GATE = """\
version: 1
name: quality
suites:
  rubric: {kind: heuristic, records: responses.jsonl, checks: {final_score_mean: {min: 0.0}}}
report: {formats: [markdown, json]}
publish:
  check_name: %s
"""
NAME_LINE = 7  # the line of `check_name:` above


@pytest.fixture
def workflow(tmp_path, monkeypatch, github_api):
    """A pull request (into main) whose gate passes; gate.yml names its check as `write(name)` says."""
    shutil.copy(EXAMPLES / "heuristic" / "responses.jsonl", tmp_path / "responses.jsonl")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD},
                                                               "base": {"ref": "main"}}}))
    for key, value in {"GITHUB_ACTIONS": "true", "GITHUB_API_URL": github_api.base_url, "GITHUB_REPOSITORY": REPO,
                       "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "5eed" * 10,
                       "GITHUB_RUN_ID": "99", "GITHUB_WORKSPACE": str(tmp_path), "INPUT_GITHUB_TOKEN": "ghs_name_token",
                       "GITHUB_OUTPUT": str(tmp_path / "output.txt")}.items():
        monkeypatch.setenv(key, value)
    for name in ("GITHUB_TOKEN", "GITHUB_STEP_SUMMARY", "INPUT_SUITES", "INPUT_CHECK_NAME", "INPUT_COMMENT_TITLE",
                 "INPUT_COMMENT_MODE", "INPUT_BASE_CHECKOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)

    def write(name: str) -> None:
        (tmp_path / "gate.yml").write_text(GATE % name)
    return write


def ci_tests_failed(api, name: str = "tests") -> None:
    """CI's job (another app, or another job of the workflow: no external_id of the gate's) failed on the head."""
    api.check_runs.append({"id": 1, "name": name, "head_sha": HEAD, "status": "completed", "conclusion": "failure",
                           "external_id": None, "app": {"slug": "ci"}})


def posted(api, name: str) -> list[dict]:
    return [r for r in api.check_runs if r["name"] == name and r.get("external_id")]


def test_gate_yml_may_not_post_beside_another_apps_failing_check_of_its_name(workflow, github_api, capsys):
    ci_tests_failed(github_api)
    workflow("tests")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 2  # not the gate's pass: the step fails
    captured = capsys.readouterr()
    assert posted(github_api, "tests") == []  # no success beside CI's failure
    assert [r["conclusion"] for r in github_api.check_runs if r["name"] == "tests"] == ["failure"]
    assert not github_api.statuses  # and no commit status in its place, silently
    assert "::error title=llm-quality-gate%3A check name refused::no check run posted under `tests`" in captured.out
    assert f"gate.yml:{NAME_LINE}" in captured.err and "publish.check_name" in captured.err
    assert "check run https://github.example/" in captured.err and "check_name" in captured.err
    assert github_api.comments.get(7)  # the comment (keyed by its own title) still says the verdict


def test_a_foreign_commit_status_of_the_name_is_refused_too(workflow, github_api, capsys):
    github_api.statuses.append({"id": 5, "sha": HEAD, "context": "tests", "state": "failure",
                                "description": "3 tests failed"})
    workflow("tests")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 2
    assert posted(github_api, "tests") == [] and len(github_api.statuses) == 1
    assert "commit status (failure: 3 tests failed)" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["ruleset", "protection"])
def test_another_required_check_not_yet_on_the_commit_is_refused(workflow, github_api, capsys, where):
    """CI's `tests` has not started yet; the base branch requires it, and the base's gate posts as `quality`."""
    (github_api.ruleset_checks if where == "ruleset" else github_api.protected_checks)["main"] = ["tests", "quality"]
    github_api.write_file("main", "gate.yml", (GATE % "quality").encode())
    workflow("tests")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 2
    assert posted(github_api, "tests") == []
    err = capsys.readouterr().err
    assert "required check of main" in err and "`quality`" in err
    workflow("quality")  # the gate's own required check: the normal case
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    assert [r["conclusion"] for r in posted(github_api, "quality")] == ["success"]


def test_the_workflows_check_name_is_its_choice(workflow, github_api, monkeypatch):
    ci_tests_failed(github_api, "quality")  # whatever is there: the workflow named it (the recipes pin it)
    monkeypatch.setenv("INPUT_CHECK_NAME", "quality")
    workflow("tests")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    assert [r["conclusion"] for r in posted(github_api, "quality")] == ["success"]


def test_the_gates_own_earlier_check_run_is_not_another_check(workflow, github_api):
    workflow("quality")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0  # a re-run finds its own check run, and posts again
    assert len(posted(github_api, "quality")) == 2
    assert not [c for c in github_api.calls if c.method == "GET" and c.path == f"/repos/{REPO}/statuses/{HEAD}"]
    assert [c for c in github_api.calls if c.path == f"/repos/{REPO}/commits/{HEAD}/statuses"]  # the documented route


def test_a_required_name_is_let_through_with_a_warning_when_the_base_gate_cannot_be_read(workflow, github_api,
                                                                                        capsys):
    github_api.ruleset_checks["main"] = ["quality"]
    github_api.fail_next("GET", rf"/repos/{REPO}/contents/gate\.yml", 403, "Resource not accessible by integration")
    workflow("quality")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 0
    assert [r["conclusion"] for r in posted(github_api, "quality")] == ["success"]
    assert "could not be read to tell whether it is the gate's own: pin `check_name`" in capsys.readouterr().out
