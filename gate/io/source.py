"""Where input comes from: one file read as text, the path shown for it, and the raw records found in it.

Part of `gate.io`: the leaf that every reader of records builds on (`gate.io.read` for JSON and JSONL,
`gate.io.tables` for CSV and XLSX), so that neither reader imports the other's module for these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.errors import InputError, Problem

EMPTY_FIX = "add records, or remove the file (or narrow the glob that matched it)"


@dataclass(frozen=True)
class SourceRef:
    """Where a record came from: file (as the user wrote it, relative where possible) and line."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(frozen=True)
class RawRecord:
    """One JSON object from an input file, before it is validated into a typed record."""

    data: dict[str, Any]
    source: SourceRef
    index: int  # 0-based position within its file
    from_table: bool = False  # a CSV/XLSX row: every column is there, an empty cell is ""

    @property
    def label(self) -> str:
        return f"record {self.index + 1}"


def display_path(path: Path) -> str:
    """Paths in messages and annotations are relative to the working directory when possible."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_text(path: Path, what: str = "file") -> str:
    shown = display_path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            f"{what} not found",
            [Problem(file=shown, expected=f"an existing {what}", found="no such file",
                     fix="check the path (relative paths start at the working directory)")],
        ) from None
    except IsADirectoryError:
        raise InputError(f"{what} is a directory",
                         [Problem(file=shown, expected="a file", found="a directory",
                                  fix="name a file in that directory (or a glob such as dir/*.jsonl)")]) from None
    except PermissionError:
        raise InputError(f"{what} not readable", [Problem(file=shown, expected="a readable file",
                                                           found="permission denied",
                                                           fix="make the file readable by the gate's user")]) from None
    try:
        # A byte-order mark (Excel, Notepad) is not content: JSONL and YAML parsers would choke on it.
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{what} is not UTF-8",
            [Problem(file=shown, line=line, expected="UTF-8 text", found=f"invalid byte 0x{raw[exc.start]:02x}",
                     fix="re-save the file as UTF-8")],
        ) from None
