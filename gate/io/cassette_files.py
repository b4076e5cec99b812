"""Reading and writing cassette files (`gate.generate.cassettes`): committed JSON Lines of recorded model calls.

Part of `gate.io`. A cassette is read as a regular file only (a FIFO is never opened for a blocking read), bounded
(`FILE_BYTES` whole, `line_limit` a line), UTF-8; every problem names the file and the line. It is written whole
through the one atomic writer (`write_text_atomic`: a reader sees the old file or the new one, and secrets this
process knows are redacted, whatever a model wrote).
"""

from __future__ import annotations

import re
from pathlib import Path

import gate.io.limits as limits
from gate.errors import InputError, Problem
from gate.io.regular import TooLarge, read_regular
from gate.io.source import display_path
from gate.io.write import write_text_atomic

_BREAK = re.compile(r"\r\n|\r|\n")


def read_cassette_lines(path: Path, line_limit: int) -> list[tuple[int, str]] | None:
    """(line number, text) of each non-empty line; None when the file does not exist (nothing recorded yet)."""
    shown = display_path(path)
    try:
        raw = read_regular(path, limits.FILE_BYTES)
    except FileNotFoundError:
        return None
    except TooLarge:
        raise InputError("a cassette is too large", [Problem(
            file=shown, expected=f"a cassette of at most {limits.size(limits.FILE_BYTES)}", found="a larger file",
            fix="split the suite's prompts, or record fewer samples")]) from None
    except OSError as exc:
        raise InputError("a cassette cannot be read", [Problem(
            file=shown, expected="a readable regular file", found=f"{type(exc).__name__}: {exc}",
            fix="restore it from git, or record it again")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("a cassette is not UTF-8", [Problem(
            file=shown, line=raw[: exc.start].count(b"\n") + 1, expected="UTF-8 text", found="other bytes",
            fix="restore it from git, or record it again")]) from None
    lines, problems = [], []
    for number, line in enumerate(_BREAK.split(text), start=1):
        if not line.strip():
            continue
        if len(line.encode("utf-8")) > line_limit:
            problems.append(Problem(file=shown, line=number, expected=f"an entry of at most {line_limit} bytes",
                                    found="a longer line", fix="record it again (lower max_tokens)"))
            continue
        lines.append((number, line))
    if problems:
        raise InputError("a cassette has entries past the size limit", problems)
    return lines


def write_cassette(path: Path, text: str) -> None:
    """The cassette's whole new text, atomically."""
    write_text_atomic(path, text)
