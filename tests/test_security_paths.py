"""A config cannot make the gate read files outside the workspace unless the workflow allows it.

Runs `llm-gate run` (the rubric suite: no model needed) on configs whose paths try to leave the
workspace by an absolute path, `..`, a symlinked file and a symlinked directory, and checks the error
names the field, the path, the workspace and the fix; then the three ways to opt in.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gate.errors import ConfigError
from gate.io import paths
from tests.conftest import EXAMPLES
from tests.test_cli import run_cli

RESPONSES = EXAMPLES / "heuristic" / "responses.jsonl"


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """tmp/outside/ (the runner's other files) and tmp/repo/ (a git checkout, gate.yml in repo/gate/)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(RESPONSES, outside / "secret.jsonl")
    (outside / "rubric.yml").write_text("not: read\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "gate" / "heuristic").mkdir(parents=True)
    shutil.copy(RESPONSES, repo / "gate" / "heuristic" / "responses.jsonl")
    (repo / "data").mkdir()
    shutil.copy(RESPONSES, repo / "data" / "shared.jsonl")
    (repo / "gate" / "leak.jsonl").symlink_to(outside / "secret.jsonl")
    (repo / "gate" / "linked").symlink_to(outside, target_is_directory=True)
    (repo / "gate" / "inside-link.jsonl").symlink_to(repo / "data" / "shared.jsonl")
    for name in ("GITHUB_WORKSPACE", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "INPUT_CONFIG",
                 paths.OPT_IN_ENV, f"INPUT_{paths.OPT_IN_INPUT.upper()}"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(repo)
    return repo, outside


def write_config(repo: Path, records: str, extra: str = "") -> None:
    (repo / "gate" / "gate.yml").write_text(
        f"version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: {records!r}\n{extra}"
        "report: {formats: [json]}\n")


def run(monkeypatch, *extra: str) -> int:
    return run_cli(monkeypatch, "run", "-c", "gate/gate.yml", "--no-publish", "-q", *extra)


@pytest.mark.parametrize("records", ["heuristic/*.jsonl", "../data/*.jsonl", "inside-link.jsonl",
                                     "{repo}/data/*.jsonl"])
def test_paths_inside_the_workspace_are_read(layout, monkeypatch, records):
    repo, _ = layout
    write_config(repo, records.format(repo=repo))
    assert run(monkeypatch) == 0


@pytest.mark.parametrize("records, shown", [
    ("{outside}/secret.jsonl", "{outside}/secret.jsonl"),  # an absolute path
    ("{outside}/*.jsonl", "{outside}"),  # an absolute glob: not even listed
    ("../../outside/*.jsonl", "../../outside/*.jsonl"),  # `..`
    ("leak.jsonl", "leak.jsonl"),  # a symlink committed into the repository
    ("linked/*.jsonl", "'linked/*.jsonl' resolves to {outside}"),  # a glob through a symlinked directory
    ("**/*.jsonl", "gate/linked/secret.jsonl"),  # a recursive glob that wanders into one
])
def test_paths_leaving_the_workspace_are_refused_with_field_path_workspace_and_fix(layout, monkeypatch, capsys,
                                                                                   records, shown):
    repo, outside = layout
    write_config(repo, records.format(outside=outside))
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert "field 'suites.rubric.records'" in err
    assert shown.format(outside=outside) in err and "outside it" in err
    assert f"a path inside the workspace {repo.resolve()}" in err, err
    assert "--allow-paths-outside-workspace" in err and "allow_paths_outside_workspace: true" in err
    assert not (repo / "gate-report").exists()  # refused before anything was read or scored


def test_other_paths_a_config_names_are_confined_too(layout, monkeypatch, capsys):
    repo, outside = layout
    write_config(repo, "heuristic/*.jsonl", f"    rubric: {outside}/rubric.yml\n")
    assert run(monkeypatch) == 2
    assert "field 'suites.rubric.rubric'" in capsys.readouterr().err
    # The history never changes a verdict: an escaping history file is a warning, and is neither read nor written.
    write_config(repo, "heuristic/*.jsonl", "history: {path: ../../outside/history.jsonl}\n")
    (outside / "history.jsonl").write_text("")
    assert run(monkeypatch, "--record-history") == 0
    assert "field 'history.path'" in capsys.readouterr().err
    assert (outside / "history.jsonl").read_text() == ""
    write_config(repo, "heuristic/*.jsonl", f"baselines: {{dir: {outside}}}\n")
    assert run(monkeypatch) == 2
    assert "field 'baselines.dir'" in capsys.readouterr().err


def test_a_model_directory_outside_the_workspace_is_refused(layout, tmp_path):
    from gate.runtime import models

    repo, outside = layout
    (outside / "model").mkdir()
    with pytest.raises(ConfigError) as caught:
        models.resolve(str(outside / "model"), base_dir=repo / "gate", cache_dir=tmp_path / "cache")
    assert "field 'models'" in caught.value.render()
    with paths.use(paths.PathPolicy(allow_outside=True)):
        found = models.resolve(str(outside / "model"), base_dir=repo / "gate", cache_dir=tmp_path / "cache")
    assert found.path == (outside / "model").resolve()


@pytest.mark.parametrize("how", ["flag", "input", "env"])
def test_the_workflow_can_opt_in(layout, monkeypatch, how):
    repo, outside = layout
    write_config(repo, f"{outside}/*.jsonl")
    if how == "input":
        monkeypatch.setenv("INPUT_ALLOW_PATHS_OUTSIDE_WORKSPACE", "true")
    elif how == "env":
        monkeypatch.setenv("LLM_GATE_ALLOW_PATHS_OUTSIDE_WORKSPACE", "1")
    assert run(monkeypatch, *(["--allow-paths-outside-workspace"] if how == "flag" else [])) == 0


def test_the_config_itself_cannot_opt_in(layout, monkeypatch, capsys):
    repo, outside = layout
    write_config(repo, f"{outside}/*.jsonl", "allow_paths_outside_workspace: true\n")
    assert run(monkeypatch) == 2
    assert "allow_paths_outside_workspace" in capsys.readouterr().err  # an unknown field, not a switch


def test_the_workspace_is_github_workspace_then_the_git_checkout_then_the_config_directory(tmp_path):
    plain = tmp_path / "plain" / "cfg"
    plain.mkdir(parents=True)
    assert paths.workspace_for(plain) == plain.resolve()
    checkout = tmp_path / "checkout"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "ci" / "gates").mkdir(parents=True)
    assert paths.workspace_for(checkout / "ci" / "gates") == checkout.resolve()
    with paths.use(paths.PathPolicy(github_workspace=tmp_path)):
        assert paths.workspace_for(checkout / "ci") == tmp_path.resolve()
        assert paths.workspace_for(Path("/")) == Path("/")  # a config outside GITHUB_WORKSPACE: its own place
    policy = paths.PathPolicy.from_env({"GITHUB_WORKSPACE": "/github/workspace",
                                        "INPUT_ALLOW_PATHS_OUTSIDE_WORKSPACE": "false"})
    assert policy == paths.PathPolicy(Path("/github/workspace"), allow_outside=False)


def test_a_glob_prefix_is_its_directory_part():
    assert paths.literal_prefix("/a/b/*.json") == "/a/b"
    assert paths.literal_prefix("x/**/y/*.jsonl") == "x"
    assert paths.literal_prefix("*.jsonl") == "."
    assert paths.literal_prefix("../o/f.jsonl") == "../o/f.jsonl"
