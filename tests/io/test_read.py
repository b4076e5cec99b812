"""The readers of `gate.io` called directly (through the package, whichever module holds them): text with its
encoding problems, JSON documents with positions, JSON/JSONL records, globs. Every problem carries its place.
Writing is tests/io/test_write.py; CSV and XLSX tables tests/io/test_tables.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gate import io
from gate.errors import InputError


def read_one(path: Path, text: str, tables: bool = False):
    path.write_text(text)
    return io.read_records([path], tables=tables)


# ---------------------------------------------------------------- the first cases (from tests/test_io.py)


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


# ---------------------------------------------------------------- text


def test_a_byte_order_mark_is_not_content(in_tmp):
    (in_tmp / "c.jsonl").write_bytes(b'\xef\xbb\xbf{"a": 1}\n')
    assert io.read_text(in_tmp / "c.jsonl") == '{"a": 1}\n'
    found, problems = io.read_records([in_tmp / "c.jsonl"])
    assert [r.data for r in found] == [{"a": 1}] and not problems


def test_text_that_is_not_utf8_names_the_line_and_byte(in_tmp):
    (in_tmp / "c.yml").write_bytes(b"a: 1\nb: 2\nc: caf\xe9\n")
    with pytest.raises(InputError) as caught:
        io.read_text(in_tmp / "c.yml", what="gate config")
    [problem] = caught.value.problems
    assert (problem.file, problem.line, problem.expected, problem.found) == ("c.yml", 3, "UTF-8 text",
                                                                           "invalid byte 0xe9")
    assert caught.value.title == "gate config is not UTF-8" and caught.value.exit_code == 2


def test_a_directory_is_not_a_file(in_tmp):
    (in_tmp / "data").mkdir()
    with pytest.raises(InputError) as caught:
        io.read_text(in_tmp / "data", what="input file")
    [problem] = caught.value.problems
    assert (problem.file, problem.found) == ("data", "a directory") and "dir/*.jsonl" in problem.fix


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_says_so(in_tmp):
    path = in_tmp / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    with pytest.raises(InputError) as caught:
        io.read_text(path)
    assert caught.value.problems[0].found == "permission denied"


def test_paths_are_shown_relative_to_the_working_directory_when_inside_it(in_tmp, tmp_path_factory):
    (in_tmp / "sub").mkdir()
    assert io.display_path(in_tmp / "sub" / "x.json") == str(Path("sub") / "x.json")
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "y.json"
    assert io.display_path(elsewhere) == str(elsewhere)


def test_source_references_and_record_labels():
    assert str(io.SourceRef("a.jsonl", 3)) == "a.jsonl:3" and str(io.SourceRef("a.json")) == "a.json"
    assert io.RawRecord({}, io.SourceRef("a.json"), 0).label == "record 1"


# ---------------------------------------------------------------- JSON documents


def test_line_of_falls_back_to_the_deepest_known_container(in_tmp):
    (in_tmp / "d.json").write_text('{\n "a": [\n  1,\n  {"b": 2}\n ],\n "c": 3\n}')
    document, problems = io.read_json_document(in_tmp / "d.json")
    assert not problems and document.value == {"a": [1, {"b": 2}], "c": 3}
    assert document.line_of() == 1 and document.line_of("a") == 2
    assert document.line_of("a", 1) == 4 and document.line_of("a", 1, "b") == 4  # a scalar: its container
    assert document.line_of("missing", "deeper") == 1


@pytest.mark.parametrize("locate", [True, False])
def test_a_json_syntax_error_has_its_line_and_column(in_tmp, locate):
    (in_tmp / "d.json").write_text('{"a": 1,\n  oops}')
    document, [problem] = io.read_json_document(in_tmp / "d.json", locate=locate)
    assert document is None and (problem.file, problem.line, problem.expected) == ("d.json", 2, "valid JSON")
    assert problem.found.endswith("at column 3")


@pytest.mark.parametrize("content, expected, found", [
    ("  \n\t", "JSON content", "an empty file"),
    ("[" * 5000 + "]" * 5000, "JSON nested less than ~900 levels deep", "deeper nesting"),
    ('{"n": ' + "9" * 5000 + "}", "numbers of ordinary size", "4300 digits"),
])
@pytest.mark.parametrize("locate", [True, False])
def test_documents_that_cannot_be_read_say_why(in_tmp, content, expected, found, locate):
    (in_tmp / "d.json").write_text(content)
    document, [problem] = io.read_json_document(in_tmp / "d.json", locate=locate)
    assert document is None and problem.expected == expected and found in problem.found


@pytest.mark.parametrize("locate", [True, False])
def test_a_lone_surrogate_in_a_document_names_its_field_and_line(in_tmp, locate):
    (in_tmp / "d.json").write_text('{\n "a": ["fine", "\\ud800 half"]\n}')
    _, [problem] = io.read_json_document(in_tmp / "d.json", locate=locate)
    assert (problem.line, problem.field, problem.expected) == (2, "a[1]", "text that is valid Unicode")
    assert problem.found == "a lone surrogate \\ud800 at character 1"


@pytest.mark.parametrize("content", ['\ufeff{"a": [1, 2.5e-3, "x\\u00e9\\ud83d\\ude00"], "b": {"a": null}, "a": true}',
                                     '[{"k": -0.0, "n": 12345678901234567890}]'])
def test_a_document_read_without_locating_is_the_same_value_with_no_lines(in_tmp, content):
    (in_tmp / "d.json").write_text(content, encoding="utf-8")
    located, _ = io.read_json_document(in_tmp / "d.json")
    quick, problems = io.read_json_document(in_tmp / "d.json", locate=False)
    assert not problems and quick.value == located.value and repr(quick.value) == repr(located.value)
    assert quick.lines == {} and located.lines


def test_a_non_finite_number_is_refused_without_locating_too(in_tmp):
    (in_tmp / "d.json").write_text('{\n "a": NaN}')
    document, [problem] = io.read_json_document(in_tmp / "d.json", locate=False)
    assert document is None and problem.line == 2


def test_a_missing_document_is_a_problem_not_an_exception(in_tmp):
    document, [problem] = io.read_json_document(in_tmp / "none.json")
    assert document is None and (problem.file, problem.found) == ("none.json", "no such file")


# ---------------------------------------------------------------- records


@pytest.mark.parametrize("name", ["c.ndjson", "c.JSONL"])
def test_ndjson_and_upper_case_suffixes_are_json_lines(in_tmp, name):
    found, problems = read_one(in_tmp / name, '{"a": 1}\n{"a": 2}\n')
    assert [(r.data["a"], r.source.line) for r in found] == [(1, 1), (2, 2)] and not problems


def test_json_lines_index_only_the_records_they_keep(in_tmp):
    found, problems = read_one(in_tmp / "c.jsonl", '{"a": 1}\nnot json\n\n{"a": 2}\n')
    assert [(r.index, r.label, r.source.line) for r in found] == [(0, "record 1", 1), (1, "record 2", 4)]
    assert [p.line for p in problems] == [2]


@pytest.mark.parametrize("text", ["", "\n  \n\n"])
def test_json_lines_without_a_record_are_an_empty_file(in_tmp, text):
    found, [problem] = read_one(in_tmp / "c.jsonl", text)
    assert found == [] and (problem.expected, problem.found) == ("at least one record", "an empty file")


def test_json_lines_with_only_bad_lines_are_not_also_called_empty(in_tmp):
    found, problems = read_one(in_tmp / "c.jsonl", '"text"\n')
    assert found == [] and [(p.line, p.found) for p in problems] == [(1, "a JSON str")]


def test_unusual_json_lines_are_problems_on_their_line(in_tmp):
    text = '{"a": "\\udc00"}\n' + "[" * 5000 + "]" * 5000 + '\n{"n": ' + "9" * 5000 + '}\n{"a": NaN}\n{"ok": 1}\n'
    found, problems = read_one(in_tmp / "c.jsonl", text)
    assert [r.source.line for r in found] == [5]
    assert [(p.line, p.field) for p in problems] == [(1, "a"), (2, None), (3, None), (4, None)]
    assert problems[0].found == "a lone surrogate \\udc00 at character 1"
    assert problems[1].found == "nesting too deep" and "4300 digits" in problems[2].found
    assert problems[3].expected.startswith("finite numbers") and problems[3].found == "NaN"


def test_a_json_array_keeps_each_records_position_in_the_array(in_tmp):
    found, [problem] = read_one(in_tmp / "c.json", '[\n  {"a": 1},\n  null,\n  {"a": 2}\n]')
    assert [(r.index, r.source.line) for r in found] == [(0, 2), (2, 4)]
    assert (problem.line, problem.record, problem.found) == (3, "record 2", "a JSON NoneType")


def test_a_scalar_json_file_is_one_record_that_is_not_an_object(in_tmp):
    found, [problem] = read_one(in_tmp / "c.json", "42")
    assert found == [] and (problem.file, problem.record, problem.found) == ("c.json", "record 1", "a JSON int")


def test_records_from_several_files_keep_file_order_and_every_problem(in_tmp):
    (in_tmp / "a.jsonl").write_text('{"f": "a"}\n[]\n')
    (in_tmp / "b.json").write_text('[{"f": "b"}]')
    (in_tmp / "c.json").write_text("")
    found, problems = io.read_records([in_tmp / "b.json", in_tmp / "a.jsonl", in_tmp / "c.json",
                                       in_tmp / "missing.jsonl"])
    assert [(r.data["f"], r.source.file) for r in found] == [("b", "b.json"), ("a", "a.jsonl")]
    assert [(p.file, p.line) for p in problems] == [("a.jsonl", 2), ("c.json", None), ("missing.jsonl", None)]
    assert io.read_records([]) == ([], [])


def test_records_are_json_objects_not_table_rows_unless_asked(in_tmp):
    found, _ = read_one(in_tmp / "c.jsonl", '{"a": 1}\n', tables=True)
    assert found[0].from_table is False


# ---------------------------------------------------------------- globs


def test_globs_are_sorted_unique_files_in_pattern_order(in_tmp):
    for name in ("b.json", "a.json", "sub/c.json", "sub/deep/d.json"):
        (in_tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (in_tmp / name).write_text("{}")
    (in_tmp / "dir.json").mkdir()  # a directory never matches
    paths, problems = io.expand_globs(["sub/**/*.json", "*.json", "sub/c.json"], in_tmp, "suites.x.records")
    assert not problems
    assert [p.relative_to(in_tmp).as_posix() for p in paths] == ["sub/c.json", "sub/deep/d.json", "a.json",
                                                                 "b.json"]


def test_an_absolute_pattern_inside_the_workspace_is_fine(in_tmp):
    (in_tmp / "a.json").write_text("{}")
    paths, problems = io.expand_globs([str(in_tmp / "*.json")], in_tmp, "f")
    assert paths == [in_tmp / "a.json"] and not problems


def test_no_patterns_match_nothing_without_a_problem(in_tmp):
    assert io.expand_globs([], in_tmp, "f") == ([], [])


def test_a_pattern_leaving_the_workspace_is_a_problem_and_lists_nothing(tmp_path, monkeypatch):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.json").write_text("{}")
    monkeypatch.chdir(workspace)
    paths, [problem] = io.expand_globs(["../outside/*.json"], workspace, "suites.x.records")
    assert paths == [] and problem.field == "suites.x.records" and "outside it" in problem.found


def test_a_symlink_out_of_the_workspace_is_a_problem(tmp_path, monkeypatch):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.json").write_text("{}")
    (workspace / "fine.json").write_text("{}")
    (workspace / "link.json").symlink_to(outside / "secret.json")
    monkeypatch.chdir(workspace)
    paths, [problem] = io.expand_globs(["*.json"], workspace, "f")
    assert paths == [] and "link.json" in problem.found and str(outside / "secret.json") in problem.found


# ---------------------------------------------------------------- cache files


def test_a_cache_file_that_is_missing_or_corrupt_reads_as_none(in_tmp):
    assert io.read_json_quiet(in_tmp / "none.json") is None
    (in_tmp / "bad.json").write_text("{not json")
    assert io.read_json_quiet(in_tmp / "bad.json") is None
    (in_tmp / "bad.bin").write_bytes(b"\xff\xfe")
    assert io.read_json_quiet(in_tmp / "bad.bin") is None
    (in_tmp / "ok.json").write_text('{"a": [1]}')
    assert io.read_json_quiet(in_tmp / "ok.json") == {"a": [1]}


# ---------------------------------------------------------------- JSONL read by orjson, refused lines by json


@pytest.mark.parametrize("line, value", [
    ('{"id": 123456789012345678901234567890}', 123456789012345678901234567890),  # orjson: a float
    ('{"id": -9223372036854775809}', -9223372036854775809),
    ('{"id": 18446744073709551616}', 18446744073709551616),
    ('{"id": 1e400}', float("inf")),  # orjson refuses it; json reads inf (validators refuse it later)
    ('{"id": "\\ud83d\\ude00"}', "\U0001F600"),
    ('{"id": 1, "id": 2}', 2),
])
def test_a_json_line_reads_as_the_standard_library_reads_it(in_tmp, line, value):
    records, problems = read_one(in_tmp / "r.jsonl", line + "\n")
    assert problems == [] and records[0].data["id"] == value and type(records[0].data["id"]) is type(value)


def test_json_lines_read_exactly_as_the_standard_library_reads_them(in_tmp):
    """The fast parser against `json.loads` on generated records: the same values, the same types."""
    import json
    import random

    rng = random.Random(7)
    rows = []
    for n in range(300):
        floats = [rng.choice([rng.random(), -rng.expovariate(6.0), rng.uniform(-1e6, 1e6),
                              rng.random() * 10.0 ** rng.randint(-320, 300)]) for _ in range(20)]
        rows.append({"n": n, "big": rng.randint(0, 10 ** rng.randint(1, 30)) * rng.choice([1, -1]),
                     "f": floats, "text": "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(12)),
                     "nested": {"ok": rng.random() < 0.5, "none": None, "list": [[], {}, [1.5e-300]]}})
    text = "\n".join(json.dumps(row, ensure_ascii=rng.random() < 0.5) for row in rows) + "\n"
    records, problems = read_one(in_tmp / "r.jsonl", text)
    assert problems == []
    expected = [json.loads(line) for line in text.split("\n") if line]
    assert [r.data for r in records] == expected
    assert [repr(r.data) for r in records] == [repr(e) for e in expected]  # types too: 1 is not 1.0


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_json_line_may_hold_unicode_line_separators_inside_a_string(in_tmp, separator):
    """Only \\n, \\r\\n and \\r end a JSONL line: a model's output may hold U+2028, U+2029 or U+0085 raw."""
    text = '{"a": "one' + separator + 'two"}\r\n{"a": "three"}\r{"a": "four"}\n'
    records, problems = read_one(in_tmp / "r.jsonl", text)
    assert problems == []
    assert [(r.data["a"], r.source.line) for r in records] == [(f"one{separator}two", 1), ("three", 2), ("four", 3)]
