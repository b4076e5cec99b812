"""`llm-gate history`: the trend of each key metric over the default branch's recorded runs."""

from __future__ import annotations

import json
import sys
from typing import TypedDict

from gate import io
from gate.baselines import flow, history
from gate.baselines.trends import headline
from gate.baselines.trends import label_of as label
from gate.config.settings import Settings
from gate.errors import ConfigError, Problem
from gate.kinds import get_kind
from gate.publish.github.client import publisher_for
from gate.run import read_config


class _Row(TypedDict):
    suite: str
    metric: str
    points: list[tuple[str, float]]  # (run label, value), oldest first


def show_history(settings: Settings, suites: tuple[str, ...], metrics: tuple[str, ...], last: int,
                 as_json: bool) -> None:
    config = read_config(settings.config_path)
    if config.history is None:
        raise ConfigError("no history configured", [Problem(
            field="history", expected="a `history:` section in gate.yml", found="none",
            fix="add `history: {}` (defaults: history/{gate}.jsonl next to gate.yml), then run the gate on the "
                "default branch")])
    base_dir = settings.config_path.resolve().parent
    read = flow.read_history(config, base_dir, publisher_for(settings))
    for note in read.notes:
        sys.stderr.write(f"llm-gate: {note}\n")
    entries = read.entries[-last:] if last else read.entries
    rows: list[_Row] = []
    for name, suite in config.suites.items():
        if suites and name not in suites:
            continue
        wanted = list(metrics) or list(config.history.metrics or get_kind(suite.kind).checks_for(suite))
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
             else io.display_path(flow.history_file(config, base_dir)))
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
