"""Writing files atomically: a file is either the old one or the complete new one, never half-written.

Part of `gate.io`. `write_stream_atomic` is the only place in the gate that writes a file whole: reports,
exports, the shards' model-work files and both caches (`gate.io.blobs`, the LLM grader's) go through it.

- Atomic: the content goes to a temporary file beside the target (`.<name>.<random>.tmp`, see
  `is_temporary`), which is renamed over the target; a failure or an interruption at any point removes it.
- Permissions: those a plain `open(path, "w")` gives. A new file gets 0o666 less the umask (0o644 under
  the usual umask 022); a file that already exists keeps its mode (a report a user made private stays so).
- Durability (`fsync=True`, the default): the data is fsynced before the rename and the directory after it,
  so a crash or power cut leaves the old file or the new one, with its name. The caches pass `fsync=False`:
  their readers verify every entry and recompute a torn or lost one, and an fsync per entry (one per text)
  would cost more than the entry saves. Files staged for a report directory (`gate.io.report_dir`, inside
  `staged_writes()`) are not fsynced one by one either: the directory's swap publishes the set at once, a report
  is re-made by running again, and two fsyncs per file were a tenth of a fully cached run (more on a CI disk).
"""

from __future__ import annotations

import contextlib
import csv
import io as _io
import json
import math
import os
import secrets
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any

from gate.io.redact import redact

TEMP_SUFFIX = ".tmp"
_NEW_FILE_MODE = 0o666  # before the umask, as open() asks for


_STAGED: ContextVar[bool] = ContextVar("staged", default=False)


@contextlib.contextmanager
def staged_writes() -> Iterator[None]:
    """Within: whole-file writes skip fsync (the files are staged; module docstring)."""
    token = _STAGED.set(True)
    try:
        yield
    finally:
        _STAGED.reset(token)


def write_stream_atomic(path: Path, fill: Callable[[IO[bytes]], object], *, fsync: bool = True) -> None:
    """`fill` writes the content into a binary stream; it becomes `path` whole or not at all (module docstring).

    Raises what the writing raises (OSError: unwritable directory, disk full), with no temporary file left."""
    fsync = fsync and not _STAGED.get()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = _create_temporary(path)
    try:
        with os.fdopen(handle, "wb") as stream:
            fill(stream)
            stream.flush()
            if fsync:
                os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    if fsync:
        sync_directory(path.parent)


def write_bytes_atomic(path: Path, data: bytes, *, fsync: bool = True) -> None:
    write_stream_atomic(path, lambda stream: stream.write(data), fsync=fsync)


def write_text_atomic(path: Path, text: str) -> None:
    """UTF-8, newlines as given; secrets redacted: no secret reaches a report file, whatever a model or a server
    put in the text."""
    write_bytes_atomic(path, redact(text).encode("utf-8"))


def is_temporary(name: str) -> bool:
    """A file name `write_stream_atomic` uses for its temporary files (one left behind by a killed process)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def sync_directory(directory: Path) -> None:
    """Make renames in `directory` durable; a filesystem that cannot fsync a directory is left as it is."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover  (some filesystems cannot fsync a directory)
        pass
    finally:
        os.close(fd)


def _create_temporary(path: Path) -> tuple[int, Path]:
    """A new file beside `path`, created with the mode `path` has (when it exists) or a new file gets.

    Not `tempfile.mkstemp`: it creates files 0o600, and reading the umask to widen them is not thread-safe
    (os.umask sets it); creating with 0o666 lets the kernel apply the umask, as for any file."""
    try:
        keep = path.stat().st_mode & 0o777
    except OSError:
        keep = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = path.parent / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"
        try:
            handle = os.open(temporary, flags, _NEW_FILE_MODE)
        except FileExistsError:
            continue
        if keep is not None:
            try:
                os.chmod(temporary, keep)  # before any byte is written: a private file's content stays private
            except BaseException:
                os.close(handle)
                with contextlib.suppress(OSError):
                    temporary.unlink()
                raise
        return handle, temporary
    raise FileExistsError(f"no free temporary file name beside {path}")  # pragma: no cover


def to_json(value: Any, *, inline_below: int | None = None) -> str:
    """JSON indented by two spaces, NaN and infinities as null. `inline_below`: containers nested that deep or
    deeper are written on one line each (a report.json's groups and checks, one per line): json's C encoder
    writes those, where indenting everything takes its pure-Python encoder — 3.5 s for a 10,000-group report."""
    if inline_below is None:
        return json.dumps(_finite(value), indent=2, ensure_ascii=False) + "\n"
    return _layout(value, 0, inline_below) + "\n"


def _layout(value: Any, depth: int, inline_below: int) -> str:
    if depth >= inline_below or not isinstance(value, (dict, list, tuple)) or not value:
        return _compact(value)
    inner = "  " * (depth + 1)
    if isinstance(value, dict):
        parts = [f"{inner}{_compact(_key(k))}: {_layout(v, depth + 1, inline_below)}" for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + "\n" + "  " * depth + "}"
    parts = [inner + _layout(v, depth + 1, inline_below) for v in value]
    return "[\n" + ",\n".join(parts) + "\n" + "  " * depth + "]"


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere inside: null, as everywhere
        return json.dumps(_finite(value), ensure_ascii=False)


def _key(key: Any) -> str:
    """A dict key as json writes it (json turns 1, 1.5, True and None into "1", "1.5", "true", "null")."""
    return key if isinstance(key, str) else next(iter(json.loads(json.dumps({key: 0}))))


def write_json_atomic(path: Path, value: Any, *, inline_below: int | None = None) -> None:
    write_text_atomic(path, to_json(value, inline_below=inline_below))


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
    """An Excel workbook, one sheet per entry (name -> (columns, rows)), written atomically, secrets redacted.

    Every string is written as text, never as a formula: model names, ids and responses are model- or
    PR-controlled (`=HYPERLINK(...)` would become a clickable link, `=WEBSERVICE(...)` a request, when a maintainer
    opens the workbook). Streamed by `gate.io.xlsx` (plain values straight to XML, no cell objects): a sheet of
    50,000 records × 20 columns is neither held in memory nor ~25 µs a cell, as openpyxl's writer made it."""
    import gate.io.xlsx as xlsx

    redacted = {name: ([redact(c) for c in columns], ([redact(v) for v in row] for row in rows))
                for name, (columns, rows) in sheets.items()}
    write_stream_atomic(path, lambda stream: xlsx.write_workbook(stream, redacted))
