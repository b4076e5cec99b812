"""Files a root run writes belong to the workspace's owner (GitHub runs Docker actions as root; issue 32, item 3).
Needs root to create root-owned files and to chown: skipped, with the reason, elsewhere."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gate.io.ownership import hand_back, handed_back
from tests.test_cli import run_cli

pytestmark = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="only root can create root-owned files and hand them to another uid")
RUNNER = 1001  # the runner user's uid on GitHub-hosted runners


def owners(root: Path) -> dict[str, int]:
    found = {}
    for directory, names, files in os.walk(root):
        for name in (*names, *files):
            path = Path(directory, name)
            found[str(path.relative_to(root))] = path.lstat().st_uid
    return found


def test_a_root_run_leaves_every_file_it_wrote_to_the_workspaces_owner(tmp_path, monkeypatch):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    records = [{"model": "m", "category": "coding", "prompt_id": "P01", "response": "def f(x):\n    return x\n"}]
    (workspace / "h.jsonl").write_text(json.dumps(records[0]) + "\n")
    (workspace / "gate.yml").write_text("version: 1\nname: g\nsuites:\n  r:\n    kind: heuristic\n"
                                        "    records: h.jsonl\n    checks:\n      final_score_mean: {min: 0}\n")
    os.chown(workspace, RUNNER, RUNNER)
    (workspace / ".gate-cache").mkdir()  # restored by actions/cache as the runner: kept, and what root adds in it
    os.chown(workspace / ".gate-cache", RUNNER, RUNNER)
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    assert run_cli(monkeypatch, "run", "--no-publish", "-q") == 0
    written = owners(workspace / "gate-report")
    assert written and set(written.values()) == {RUNNER}, written
    assert (workspace / "gate-report").stat().st_uid == RUNNER
    assert (workspace / "h.jsonl").stat().st_uid == 0  # what the gate did not write stays as it was


def test_a_link_is_handed_back_not_followed(tmp_path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.write_text("root's own file")
    os.chown(workspace, RUNNER, RUNNER)
    (workspace / "out").mkdir()
    (workspace / "out" / "link").symlink_to(outside)
    assert hand_back(workspace, lambda: [workspace / "out"], since=0.0) == 2
    assert outside.stat().st_uid == 0 and (workspace / "out" / "link").lstat().st_uid == RUNNER


def test_nothing_changes_hands_when_the_workspace_is_roots(tmp_path):
    (tmp_path / "out").mkdir()
    assert hand_back(tmp_path, lambda: [tmp_path / "out"], since=0.0) == 0


def test_what_is_written_is_handed_back_when_this_process_clock_runs_ahead_of_the_file_systems(tmp_path, monkeypatch):
    # An NFS server or a VM host's shared folder stamps ctimes with its own clock: here the process is a day ahead.
    # Read from the process's clock, `since` lay after every ctime the run made, and nothing was handed back.
    workspace = tmp_path / "ws"
    (workspace / "out").mkdir(parents=True)
    os.chown(workspace, RUNNER, RUNNER)
    ahead = time.time() + 86_400
    monkeypatch.setattr(time, "time", lambda: ahead)
    with handed_back(workspace, lambda: [workspace / "out"]):
        (workspace / "out" / "report.json").write_text("{}")
    assert owners(workspace / "out") == {"report.json": RUNNER}
    assert sorted(p.name for p in workspace.iterdir()) == ["out"]  # the clock's probe file is gone
