"""Writing files atomically: a report is either the old file or the complete new one, never half-written.

Part of `gate.io`.
"""

from __future__ import annotations

import csv
import io as _io
import json
import math
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from gate.redact import redact


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same directory and rename: readers never see half a file."""
    text = redact(text)  # no secret reaches a report file, whatever a model or a server put in the text
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o777)
        else:
            os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def to_json(value: Any) -> str:
    return json.dumps(_finite(value), indent=2, ensure_ascii=False) + "\n"


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, to_json(value))


def _finite(value: Any) -> Any:
    """JSON has no NaN: a non-finite float is written as null (scorers report such values as unmeasured)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def write_csv_atomic(path: Path, columns: Sequence[str], rows: Iterable[Sequence[Any]],
                     booleans: tuple[str, str] = ("true", "false")) -> None:
    """Floats at full precision, None and non-finite values as empty cells, booleans as given."""
    buffer = _io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else _csv_value(v, booleans) for v in row])
    write_text_atomic(path, buffer.getvalue())


def _csv_value(value: Any, booleans: tuple[str, str]) -> Any:
    if isinstance(value, bool):
        return booleans[0] if value else booleans[1]
    if isinstance(value, float):
        return "" if not math.isfinite(value) else repr(value)
    return value


def append_text(path: Path, text: str) -> None:
    """Append to a file another process owns (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT)."""
    text = redact(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as stream:
        stream.write(text)




def sha256_files(paths: Sequence[Path]) -> str:
    """One digest over several files (weights), streamed so large models don't fill memory."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.name.encode())
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()




def write_xlsx_atomic(path: Path, sheets: dict[str, tuple[Sequence[str], Iterable[Sequence[Any]]]]) -> None:
    """An Excel workbook, one sheet per entry (name -> (columns, rows)), written via a temporary file.

    Every string is written as text, never as a formula: openpyxl stores a string that starts with `=` as a
    live formula, and model names, ids and responses are model- or PR-controlled (`=HYPERLINK(...)` would
    become a clickable link, `=WEBSERVICE(...)` a request, when a maintainer opens the workbook).
    """
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, (columns, rows) in sheets.items():
        sheet = book.create_sheet(title=name[:31])  # Excel's limit for sheet names
        for number, row in enumerate([list(columns), *rows], start=1):
            for column, value in enumerate(row, start=1):
                _xlsx_cell(sheet, number, column, value)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        book.save(temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _xlsx_cell(sheet: Any, row: int, column: int, value: Any) -> None:
    """One cell: a string as text (type `s`, whatever it starts with), a non-finite float as empty."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE, TYPE_STRING

    if isinstance(value, float) and not math.isfinite(value):
        value = None
    if isinstance(value, str):
        # XML 1.0 cannot hold most control characters (openpyxl would raise): each becomes U+FFFD
        text = ILLEGAL_CHARACTERS_RE.sub("\ufffd", redact(value))
        cell = sheet.cell(row=row, column=column)
        cell.value, cell.data_type = text, TYPE_STRING  # assigning `value` alone turns "=..." into a formula
        return
    sheet.cell(row=row, column=column, value=redact(value))
