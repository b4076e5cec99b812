"""CSV and XLSX inputs: a header row, one record per row, every problem with its row number."""

from __future__ import annotations

import pytest

from gate import io


def test_csv_rows_become_records_with_their_lines(in_tmp):
    (in_tmp / "r.csv").write_text('model,task,response,token_logprobs\n'
                                  'm,qa,"B, because ""heat"" evaporates water",[-0.1]\n'
                                  '\n'
                                  'm,qa,"multi\nline",\n')
    records, problems = io.read_records([in_tmp / "r.csv"], tables=True)
    assert not problems
    assert records[0].data == {"model": "m", "task": "qa", "response": 'B, because "heat" evaporates water',
                               "token_logprobs": "[-0.1]"}
    assert records[0].source == io.SourceRef("r.csv", 2)
    assert records[1].data == {"model": "m", "task": "qa", "response": "multi\nline", "token_logprobs": ""}
    assert records[1].from_table
    assert records[1].source.line == 5  # the row's last physical line


@pytest.mark.parametrize("content, expected", [
    ("", "an empty table"),
    ("a,b\n", "only a header"),
    ("a,a\n1,2\n", "distinct column names"),
    ("a,,c\n1,2,3\n", "distinct column names"),
])
def test_bad_tables(in_tmp, content, expected):
    (in_tmp / "t.csv").write_text(content)
    _, problems = io.read_records([in_tmp / "t.csv"], tables=True)
    assert expected in problems[0].render()


def test_too_many_cells_is_a_problem_for_that_row_only(in_tmp):
    (in_tmp / "t.csv").write_text("a,b\n1,2\n1,2,3\n4,5\n")
    records, problems = io.read_records([in_tmp / "t.csv"], tables=True)
    assert [r.data["a"] for r in records] == ["1", "4"]
    assert problems[0].line == 3 and "at most 2 cells" in problems[0].expected


def test_xlsx_rows_become_records(in_tmp):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["model", "category", "prompt_id", "response", "score"])
    sheet.append(["gpt", "coding", "P01", "def f(): pass", 3.5])
    sheet.append([None, None, None, None, None])
    sheet.append(["gpt", "paraphrasing", "P02", None, 2])
    book.save(in_tmp / "r.xlsx")
    records, problems = io.read_records([in_tmp / "r.xlsx"], tables=True)
    assert not problems
    assert records[0].data == {"model": "gpt", "category": "coding", "prompt_id": "P01", "response": "def f(): pass",
                               "score": 3.5}
    assert records[1].source.line == 4 and records[1].data["response"] == ""


def test_a_file_that_is_not_a_workbook(in_tmp):
    (in_tmp / "r.xlsx").write_text("not a zip")
    _, problems = io.read_records([in_tmp / "r.xlsx"], tables=True)
    assert "Excel workbook" in problems[0].expected and "export it as CSV" in problems[0].fix


def test_tables_are_json_unless_asked_for(in_tmp):
    (in_tmp / "r.csv").write_text("a\n1\n")
    _, problems = io.read_records([in_tmp / "r.csv"])
    assert "valid JSON" in problems[0].expected
