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
    # An escaping history file is a config error, found when gate.yml is loaded: neither read nor written.
    write_config(repo, "heuristic/*.jsonl", "history: {path: ../../outside/history.jsonl}\n")
    (outside / "history.jsonl").write_text("")
    assert run(monkeypatch, "--record-history") == 2
    assert "field 'history.path'" in capsys.readouterr().err
    assert (outside / "history.jsonl").read_text() == ""
    write_config(repo, "heuristic/*.jsonl", f"baselines: {{dir: {outside}}}\n")
    assert run(monkeypatch) == 2
    assert "field 'baselines.dir'" in capsys.readouterr().err


def test_a_model_directory_outside_the_workspace_is_refused(layout, tmp_path):
    from gate.runtime.engines import models

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


# ---------------------------------------------------------------- what the gate writes (and its templates)
# report.output_dir, runtime.cache_dir and report.templates_dir are relative to the working directory (here the
# checkout's root), history.path to gate.yml (repo/gate/). Each leaves the workspace three ways, each refused
# with exit 2 when gate.yml is loaded: before anything is written, inside or outside.

FIELDS = {  # field -> (gate.yml lines, with {p} for the path; what the path names inside `target`)
    "report.output_dir": ("report: {{output_dir: {p}, formats: [json]}}\n", ""),
    "runtime.cache_dir": ("runtime: {{cache_dir: {p}}}\nreport: {{formats: [json]}}\n", ""),
    "report.templates_dir": ("report: {{templates_dir: {p}, formats: [markdown, json]}}\n", ""),
    "history.path": ("history: {{path: {p}}}\nreport: {{formats: [json]}}\n", "/history.jsonl"),
}


def escaping(field: str, how: str, repo: Path, outside: Path) -> str:
    """The path a hostile gate.yml gives `field` to reach tmp/outside/target."""
    up = "../../" if field == "history.path" else "../"  # gate.yml's directory is one level deeper than the cwd
    if how == "absolute":
        path = str(outside / "target")
    elif how == "dotdot":
        path = f"{up}outside/target"
    else:  # a symlink committed into the checkout (dangling: its target does not exist yet)
        (repo / "escape").symlink_to(outside / "target", target_is_directory=True)
        path = "../escape" if field == "history.path" else "escape"
    return path + FIELDS[field][1]


def gate_yml(repo: Path, extra: str) -> None:
    (repo / "gate" / "gate.yml").write_text(
        f"version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: heuristic/*.jsonl\n{extra}")


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
@pytest.mark.parametrize("field", list(FIELDS))
def test_output_cache_template_and_history_paths_leaving_the_workspace_are_refused(layout, monkeypatch, capsys,
                                                                                  field, how):
    repo, outside = layout
    path = escaping(field, how, repo, outside)
    gate_yml(repo, FIELDS[field][0].format(p=path))
    assert run(monkeypatch, "--record-history") == 2
    err = capsys.readouterr().err
    assert f"gate/gate.yml:6, field '{field}'" in err, err  # line 6: the field's, after the suite's five
    assert f"a path inside the workspace {repo.resolve()}" in err and "outside it" in err
    assert "--allow-paths-outside-workspace" in err
    assert not (outside / "target").exists()  # nothing written outside
    assert not (repo / "gate-report").exists() and not (repo / ".gate-cache").exists()  # nor inside: refused first


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink"])
@pytest.mark.parametrize("field", list(FIELDS))
def test_the_workflow_can_let_them_out(layout, monkeypatch, field, how):
    repo, outside = layout
    gate_yml(repo, FIELDS[field][0].format(p=escaping(field, how, repo, outside)))
    (outside / "target").mkdir()  # the place the workflow means (a symlink to it is not dangling)
    if field == "report.templates_dir":
        (outside / "target" / "report.md.j2").write_text("an operator's own template\n")
    assert run(monkeypatch, "--record-history", "--allow-paths-outside-workspace") == 0
    written = {"report.output_dir": outside / "target" / "report.json",
               "runtime.cache_dir": None,  # the heuristic suite runs no model: nothing to cache
               "report.templates_dir": repo / "gate-report" / "report.md",
               "history.path": outside / "target" / "history.jsonl"}[field]
    if written is not None:
        assert written.is_file()
    if field == "report.templates_dir":
        assert written.read_text().startswith("an operator's own template")


def test_every_escaping_path_is_reported_at_once(layout, monkeypatch, capsys):
    repo, outside = layout
    gate_yml(repo, f"runtime: {{cache_dir: {outside}/c}}\nhistory: {{path: ../../outside/h.jsonl}}\n"
                   f"baselines: {{dir: {outside}/b}}\nreport: {{output_dir: ../outside/o, templates_dir: /etc}}\n")
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    for field in ("runtime.cache_dir", "history.path", "baselines.dir", "report.output_dir", "report.templates_dir"):
        assert f"field '{field}'" in err
    assert "(5 problems)" in err
    assert sorted(p.name for p in outside.iterdir()) == ["rubric.yml", "secret.jsonl"]


def test_a_default_path_through_a_committed_symlink_is_refused(layout, monkeypatch, capsys):
    repo, outside = layout
    (repo / "gate-report").symlink_to(outside / "target", target_is_directory=True)
    gate_yml(repo, "report: {formats: [json]}\n")
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert "field 'report.output_dir'" in err and "the default 'gate-report' resolves to" in err
    assert not (outside / "target").exists()


