"""A commit is recorded in the history once, however many jobs record it at the same time: "already recorded?"
is decided where the line is appended — under the file's lock, and on every compare-and-swap attempt on the
history branch — not from a read made earlier in the run."""

from __future__ import annotations

import json
import multiprocessing

from gate.baselines import flow, history
from gate.baselines.history import Entry
from gate.publish.github import GitHubPublisher, RetryPolicy
from gate.run import read_config
from tests.support.fake_github import REPO

COMMIT = "0123456789abcdef0123456789abcdef01234567"
JOBS = 6
GATE_YML = """version: 1
name: once
suites:
  rubric:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {min: 0}
history: {path: "history/{gate}.jsonl", branch: llm-gate-history}
"""


def entry(second: int, commit: str = COMMIT, gate: str = "once") -> Entry:
    return Entry(schema=1, gate=gate, commit=commit, ref="refs/heads/main", time=f"2026-01-01T00:00:{second:02d}Z",
                 verdict="pass", suites={})


def project(tmp_path):
    (tmp_path / "gate.yml").write_text(GATE_YML)
    (tmp_path / "h.jsonl").write_text("")
    return read_config(tmp_path / "gate.yml")


def _record(root, barrier, notes, job: int) -> None:
    config = read_config(root / "gate.yml")
    known: list[Entry] = []  # what each job read at its start: nobody had recorded the commit yet
    barrier.wait()
    notes.put(flow.record(config, root, entry(job), None, False, known))


def test_concurrent_jobs_recording_one_commit_write_one_line(tmp_path):
    project(tmp_path)
    context = multiprocessing.get_context("fork")
    barrier, notes = context.Barrier(JOBS), context.Queue()
    jobs = [context.Process(target=_record, args=(tmp_path, barrier, notes, n)) for n in range(JOBS)]
    for job in jobs:
        job.start()
    said = [notes.get(timeout=60) for _ in jobs]
    for job in jobs:
        job.join(timeout=60)
        assert job.exitcode == 0
    entries, warnings = history.read(tmp_path / "history" / "once.jsonl")
    assert [e.commit for e in entries] == [COMMIT] and warnings == []
    recorded = [n for n in said if n[0].startswith("history: recorded this run")]
    assert len(recorded) == 1
    assert sum("already recorded; not recorded twice" in n[0] for n in said) == JOBS - 1


def test_the_check_is_per_gate_and_commit(tmp_path):
    path = tmp_path / "h.jsonl"
    assert history.append(path, entry(1))
    assert not history.append(path, entry(2))  # same gate, same commit
    assert history.append(path, entry(3, gate="other"))  # another gate in the same file
    assert history.append(path, entry(4, commit=COMMIT[:-1] + "8"))  # another commit
    assert history.append(path, Entry(**{**entry(5).__dict__, "commit": None}))  # no commit: nothing to match
    assert history.append(path, Entry(**{**entry(6).__dict__, "commit": None}))
    assert len(history.read(path)[0]) == 5


def test_a_job_that_lost_the_race_on_the_history_branch_sees_the_winners_entry(tmp_path, github_api):
    """Our PUT conflicts (409) because another job recorded this commit meanwhile: the retry re-reads and stops."""
    config = project(tmp_path)
    branch, name = "llm-gate-history", "history/once.jsonl"
    github_api.write_file(branch, name, entry(0, commit="f" * 40).to_json().encode() + b"\n")
    github_api.interfere("PUT", rf"/repos/{REPO}/contents/{name}", lambda api: api.write_file(
        branch, name, api.branches[branch][name] + entry(1).to_json().encode() + b"\n"))
    publisher = GitHubPublisher("ghs_oncetoken1234567890", github_api.base_url, REPO,
                                retry=RetryPolicy(attempts=3, sleep=lambda seconds: None))
    notes = flow.record(config, tmp_path, entry(2), publisher, True, [])
    lines = [json.loads(line) for line in github_api.branches[branch][name].splitlines()]
    assert [line["commit"] for line in lines] == ["f" * 40, COMMIT]
    assert lines[1]["time"] == entry(1).time  # the other job's entry, not ours
    assert notes[-1].startswith("history: commit 0123456 is already recorded") and "llm-gate-history" in notes[-1]
