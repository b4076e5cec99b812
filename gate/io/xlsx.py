"""A minimal SpreadsheetML (.xlsx) writer: plain values in, a workbook Excel and openpyxl read, out.

Why not openpyxl's own writer: it builds a cell object per value and an element per cell, ~25 µs a cell, and a
suite's records.xlsx (a rubric suite) at 10,000 groups holds ~0.8 M cells (20 s of a 30 s report). This writes each
sheet's XML as text straight into the zip (~1 µs a cell). What it writes is the subset the gate needs:

- every string as an inline string (`t="inlineStr"`): text, never a formula (`<f>` is never written), whatever
  it starts with (`=HYPERLINK(...)` from a model name stays the text it was; tests/test_security_xlsx.py);
- a bool as `t="b"`, an integer and a real as a number (repr: read back exactly), None and a non-finite float as an
  empty cell (no element), and so is "" (as openpyxl wrote it);
- any other value is refused with ValueError, as openpyxl refused it.

Characters XML 1.0 cannot hold become U+FFFD (as before); `\\r` is written as `&#13;` so that no XML parser folds
it into `\\n`. Pure: the caller (`gate.io.write.write_xlsx_atomic`) redacts and owns the file.
"""

from __future__ import annotations

import itertools
import math
import numbers
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any
from xml.sax.saxutils import escape

MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
# What XML 1.0 cannot hold (openpyxl's ILLEGAL_CHARACTERS_RE): control characters other than tab, LF and CR.
ILLEGAL = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")
_ESCAPES = {"\r": "&#13;"}
_CHUNK = 1 << 16  # characters of sheet XML buffered before each write into the zip

Sheet = tuple[Sequence[str], Iterable[Sequence[Any]]]


def column_letter(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA: the column part of a cell reference."""
    letters = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        letters = chr(65 + remainder) + letters
    return letters


def text(value: str) -> str:
    """A string as the escaped content of an XML text node (illegal characters as U+FFFD, CR kept)."""
    return escape(ILLEGAL.sub("\ufffd", value), _ESCAPES)


def cell(reference: str, value: Any) -> str:
    """One `<c>` element ('' for an empty cell)."""
    if value is None or value == "":  # openpyxl wrote "" as an empty cell too (and reads one back as None)
        return ""
    if isinstance(value, str):
        return f'<c r="{reference}" t="inlineStr"><is><t xml:space="preserve">{text(value)}</t></is></c>'
    if isinstance(value, bool):
        return f'<c r="{reference}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, numbers.Integral):  # numpy's integers too, as openpyxl took them
        return f'<c r="{reference}"><v>{int(value)}</v></c>'
    if isinstance(value, numbers.Real):
        value = float(value)
        return f'<c r="{reference}"><v>{value!r}</v></c>' if math.isfinite(value) else ""
    raise ValueError(f"Cannot convert {value!r} to Excel")


def write_workbook(stream: IO[bytes], sheets: Mapping[str, Sheet]) -> None:
    """The workbook of `sheets` (name -> (columns, rows); a name cut to Excel's 31 characters) into `stream`."""
    names = [name[:31] for name in sheets]
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", _content_types(len(names)))
        archive.writestr("_rels/.rels", _DECLARATION + f'<Relationships xmlns="{PKG_REL_NS}"><Relationship Id="rId1" '
                         f'Type="{REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        archive.writestr("xl/workbook.xml", _DECLARATION + f'<workbook xmlns="{MAIN_NS}" xmlns:r="{REL_NS}"><sheets>'
                         + "".join(f'<sheet name="{escape(name, {chr(34): "&quot;"})}" sheetId="{n}" r:id="rId{n}"/>'
                                   for n, name in enumerate(names, 1)) + "</sheets></workbook>")
        archive.writestr("xl/_rels/workbook.xml.rels", _workbook_rels(len(names)))
        archive.writestr("xl/styles.xml", _STYLES)
        for number, (columns, rows) in enumerate(sheets.values(), 1):
            with archive.open(f"xl/worksheets/sheet{number}.xml", "w", force_zip64=True) as part:
                _write_sheet(part, columns, rows)


def _write_sheet(part: IO[bytes], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    letters: list[str] = []
    buffer = [_DECLARATION, f'<worksheet xmlns="{MAIN_NS}"><sheetData>']
    size = 0
    for number, row in enumerate(itertools.chain((columns,), rows), 1):
        while len(letters) < len(row):
            letters.append(column_letter(len(letters)))
        line = f'<row r="{number}">' + "".join(cell(f"{letters[i]}{number}", v) for i, v in enumerate(row)) + "</row>"
        buffer.append(line)
        size += len(line)
        if size >= _CHUNK:
            part.write("".join(buffer).encode("utf-8"))
            buffer, size = [], 0
    buffer.append("</sheetData></worksheet>")
    part.write("".join(buffer).encode("utf-8"))


def _content_types(sheets: int) -> str:
    ct = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    return (_DECLARATION + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{ct}.sheet.main+xml"/>'
            f'<Override PartName="/xl/styles.xml" ContentType="{ct}.styles+xml"/>'
            + "".join(f'<Override PartName="/xl/worksheets/sheet{n}.xml" ContentType="{ct}.worksheet+xml"/>'
                      for n in range(1, sheets + 1)) + "</Types>")


def _workbook_rels(sheets: int) -> str:
    rels = [f'<Relationship Id="rId{n}" Type="{REL_NS}/worksheet" Target="worksheets/sheet{n}.xml"/>'
            for n in range(1, sheets + 1)]
    rels.append(f'<Relationship Id="rId{sheets + 1}" Type="{REL_NS}/styles" Target="styles.xml"/>')
    return _DECLARATION + f'<Relationships xmlns="{PKG_REL_NS}">' + "".join(rels) + "</Relationships>"


# The least a styles part may hold for Excel to open the workbook without a repair: one font, the two fills Excel
# reserves, one border, one cell format.
_STYLES = (_DECLARATION + f'<styleSheet xmlns="{MAIN_NS}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/>'
           '</font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill '
           'patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/>'
           '</border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/>'
           '</cellStyleXfs><cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
           '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')
