"""Hostile input sizes and kinds (issue 31, item 7): a FIFO where a file is expected never blocks a read, a line,
a file or a document past its limit is one located problem (exit 2), and JSON Lines are streamed, so that reading
holds the records and one line, never the whole text. The limits are lowered here (`gate.io.limits`); the real
sizes are `benchmarks/hostile_inputs.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from gate import io
from gate.errors import InputError
from gate.io import limits

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def in_child(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` in a child with a timeout: a read that blocks would hang the test run itself."""
    try:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=30,
                              cwd=cwd, check=False, env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    except subprocess.TimeoutExpired:
        pytest.fail("the read blocked on the FIFO")


@needs_fifo
def test_a_fifo_as_an_input_file_or_gate_yml_is_a_problem_not_a_hang(tmp_path: Path):
    os.mkfifo(tmp_path / "records.jsonl")
    os.mkfifo(tmp_path / "gate.yml")
    code = ("import json; from pathlib import Path; from gate import io; from gate.errors import InputError\n"
            "for name in ('records.jsonl', 'records.csv', 'records.xlsx', 'records.json'):\n"
            "    if name != 'records.jsonl': Path(name).unlink(missing_ok=True); __import__('os').mkfifo(name)\n"
            "    _, problems = io.read_records([Path(name)], tables=True)\n"
            "    print(json.dumps([name, problems[0].found]))\n"
            "try: io.read_text(Path('gate.yml'), 'gate config')\n"
            "except InputError as exc: print(json.dumps(['gate.yml', exc.problems[0].found]))\n")
    done = in_child(code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = [json.loads(line) for line in done.stdout.splitlines()]
    assert found == [[name, "a FIFO (named pipe)"] for name in
                     ("records.jsonl", "records.csv", "records.xlsx", "records.json", "gate.yml")]


@needs_fifo
def test_a_fifo_in_the_cache_is_a_miss(tmp_path: Path):
    os.mkfifo(tmp_path / "entry")
    done = in_child("import sys; from pathlib import Path; from gate.io import blobs; "
                    "p = Path(sys.argv[1]); print(blobs.read_blob(p), blobs.open_reader(p))", str(tmp_path / "entry"),
                    cwd=tmp_path)
    assert (done.returncode, done.stdout.split()) == (0, ["None", "None"]), done.stderr


@needs_fifo
def test_a_fifo_as_the_history_file_raises_at_once(tmp_path: Path):
    os.mkfifo(tmp_path / "history.jsonl")
    done = in_child("import sys; from pathlib import Path; from gate import io\n"
                    "try: io.read_bytes_or_empty(Path(sys.argv[1]))\n"
                    "except OSError as exc: print(type(exc).__name__)", str(tmp_path / "history.jsonl"), cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "NotRegular"), done.stderr


@needs_fifo
def test_a_fifo_as_a_binary_store_raises_at_once(tmp_path: Path):
    os.mkfifo(tmp_path / "shard.npz")
    done = in_child("import sys; from pathlib import Path; from gate import io\n"
                    "try: io.read_binary(Path(sys.argv[1]), lambda stream: stream.read())\n"
                    "except OSError as exc: print(type(exc).__name__)", str(tmp_path / "shard.npz"), cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "NotRegular"), done.stderr


def test_a_line_past_the_record_limit_is_a_problem_on_its_line(in_tmp, monkeypatch):
    monkeypatch.setattr(limits, "RECORD_BYTES", 1024)
    long = json.dumps({"a": "x" * 2000})
    (in_tmp / "r.jsonl").write_text('{"a": 1}\n' + long + "\r\n" + '{"a": 2}\r' + long + '\n{"a": 3}')
    records, problems = io.read_records([in_tmp / "r.jsonl"])
    assert [(r.data["a"], r.source.line) for r in records] == [(1, 1), (2, 3), (3, 5)]
    assert [(p.file, p.line) for p in problems] == [("r.jsonl", 2), ("r.jsonl", 4)]
    assert "at most 1 KiB a line" in problems[0].expected and problems[0].fix


def test_a_long_line_is_never_held_whole(in_tmp, monkeypatch):
    """24 MB on one line against a 1 MiB limit: read in chunks and dropped, not held (the old reader held the
    file's text and its lines: ~3x the file)."""
    monkeypatch.setattr(limits, "RECORD_BYTES", 1 << 20)
    with (in_tmp / "r.jsonl").open("w") as out:
        out.write('{"a": "')
        for _ in range(24):
            out.write("x" * (1 << 20))
        out.write('"}\n{"a": 1}\n')
    tracemalloc.start()
    try:
        records, problems = io.read_records([in_tmp / "r.jsonl"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(r.data, r.source.line) for r in records] == [({"a": 1}, 2)] and [p.line for p in problems] == [1]
    assert peak < 6 << 20, peak


def test_reading_json_lines_holds_the_records_not_the_text(in_tmp):
    """What reading costs beyond the records it returns stays about one chunk, whatever the file's size."""
    line = '{"model": "m", "category": "coding", "prompt_id": "P01", "response": "%s"}\n'
    (in_tmp / "r.jsonl").write_text("".join(line % i for i in range(60_000)))
    size = (in_tmp / "r.jsonl").stat().st_size
    tracemalloc.start()
    try:
        records, problems = io.read_records([in_tmp / "r.jsonl"])
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(records) == 60_000 and not problems
    assert peak - kept < 4 << 20, (size, peak - kept)  # the old reader: the text and its lines, ~2.5x the file


@pytest.mark.parametrize("name", ["r.jsonl", "r.csv", "r.json"])
def test_a_file_past_its_limit_is_one_problem(in_tmp, monkeypatch, name):
    monkeypatch.setattr(limits, "FILE_BYTES", 4096)
    monkeypatch.setattr(limits, "DOCUMENT_BYTES", 4096)
    rows = [{"a": i, "b": "text"} for i in range(1000)]
    text = {"r.jsonl": "".join(json.dumps(r) + "\n" for r in rows), "r.json": json.dumps(rows),
            "r.csv": "a,b\n" + "".join(f"{r['a']},{r['b']}\n" for r in rows)}[name]
    (in_tmp / name).write_text(text)
    records, [problem] = io.read_records([in_tmp / name], tables=True)
    assert records == [] and (problem.file, problem.line) == (name, None)
    assert problem.expected.startswith("at most 4 KiB in one") and "split it" in (problem.fix or "")


def test_a_workbook_that_inflates_past_the_limit_is_one_problem(in_tmp, monkeypatch):
    """A small zip whose sheet inflates to many times its size (a zip bomb) is refused from its directory."""
    monkeypatch.setattr(limits, "FILE_BYTES", 1 << 20)
    with zipfile.ZipFile(in_tmp / "r.xlsx", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", "<row/>" * (1 << 20))
    assert (in_tmp / "r.xlsx").stat().st_size < 100_000
    records, [problem] = io.read_records([in_tmp / "r.xlsx"], tables=True)
    assert records == [] and problem.file == "r.xlsx" and "1 MiB in one workbook" in problem.expected


def test_a_json_document_past_its_limit_is_refused_before_parsing(in_tmp, monkeypatch):
    monkeypatch.setattr(limits, "DOCUMENT_BYTES", 1 << 20)
    (in_tmp / "d.json").write_text(json.dumps([{"a": "x" * 1000}] * 2000))
    document, [problem] = io.read_json_document(in_tmp / "d.json")
    assert document is None and problem.file == "d.json" and "1 MiB in one JSON file" in problem.expected
    with pytest.raises(InputError) as caught:
        io.read_text(in_tmp / "d.json", "rubric", limit=1000)
    assert "1000 bytes in one rubric" in caught.value.problems[0].expected


@pytest.mark.parametrize("text", ['{"a": 1}\r\n{"a": 2}\r{"a": 3}\n\n{"a": 4}', '\ufeff{"a": 1}\r\r\n{"a": 2}\r'])
def test_streamed_lines_break_and_number_as_before(in_tmp, monkeypatch, text):
    """Lines split at \\n, \\r\\n and \\r, numbered as the whole-text reader numbered them, also where a break
    falls on a chunk's edge."""
    expected = [(json.loads(line), number) for number, line in
                enumerate(text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1)
                if line]
    for chunk in (1, 2, 3, 7, 1 << 20):
        monkeypatch.setattr("gate.io.jsonl._CHUNK", chunk)
        (in_tmp / "r.jsonl").write_text(text, newline="")
        records, problems = io.read_records([in_tmp / "r.jsonl"])
        assert [(r.data, r.source.line) for r in records] == expected and not problems, chunk


def test_an_undecodable_line_is_reported_at_its_line_alone(in_tmp):
    (in_tmp / "r.jsonl").write_bytes(b'{"a": 1}\nnot json\n{"a": "\xff"}\n')
    records, [problem] = io.read_records([in_tmp / "r.jsonl"])
    assert records == [] and (problem.line, problem.found) == (3, "invalid byte 0xff")
