"""History store (issue 10): atomic, concurrent-safe appends; tolerant, honest reads; trends."""

from __future__ import annotations

import fcntl  # noqa: I001
import json
import math
import multiprocessing
import os
import re
import time

import pytest

from gate.baselines import history
from gate.baselines.history import Entry


def report(verdict: str = "pass", f1: float = 0.87, f1_gpt: float = 0.9, f1_llama: float = 0.8) -> dict:
    """A report.json dict of the shape gate/report/json_report.py writes."""
    return {
        "schema": 1, "gate": "support-bot", "verdict": verdict, "generated_at": "2024-05-01T12:00:00+00:00",
        "commit": "0123456789abcdef", "tool": {"name": "llm-quality-gate", "version": "0.1.0"},
        "skipped_reason": None,
        "suites": [{
            "name": "drift", "kind": "drift", "verdict": verdict,
            "fingerprint": {"model": "roberta-large", "layer": 17, "idf": False, "bert_score": "0.3.13"},
            "settings": {"batch_size": 8}, "metrics": {"bertscore_f1": f1, "chrf": float("nan")},
            "groups": [
                {"level": "group", "key": {"exercise": "1", "model": "gpt-4o"}, "n": 3,
                 "metrics": {"bertscore_f1": f1_gpt}, "verdict": "pass"},
                {"level": "group", "key": {"exercise": "1", "model": "llama"}, "n": 3,
                 "metrics": {"bertscore_f1": f1_llama}, "verdict": verdict},
                {"level": "model", "key": {"model": "gpt-4o"}, "n": 3, "metrics": {"bertscore_f1": 0.5}},
            ],
            "checks": [{"metric": "bertscore_f1", "scope": "suite", "key": {}, "op": "min", "fail": 0.8,
                        "warn": 0.85, "value": f1, "verdict": verdict}],
            "unmeasured": [], "unmeasured_policy": "warn", "notes": [],
        }],
    }


def entry(commit: str | None = "0123456789abcdef", **values) -> Entry:
    made = {**report(**values), "commit": commit}  # a run without a commit keeps None
    return Entry.from_report(made, commit=commit, ref="refs/heads/main", time="2024-05-01T12:00:00Z")


# --- round trip -------------------------------------------------------------------------------------------------

def test_round_trip_from_report(tmp_path):
    path = tmp_path / "deep" / "er" / "support-bot.jsonl"  # parents are created
    first, second = entry("aaaaaaa1111", f1=0.8), entry(None, verdict="fail", f1=0.7)
    history.append(path, first)
    history.append(path, second)
    entries, warnings = history.read(path)
    assert warnings == []
    assert [e.verdict for e in entries] == ["pass", "fail"]
    assert entries[0].to_json() == first.to_json()
    assert entries[1].commit is None and entries[1].ref == "refs/heads/main"
    suite = entries[0].suites["drift"]
    assert suite["kind"] == "drift" and suite["verdict"] == "pass"
    assert suite["fingerprint"]["layer"] == 17
    assert suite["metrics"] == {"bertscore_f1": 0.8, "chrf": None}  # NaN became null
    assert suite["groups"][0] == {"level": "group", "key": {"exercise": "1", "model": "gpt-4o"},
                                  "metrics": {"bertscore_f1": 0.9}}
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["schema"] == history.SCHEMA for line in lines)
    assert "NaN" not in path.read_text()


def test_from_report_defaults_to_the_reports_commit_and_time_and_rejects_other_schemas():
    made = Entry.from_report(report(), commit=None, ref=None, time=None)
    assert made.commit == "0123456789abcdef" and made.time == "2024-05-01T12:00:00+00:00"
    assert made.gate == "support-bot" and made.schema == 1
    with pytest.raises(ValueError, match="schema 1"):
        Entry.from_report({**report(), "schema": 2}, commit=None, ref=None, time=None)


# --- concurrency ------------------------------------------------------------------------------------------------

WRITERS, APPENDS = 8, 50


def _payload(writer: int, n: int) -> dict:
    return {f"m{i:04d}": writer * 1000 + n + i / 10000 for i in range(1200)}  # ~20 KB, far past PIPE_BUF


def _writer(path, writer: int, barrier) -> None:
    barrier.wait()
    for n in range(APPENDS):
        suites = {"s": {"kind": "drift", "verdict": "pass", "fingerprint": {}, "metrics": _payload(writer, n),
                        "groups": []}}
        history.append(path, Entry(schema=1, gate=f"w{writer}", commit=f"{writer}-{n}", ref=None,
                                   time="2024-05-01T12:00:00Z", verdict="pass", suites=suites))


