"""History of default-branch runs: an append-only JSONL file per gate, one schema-versioned line per run.

Appends are atomic and safe under concurrent writers (O_APPEND, an exclusive flock, one write, fsync);
reading skips what it cannot trust (torn, garbled, newer-schema or incomplete lines) and says so, with the
line, instead of failing. Also the small renderings of a trend: a Mermaid `xychart-beta` block for the PR
comment and a sparkline for terminals.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gate import io
from gate.baselines.renamed import renamed_record
from gate.errors import Problem, describe

SCHEMA = 1
ALREADY = "already recorded"  # a history branch append's answer when the run was recorded there already
_REQUIRED = {"gate": str, "time": str, "verdict": str, "suites": dict}
_NULLABLE = ("commit", "ref")


@dataclass(frozen=True)
class Entry:
    """One gate run on the default branch."""

    schema: int
    gate: str
    commit: str | None
    ref: str | None
    time: str  # ISO 8601, UTC
    verdict: str
    # suite name -> {"kind", "verdict", "fingerprint", "metrics", "groups": [{"level", "key", "metrics"}]}
    suites: dict[str, dict]

    def to_json(self) -> str:
        """One line of JSON; non-finite numbers are written as null."""
        return json.dumps(_finite(asdict(self)), ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_report(cls, report: dict, *, commit: str | None = None, ref: str | None = None,
                    time: str | None = None) -> Entry:
        """From a report.json dict (schema 1). Without commit/time, the report's own are used (time: now)."""
        if report.get("schema") != 1:
            raise ValueError(f"expected a report.json of schema 1, found schema {describe(report.get('schema'))}")
        suites = {}
        for suite in report.get("suites") or []:
            suites[str(suite["name"])] = {
                "kind": suite.get("kind"),
                "verdict": suite.get("verdict"),
                "fingerprint": dict(suite.get("fingerprint") or {}),
                "metrics": dict(suite.get("metrics") or {}),
                "groups": [{"level": g.get("level", "group"), "key": dict(g.get("key") or {}),
                            "metrics": dict(g.get("metrics") or {})} for g in suite.get("groups") or []],
            }
        when = time or report.get("generated_at") or datetime.now(timezone.utc).isoformat(timespec="seconds")
        return cls(schema=SCHEMA, gate=str(report.get("gate") or ""), commit=commit or report.get("commit"),
                   ref=ref, time=str(when), verdict=str(report.get("verdict")), suites=suites)

    def renamed(self, names: Mapping[str, Mapping[str, str]]) -> Entry:
        """This entry with the metrics each suite's kind renamed since it was recorded (suite -> {old: new}) under
        their new names, where the new name is not there already: a renamed metric's trend continues."""
        suites = {name: renamed_record(suite, names.get(name) or {}) for name, suite in self.suites.items()}
        return replace(self, suites=suites) if suites != self.suites else self

    @classmethod
    def from_dict(cls, data: Any) -> Entry:
        """Validate one parsed line; ValueError says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"a JSON object, found {type(data).__name__}")
        schema = data.get("schema")
        if type(schema) is not int or schema < 1:
            raise ValueError(f"an integer 'schema' >= 1, found {describe(schema)}")
        if schema > SCHEMA:
            raise ValueError(f"schema {SCHEMA}, found schema {schema} (written by a newer llm-quality-gate)")
        missing = [f for f, kind in _REQUIRED.items() if not isinstance(data.get(f), kind)]
        missing += [f for f in _NULLABLE if data.get(f) is not None and not isinstance(data[f], str)]
        if missing:
            raise ValueError("the fields gate, time, verdict (strings), suites (object), commit and ref (string or"
                             f" null), found missing or mistyped: {', '.join(missing)}")
        if not all(isinstance(s, dict) for s in data["suites"].values()):
            raise ValueError("'suites' to map suite names to objects")
        return cls(schema=schema, gate=data["gate"], commit=data.get("commit"), ref=data.get("ref"),
                   time=data["time"], verdict=data["verdict"], suites=data["suites"])


def append(path: Path, entry: Entry) -> bool:
    """Append one line atomically; concurrent appenders (processes or CI jobs on one disk) never interleave.

    False, appending nothing, when the file already records this gate at this commit (`recorded`, checked
    under the append's lock, so two jobs recording one commit at once write one line)."""
    return io.append_line_locked(path, entry.to_json(), unless=lambda raw: recorded(raw, entry))


def recorded(raw: bytes, entry: Entry) -> bool:
    """Whether a history's bytes already hold a run of `entry`'s gate at its commit (a run without a commit:
    never). Only lines that mention the commit are parsed, so a long history costs one substring search."""
    if not entry.commit:
        return False
    needle = json.dumps(entry.commit, ensure_ascii=False).encode("utf-8")
    candidates = b"\n".join(line for line in raw.split(b"\n") if needle in line)
    return any(e.gate == entry.gate and e.commit == entry.commit for e in parse(candidates, "")[0])


def read(path: Path) -> tuple[list[Entry], list[str]]:
    """Entries in file order, and one warning per line skipped. A missing file is an empty history."""
    return parse(io.read_bytes_or_empty(path), path)


def parse(raw: bytes, path: Path | str) -> tuple[list[Entry], list[str]]:
    """Entries from a history file's bytes (from disk or from a history branch), with warnings."""
    entries: list[Entry] = []
    warnings: list[str] = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            entries.append(Entry.from_dict(json.loads(line.decode("utf-8"))))
        except UnicodeDecodeError:
            warnings.append(_skipped(path, number, "UTF-8 text", "undecodable bytes"))
        except json.JSONDecodeError as error:
            torn = number == raw.count(b"\n") + 1  # the last line, without its newline
            found = f"invalid JSON ({error.msg})" + (", a torn last line" if torn else "")
            warnings.append(_skipped(path, number, "a JSON history entry", found))
        except ValueError as error:
            warnings.append(_skipped(path, number, str(error)))
    return entries, warnings


def _skipped(path: Path | str, line: int, expected: str, found: str | None = None) -> str:
    problem = Problem(expected=expected, found=found, file=str(path), line=line,
                      fix="the line was skipped; remove or repair it to silence this warning")
    return f"history: {problem.render()}"


def series(entries: Sequence[Entry], suite: str, metric: str, *, level: str = "group",
           key: dict | None = None) -> list[tuple[str, float]]:
    """(label, value) per entry that has the metric: the group with `key` at `level`, or the mean over the
    groups at that level when key is None; level "suite" reads the suite-level metric. Label: short commit or
    time."""
    points = []
    for entry in entries:
        value = _value(entry.suites.get(suite), metric, level, key)
        if value is not None:
            points.append(((entry.commit or "")[:7] or entry.time, value))
    return points


def last_value(entries: Sequence[Entry], suite: str, metric: str, **same: Any) -> float | None:
    """The metric in the latest entry that has it (same level/key arguments as `series`)."""
    points = series(entries, suite, metric, **same)
    return points[-1][1] if points else None


def _value(suite: Any, metric: str, level: str, key: dict | None) -> float | None:
    if not isinstance(suite, dict):
        return None
    if level == "suite":
        return _number((suite.get("metrics") or {}).get(metric))
    wanted = None if key is None else {str(k): str(v) for k, v in key.items()}
    values = []
    for group in suite.get("groups") or []:
        if not isinstance(group, dict) or group.get("level", "group") != level:
            continue
        metrics = group.get("metrics")
        value = _number(metrics.get(metric)) if isinstance(metrics, dict) else None
        if wanted is None:
            if value is not None:
                values.append(value)
        elif {str(k): str(v) for k, v in (group.get("key") or {}).items()} == wanted:
            return value
    return sum(values) / len(values) if values else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


_UNSAFE = re.compile(r'["`#;\[\]{}<>\\\x00-\x1f\x7f]+')


def _label(text: str) -> str:
    """Text safe inside a quoted Mermaid string and a Markdown code fence."""
    return " ".join(_UNSAFE.sub(" ", str(text)).split())


def _num(value: float) -> str:
    """Six significant digits, never exponent notation (Mermaid's number syntax has none)."""
    if value == 0:
        return "0"
    digits = min(12, max(0, 5 - math.floor(math.log10(abs(value)))))
    text = f"{value:.{digits}f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) or "0"


def mermaid_trend(title: str, points: Sequence[tuple[str, float]], *, y_label: str = "") -> str:
    """A ```mermaid `xychart-beta` line chart (GitHub renders it); "" for fewer than 2 points."""
    points = [(label, float(v)) for label, v in points if _number(v) is not None]
    if len(points) < 2:
        return ""
    values = [v for _, v in points]
    low, high = min(values), max(values)
    pad = ((high - low) or abs(high) or 1.0) * 0.1
    lo, hi = low - pad, high + pad
    if low >= 0 > lo:
        lo = 0.0
    if low >= 0 and high <= 1 < hi:
        hi = 1.0  # scores in [0, 1] keep their natural axis
    axis = f'"{_label(y_label)}" ' if _label(y_label) else ""
    return "\n".join([
        "```mermaid",
        "xychart-beta",
        f'    title "{_label(title)}"',
        "    x-axis [" + ", ".join(f'"{_label(label)}"' for label, _ in points) + "]",
        f"    y-axis {axis}{_num(lo)} --> {_num(hi)}",
        "    line [" + ", ".join(_num(v) for v in values) + "]",
        "```",
    ])


_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float]) -> str:
    """▁▂▃▄▅▆▇█ from lowest to highest; a constant series is drawn mid-height, a missing value as a space."""
    finite = [v for v in values if _number(v) is not None]
    if not finite:
        return " " * len(values)
    low, high = min(finite), max(finite)
    top = len(_BARS) - 1
    out = []
    for v in values:
        if _number(v) is None:
            out.append(" ")
        elif high == low:
            out.append(_BARS[top // 2])
        else:
            out.append(_BARS[round((v - low) / (high - low) * top)])
    return "".join(out)
