"""File reading collects every problem with its place; writing is atomic."""

from __future__ import annotations

import os

import pytest

from gate import io
from gate.errors import InputError


def test_jsonl_problems_are_all_reported_with_lines(in_tmp):
    (in_tmp / "c.jsonl").write_text('{"a": 1}\n\n{"a": 2,}\n[1]\n{"a": Infinity}\n{"a": 3}\n')
    records, problems = io.read_records([in_tmp / "c.jsonl"])
    assert [r.data["a"] for r in records] == [1, 3]
    assert [r.source.line for r in records] == [1, 6]
    assert [(p.file, p.line) for p in problems] == [("c.jsonl", 3), ("c.jsonl", 4), ("c.jsonl", 5)]
    assert "one JSON object per line" in problems[0].expected
    assert "a JSON list" in problems[1].found
    assert "Infinity" in problems[2].found


def test_json_array_records_carry_their_lines(in_tmp):
    (in_tmp / "c.json").write_text('[\n  {"a": 1},\n  {"a": 2},\n  "oops"\n]\n')
    records, problems = io.read_records([in_tmp / "c.json"])
    assert [r.source.line for r in records] == [2, 3]
    assert problems[0].line == 4 and problems[0].record == "record 3"


def test_single_json_object_is_one_record(in_tmp):
    (in_tmp / "c.json").write_text('{"a": 1}')
    records, problems = io.read_records([in_tmp / "c.json"])
    assert len(records) == 1 and not problems


@pytest.mark.parametrize("content, expected", [
    (b"", "empty file"),
    (b"[]", "empty array"),
    (b'{"a": "\xff"}', "invalid byte 0xff"),
])
def test_empty_and_undecodable_files(in_tmp, content, expected):
    (in_tmp / "c.json").write_bytes(content)
    _, problems = io.read_records([in_tmp / "c.json"])
    assert expected in problems[0].found


def test_globs_report_patterns_matching_nothing(in_tmp):
    (in_tmp / "a.json").write_text("{}")
    (in_tmp / "b.json").write_text("{}")
    paths, problems = io.expand_globs(["*.json", "a.json", "missing/*.jsonl"], in_tmp, "suites.x.candidates")
    assert [p.name for p in paths] == ["a.json", "b.json"]
    assert problems[0].field == "suites.x.candidates" and "'missing/*.jsonl' matched nothing" in problems[0].found


def test_read_text_missing_file(in_tmp):
    with pytest.raises(InputError) as caught:
        io.read_text(in_tmp / "none.yml", what="gate config")
    assert caught.value.problems[0].file == "none.yml"


def test_atomic_write_replaces_whole_file_and_cleans_up_on_failure(in_tmp, monkeypatch):
    target = in_tmp / "out" / "report.json"
    io.write_json_atomic(target, {"verdict": "pass", "x": float("nan")})
    assert target.read_text() == '{\n  "verdict": "pass",\n  "x": null\n}\n'

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        io.write_text_atomic(target, "half")
    assert target.read_text().startswith('{\n  "verdict"')  # the old file is intact
    assert os.listdir(target.parent) == ["report.json"]  # no temporary left behind


def test_csv_writes_full_precision_and_blanks_for_unmeasured(in_tmp):
    io.write_csv_atomic(in_tmp / "items.csv", ["a", "b", "c"], [[0.1 + 0.2, None, True]])
    assert (in_tmp / "items.csv").read_text() == "a,b,c\n0.30000000000000004,,true\n"
