"""Crashes while writing: a report file is the old one or the whole new one, never half of either, and no
temporary file is left; a history append torn by a crash loses no other line.

The crash is injected where it would happen: the data write, the fsync, the rename — and a real SIGKILL of a
process in the middle of writing large files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gate import io
from gate.baselines import history
from gate.errors.interrupt import Interrupted
from gate.io import write as io_write
from tests.conftest import REPO

OLD = "the complete old report\n" * 100


class Crash(Exception):
    pass


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def report(tmp_path) -> Path:
    path = tmp_path / "report.md"
    path.write_text(OLD)
    return path


def test_a_rename_that_fails_keeps_the_old_file(report, monkeypatch):
    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io_write.os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        io.write_text_atomic(report, "new " * 10_000)
    assert report.read_text() == OLD and leftovers(report.parent) == []


@pytest.mark.parametrize("error", [Crash("disk vanished"), Interrupted(signal.SIGTERM), KeyboardInterrupt()])
def test_a_write_that_dies_halfway_keeps_the_old_file(report, monkeypatch, error):
    real_fdopen = os.fdopen

    def half_then_die(*args, **kwargs):
        stream = real_fdopen(*args, **kwargs)
        real_write = stream.write

        def write(text):
            real_write(text[: len(text) // 2])
            stream.flush()  # half of the new content really is on disk, in the temporary file
            raise error
        stream.write = write
        return stream

    monkeypatch.setattr(io_write.os, "fdopen", half_then_die)
    with pytest.raises(type(error)):
        io.write_json_atomic(report, {"verdict": "pass", "padding": "x" * 50_000})
    assert report.read_text() == OLD and leftovers(report.parent) == []


def test_a_failed_fsync_keeps_the_old_file(report, monkeypatch):
    def fail(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(io_write.os, "fsync", fail)
    with pytest.raises(OSError):
        io.write_csv_atomic(report, ["a"], [[1.0]] * 1000)
    assert report.read_text() == OLD and leftovers(report.parent) == []


def test_a_workbook_that_fails_to_save_keeps_the_old_file(tmp_path, monkeypatch):
    from gate.io import xlsx

    path = tmp_path / "records.xlsx"
    io.write_xlsx_atomic(path, {"old": (["a"], [[1]])})
    before = path.read_bytes()

    def fail(target, sheets):  # the temporary file's stream: half a zip is in it when the save dies
        target.write(b"PK\x03\x04 half a zip")
        raise Crash("killed while zipping")

    monkeypatch.setattr(xlsx, "write_workbook", fail)
    with pytest.raises(Crash):
        io.write_xlsx_atomic(path, {"new": (["b"], [[2]] * 100)})
    assert path.read_bytes() == before and leftovers(tmp_path) == []


WRITER = """
import sys
from pathlib import Path
from gate import io
path, n = Path(sys.argv[1]), int(sys.argv[2])
contents = [chr(ord("a") + i) * n for i in range(4)]
print("writing", flush=True)
i = 0
while True:
    io.write_text_atomic(path, contents[i % 4])
    i += 1
"""


def test_a_process_killed_mid_write_leaves_a_whole_file(tmp_path):
    """SIGKILL, which nothing can catch, at a random point of a stream of 8 MB rewrites."""
    path, size = tmp_path / "report.json", 8_000_000
    io.write_text_atomic(path, "a" * size)
    for delay in (0.3, 0.55, 0.8):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(size)], cwd=REPO,
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline() == "writing\n"
        time.sleep(delay)
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        text = path.read_text()
        assert len(text) == size and text == text[0] * size  # one whole version, never a mix or a prefix
        for temporary in tmp_path.glob(".report.json.*.tmp"):  # what a killed writer cannot clean up
            temporary.unlink()


def entry(n: int) -> history.Entry:
    return history.Entry(schema=1, gate="g", commit=f"{n:040x}", ref="refs/heads/main",
                         time=f"2026-01-0{n}T00:00:00+00:00", verdict="pass", suites={})


def test_a_history_append_torn_by_a_crash_loses_no_other_line(tmp_path, monkeypatch):
    path = tmp_path / "history.jsonl"
    history.append(path, entry(1))
    real_write = os.write

    def torn(fd, data):
        real_write(fd, data[: len(data) // 2])
        raise Interrupted(signal.SIGTERM)

    monkeypatch.setattr(os, "write", torn)
    with pytest.raises(Interrupted):
        history.append(path, entry(2))
    monkeypatch.setattr(os, "write", real_write)
    history.append(path, entry(3))  # the next run starts a fresh line after the fragment
    entries, warnings = history.read(path)
    assert [e.commit for e in entries] == [f"{1:040x}", f"{3:040x}"]
    assert len(warnings) == 1 and ":2" in warnings[0]  # the torn line is skipped, and said so
