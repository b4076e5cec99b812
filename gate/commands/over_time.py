"""`llm-gate history` (trends of the default branch's runs) and `llm-gate calibrate` (thresholds from
repeated runs of the same system)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gate import calibration, history, io
from gate.commands import history_flow
from gate.config_loader import load_config
from gate.errors import ConfigError, InputError, Problem
from gate.scorers import SCORERS, get_scorer
from gate.settings import Settings
from gate.trends import headline
from gate.trends import label_of as label


def show_history(settings: Settings, suites: tuple[str, ...], metrics: tuple[str, ...], last: int,
                 as_json: bool) -> None:
    config = load_config(settings.config_path)
    if config.history is None:
        raise ConfigError("no history configured", [Problem(
            field="history", expected="a `history:` section in gate.yml", found="none",
            fix="add `history: {}` (defaults: history/{gate}.jsonl next to gate.yml), then run the gate on the "
                "default branch")])
    base_dir = settings.config_path.resolve().parent
    read = history_flow.read_history(config, base_dir, history_flow.publisher_for(settings))
    for note in read.notes:
        sys.stderr.write(f"llm-gate: {note}\n")
    entries = read.entries[-last:] if last else read.entries
    rows = []
    for name, suite in config.suites.items():
        if suites and name not in suites:
            continue
        wanted = list(metrics) or list(config.history.metrics or get_scorer(suite.kind).checks_for(suite))
        for metric in wanted:
            points = [(label(e), v) for e in entries
                      if isinstance(e.suites.get(name), dict) and (v := headline(e.suites[name], metric)) is not None]
            if points:
                rows.append({"suite": name, "metric": metric, "points": points})
    if as_json:
        sys.stdout.write(json.dumps([{**r, "points": [{"run": label, "value": v} for label, v in r["points"]]}
                                     for r in rows], indent=2) + "\n")
        return
    where = (f"branch {config.history.branch}" if config.history.branch and settings.github.token
             else io.display_path(history_flow.history_file(config, base_dir)))
    span = f", {entries[0].time[:10]} … {entries[-1].time[:10]}" if entries else ""
    sys.stdout.write(f"{config.name}: {len(entries)} recorded run{'s' if len(entries) != 1 else ''} ({where}{span})\n")
    if not rows:
        sys.stdout.write("  no recorded values for these suites and metrics yet\n")
        return
    width_suite = max(len("suite"), *(len(r["suite"]) for r in rows))
    width_metric = max(len("metric"), *(len(r["metric"]) for r in rows))
    sys.stdout.write(f"  {'suite':<{width_suite}}  {'metric':<{width_metric}}  {'runs':>4}  {'first':>9}  "
                     f"{'last':>9}  {'Δ prev':>9}  trend\n")
    for r in rows:
        values = [v for _, v in r["points"]]
        change = f"{values[-1] - values[-2]:+.4g}" if len(values) > 1 else "—"
        sys.stdout.write(f"  {r['suite']:<{width_suite}}  {r['metric']:<{width_metric}}  {len(values):>4}  "
                         f"{values[0]:>9.4g}  {values[-1]:>9.4g}  {change:>9}  {history.sparkline(values)}\n")


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
