"""Where input comes from: one file read as text, the path shown for it, and the raw records found in it.

Part of `gate.io`: the leaf that every reader of records builds on (`gate.io.read` for JSON and JSONL,
`gate.io.tables` for CSV and XLSX), so that neither reader imports the other's module for these.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import gate.io.limits as limits
from gate.errors import InputError, Problem
from gate.io.regular import NotRegular, TooLarge, open_regular, read_regular

EMPTY_FIX = "add records, or remove the file (or narrow the glob that matched it)"


@dataclass(frozen=True, slots=True)  # slots: a run may hold a million of them
class SourceRef:
    """Where a record came from: file (as the user wrote it, relative where possible) and line."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


@dataclass(frozen=True, slots=True)
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
    """Paths in messages and annotations are relative to the working directory when possible; a candidate file
    read from a data root (the pull request's downloaded files, `gate.io.paths.DataRoot`) is named as it stands in
    the repository, so its annotation lands on the pull request's own file."""
    from gate.io.paths import current

    resolved = path.resolve()
    data = current().data
    if data is not None:
        try:
            return str(resolved.relative_to(data.root.resolve()))
        except ValueError:
            pass
    try:
        return str(resolved.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def read_text(path: Path, what: str = "file", limit: int | None = None) -> str:
    """The file's text (UTF-8, a byte-order mark dropped); InputError when it is missing, not a regular file (a FIFO
    would block the read forever), unreadable, larger than `limit` bytes or not UTF-8."""
    shown = display_path(path)
    try:
        raw = read_regular(path, limit)
    except TooLarge as exc:
        raise InputError(f"{what} is too large", [too_large(shown, exc.limit, what)]) from None
    except OSError as exc:
        raise unreadable(shown, exc, what) from None
    try:
        # A byte-order mark (Excel, Notepad) is not content: JSONL and YAML parsers would choke on it.
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise not_utf8(shown, line, raw[exc.start], what) from None


def open_input(path: Path, what: str = "input file") -> BinaryIO:
    """`path` open for binary reading (a regular file only); InputError as `read_text` says it."""
    try:
        return open_regular(path)
    except OSError as exc:
        raise unreadable(display_path(path), exc, what) from None


def unreadable(shown: str, exc: OSError, what: str) -> InputError:
    """The InputError for a file that cannot be opened."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{what} not found", [Problem(
            file=shown, expected=f"an existing {what}", found="no such file",
            fix="check the path (relative paths start at the working directory)")])
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{what} is a directory", [Problem(
            file=shown, expected="a file", found="a directory",
            fix="name a file in that directory (or a glob such as dir/*.jsonl)")])
    if isinstance(exc, NotRegular):
        return InputError(f"{what} is not a regular file", [Problem(
            file=shown, expected="a regular file", found=exc.kind,
            fix="replace it with a plain file: the gate never reads pipes, devices or sockets")])
    if isinstance(exc, PermissionError):
        return InputError(f"{what} not readable", [Problem(file=shown, expected="a readable file",
                                                           found="permission denied",
                                                           fix="make the file readable by the gate's user")])
    return InputError(f"{what} not readable", [Problem(file=shown, expected="a readable file",
                                                       found=exc.strerror or type(exc).__name__,
                                                       fix="check the file and the disk it is on")])


def too_large(shown: str, limit: int, what: str = "input file", line: int | None = None) -> Problem:
    return Problem(file=shown, line=line, expected=f"at most {limits.size(limit)} in one {what}",
                   found="a larger file", fix=limits.SPLIT_FIX)


def not_utf8(shown: str, line: int, byte: int, what: str = "input file") -> InputError:
    return InputError(f"{what} is not UTF-8", [Problem(
        file=shown, line=line, expected="UTF-8 text", found=f"invalid byte 0x{byte:02x}",
        fix="re-save the file as UTF-8")])
