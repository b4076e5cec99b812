"""Reading JSON Lines records, streamed: one line in memory at a time, each line bounded.

Part of `gate.io` (`gate.io.read.read_records` calls it for .jsonl and .ndjson files). A file is read in chunks
and split at \\n, \\r\\n and \\r only (which JSON never holds raw inside a value; `str.splitlines` would also split
at U+2028, U+2029 and U+0085, which a model's output may hold raw). A line longer than `limits.RECORD_BYTES` is
one problem at its line, skipped without being held; a file larger than `limits.FILE_BYTES` is one problem, not
read. Memory is the records kept plus one chunk and one line, never the file's whole text.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

import gate.io.limits as limits
from gate.errors import InputError, Problem
from gate.io.jsonpos import lone_surrogates, surrogate_escape
from gate.io.source import EMPTY_FIX, RawRecord, SourceRef, display_path, not_utf8, open_input, too_large

NOT_OBJECT_FIX = "make each record a JSON object: {\"field\": value, ...}"
_CHUNK = 1 << 20
_BREAK = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


class NonFinite(ValueError):
    pass


def _reject_constant(name: str) -> None:
    raise NonFinite(name)


# one decoder for every line: `json.loads(line, parse_constant=...)` builds a decoder and its scanner per call
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# orjson reads an integer past 64 bits as a float (an id of 20 digits would lose its last ones); json keeps it exact.
# A line with a run of 19 digits goes to json: found by mapping each digit byte to "0" and every other byte to " "
# (bytes.translate: ~15x faster than the regex \d{19}, which cost more than orjson's whole parse)
_DIGITS = bytes(0x30 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG_RUN = b"0" * 19


def decode(text: str) -> Any:
    """A JSONL line's (or a snapshot's) value. orjson first: ~4x faster on number-heavy lines (a response's token
    log-probabilities); it returns json's value wherever it succeeds (floats correctly rounded, the last of a
    repeated key). What it refuses -- NaN, 1e400, a lone surrogate, bad syntax, deep nesting, and any text
    with a long run of digits -- goes to the standard decoder, whose result or error the caller reports as
    before."""
    raw = text.encode("utf-8", "surrogatepass")
    if _LONG_RUN not in raw.translate(_DIGITS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return _DECODER.decode(text)


def lines(read: Callable[[int], bytes], limit: int) -> Iterator[bytes | None]:
    """The lines `read` (a stream's read method) returns, without their breaks (\\n, \\r\\n or \\r); None for a
    line longer than `limit` bytes, whose bytes are dropped as they are read."""
    parts: list[bytes] = []
    held = 0  # bytes in `parts`; past `limit` they are dropped and the line is too long
    too_long = False
    after_cr = False  # the last chunk ended with \r: a \n opening the next one belongs to that break
    while chunk := read(_CHUNK):
        if after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        after_cr = chunk.endswith(b"\r")
        pieces = _BREAK.split(chunk) if b"\r" in chunk else chunk.split(b"\n")
        for piece in pieces[:-1]:
            if too_long or held + len(piece) > limit:
                yield None
            else:
                yield b"".join((*parts, piece)) if parts else piece
            parts, held, too_long = [], 0, False
        last = pieces[-1]
        if too_long or held + len(last) > limit:
            parts, held, too_long = [], 0, True
        elif last:
            parts.append(last)
            held += len(last)
    if too_long:
        yield None
    elif parts:
        yield b"".join(parts)


def read_jsonl(path: Path) -> tuple[list[RawRecord], list[Problem]]:
    shown = display_path(path)
    try:
        stream = open_input(path)
    except InputError as exc:
        return [], list(exc.problems)
    records: list[RawRecord] = []
    problems: list[Problem] = []
    with stream:
        if limits.FILE_BYTES < _size(stream):
            return [], [too_large(shown, limits.FILE_BYTES)]
        read = _Counted(stream, limits.FILE_BYTES)
        for number, raw in enumerate(lines(read.read, limits.RECORD_BYTES), start=1):
            if read.over:
                return [], [too_large(shown, limits.FILE_BYTES)]  # grew past the limit while read
            if raw is None:
                problems.append(Problem(file=shown, line=number,
                                        expected=f"one record of at most {limits.size(limits.RECORD_BYTES)} a line",
                                        found="a longer line", fix="shorten the record: a model output of this size "
                                        "is a runaway generation; cut it, or keep such text out of the records"))
                continue
            if number == 1 and raw.startswith(_BOM):  # a byte-order mark (Excel, Notepad) is not content
                raw = raw[len(_BOM):]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return [], list(not_utf8(shown, number, raw[exc.start]).problems)
            del raw
            _record(line, shown, number, records, problems)
        if read.over:
            return [], [too_large(shown, limits.FILE_BYTES)]
    if not records and not problems:
        problems.append(Problem(file=shown, expected="at least one record", found="an empty file", fix=EMPTY_FIX))
    return records, problems


def _record(line: str, shown: str, number: int, records: list[RawRecord], problems: list[Problem]) -> None:
    """The record on one line, or its problem."""
    if not line.strip():
        return
    try:
        value = decode(line)
    except json.JSONDecodeError as exc:
        problems.append(Problem(file=shown, line=number, expected="one JSON object per line",
                                found=f"{exc.msg} at column {exc.colno}", fix="fix the JSON on this line"))
        return
    except NonFinite as exc:
        problems.append(Problem(file=shown, line=number, expected="finite numbers (JSON has no NaN or Infinity)",
                                found=str(exc), fix="write null or a finite number instead"))
        return
    except (ValueError, RecursionError) as exc:  # a 5000-digit integer; arrays nested thousands deep
        found = "nesting too deep" if isinstance(exc, RecursionError) else str(exc)
        problems.append(Problem(file=shown, line=number, expected="a JSON object of ordinary values",
                                found=found, fix="write numbers under 4300 digits and flatten deep nesting"))
        return
    if not isinstance(value, dict):
        problems.append(Problem(file=shown, line=number, expected="a JSON object",
                                found=f"a JSON {type(value).__name__}", fix=NOT_OBJECT_FIX))
        return
    if "\\u" in line:  # only a \u escape can make a lone surrogate: the usual line is not walked
        bad = [surrogate_problem(shown, number, *found) for found in lone_surrogates(value)]
        if bad:
            problems += bad
            return
    records.append(RawRecord(value, SourceRef(shown, number), len(records)))


def surrogate_problem(file: str, line: int | None, path: tuple, text: str, at: int) -> Problem:
    """A string that JSON can escape but Unicode cannot hold: half of a surrogate pair (`"\\ud800"`)."""
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).removeprefix(".")
    return Problem(file=file, line=line, field=field.encode("utf-8", "backslashreplace").decode() or None,
                   expected="text that is valid Unicode",
                   found=f"a lone surrogate {surrogate_escape(text[at])} at character {at + 1}",
                   fix=f"remove the stray {surrogate_escape(text[at])} escape, or complete the pair (a character "
                       "beyond U+FFFF is two escapes, e.g. \\ud83d\\ude00)")


def _size(stream: IO[bytes]) -> int:
    return os.fstat(stream.fileno()).st_size


class _Counted:
    """A stream that stops after `limit` bytes (plus one, to tell a file that grew past it) and says so."""

    def __init__(self, stream: IO[bytes], limit: int):
        self._stream, self._left, self.over = stream, limit + 1, False

    def read(self, size: int) -> bytes:
        data = self._stream.read(min(size, self._left))
        self._left -= len(data)
        self.over = self._left <= 0
        return data