def test_concurrent_writers_lose_nothing(tmp_path):
    path = tmp_path / "history.jsonl"
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(WRITERS)
    workers = [context.Process(target=_writer, args=(path, w, barrier)) for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == WRITERS * APPENDS
    assert min(len(line) for line in lines) > 4096 * 4  # each write is far beyond an atomic pipe write
    seen = set()
    for line in lines:
        data = json.loads(line)
        writer, n = map(int, data["commit"].split("-"))
        assert data["gate"] == f"w{writer}"
        assert data["suites"]["s"]["metrics"] == _payload(writer, n)  # intact, not interleaved
        seen.add((writer, n))
    assert seen == {(w, n) for w in range(WRITERS) for n in range(APPENDS)}
    entries, warnings = history.read(path)
    assert len(entries) == WRITERS * APPENDS and warnings == []


def test_append_waits_for_the_files_lock(tmp_path):
    """Other tools that flock the history (e.g. a job pushing it to a branch) are respected."""
    path = tmp_path / "history.jsonl"
    path.write_text("")
    context = multiprocessing.get_context("fork")
    with path.open("rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        worker = context.Process(target=history.append, args=(path, entry()))
        worker.start()
        time.sleep(0.5)
        assert path.read_bytes() == b""  # blocked on the lock
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    worker.join(timeout=30)
    assert worker.exitcode == 0
    assert len(history.read(path)[0]) == 1


# --- torn lines and tolerant reading ----------------------------------------------------------------------------

def test_torn_last_line_is_skipped_and_the_next_append_starts_a_fresh_line(tmp_path):
    path = tmp_path / "history.jsonl"
    history.append(path, entry("1111111aaaa"))
    whole = entry("2222222bbbb").to_json()
    with path.open("a") as stream:
        stream.write(whole[: len(whole) // 2])  # a writer that crashed mid-line
    entries, warnings = history.read(path)
    assert [e.commit for e in entries] == ["1111111aaaa"]
    assert len(warnings) == 1 and f"{path}:2" in warnings[0] and "torn last line" in warnings[0]

    history.append(path, entry("3333333cccc"))
    entries, warnings = history.read(path)
    assert [e.commit for e in entries] == ["1111111aaaa", "3333333cccc"]
    assert len(warnings) == 1 and f"{path}:2" in warnings[0] and "torn last line" not in warnings[0]
    lines = path.read_text().split("\n")
    assert lines[1] == whole[: len(whole) // 2] and json.loads(lines[2])["commit"] == "3333333cccc"


def test_bad_lines_are_skipped_with_warnings_naming_their_lines(tmp_path):
    path = tmp_path / "history.jsonl"
    good = json.loads(entry().to_json())
    no_verdict = {k: v for k, v in good.items() if k != "verdict"}
    lines = [
        json.dumps(good),                         # 1 ok
        "",                                       # 2 blank: silent
        "   ",                                    # 3 blank: silent
        "{not json",                              # 4 garbage
        json.dumps({**good, "schema": 2}),        # 5 newer schema
        json.dumps(no_verdict),                   # 6 missing field
        json.dumps({**good, "suites": []}),       # 7 mistyped field
        json.dumps({**good, "schema": "1"}),      # 8 schema not an integer
        json.dumps([1, 2]),                       # 9 not an object
        json.dumps({**good, "commit": "fedcba9876"}),  # 10 ok
    ]
    path.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe\n")  # 11 not UTF-8
    entries, warnings = history.read(path)
    assert [e.commit for e in entries] == ["0123456789abcdef", "fedcba9876"]
    assert [w.split(f"{path}:")[1].split(":")[0] for w in warnings] == ["4", "5", "6", "7", "8", "9", "11"]
    assert "newer" in warnings[1] and "verdict" in warnings[2] and "suites" in warnings[3]


def test_missing_file_is_an_empty_history(tmp_path):
    path = tmp_path / "nowhere" / "history.jsonl"
    assert history.read(path) == ([], [])
    assert not path.parent.exists()


# --- series -----------------------------------------------------------------------------------------------------

def test_series_by_key_by_group_mean_and_suite_level():
    entries = [entry("aaaaaaa0000", f1=0.8, f1_gpt=0.9, f1_llama=0.7), entry(None, f1=0.82, f1_gpt=1.0, f1_llama=0.8)]
    other = Entry(schema=1, gate="g", commit="bbbbbbb0000", ref=None, time="t", verdict="pass",
                  suites={"stability": {"groups": []}})  # lacks the suite: skipped
    partial = entry("ccccccc0000", f1_gpt=float("nan"), f1_llama=0.6)
    partial = Entry(**{**partial.__dict__, "suites": json.loads(partial.to_json())["suites"]})
    entries = [entries[0], other, entries[1], partial]

    gpt = history.series(entries, "drift", "bertscore_f1", key={"exercise": 1, "model": "gpt-4o"})
    assert gpt == [("aaaaaaa", 0.9), ("2024-05-01T12:00:00Z", 1.0)]  # no commit: the time labels it
    mean = history.series(entries, "drift", "bertscore_f1")
    assert [label for label, _ in mean] == ["aaaaaaa", "2024-05-01T12:00:00Z", "ccccccc"]
    assert [v for _, v in mean] == pytest.approx([0.8, 0.9, 0.6])  # None skipped in the mean
    assert history.series(entries, "drift", "bertscore_f1", level="model") == [
        ("aaaaaaa", 0.5), ("2024-05-01T12:00:00Z", 0.5), ("ccccccc", 0.5)]
    assert [v for _, v in history.series(entries, "drift", "bertscore_f1", level="suite")] == [0.8, 0.82, 0.87]
    assert history.series(entries, "drift", "nope") == []
    assert history.series(entries, "drift", "bertscore_f1", key={"model": "unknown"}) == []

    assert history.last_value(entries, "drift", "bertscore_f1") == pytest.approx(0.6)
    assert history.last_value(entries, "drift", "bertscore_f1", key={"exercise": "1", "model": "gpt-4o"}) == 1.0
    assert history.last_value(entries, "drift", "bertscore_f1", level="suite") == 0.87
    assert history.last_value(entries, "missing", "bertscore_f1") is None
    assert history.last_value([], "drift", "bertscore_f1") is None


# --- rendering --------------------------------------------------------------------------------------------------

def test_mermaid_trend_shape():
    text = history.mermaid_trend("drift: bertscore_f1", [("abc1234", 0.871), ("def5678", 0.86), ("0a1b2c3", 0.9)],
                                 y_label="F1")
    lines = text.splitlines()
    assert lines[0] == "```mermaid" and lines[-1] == "```" and lines[1] == "xychart-beta"
    assert 'title "drift: bertscore_f1"' in text
    assert 'x-axis ["abc1234", "def5678", "0a1b2c3"]' in text
    assert "line [0.871, 0.86, 0.9]" in text
    (axis,) = [line for line in lines if "y-axis" in line]
    low, high = (float(x) for x in axis.split('"F1"')[1].split("-->"))
    assert low < 0.86 and 0.9 < high <= 1.0


def test_mermaid_trend_neutralises_labels_and_needs_two_points():
    text = history.mermaid_trend('a "quoted"\ntitle', [('x"]\n```', 1e-7), ("y;#", 12345678.9)], y_label='y"')
    assert text.count("```") == 2 and text.count("\n") == 6  # no fence or line break smuggled in
    assert 'title "a quoted title"' in text and 'x-axis ["x", "y"]' in text and 'y-axis "y" ' in text
    assert not re.search(r"\de[-+]?\d", text) and "line [0.0000001, 12345679]" in text  # no exponents, 6 digits
    assert history.mermaid_trend("t", [("a", 1.0)]) == ""
    assert history.mermaid_trend("t", []) == ""
    assert history.mermaid_trend("t", [("a", 1.0), ("b", math.nan)]) == ""  # non-finite points dropped
    assert 'y-axis 0 -->' in history.mermaid_trend("t", [("a", 0.0), ("b", 0.0)])  # no label: none written


def test_sparkline():
    assert history.sparkline([0, 1, 2, 3, 4, 5, 6, 7]) == "▁▂▃▄▅▆▇█"
    assert history.sparkline([-5.0, 100.0]) == "▁█"
    assert history.sparkline([3, 3, 3]) == "▄▄▄"
    assert history.sparkline([1.0, math.nan, 2.0]) == "▁ █"
    assert history.sparkline([]) == ""


def test_append_is_one_write_under_an_exclusive_lock(tmp_path, monkeypatch):
    """The mechanism behind the concurrency guarantee: lock, one os.write of the whole line, fsync, unlock."""
    calls = []
    real_write, real_flock, real_fsync = os.write, fcntl.flock, os.fsync
    monkeypatch.setattr(os, "write", lambda fd, data: calls.append(("write", data)) or real_write(fd, data))
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(("fsync",)) or real_fsync(fd))
    monkeypatch.setattr(fcntl, "flock", lambda fd, op: calls.append(("flock", op)) or real_flock(fd, op))
    history.append(tmp_path / "h.jsonl", entry())
    assert [c[0] for c in calls] == ["flock", "write", "fsync", "flock"]
    assert calls[0][1] == fcntl.LOCK_EX and calls[-1][1] == fcntl.LOCK_UN
    assert calls[1][1] == (entry().to_json() + "\n").encode()
