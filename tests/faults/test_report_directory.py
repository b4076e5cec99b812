"""A report directory is one run's report set, whole (gate.io.report_dir): runs into one --output-dir one after
the other, at the same time, or dying halfway never leave publish.json saying one thing and report.json another,
nor an earlier run's files behind; and the gate never deletes a directory it did not write.

The gate is the real CLI on a heuristic project (no model to load): suite `strict` fails, suite `lenient` passes,
so a full run fails and `--suite lenient` passes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gate import io
from gate.io.report_dir import MARKER
from tests.conftest import REPO
from tests.test_cli import run_cli

CONFIG = """version: 1
name: dirs
suites:
  strict:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {{min: 9.9}}
  lenient:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {{min: 0}}
report: {{formats: [{formats}]}}
"""
FULL = {"report.md", "report.json", "junit.xml", "publish.json", "strict", "lenient", MARKER}


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    rows = [{"model": "m", "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}]
    (tmp_path / "h.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "gate.yml").write_text(CONFIG.format(formats="markdown, json, junit"))
    (tmp_path / "gate-md.yml").write_text(CONFIG.format(formats="markdown"))
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
    return tmp_path


def gate(monkeypatch, *args: str, config: str = "gate.yml") -> int:
    return run_cli(monkeypatch, "run", "-c", config, "--no-publish", "-q", "--output-dir", "out", *args)


def verdicts(out: Path) -> dict[str, str]:
    """Each file's own idea of the run's verdict."""
    found = {"publish.json": json.loads((out / "publish.json").read_text())["verdict"]}
    if (out / "report.json").exists():
        found["report.json"] = json.loads((out / "report.json").read_text())["verdict"]
    if (out / "report.md").exists():
        found["report.md"] = "fail" if "failed" in (out / "report.md").read_text().splitlines()[0] else "pass"
    return found


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def siblings(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name)


def test_two_runs_leave_only_the_second_runs_files_and_they_agree(project, monkeypatch):
    assert gate(monkeypatch) == 1
    out = project / "out"
    assert {p.name for p in out.iterdir()} == FULL and set(verdicts(out).values()) == {"fail"}
    assert gate(monkeypatch, "--suite", "lenient", config="gate-md.yml") == 0
    # the second run writes no report.json, junit.xml or strict/: none of the first run's may stay
    assert {p.name for p in out.iterdir()} == {"report.md", "publish.json", "lenient", MARKER}
    assert verdicts(out) == {"publish.json": "pass", "report.md": "pass"}
    assert siblings(project) == []


def test_a_suite_run_after_a_full_run_keeps_nothing_of_the_full_run(project, monkeypatch):
    assert gate(monkeypatch) == 1
    assert gate(monkeypatch, "--suite", "lenient") == 0
    out = project / "out"
    assert {p.name for p in out.iterdir()} == {"report.md", "report.json", "junit.xml", "publish.json", "lenient",
                                                MARKER}
    assert [s["name"] for s in json.loads((out / "report.json").read_text())["suites"]] == ["lenient"]
    assert set(verdicts(out).values()) == {"pass"}
    assert "strict" not in (out / "junit.xml").read_text()


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_run_that_dies_while_writing_leaves_the_previous_report_whole(project, monkeypatch, error):
    assert gate(monkeypatch) == 1
    out = project / "out"
    before = snapshot(out)
    real = io.write_json_atomic

    def fail_on_publish_json(path, value):
        if path.name == "publish.json":  # the last file of the set: report.json etc. are already written
            raise error
        real(path, value)

    monkeypatch.setattr(io, "write_json_atomic", fail_on_publish_json)
    assert gate(monkeypatch, "--suite", "lenient") in (3, 130)
    assert snapshot(out) == before  # byte for byte the first run's set
    assert siblings(project) == []  # and its staging directory is gone


# A run whose writes are slowed down, that starts writing only when the other run is about to (`render`).
PROBE = """
import os, sys, time
from pathlib import Path
from gate.io import write
import gate.run as run
name, other, delays = sys.argv[1], sys.argv[2], dict(d.split("=") for d in sys.argv[3].split(","))
real_write, real_render = write.write_text_atomic, run.render
def slow_write(path, text):
    time.sleep(float(delays.get(Path(path).name, delays.get("*", 0))))
    real_write(path, text)
    delays["*"] = "0"
write.write_text_atomic = slow_write
import gate.io
gate.io.write_text_atomic = slow_write
def render(*args, **kwargs):
    Path(name).touch()
    while not Path(other).exists():
        time.sleep(0.01)
    return real_render(*args, **kwargs)
run.render = render
from gate.cli import main
sys.argv = ["llm-gate", "run", "-c", "gate.yml", "--no-publish", "-q", "--output-dir", "out", *sys.argv[4:]]
main()
"""


def test_concurrent_runs_into_one_directory_leave_one_runs_set(project):
    """Unserialised, the full run writes its report files, the suite run all of its own, then the full run its
    publish.json: a report.json that passes with a publish.json that fails, and strict/ left over."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    full = subprocess.Popen([sys.executable, "-c", PROBE, "a", "b", "publish.json=1.5"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    suite = subprocess.Popen([sys.executable, "-c", PROBE, "b", "a", "*=0.5", "--suite", "lenient"], cwd=project,
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = [(run.wait(timeout=180), run.communicate()) for run in (full, suite)]
    assert [code for code, _ in results] == [1, 0], results
    out = project / "out"
    names = {p.name for p in out.iterdir()}
    found = verdicts(out)
    assert len(set(found.values())) == 1, found  # one run's verdict everywhere
    suites = {s["name"] for s in json.loads((out / "report.json").read_text())["suites"]}
    if found["publish.json"] == "fail":
        assert names == FULL and suites == {"strict", "lenient"}
    else:
        assert names == FULL - {"strict"} and suites == {"lenient"}
    assert siblings(project) == []


