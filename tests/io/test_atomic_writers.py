"""One atomic writer (`gate.io.write.write_stream_atomic`) under every whole-file write: the reports, the shards'
model-work files, the model-output cache and the LLM grader's cache all get the same temporary file, the same
permissions (those of a plain `open(path, "w")`) and the fsync their durability calls for.

Crashes in the middle of a write are tests/faults/test_atomic_writes.py.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gate import io
from gate.config import GraderConfig
from gate.io import blobs
from gate.io import write as io_write
from gate.kinds.rag.grader import GraderItem
from gate.kinds.rag.grader_client import run_grader
from gate.runtime.work.plan import Shard
from gate.runtime.work.store import ResultStore


def write_report(path: Path, httpserver) -> Path:
    io.write_text_atomic(path, "# report\n")
    return path


def write_model_work(path: Path, httpserver) -> Path:
    return ResultStore("digest", 1, 1, Shard(1, 1), (0,), (), {"device": "cpu"}).save(path)


def write_cache_entry(path: Path, httpserver) -> Path:
    blobs.write_blob(path, b"entry")
    return path


def write_grader_cache(path: Path, httpserver) -> Path:
    """Through the public client, against a loopback endpoint: the cache file is the one file it writes."""
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(
        {"choices": [{"message": {"role": "assistant", "content": "0.8"}}], "usage": {"total_tokens": 5}})
    config = GraderConfig(enabled=True, base_url=httpserver.url_for("/v1"), model="grader", max_retries=0)
    item = GraderItem("q1", "accuracy", "question?", "context", "answer", "expected")
    run_grader(config, "sk-test", [item], cache_dir=path.parent, sleep=lambda seconds: None)
    (written,) = [p for p in path.parent.iterdir() if p.suffix == ".json"]
    return written


WRITERS: dict[str, Callable[[Path, object], Path]] = {
    "report": write_report, "model work": write_model_work, "model cache": write_cache_entry,
    "grader cache": write_grader_cache,
}
DURABLE = {"report": True, "model work": True, "model cache": False, "grader cache": False}


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


@pytest.fixture
def events(monkeypatch) -> list[str]:
    """What the writer does, in order: temporary files created, fsyncs, renames."""
    seen: list[str] = []
    real_create, real_fsync, real_replace = io_write._create_temporary, os.fsync, os.replace

    def create(path):
        seen.append("create")
        return real_create(path)

    def fsync(fd):
        seen.append("fsync directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        return real_fsync(fd)

    def replace(source, target):
        seen.append("rename")
        return real_replace(source, target)

    monkeypatch.setattr(io_write, "_create_temporary", create)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return seen


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_new_file_gets_the_mode_open_would_give_it_whoever_writes_it(writer, tmp_path, umask_027, httpserver,
                                                                          events):
    written = WRITERS[writer](tmp_path / "out" / "file.bin", httpserver)
    assert mode(written) == 0o666 & ~0o027 == 0o640  # not mkstemp's 0o600, not a fixed 0o644
    assert events.count("create") == 1 and events.count("rename") == 1  # through the one writer
    assert [p.name for p in written.parent.iterdir() if io_write.is_temporary(p.name)] == []


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_replaced_file_keeps_its_mode(writer, tmp_path, httpserver):
    first = WRITERS[writer](tmp_path / "out" / "file.bin", httpserver)
    first.chmod(0o600)  # a user made it private
    second = WRITERS[writer](first, httpserver)
    assert second == first and mode(second) == 0o600


@pytest.mark.parametrize("writer", list(WRITERS))
def test_durable_files_are_fsynced_before_the_rename_and_their_directory_after_it(writer, tmp_path, httpserver,
                                                                                   events):
    WRITERS[writer](tmp_path / "out" / "file.bin", httpserver)
    if DURABLE[writer]:
        assert events == ["create", "fsync file", "rename", "fsync directory"]
    else:  # caches: every entry is verified when read, a lost one is recomputed; no fsync per entry
        assert events == ["create", "rename"]


def test_a_temporary_file_of_a_killed_writer_is_cleared_from_the_model_cache(tmp_path):
    entry = tmp_path / "ab" / "ab12"
    blobs.write_blob(entry, b"entry")
    orphans = [tmp_path / "ab" / ".ab12.0123abcd.tmp", tmp_path / "ab" / ".tmp-x1y2z3"]  # today's and the old naming
    old = time.time() - blobs.STALE_TEMP_SECONDS - 60
    for orphan in orphans:
        orphan.write_bytes(b"half an entry")
        os.utime(orphan, (old, old))
    assert [f.path for f in blobs.walk(tmp_path)] == [entry]
    assert not any(orphan.exists() for orphan in orphans)


def test_files_staged_for_a_report_directory_are_not_fsynced_one_by_one(tmp_path, events):
    """The report set becomes visible by its directory swap; an fsync per file (two each) cost a tenth of a fully
    cached run. Only the swap's directory syncs remain — and outside the staging, writes are durable again."""
    from gate import io

    with io.report_directory(tmp_path / "report") as staging:
        for name in ("report.md", "report.json", "a/items.csv"):
            io.write_text_atomic(staging / name, "x")
    assert events.count("fsync file") == 1 and events.count("rename") >= 3  # 1: the marker, written at the swap
    assert (tmp_path / "report" / "a" / "items.csv").read_text() == "x"
    events.clear()
    io.write_text_atomic(tmp_path / "elsewhere.md", "y")
    assert events == ["create", "fsync file", "rename", "fsync directory"]
