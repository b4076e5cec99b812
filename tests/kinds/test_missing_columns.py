"""A table that lacks a required column is told so once for the file, with its row count, not once per row; a header
that is one column holding `;` or a tab is named as a file saved with another delimiter (issue 32, item 14b)."""

from __future__ import annotations

from gate.io.source import RawRecord, SourceRef
from gate.kinds.heuristic.records import HeuristicRecord
from gate.kinds.records import validate_each

ROW = {"model": "m", "category": "coding", "prompt_id": "C01", "prompt": "Write fib(n).", "response": "def fib(n): …"}


def rows(data: dict, count: int = 32, file: str = "responses.csv") -> list[RawRecord]:
    return [RawRecord(dict(data), SourceRef(file, i + 2), i, from_table=True) for i in range(count)]


def test_a_missing_column_is_one_problem_for_the_file_with_its_row_count():
    problems: list = []
    records = validate_each(HeuristicRecord, rows({k: v for k, v in ROW.items() if k != "response"}), problems)
    assert records == []
    [problem] = problems
    assert (problem.file, problem.line, problem.field) == ("responses.csv", 1, "response")
    assert "the required column `response`" in problem.expected and "(32 rows lack it)" in problem.found
    assert problem.fix == "add the column to the header"


def test_a_semicolon_delimited_header_is_named():
    header = ";".join(ROW)
    problems: list = []
    validate_each(HeuristicRecord, rows({header: ";".join(ROW.values())}, count=3), problems)
    [problem] = problems
    assert "looks semicolon-delimited" in problem.fix and "save it comma-separated" in problem.fix
    assert "(3 rows lack it)" in problem.found


def test_other_problems_of_the_rows_are_still_said_and_json_records_are_unchanged():
    problems: list = []
    table = rows({**{k: v for k, v in ROW.items() if k != "response"}, "prompt_id": ""}, count=2)
    validate_each(HeuristicRecord, table, problems)
    assert len(problems) == 1 + 2  # the column once; each row's empty prompt_id
    json_rows = [RawRecord({k: v for k, v in ROW.items() if k != "response"}, SourceRef("r.jsonl", i + 1), i)
                 for i in range(2)]
    problems = []
    validate_each(HeuristicRecord, json_rows, problems)
    assert [p.line for p in problems] == [1, 2]  # a JSON record lacks a field on its own line