def test_a_directory_the_gate_did_not_write_is_refused_not_deleted(project, monkeypatch, capsys):
    out = project / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert gate(monkeypatch) == 2
    err = capsys.readouterr().err
    assert "notes.txt" in err and MARKER in err and "Fix:" in err and "--output-dir" in err
    assert snapshot(out) == {"notes.txt": b"mine"} and siblings(project) == []


def test_an_older_gates_report_set_without_a_marker_is_replaced_whole(project, monkeypatch):
    """Upgrading: a directory an llm-gate before the marker wrote is recognised by its report.json, not refused."""
    out = project / "out"
    (out / "strict").mkdir(parents=True)
    (out / "strict" / "items.csv").write_text("stale")
    (out / "shards").mkdir()
    (out / "report.md").write_text("# old")
    (out / "report.json").write_text(json.dumps({"schema": 1, "verdict": "fail", "suites": [{"name": "strict"}]}))
    assert gate(monkeypatch, "--suite", "lenient") == 0
    assert {p.name for p in out.iterdir()} == {"report.md", "report.json", "junit.xml", "publish.json", "lenient",
                                                "shards", MARKER}
    assert set(verdicts(out).values()) == {"pass"}


def test_an_older_report_set_with_a_users_file_is_still_refused(project, monkeypatch, capsys):
    out = project / "out"
    out.mkdir()
    (out / "report.json").write_text(json.dumps({"schema": 1, "verdict": "fail", "suites": []}))
    (out / "notes.txt").write_text("mine")
    assert gate(monkeypatch) == 2
    assert "notes.txt" in capsys.readouterr().err and (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("where", [".", ".."])
def test_the_working_directory_is_never_a_report_directory(project, monkeypatch, capsys, where):
    (project / "out").mkdir()
    assert run_cli(monkeypatch, "run", "-c", "gate.yml", "--no-publish", "-q", "--output-dir", where) == 2
    err = capsys.readouterr().err
    assert "field '--output-dir" in err and "working directory" in err and "Fix:" in err
    assert {p.name for p in project.iterdir()} == {"h.jsonl", "gate.yml", "gate-md.yml", "out"}


def test_shards_and_files_added_later_survive_later_runs(project, monkeypatch):
    out = project / "out"
    (out / "shards").mkdir(parents=True)
    (out / "shards" / "shard-1-of-2.npz").write_bytes(b"shard one")  # `llm-gate run --shard 1/2` wrote it
    assert gate(monkeypatch) == 1
    (out / "notes.txt").write_text("added by hand")
    assert gate(monkeypatch, "--suite", "lenient") == 0
    assert (out / "shards" / "shard-1-of-2.npz").read_bytes() == b"shard one"
    assert (out / "notes.txt").read_text() == "added by hand" and not (out / "strict").exists()


def test_a_symlinked_output_directory_keeps_pointing_at_the_report(project, monkeypatch, capsys):
    (project / "real").mkdir()
    (project / "out").symlink_to("real", target_is_directory=True)
    assert gate(monkeypatch) == 1
    assert gate(monkeypatch, "--suite", "lenient") == 0
    assert (project / "out").is_symlink() and not (project / "real" / "strict").exists()
    assert verdicts(project / "out") == {"publish.json": "pass", "report.json": "pass", "report.md": "pass"}
    printed = capsys.readouterr().out
    assert " to real/ (report.md" in printed and ".tmp-" not in printed  # the final paths, not the staging ones


# `report_directory` killed (SIGKILL) at a given rename of its swap: 1 = old set aside, 0 = before any.
KILLED = """
import os, signal, sys
from pathlib import Path
from gate import io
from gate.io import report_dir
renames, at = [0], int(sys.argv[1])
real = os.rename
def rename(src, dst):
    if renames[0] == at:
        os.kill(os.getpid(), signal.SIGKILL)
    renames[0] += 1
    real(src, dst)
report_dir.os.rename = rename
with io.report_directory(Path("out")) as staging:
    io.write_text_atomic(staging / "report.md", "new")
"""


@pytest.mark.parametrize("renames", [0, 1, 2])
def test_a_run_killed_during_the_swap_loses_neither_report_nor_shards(tmp_path, monkeypatch, renames):
    monkeypatch.chdir(tmp_path)
    with io.report_directory(Path("out")) as staging:
        io.write_text_atomic(staging / "report.md", "old")
    (tmp_path / "out" / "shards").mkdir()
    (tmp_path / "out" / "shards" / "s.npz").write_bytes(b"shard")
    killed = subprocess.run([sys.executable, "-c", KILLED, str(renames)], cwd=tmp_path, env={
        **os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert killed.returncode == -signal.SIGKILL
    time.sleep(0.05)
    with pytest.raises(RuntimeError), io.report_directory(Path("out")):  # the next run recovers, then fails
        raise RuntimeError("the next run fails")
    out = tmp_path / "out"
    assert (out / "report.md").read_text() == ("new" if renames == 2 else "old")
    assert (out / "shards" / "s.npz").read_bytes() == b"shard"
    assert siblings(tmp_path) == []
