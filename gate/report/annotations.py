"""Annotations: failing, warning and inconclusive checks pinned to the input lines they are about.

Used for check-run annotations (GitHub API) and for `::error file=…,line=…::` workflow commands.
A check on a group points at the group's first record (e.g. the first candidate line of that
exercise and model) and names how many records the group has and where they are. An inconclusive check
is a notice with why it could not tell (it does not block, but a reviewer should see it next to the lines);
a waived check gets none: it was accepted on purpose, and the report names its waiver, owner and expiry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from gate.judge import CheckResult, CheckVerdict, GateVerdict, SuiteVerdict
from gate.results import key_label

MAX_ANNOTATIONS = 500  # a check run takes 50 per request; more than this helps nobody
# Files GitHub shows no lines of: an annotation there would show nowhere. It points at gate.yml's suite instead
BINARY_SUFFIXES = (".xlsx", ".xls", ".xlsm", ".parquet", ".gz", ".zip")


class Level(str, Enum):
    FAILURE = "failure"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True)
class Annotation:
    path: str
    line: int
    level: Level
    title: str
    message: str

    def to_check_run(self) -> dict[str, str | int]:
        return {"path": self.path, "start_line": self.line, "end_line": self.line,
                "annotation_level": self.level.value, "title": self.title[:255], "message": self.message[:4000]}

    def to_dict(self) -> dict[str, str | int]:
        return {"path": self.path, "line": self.line, "level": self.level.value, "title": self.title,
                "message": self.message}

    @classmethod
    def from_dict(cls, data: dict) -> Annotation:
        return cls(str(data["path"]), int(data["line"]), Level(data["level"]), str(data["title"]),
                   str(data["message"]))


_LEVELS = {CheckVerdict.FAIL: Level.FAILURE, CheckVerdict.WARN: Level.WARNING, CheckVerdict.INCONCLUSIVE: Level.NOTICE}
_TITLES = {Level.FAILURE: "failed", Level.WARNING: "warning", Level.NOTICE: "inconclusive"}


def check_annotations(verdict: GateVerdict, limit: int = MAX_ANNOTATIONS, gate_file: str | None = None,
                      suite_lines: Mapping[str, int] | None = None) -> list[Annotation]:
    """The failing, warning and inconclusive checks' annotations, failures first, then warnings. (Not
    `annotations`: that name is `from __future__ import annotations`' in every module that would import it.)
    A check whose records are rows of a binary file (a spreadsheet) points at its suite in `gate_file` (gate.yml,
    at `suite_lines[suite]`, else line 1), its message naming the rows; without `gate_file` it gets none."""
    found: list[Annotation] = []
    for suite in verdict.suites:
        found += _suite_annotations(suite, gate_file, (suite_lines or {}).get(suite.result.name, 1))
    found.sort(key=lambda a: (list(Level).index(a.level), a.path, a.line))
    return found[:limit]


def _suite_annotations(suite: SuiteVerdict, gate_file: str | None, suite_line: int) -> list[Annotation]:
    sources = {(g.level, g.key): g.sources for g in suite.result.groups}
    result = []
    for check in suite.checks:
        level = _LEVELS.get(check.verdict)
        if check.advisory and level is not None:  # never blocks: one level softer, and its title says why
            level = Level.WARNING if level is Level.FAILURE else Level.NOTICE
        located = sources.get((check.scope, check.key), ())
        if level is None or not located:
            continue
        first = located[0]
        if first.line is None:
            continue
        lines = sorted({s.line for s in located if s.file == first.file and s.line is not None})
        shown = ", ".join(map(str, lines[:12])) + (" …" if len(lines) > 12 else "")
        path, line = first.file, first.line
        if path.lower().endswith(BINARY_SUFFIXES):  # GitHub would show it on no line: gate.yml's suite instead
            if gate_file is None:
                continue
            path, line = gate_file, suite_line
        result.append(Annotation(
            path=path, line=line, level=level,
            title=f"{suite.result.name}: {check.metric} "
                  + (f"{check.verdict.value} (advisory)" if check.advisory else _TITLES[level]),
            message=f"{describe(check)} for {key_label(check.key)}. "
                    + (f"Could not tell: {check.reason}. " if level is Level.NOTICE and check.reason else "")
                    + f"{len(located)} record(s) in this group; lines {shown} of {first.file}.",
        ))
    return result


def describe(check: CheckResult) -> str:
    if check.change is not None:
        if check.value is None:
            return f"Δ {check.metric} vs the baseline snapshot could not be measured"
        level = check.warn if check.verdict is CheckVerdict.WARN and check.warn is not None else check.fail
        moved = "fell" if check.value < 0 else "rose"
        change = check.change
        evidence = []
        if change.baseline is not None and change.current is not None:
            evidence.append(f"{change.baseline:.4g} → {change.current:.4g}")
        if change.tested and change.p_value is not None:
            adjusted = f", adjusted {change.p_adjusted:.3g}" if change.p_adjusted is not None else ""
            evidence.append(f"p {change.p_value:.3g}{adjusted}")
        if change.mde is not None:
            evidence.append(f"detects ≥ {change.mde:.3g}")
        evidence.append(f"allowed {abs(level):g}")
        return f"{check.metric} {moved} by {abs(check.value):.4g} against the baseline snapshot ({'; '.join(evidence)})"
    value = "unmeasured" if check.value is None else f"{check.value:.4g}"
    bound = check.warn if check.verdict is CheckVerdict.WARN and check.warn is not None else check.fail
    relation = ("<" if check.op.value == "min" else ">") if check.verdict is not CheckVerdict.PASS else "meets"
    what = "warn level" if check.verdict is CheckVerdict.WARN else check.op.value
    return f"{check.metric} = {value} {relation} {what} {bound:g}"
