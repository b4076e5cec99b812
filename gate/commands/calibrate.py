"""`llm-gate calibrate`: thresholds proposed from the run-to-run noise of k repeated runs of the same system
(the statistics are `gate.baselines.calibration`'s; this reads the report.json files and writes the snippet)."""

from __future__ import annotations

import sys
from pathlib import Path

from gate import io
from gate.baselines import calibration
from gate.errors import ConfigError, InputError, Problem
from gate.scorers import SCORERS


def calibrate_reports(paths: list[Path], z: float, warn_z: float | None, output: Path | None) -> None:
    reports, problems = [], []
    for path in paths:
        document, found = io.read_json_document(path)
        problems += found
        if document is not None:
            if not isinstance(document.value, dict) or document.value.get("schema") != 1:
                problems.append(Problem(file=io.display_path(path), expected="a report.json of schema 1 "
                                        "(written by `llm-gate run` with `json` in report.formats)",
                                        found="something else"))
            else:
                reports.append(document.value)
    if problems:
        raise InputError("cannot read the reports to calibrate on", problems)
    directions = {kind: {m: d.value for m in _metrics(reports, kind) if (d := scorer.direction(m)) is not None}
                  for kind, scorer in SCORERS.items()}
    try:
        result = calibration.calibrate(reports, directions, z=z, warn_z=warn_z)
    except ValueError as exc:
        fix = "pass k >= 2 report.json files of repeated runs of the same system; --warn-z below --z"
        raise ConfigError("cannot calibrate", [Problem(expected=str(exc), fix=fix)]) from None
    text = calibration.snippet(result.proposals)
    if output:
        io.write_text_atomic(output, text)
        sys.stdout.write(f"wrote {io.display_path(output)}: {len(result.proposals)} proposed checks from "
                         f"{len(reports)} runs\n")
    else:
        sys.stdout.write(text)
    if result.skipped:
        sys.stderr.write(f"{len(result.skipped)} metric(s) not calibrated:\n")
        for skipped in result.skipped[:40]:
            what = f"{skipped.suite}.{skipped.metric}" if skipped.metric else skipped.suite
            sys.stderr.write(f"  {what}{f' ({skipped.level})' if skipped.level else ''}: {skipped.reason}\n")
        if len(result.skipped) > 40:
            sys.stderr.write(f"  … and {len(result.skipped) - 40} more\n")


def _metrics(reports: list[dict], kind: str) -> set[str]:
    names: set[str] = set()
    for report in reports:
        for suite in report.get("suites") or []:
            if suite.get("kind") == kind:
                names |= set(suite.get("metrics") or {})
                for group in suite.get("groups") or []:
                    names |= set(group.get("metrics") or {})
    return names
