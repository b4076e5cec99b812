"""`llm-gate calibrate`: checks proposed from the run-to-run noise of k repeated runs of the same system
(the statistics are `gate.baselines.calibration`'s; this reads the report.json files, chooses the metrics a user
gates on and writes the snippet)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gate import io
from gate.baselines import calibration
from gate.baselines.renamed import renamed_record
from gate.config.gate import retired_names
from gate.errors import ConfigError, InputError, Problem, describe
from gate.kinds import KINDS


def calibrate_reports(paths: list[Path], z: float | None, warn_z: float | None, output: Path | None, *,
                      metrics: str | None = None, alpha: float = 0.05, scope: str = "suite",
                      floor_budget: float = 0.01, min_effect: bool = False,
                      warn_budget: float | None = calibration.WARN_BUDGET) -> None:
    reports: list[dict[str, Any]] = []
    problems: list[Problem] = []
    renames = retired_names()[0]
    for path in paths:
        document, found = io.read_json_document(path)
        problems += found
        if document is not None:
            if not isinstance(document.value, dict) or document.value.get("schema") != 1:
                problems.append(Problem(file=io.display_path(path), expected="a report.json of schema 1 "
                                        "(written by `llm-gate run` with `json` in report.formats)",
                                        found="something else"))
            else:
                reports.append(_renamed(document.value, renames, io.display_path(path)))
    if problems:
        raise InputError("cannot read the reports to calibrate on", problems)
    available = {kind: _metrics(reports, kind) for kind in KINDS}
    directions = {kind: {m: d.value for m in available[kind] if (d := scorer.direction(m)) is not None}
                  for kind, scorer in KINDS.items()}
    scales = calibration.scales_of({kind: scorer.metrics for kind, scorer in KINDS.items()}, available)
    chosen = _chosen(metrics, available, renames)
    try:
        result = calibration.calibrate(reports, directions, z=z, warn_z=warn_z, metrics=chosen, alpha=alpha,
                                       scope=scope, floor_budget=floor_budget, min_effect=min_effect,
                                       warn_budget=warn_budget, scales=scales)
    except ValueError as exc:
        fix = ("pass k >= 2 report.json files of repeated runs of the same system; --warn-z below --z; "
               "--alpha and --floor-budget between 0 and 0.5, --warn-budget from 0 to below 1; --scope a level "
               "the reports have")
        raise ConfigError("cannot calibrate", [Problem(expected=str(exc), fix=fix)]) from None
    text = calibration.snippet(result)
    estimate, ceiling = calibration.gate_false_alarm(result)
    warned, warn_ceiling = calibration.warning_rate(result)
    checks = len({(p.suite, p.metric) for p in result.proposals} | {(c.suite, c.metric) for c in result.changes})
    if output:
        io.write_text_atomic(output, text)
        sys.stdout.write(f"wrote {io.display_path(output)}: {checks} proposed checks from {len(reports)} runs; "
                         f"expected gate-level false-alarm rate ≈ {estimate:.1%} (at most {ceiling:.1%}), "
                         f"warning rate ≈ {warned:.1%} (at most {warn_ceiling:.1%})\n")
        if (advice := calibration.over_alpha(result)) is not None:
            sys.stdout.write(f"  {advice}\n")
        sys.stdout.write("  Merge it into gate.yml: its `alpha:` at the top level, and under each suite each metric's "
                         "entry into that suite's `checks:` (replacing the metric's entry there)\n")
    else:
        sys.stdout.write(text)
    if result.skipped:
        sys.stderr.write(f"{len(result.skipped)} metric(s) or floor(s) not proposed (the snippet lists them too):\n")
        for skipped in result.skipped[:40]:
            what = f"{skipped.suite}.{skipped.metric}" if skipped.metric else skipped.suite
            sys.stderr.write(f"  {what}{f' ({skipped.level})' if skipped.level else ''}: {skipped.reason}\n")
        if len(result.skipped) > 40:
            sys.stderr.write(f"  … and {len(result.skipped) - 40} more\n")


def _renamed(report: dict[str, Any], renames: Mapping[str, Mapping[str, str]], shown: str) -> dict[str, Any]:
    """`report` with the metrics its suites' kinds renamed since it was written under their new names (a warning
    each), so reports from before and after a rename calibrate together (`gate.baselines.renamed`)."""
    suites = report.get("suites")
    if not isinstance(suites, list):
        return report
    renamed = []
    for suite in suites:
        names = renames.get(str(suite.get("kind")), {}) if isinstance(suite, dict) else {}
        held = sorted(names.keys() & _names(suite)) if names else []
        if held:
            sys.stderr.write(f"warning: {shown}: suite {suite.get('name')!r}: "
                             f"{', '.join(f'{old} read as {names[old]}' for old in held)} (renamed since)\n")
            suite = renamed_record(suite, names)
        renamed.append(suite)
    return {**report, "suites": renamed}


def _chosen(metrics: str | None, available: dict[str, set[str]], renames: Mapping[str, Mapping[str, str]]
            ) -> dict[str, tuple[str, ...]]:
    """By kind, the metrics to calibrate: `--metrics a,b,c` for every kind that has them (a retired name read as its
    new one, with a warning), else each kind's defaults. A requested name no suite of the reports has is an error:
    a typo would silently propose nothing."""
    if metrics is None:
        return {kind: calibration.default_metrics(kind, names) for kind, names in available.items()}
    names = tuple(dict.fromkeys(n.strip() for n in metrics.split(",") if n.strip()))
    everything = set().union(*available.values())
    retired = {old: new for kind in renames.values() for old, new in kind.items()}
    for old in [n for n in names if n not in everything and n in retired]:
        sys.stderr.write(f"warning: --metrics {old}: renamed {retired[old]}; write that instead\n")
    names = tuple(dict.fromkeys(retired[n] if n not in everything and n in retired else n for n in names))
    unknown = [n for n in names if n not in everything]
    if not names or unknown:
        known = ", ".join(sorted(everything)[:30]) or "none"
        raise ConfigError("cannot calibrate", [Problem(
            field="--metrics", expected="comma-separated metric names the reports' suites have",
            found=describe(metrics) if not names else f"{', '.join(unknown)} in no suite of the reports",
            fix=f"choose among: {known}")])
    return {kind: tuple(n for n in names if n in available[kind]) for kind in available}


def _metrics(reports: list[dict], kind: str) -> set[str]:
    names: set[str] = set()
    for report in reports:
        for suite in report.get("suites") or []:
            if suite.get("kind") == kind:
                names |= _names(suite)
    return names


def _names(suite: dict[str, Any]) -> set[str]:
    """The metric names of a report.json suite, at the suite's level and its groups'."""
    names = set(suite.get("metrics") or {})
    for group in suite.get("groups") or []:
        names |= set(group.get("metrics") or {}) if isinstance(group, dict) else set()
    return names
