"""A strict JSON parser that also reports the line each object/array starts on.

`json.loads` cannot say on which line the 7th submission of an exercise file starts, but error
messages and check-run annotations must point there. This parser produces the same values as
`json.loads` (minus its NaN/Infinity extension, which is an input error for a gate) plus a map from
the path of each container (`("submissions", 6)`) to its 1-based line. Strings and numbers are
scanned with the standard library's own scanners, so values are identical.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from json import decoder, scanner
from json.decoder import JSONDecodeError
from typing import Any, NoReturn

Path = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = scanner.NUMBER_RE
_scanstring = decoder.scanstring  # type: ignore[attr-defined]  # json's own string scanner; typeshed omits it


def _skip_ws(text: str, idx: int) -> int:
    """The offset of the first non-whitespace character at or after `idx`."""
    match = _WS.match(text, idx)
    assert match is not None  # `[ \t\n\r]*` matches everywhere, if only the empty string
    return match.end()


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int):
        super().__init__(f"{message} (line {line}, column {column})")
        self.message = message
        self.line = line
        self.column = column


class LoneSurrogate(JsonSyntaxError):
    """A string whose `\\uD800`-style escape has no partner: valid JSON syntax, but not Unicode text; every
    consumer that encodes it (a tokenizer, a report writer) would fail far from the file."""

    def __init__(self, line: int, column: int, path: Path, text: str, at: int):
        super().__init__(f"a lone surrogate {surrogate_escape(text[at])} at character {at + 1}", line, column)
        self.path, self.text, self.at = path, text, at


def surrogate_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def surrogate_at(text: str) -> int | None:
    """0-based index of the first lone surrogate in `text`, or None (the usual case, checked at C speed)."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def lone_surrogates(value: Any) -> Iterator[tuple[Path, str, int]]:
    """(path, text, index) of each string or key in a parsed JSON value that holds a lone surrogate, in
    document order; a key's path is its object's. Iterative: values nest up to the parser's limit."""
    stack: list[tuple[Path, Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            at = surrogate_at(item)
            if at is not None:
                yield path, item, at
        elif isinstance(item, dict):
            for key in item:
                at = surrogate_at(key)
                if at is not None:
                    yield path, key, at
            stack.extend(((*path, key), child) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*path, index), child) for index, child in reversed(list(enumerate(item))))


def loads_with_lines(text: str, max_depth: int = 6) -> tuple[Any, dict[Path, int]]:
    """Parse `text`; return the value and {path: line} for containers up to `max_depth` deep."""
    return _Parser(text, max_depth).parse()


class _Parser:
    def __init__(self, text: str, max_depth: int):
        self.text = text
        self.max_depth = max_depth
        self.lines: dict[Path, int] = {}
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def parse(self) -> tuple[Any, dict[Path, int]]:
        start = 1 if self.text.startswith("\ufeff") else 0
        value, end = self._value(start, ())
        end = _skip_ws(self.text, end)
        if end != len(self.text):
            self._fail("Extra data after the JSON value", end)
        return value, self.lines

    def line_at(self, offset: int) -> int:
        return bisect.bisect_left(self._newlines, offset) + 1

    def _fail(self, message: str, offset: int) -> NoReturn:
        line = self.line_at(offset)
        column = offset - (self._newlines[line - 2] if line > 1 else -1)
        raise JsonSyntaxError(message, line, column)

    def _value(self, idx: int, path: Path) -> tuple[Any, int]:
        text = self.text
        idx = _skip_ws(text, idx)
        if idx >= len(text):
            self._fail("Expecting value", idx)
        char = text[idx]
        if char == "{":
            return self._object(idx, path)
        if char == "[":
            return self._array(idx, path)
        if char == '"':
            try:
                value, end = _scanstring(text, idx + 1, True)
            except JSONDecodeError as exc:
                self._fail(exc.msg, exc.pos)
            at = surrogate_at(value) if text.find("\\u", idx, end) != -1 else None  # only an escape makes one
            if at is not None:
                line = self.line_at(idx)
                raise LoneSurrogate(line, idx - (self._newlines[line - 2] if line > 1 else -1), path, value, at)
            return value, end
        match = _NUMBER.match(text, idx)
        if match:
            integer, fraction, exponent = match.groups()
            if fraction or exponent:
                return float(integer + (fraction or "") + (exponent or "")), match.end()
            return int(integer), match.end()
        for literal, value in (("true", True), ("false", False), ("null", None)):
            if text.startswith(literal, idx):
                return value, idx + len(literal)
        for literal in ("NaN", "Infinity", "-Infinity"):
            if text.startswith(literal, idx):
                self._fail(f"{literal} is not valid JSON; use null or a finite number", idx)
        self._fail("Expecting value", idx)
        raise AssertionError  # unreachable: _fail raises

    def _remember(self, path: Path, idx: int) -> None:
        if len(path) <= self.max_depth:
            self.lines[path] = self.line_at(idx)

    def _object(self, idx: int, path: Path) -> tuple[dict, int]:
        text = self.text
        self._remember(path, idx)
        result: dict[str, Any] = {}
        idx = _skip_ws(text, idx + 1)
        if text.startswith("}", idx):
            return result, idx + 1
        while True:
            if not text.startswith('"', idx):
                self._fail("Expecting property name enclosed in double quotes", idx)
            key, idx = self._value(idx, path)
            idx = _skip_ws(text, idx)
            if not text.startswith(":", idx):
                self._fail("Expecting ':' delimiter", idx)
            result[key], idx = self._value(idx + 1, (*path, key))
            idx = _skip_ws(text, idx)
            if text.startswith("}", idx):
                return result, idx + 1
            if not text.startswith(",", idx):
                self._fail("Expecting ',' delimiter", idx)
            idx = _skip_ws(text, idx + 1)

    def _array(self, idx: int, path: Path) -> tuple[list, int]:
        text = self.text
        self._remember(path, idx)
        result: list[Any] = []
        idx = _skip_ws(text, idx + 1)
        if text.startswith("]", idx):
            return result, idx + 1
        while True:
            item_start = _skip_ws(text, idx)
            self._remember((*path, len(result)), item_start)
            value, idx = self._value(item_start, (*path, len(result)))
            result.append(value)
            idx = _skip_ws(text, idx)
            if text.startswith("]", idx):
                return result, idx + 1
            if not text.startswith(",", idx):
                self._fail("Expecting ',' delimiter", idx)
            idx += 1
