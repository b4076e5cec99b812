"""Reading input files: JSON with positions, and records from JSON/JSONL (and CSV/XLSX, `gate.io.tables`) files.

Part of `gate.io`, through which every file the gate reads or writes goes.

Readers turn files into plain values with their source positions and collect every problem they
meet (file, line, what was expected) instead of stopping at the first. Reading a file as text and the
raw record types live in the leaf `gate.io.source`, which the table readers share.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

import gate.io.limits as limits
from gate.errors import InputError, Problem
from gate.io.jsonl import NOT_OBJECT_FIX, decode, read_jsonl, surrogate_problem
from gate.io.jsonpos import JsonSyntaxError, LoneSurrogate, loads_with_lines, lone_surrogates
from gate.io.regular import open_regular
from gate.io.source import EMPTY_FIX, RawRecord, SourceRef, display_path, read_text
from gate.io.tables import READERS as TABLE_READERS

T = TypeVar("T")


@dataclass(frozen=True)
class JsonDocument:
    value: Any
    source: SourceRef
    lines: dict[tuple, int]

    def line_of(self, *path: str | int) -> int | None:
        """Line of the deepest known container along `path`."""
        for depth in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:depth]))
            if line is not None:
                return line
        return None


def expand_globs(patterns: Sequence[str], base_dir: Path, field: str, *,
                 data: bool = False) -> tuple[list[Path], list[Problem]]:
    """Files matching `patterns` (relative to `base_dir`), sorted, unique; a pattern matching nothing is a problem.
    `data`: the patterns name candidate data, read from the run's data root where the workflow gives one
    (`gate.io.paths.data_place`: the pull request's files, never the trusted tree's)."""
    import gate.io.paths as paths

    found: dict[Path, None] = {}
    problems: list[Problem] = []
    root: Path | None = None
    if data:
        base_dir, root, problem = paths.data_place(base_dir, field)
        if problem is not None:
            return [], [problem]

    def escaping(path: Path, shown: str) -> Problem | None:
        if root is not None:
            return paths.outside_data(path, root, field, shown)
        return paths.outside(path, base_dir, field, shown)

    for pattern in patterns:
        full = pattern if os.path.isabs(pattern) else str(base_dir / pattern)
        # Confined to the workspace (gate/io/paths.py), or to the data root: first where the pattern points, so
        # nothing outside is even listed, then each match with symlinks followed.
        escape = escaping(Path(paths.literal_prefix(full)), pattern)
        if escape is not None:
            problems.append(escape)
            continue
        matches = sorted(Path(p) for p in glob.glob(full, recursive=True) if Path(p).is_file())
        escapes = [e for e in (escaping(m, display_path(m)) for m in matches) if e]
        problems += escapes
        if escapes:
            continue
        if not matches:
            problems.append(
                Problem(field=field, expected="a path or glob matching at least one file",
                        found=f"{pattern!r} matched nothing under {display_path(base_dir) or '.'}",
                        fix="paths in gate.yml are relative to the directory of gate.yml"))
        found.update(dict.fromkeys(matches))
    return list(found), problems


def read_json_document(path: Path, locate: bool = True) -> tuple[JsonDocument | None, list[Problem]]:
    """The document and where its containers start. For a reader that never points into the file
    (`locate=False`: a snapshot the gate wrote): json's C parser reads it ~10x faster and the line map stays
    empty; a file it cannot read is read again by the locating parser, so every problem still has its line."""
    source = SourceRef(display_path(path))
    try:
        text = read_text(path, "JSON file", limits.DOCUMENT_BYTES)
    except InputError as exc:
        return None, list(exc.problems)
    if not text.strip():
        return None, [Problem(file=source.file, expected="JSON content", found="an empty file", fix=EMPTY_FIX)]
    if not locate:
        try:
            value = decode(text.removeprefix("\ufeff"))
        except (ValueError, RecursionError):
            pass  # the locating parser below says where
        else:
            if "\\u" not in text or next(lone_surrogates(value), None) is None:
                return JsonDocument(value, source, {}), []
    try:
        value, lines = loads_with_lines(text)
    except LoneSurrogate as exc:
        return None, [surrogate_problem(source.file, exc.line, exc.path, exc.text, exc.at)]
    except JsonSyntaxError as exc:
        return None, [Problem(file=source.file, line=exc.line, expected="valid JSON",
                              found=f"{exc.message} at column {exc.column}", fix="fix the JSON syntax there")]
    except RecursionError:
        return None, [Problem(file=source.file, expected="JSON nested less than ~900 levels deep",
                              found="deeper nesting", fix="flatten the structure")]
    except ValueError as exc:  # int() of a number past Python's 4300-digit limit
        return None, [Problem(file=source.file, expected="numbers of ordinary size", found=str(exc),
                              fix="write numbers under 4300 digits")]
    return JsonDocument(value, source, lines), []


def read_records(paths: Iterable[Path], tables: bool = False) -> tuple[list[RawRecord], list[Problem]]:
    """Objects from JSON (an array of objects, or one object) and JSONL files, with their lines;
    with `tables`, also rows of CSV and XLSX files (a header row names the fields)."""
    records: list[RawRecord] = []
    problems: list[Problem] = []
    for path in paths:
        suffix = path.suffix.lower()
        if suffix in (".jsonl", ".ndjson"):
            new, bad = read_jsonl(path)
        elif tables and suffix in TABLE_READERS:
            new, bad = TABLE_READERS[suffix](path)
        else:
            new, bad = _read_json_records(path)
        records += new
        problems += bad
    return records, problems


def _read_json_records(path: Path) -> tuple[list[RawRecord], list[Problem]]:
    document, problems = read_json_document(path)
    if document is None:
        return [], problems
    value = document.value
    items = value if isinstance(value, list) else [value]
    records, problems = [], []
    for index, item in enumerate(items):
        line = document.line_of(index) if isinstance(value, list) else document.line_of()
        if not isinstance(item, dict):
            problems.append(Problem(file=document.source.file, line=line, record=f"record {index + 1}",
                                    expected="a JSON object", found=f"a JSON {type(item).__name__}",
                                    fix=NOT_OBJECT_FIX))
            continue
        records.append(RawRecord(item, SourceRef(document.source.file, line), index))
    if not items:
        problems.append(Problem(file=document.source.file, expected="at least one record", found="an empty array",
                                fix=EMPTY_FIX))
    return records, problems


def read_binary(path: Path, parse: Callable[[IO[bytes]], T]) -> T:
    """What `parse` makes of the file's binary stream (numpy's .npz reader takes a stream): a large file is
    not held in memory twice. OSError as raised (FileNotFoundError included, `gate.io.regular.NotRegular` for a FIFO
    or a device, never read): the caller says what it is."""
    with open_regular(path) as stream:
        return parse(stream)


def read_json_quiet(path: Path) -> Any:
    """A cache file: missing or corrupt reads as None (the cache is rebuilt, never trusted)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