def test_the_output_directory_the_workflow_gives_is_its_own_choice(layout, monkeypatch, capsys):
    """--output-dir and the action input output_dir come from the workflow, not from gate.yml: not confined,
    and a report.output_dir they replace is not used, so not checked."""
    repo, outside = layout
    gate_yml(repo, "report: {output_dir: /somewhere/else, formats: [json]}\n")
    assert run(monkeypatch, "--output-dir", str(outside / "cli")) == 0
    assert (outside / "cli" / "report.json").is_file()
    monkeypatch.setenv("INPUT_OUTPUT_DIR", str(outside / "input"))
    assert run(monkeypatch) == 0
    assert (outside / "input" / "report.json").is_file()


def test_a_path_inside_the_working_directory_or_the_workspace_is_fine(layout, monkeypatch):
    repo, _ = layout
    gate_yml(repo, "runtime: {cache_dir: .cache/gate}\nhistory: {path: '../hist/{gate}.jsonl'}\n"
                   "report: {output_dir: out/report, formats: [json]}\n")
    assert run(monkeypatch, "--record-history") == 0
    assert (repo / "out" / "report" / "report.json").is_file()
    assert (repo / "hist" / "llm-quality-gate.jsonl").is_file()


def test_baseline_bless_and_the_other_commands_take_the_opt_in(layout, monkeypatch, capsys):
    repo, outside = layout
    gate_yml(repo, f"baselines: {{dir: {outside}/snapshots}}\n")
    assert run_cli(monkeypatch, "baseline", "bless", "-c", "gate/gate.yml") == 2
    assert "field 'baselines.dir'" in capsys.readouterr().err
    assert not (outside / "snapshots").exists()
    assert run_cli(monkeypatch, "baseline", "bless", "-c", "gate/gate.yml", "--allow-paths-outside-workspace") == 0
    assert (outside / "snapshots" / "rubric.json").is_file()

    gate_yml(repo, f"runtime: {{cache_dir: {outside}/cache}}\nhistory: {{path: {outside}/h.jsonl}}\n")
    for command in (["history"], ["models", "list"], ["models", "pull"]):
        assert run_cli(monkeypatch, *command, "-c", "gate/gate.yml") == 2, command
        assert "field 'runtime.cache_dir'" in capsys.readouterr().err
        assert run_cli(monkeypatch, *command, "-c", "gate/gate.yml", "--allow-paths-outside-workspace") == 0, command
        capsys.readouterr()
    assert run_cli(monkeypatch, "merge", "-c", "gate/gate.yml", "--no-publish", "--allow-paths-outside-workspace",
                   str(repo / "no-shards")) == 2
    assert "cannot find the shards" in capsys.readouterr().err  # the flag is known; the shards are what is missing


def _git(repo: Path, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "-C", str(repo), *args], check=True,
                   capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_cache_directory_tracked_by_git_is_refused_before_any_model_work(tmp_path, monkeypatch, capsys):
    """A committed cache entry would stand in for the model output a pull request chose (its key is computable):
    the run refuses the cache directory while git tracks a file in it; a model committed under models/ is fine."""
    repo = tmp_path / "repo"
    (repo / "gate" / "heuristic").mkdir(parents=True)
    shutil.copy(RESPONSES, repo / "gate" / "heuristic" / "responses.jsonl")
    write_config(repo, "heuristic/*.jsonl", "runtime: {cache_dir: .gate-cache}\n")
    (repo / ".gate-cache" / "models" / "m").mkdir(parents=True)
    (repo / ".gate-cache" / "models" / "m" / "config.json").write_text("{}")
    for name in ("GITHUB_WORKSPACE", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "INPUT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(repo)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "models may be committed")
    assert run(monkeypatch) == 0
    capsys.readouterr()
    forged = repo / ".gate-cache" / "vectors" / "v1" / "ab" / ("ab" + "0" * 62)
    forged.parent.mkdir(parents=True)
    forged.write_bytes(b"llm-gate cache\x01 forged")
    assert run(monkeypatch) == 0  # untracked: an ordinary (here broken) entry, never trusted past its checksum
    _git(repo, "add", "-f", str(forged))
    _git(repo, "commit", "-qm", "a forged cache entry")
    assert run(monkeypatch) == 2
    err = capsys.readouterr().err
    assert "field 'runtime.cache_dir'" in err and "1 tracked file(s) in .gate-cache" in err
    assert "git rm -r --cached .gate-cache" in err and ".gitignore" in err
    assert run_cli(monkeypatch, "run", "-c", "gate/gate.yml", "--no-publish", "-q", "--shard", "1/2") == 2
    capsys.readouterr()
    assert run_cli(monkeypatch, "validate", "-c", "gate/gate.yml") == 2  # validate says so too
    assert "field 'runtime.cache_dir'" in capsys.readouterr().err
    no_git = tmp_path / "no-git"  # the Docker action: its image carries no git; the index is read without it
    no_git.mkdir()
    monkeypatch.setenv("PATH", str(no_git))
    assert run(monkeypatch) == 2
    assert "1 tracked file(s) in .gate-cache" in capsys.readouterr().err
