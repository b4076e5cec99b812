"""The workbook writer (gate.io.xlsx): what openpyxl reads back is exactly what was written, type included."""

from __future__ import annotations

import zipfile

import pytest

from gate import io
from gate.io.xlsx import column_letter

openpyxl = pytest.importorskip("openpyxl")

STRINGS = ["  leading and trailing  ", "a < b & c > d \"q\" 'a'", "line\r\nbreak\rcr\nlf", "ünïcødé ✓ 🚀", "", " ",
           "]]>", "<f>1+1</f>", "0.5", "1e5", "TRUE"]
NUMBERS = [0, -1, 3, 2**53 + 1, 10**20, 0.1, -0.5, 1e-05, 1.5e300, 2.0, 1 / 3, -0.0]


def read(path):
    book = openpyxl.load_workbook(path)
    return {s.title: [list(r) for r in s.iter_rows(values_only=True)] for s in book.worksheets}


def test_values_come_back_exactly_with_their_types(tmp_path):
    path = tmp_path / "b.xlsx"
    rows = [[s, n, b] for s, n, b in zip(STRINGS, NUMBERS, [True, False] * 6, strict=False)]
    io.write_xlsx_atomic(path, {"values": (["s", "n", "b"], iter(rows))})  # rows as a generator: streamed
    back = read(path)["values"]
    assert back[0] == ["s", "n", "b"]
    for written, found in zip(rows, back[1:], strict=True):
        # "" is an empty cell, read back as None (as openpyxl's own writer made it); all else identical
        assert found == [written[0] or None, written[1], written[2]]
        assert [type(v) for v in found[1:]] == [type(v) for v in written[1:]]  # ints stay ints, bools bools


def test_empty_cells_non_finite_floats_and_wide_rows(tmp_path):
    path = tmp_path / "b.xlsx"
    wide = [f"c{i}" for i in range(60)]  # past Z and AZ
    io.write_xlsx_atomic(path, {"w": (wide, [[None, float("nan"), float("inf"), *range(57)]]),
                                "a sheet name longer than thirty-one characters": (["x"], [])})
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["w", "a sheet name longer than thirty"]
    sheet = book["w"]
    assert [c.value for c in sheet[1]] == wide
    assert [sheet.cell(2, n).value for n in (1, 2, 3, 4, 60)] == [None, None, None, 0, 56]
    assert sheet.cell(2, 60).coordinate == "BH2" and [column_letter(i) for i in (0, 25, 26, 51, 52, 701, 702)] == [
        "A", "Z", "AA", "AZ", "BA", "ZZ", "AAA"]
    assert list(book["a sheet name longer than thirty"].iter_rows(values_only=True)) == [("x",)]


def test_an_unsupported_value_is_refused_and_no_file_is_left(tmp_path):
    path = tmp_path / "b.xlsx"
    with pytest.raises(ValueError, match="Cannot convert"):
        io.write_xlsx_atomic(path, {"s": (["a"], [[[1, 2]]])})
    assert list(tmp_path.iterdir()) == []


def test_the_package_is_a_valid_zip_with_the_parts_excel_needs(tmp_path):
    path = tmp_path / "b.xlsx"
    io.write_xlsx_atomic(path, {"one": (["a"], [[1]]), "two": (["b"], [["x"]])})
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        assert set(archive.namelist()) == {"[Content_Types].xml", "_rels/.rels", "xl/workbook.xml",
                                           "xl/_rels/workbook.xml.rels", "xl/styles.xml",
                                           "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"}
