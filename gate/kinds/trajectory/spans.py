"""OpenTelemetry spans as exported to JSON, read into one shape: its trace, timing and attributes, with where it is.

Two exports are read. OTLP JSON (the collector's file exporter, `otlp-json`; one export object per line or per
file): `{"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans": [{"spans": [...]}]}]}`, each span
`{traceId, spanId, parentSpanId, name, startTimeUnixNano, endTimeUnixNano, attributes: [{key, value: {stringValue |
intValue | doubleValue | boolValue | arrayValue | kvlistValue | bytesValue}}]}` (a bare span object is read too).
The Python SDK's span JSON (`ReadableSpan.to_json()`, the console exporter): `{name, context: {trace_id, span_id},
parent_id, start_time, end_time (ISO 8601), attributes: {...}, resource: {attributes: {...}}}`. A span's attributes
are its resource's with its own on top. Every problem names the file, the line and the field path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gate.errors import Problem, describe
from gate.io import RawRecord, SourceRef

SPAN_KEYS = frozenset({"resourceSpans", "traceId", "spanId", "context", "attributes"})  # what no run record has
Locate = Callable[[tuple[str | int, ...]], int | None]  # a path inside the record -> its line, where known


@dataclass(frozen=True)
class Span:
    trace_id: str
    span_id: str | None
    parent_id: str | None
    name: str
    start: float | None  # seconds since the epoch
    end: float | None
    attributes: Mapping[str, Any]
    source: SourceRef
    field: str  # its path in the record, for problems: "resourceSpans[0].scopeSpans[0].spans[2]"

    @property
    def duration(self) -> float | None:
        return self.end - self.start if self.start is not None and self.end is not None else None


def is_span_record(data: Mapping[str, Any]) -> bool:
    return not SPAN_KEYS.isdisjoint(data)


def spans_of(raw: RawRecord, locate: Locate | None, problems: list[Problem]) -> list[Span]:
    """The spans in one record (an OTLP export, a bare OTLP span or an SDK span), in order; bad ones are problems."""
    data = raw.data
    reader = _Reader(raw, locate, problems)
    if "resourceSpans" not in data:
        single = reader.otlp(data, (), {}) if "traceId" in data or "spanId" in data else reader.sdk(data)
        return [single] if single else []
    found: list[Span] = []
    for i, resource in enumerate(reader.listed(data["resourceSpans"], ("resourceSpans",), "a list of resource spans")):
        where = ("resourceSpans", i)
        shared = reader.otlp_attributes(_get(resource, "resource", "attributes"), (*where, "resource", "attributes"))
        scopes = resource.get("scopeSpans", resource.get("instrumentationLibrarySpans", []))
        for j, scope in enumerate(reader.listed(scopes, (*where, "scopeSpans"), "a list of scope spans")):
            for k, span in enumerate(reader.listed(scope.get("spans", []), (*where, "scopeSpans", j, "spans"),
                                                   "a list of spans")):
                read = reader.otlp(span, (*where, "scopeSpans", j, "spans", k), shared)
                if read:
                    found.append(read)
    return found


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def field_name(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + part
    return text


class _Reader:
    def __init__(self, raw: RawRecord, locate: Locate | None, problems: list[Problem]):
        self.raw, self.locate, self.problems = raw, locate, problems

    def at(self, path: tuple[str | int, ...]) -> SourceRef:
        line = self.locate(path) if self.locate else None
        return SourceRef(self.raw.source.file, line if line is not None else self.raw.source.line)

    def problem(self, path: tuple[str | int, ...], expected: str, found: Any, fix: str, *, said: bool = False) -> None:
        """`found` is the value found (described), or with `said` already words."""
        where = self.at(path)
        self.problems.append(Problem(file=where.file, line=where.line, record=self.raw.label,
                                     field=field_name(path) or None, expected=expected,
                                     found=found if said else describe(found), fix=fix))

    def listed(self, value: Any, path: tuple[str | int, ...], what: str) -> list[dict]:
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.problem(path, what + " (JSON objects)", value, "export the spans as OTLP JSON "
                         "(the collector's file exporter) or as the SDK's span JSON")
            return []
        return value

    def otlp(self, span: dict, path: tuple[str | int, ...], shared: Mapping[str, Any]) -> Span | None:
        trace = self.span_id(span.get("traceId"), (*path, "traceId"), "traceId")
        start = self.nanos(span.get("startTimeUnixNano"), (*path, "startTimeUnixNano"))
        end = self.nanos(span.get("endTimeUnixNano"), (*path, "endTimeUnixNano"))
        attributes = self.otlp_attributes(span.get("attributes"), (*path, "attributes"))
        if trace is None:
            return None
        return Span(trace, _text(span.get("spanId")), _text(span.get("parentSpanId")), str(span.get("name") or ""),
                    start, end, {**shared, **attributes}, self.at(path), field_name(path))

    def sdk(self, span: dict) -> Span | None:
        context = span.get("context")
        trace = self.span_id(context.get("trace_id") if isinstance(context, dict) else None, ("context", "trace_id"),
                             "context.trace_id")
        start = self.iso(span.get("start_time"), ("start_time",))
        end = self.iso(span.get("end_time"), ("end_time",))
        attributes = span.get("attributes", {})
        if not isinstance(attributes, dict):
            self.problem(("attributes",), "an object of attributes", attributes, "write `attributes` as a JSON "
                         "object, as the SDK's span JSON does")
            attributes = {}
        shared = _get(span, "resource", "attributes")
        if trace is None:
            return None
        return Span(trace, _text(_get(span, "context", "span_id")), _text(span.get("parent_id")),
                    str(span.get("name") or ""), start, end,
                    {**(shared if isinstance(shared, dict) else {}), **attributes}, self.at(()), "")

    def span_id(self, value: Any, path: tuple[str | int, ...], name: str) -> str | None:
        if isinstance(value, str) and value.strip():
            return value.strip().lower().removeprefix("0x")
        self.problem(path, f"the span's trace id ({name}, hex text)", "nothing" if value is None else describe(value),
                     "export every span with its trace id: the spans of one agent run share it", said=True)
        return None

    def nanos(self, value: Any, path: tuple[str | int, ...]) -> float | None:
        if value is None:
            return None
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value / 1e9
        self.problem(path, "nanoseconds since the Unix epoch (a whole number, as text or a number)", value,
                     "write the time as OTLP JSON does, e.g. \"1717236000000000000\"")
        return None

    def iso(self, value: Any, path: tuple[str | int, ...]) -> float | None:
        if value is None:
            return None
        try:
            if not isinstance(value, str):
                raise ValueError
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            if moment.tzinfo is None:
                raise ValueError
            return moment.timestamp()
        except ValueError:
            self.problem(path, "an ISO 8601 time with its zone, e.g. 2024-06-01T10:00:00.250000Z", value,
                         "write the time as the SDK's span JSON does")
            return None

    def otlp_attributes(self, value: Any, path: tuple[str | int, ...]) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, list):
            self.problem(path, "a list of {key, value} attributes", value, "write attributes as OTLP JSON does: "
                         "[{\"key\": \"gen_ai.tool.name\", \"value\": {\"stringValue\": \"search\"}}]")
            return {}
        found: dict[str, Any] = {}
        for i, entry in enumerate(value):
            key = entry.get("key") if isinstance(entry, dict) else None
            if not isinstance(key, str) or not key:
                self.problem((*path, i), "an attribute {key, value} with a non-empty key", entry,
                             "give every attribute its `key`")
                continue
            try:
                found[key] = any_value(entry.get("value"))
            except ValueError as exc:
                self.problem((*path, i, "value"), "an OTLP AnyValue: {stringValue | intValue | doubleValue | "
                             "boolValue | arrayValue | kvlistValue | bytesValue}", str(exc),
                             f"write attribute {key!r}'s value as OTLP JSON does", said=True)
        return found


def any_value(value: Any) -> Any:
    """An OTLP JSON AnyValue as the plain value it holds (intValue is a 64-bit integer written as text)."""
    if value is None or value == {}:
        return None
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError(describe(value))
    [(kind, inner)] = value.items()
    if kind in ("stringValue", "bytesValue") and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and not isinstance(inner, bool) and isinstance(inner, (int, str)):
        try:
            return int(inner)
        except ValueError:
            raise ValueError(describe(value)) from None
    if kind == "doubleValue" and isinstance(inner, (int, float)) and not isinstance(inner, bool):
        return float(inner)
    if kind == "arrayValue" and isinstance(inner, dict):
        return [any_value(v) for v in inner.get("values", [])]
    if kind == "kvlistValue" and isinstance(inner, dict):
        return {kv.get("key"): any_value(kv.get("value")) for kv in inner.get("values", []) if isinstance(kv, dict)}
    raise ValueError(describe(value))


def _text(value: Any) -> str | None:
    return value.strip().lower().removeprefix("0x") or None if isinstance(value, str) else None
