"""`llm-gate publish --report DIR` (the fork recipe's trusted step) against a local GitHub API: the same step
outputs and job summary as `llm-gate run`, the real check counts whatever the annotation cap, and the status
fallback's workflow annotations that say exactly how many more checks GitHub's 10-per-level limit leaves out."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from gate.commands.publish import _trusted
from gate.publish.bundle import PublishBundle
from gate.publish.flow import workflow_annotations
from gate.report.annotations import Annotation, Level
from gate.settings import FailOn, GitHubContext, Settings
from tests.publish.github.test_client import publisher
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


def as_workflow_run(tmp_path, monkeypatch, files: dict) -> None:
    """The trusted workflow_run job: its own event, token and (fresh) GITHUB_OUTPUT / GITHUB_STEP_SUMMARY."""
    event = tmp_path / "workflow_run.json"
    event.write_text(json.dumps({"workflow_run": {"head_sha": HEAD, "pull_requests": [{"number": 7}]}}))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_run")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    for name in ("summary", "output"):
        files[name] = tmp_path / f"trusted-{name}"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(files["summary"]))
    monkeypatch.setenv("GITHUB_OUTPUT", str(files["output"]))


def test_publish_sets_the_same_outputs_and_job_summary_as_run(github_api, tmp_path, monkeypatch):
    """600 failed and 40 warned checks (the annotations stop at 500, all failures): the outputs are the real
    counts from `run` and from `publish` alike, and the job summary is the same report."""
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=600, warning=40)
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    ran, ran_summary = read_outputs(files["output"]), files["summary"].read_text()
    assert (ran["failed_checks"], ran["warned_checks"]) == ("600", "40")
    as_workflow_run(tmp_path, monkeypatch, files)
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "gate-report") == 0
    published = read_outputs(files["output"])
    first, second = github_api.check_runs
    assert ran.pop("check_run_url").endswith(f"/runs/{first['id']}")
    assert published.pop("check_run_url").endswith(f"/runs/{second['id']}")  # a new check run, the same commit
    assert published == ran  # verdict, conclusion, report_path, the counts, the (unchanged) comment's url
    assert files["summary"].read_text() == ran_summary == (tmp_path / "gate-report" / "report.md").read_text()
    assert second["head_sha"] == first["head_sha"] == HEAD


def test_publish_falls_back_to_the_bundles_summary_without_a_report_md(github_api, tmp_path, monkeypatch):
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=1, warning=1)
    monkeypatch.setenv("INPUT_PUBLISH", "false")  # the fork's run: files only
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    bundle = json.loads((tmp_path / "gate-report" / "publish.json").read_text())
    (tmp_path / "gate-report" / "report.md").unlink()
    (tmp_path / "runner-file.txt").write_text("a file of the trusted runner\n")
    (tmp_path / "gate-report" / "report.md").symlink_to(tmp_path / "runner-file.txt")  # never followed
    as_workflow_run(tmp_path, monkeypatch, files)
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "gate-report") == 0
    assert files["summary"].read_text().rstrip("\n") == bundle["summary"].rstrip("\n")
    assert "trusted runner" not in files["summary"].read_text()
    assert read_outputs(files["output"])["failed_checks"] == "1"


def test_trusted_keeps_every_field_it_does_not_decide(github_api):
    """Every field of the artifact's bundle but those the event decides (and the neutralised texts) travels as is:
    a field added to PublishBundle later cannot be dropped by `publish`."""
    bundle = PublishBundle(gate="g", verdict="fail", conclusion="failure", title="t", summary="s", comment="c",
                           annotations=(Annotation("a.jsonl", 3, Level.FAILURE, "x", "y"),), repository="evil/r",
                           pull_request=7, head_sha=HEAD, run_url="https://x/runs/1", notes=("n",),
                           failed_checks=600, warned_checks=40, check_name="g (suites: a)", comment_title="g t",
                           scope="filtered", changed=True)
    assert all(getattr(bundle, f.name) != f.default for f in dataclasses.fields(PublishBundle))  # none left default
    settings = Settings(config_path=Path("gate.yml"), output_dir=None, suites=(), publish=True, fail_on=FailOn.FAIL,
                        github=GitHubContext(repository=REPO, event_name="push", sha=HEAD))
    trusted = _trusted(bundle, settings, publisher(github_api))
    assert trusted == dataclasses.replace(bundle, repository=REPO)
    # the trusted workflow's own check_name / comment_title, where it sets them, win over the artifact's
    named = dataclasses.replace(settings, check_name="quality", comment_title="quality comment")
    assert _trusted(bundle, named, publisher=None) == dataclasses.replace(  # type: ignore[arg-type]
        bundle, repository=REPO, check_name="quality", comment_title="quality comment")


def test_an_artifact_may_not_post_under_another_checks_name(github_api, tmp_path, monkeypatch):
    """A fork's gate.yml names its gate (so its check run) after the repository's required `tests` job: without
    the trusted workflow pinning `check_name`, publish refuses (exit 2) and posts nothing; pinned, it posts under
    the pinned name. The gate's own earlier check runs of the name never count as another check's."""
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=1, warning=0)
    (tmp_path / "gate.yml").write_text((tmp_path / "gate.yml").read_text().replace("name: many", "name: tests"))
    monkeypatch.setenv("INPUT_PUBLISH", "false")  # the fork's run: files only
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    bundle = json.loads((tmp_path / "gate-report" / "publish.json").read_text())
    bundle["conclusion"], bundle["verdict"] = "success", "pass"  # and the fork forges a pass
    (tmp_path / "gate-report" / "publish.json").write_text(json.dumps(bundle))
    github_api.check_runs.append({"id": 90, "name": "tests", "head_sha": HEAD, "conclusion": "failure",
                                  "external_id": "5264e576-3c6f-51f6-f055-fab409685f20"})  # the CI job's
    as_workflow_run(tmp_path, monkeypatch, files)
    monkeypatch.setenv("INPUT_PUBLISH", "true")
    code, err = run_cli_err(monkeypatch, "publish", "--report", "gate-report")
    assert code == 2 and [r["id"] for r in github_api.check_runs] == [90] and not github_api.comments
    assert "check_name" in err and "'tests', also the name of check run" in err and "set `check_name`" in err
    github_api.statuses.append({"sha": HEAD, "state": "failure", "context": "lint", "description": "2 errors"})
    (tmp_path / "gate-report" / "publish.json").write_text(json.dumps({**bundle, "check_name": "lint"}))
    code, err = run_cli_err(monkeypatch, "publish", "--report", "gate-report")
    assert code == 2 and "also the name of commit status (failure: 2 errors)" in err
    monkeypatch.setenv("INPUT_CHECK_NAME", "llm quality")  # the trusted workflow pins the name
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "gate-report") == 0
    assert [r["name"] for r in github_api.check_runs] == ["tests", "llm quality"]


def test_an_untrusted_filtered_publish_lists_the_commits_check_runs_of_its_name_once(github_api, tmp_path,
                                                                                       monkeypatch):
    """A fork's `--suite strict` run: publish checks that no other check carries the artifact's name and that no
    full run of the gate posted it: both rules read the same listing, fetched once."""
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=1, warning=1)
    monkeypatch.setenv("INPUT_PUBLISH", "false")  # the fork's run: files only
    assert run_cli(pytest.MonkeyPatch(), "run", "-q", "--suite", "strict") == 1
    github_api.check_runs.append({"id": 80, "name": "many (suites: strict)", "head_sha": HEAD,
                                  "conclusion": "success", "external_id": "llm-quality-gate:v1:filtered"})
    as_workflow_run(tmp_path, monkeypatch, files)
    monkeypatch.setenv("INPUT_PUBLISH", "true")
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "gate-report") == 0
    listings = [c for c in github_api.calls if c.method == "GET" and c.path.endswith(f"/commits/{HEAD}/check-runs")]
    assert len(listings) == 1
    assert [(r["name"], r["external_id"], r["conclusion"]) for r in github_api.check_runs[1:]] == [
        ("many (suites: strict)", "llm-quality-gate:v1:filtered", "failure")]


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


def test_publish_artifact_copied_elsewhere_keeps_its_counts(github_api, tmp_path, monkeypatch):
    """The recipe downloads the artifact into another directory: the counts still come from the bundle."""
    files = many_checks_project(tmp_path, monkeypatch, github_api.base_url, failing=12, warning=3)
    monkeypatch.setenv("INPUT_PUBLISH", "false")
    assert run_cli(pytest.MonkeyPatch(), "run", "-q") == 1
    shutil.copytree(tmp_path / "gate-report", tmp_path / "artifact")
    as_workflow_run(tmp_path, monkeypatch, files)
    assert run_cli(pytest.MonkeyPatch(), "publish", "--report", "artifact") == 0
    out = read_outputs(files["output"])
    assert (out["verdict"], out["failed_checks"], out["warned_checks"]) == ("fail", "12", "3")
    assert out["report_path"] == "artifact/report.md" and out["comment_url"].endswith(
        f"#issuecomment-{github_api.comments[7][0]['id']}")
