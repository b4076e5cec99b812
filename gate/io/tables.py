"""Reading CSV and XLSX tables as records: a header row names the fields, each later row is a record.

Part of `gate.io`. Every column is in every record, an empty cell as "" (`RawRecord.from_table`
tells the validator that such a cell means "not given" for an optional field, and an empty text for
a required one); a row's line is its row number in the file, so problems and annotations point at it.
"""

from __future__ import annotations

import csv
import io as _io
import zipfile
from pathlib import Path
from typing import IO

import gate.io.limits as limits
from gate.errors import InputError, Problem
from gate.io.source import EMPTY_FIX, RawRecord, SourceRef, display_path, open_input, read_text, too_large

# A cell can hold a whole LLM response; the csv module's default limit (128 KiB) would reject a long one.
csv.field_size_limit(max(csv.field_size_limit(), 64 * 1024 * 1024))
HEADER_FIX = "start the file with one row of distinct, non-empty column names (model, task, ...)"


def read_csv(path: Path) -> tuple[list[RawRecord], list[Problem]]:
    shown = display_path(path)
    try:
        text = read_text(path, "input file", limits.FILE_BYTES)
    except InputError as exc:
        return [], list(exc.problems)
    # strict: a quote left open swallows the rest of the file as one cell instead of failing
    reader = csv.reader(_io.StringIO(text, newline=""), strict=True)
    try:
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        return [], [Problem(file=shown, line=reader.line_num, expected="valid CSV", found=str(exc),
                            fix="close every quoted cell, and double quotes inside it (\"\")")]
    return _records(shown, rows)


def read_xlsx(path: Path) -> tuple[list[RawRecord], list[Problem]]:
    shown = display_path(path)
    try:
        stream = open_input(path)
    except InputError as exc:
        return [], list(exc.problems)
    with stream:
        if _inflated(stream) > limits.FILE_BYTES:
            return [], [too_large(shown, limits.FILE_BYTES, "workbook (its parts uncompressed)")]
        return _records(shown, rows) if isinstance(rows := _rows(stream, shown), list) else ([], [rows])


def _inflated(stream: IO[bytes]) -> int:
    """What a workbook's parts hold uncompressed, as its zip directory declares (a part's reader stops there); 0
    for a file that is not a zip (openpyxl says what it is)."""
    try:
        with zipfile.ZipFile(stream) as archive:
            return sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return 0
    finally:
        stream.seek(0)


def _rows(stream: IO[bytes], shown: str) -> list[tuple[int, list]] | Problem:
    try:
        from openpyxl import load_workbook

        workbook = load_workbook(stream, read_only=True, data_only=True)
        # read_only reads sheets lazily: a corrupt sheet inside a valid zip fails here, not at load
        rows = [(number, ["" if v is None else v for v in row])
                for number, row in enumerate(workbook.worksheets[0].iter_rows(values_only=True), start=1)]
        workbook.close()
    except Exception as exc:  # openpyxl raises many types for a file that is not a workbook
        return Problem(file=shown, expected="an Excel workbook (.xlsx)",
                       found=f"{type(exc).__name__}: {str(exc)[:200]}", fix="save it as .xlsx, or export it as CSV")
    return rows


def _records(shown: str, rows: list[tuple[int, list]]) -> tuple[list[RawRecord], list[Problem]]:
    rows = [(line, row) for line, row in rows if any(str(cell).strip() for cell in row)]
    if not rows:
        return [], [Problem(file=shown, expected="a header row and at least one record", found="an empty table",
                            fix=EMPTY_FIX)]
    (header_line, header), body = rows[0], rows[1:]
    names = [str(cell).strip() for cell in header]
    problems = []
    if any(not name for name in names) or len(set(names)) != len(names):
        problems.append(Problem(file=shown, line=header_line, expected="a header row of distinct column names",
                                found=", ".join(repr(n[:40]) for n in names[:20]) + (" …" if len(names) > 20 else ""),
                                fix=HEADER_FIX))
        return [], problems
    if not body:
        return [], [Problem(file=shown, expected="at least one record below the header", found="only a header",
                            fix=EMPTY_FIX)]
    records: list[RawRecord] = []
    for line, row in body:
        if len(row) > len(names):
            problems.append(Problem(file=shown, line=line, expected=f"at most {len(names)} cells (the header's)",
                                    found=f"{len(row)} cells",
                                    fix="quote cells that contain the delimiter, or add the column to the header"))
            continue
        cells = [*row, *[""] * (len(names) - len(row))]
        data = {name: "" if str(value).strip() == "" else value for name, value in zip(names, cells, strict=True)}
        records.append(RawRecord(data, SourceRef(shown, line), len(records), from_table=True))
    return records, problems


READERS = {".csv": read_csv, ".xlsx": read_xlsx}
