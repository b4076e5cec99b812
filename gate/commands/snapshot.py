"""`llm-gate baseline bless`, metrics part: snapshot every selected suite's measured results as its baseline."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from gate import __version__, comparison, io, vcs
from gate.commands.run import measure
from gate.config import DriftSuiteConfig, GateConfig
from gate.config_loader import load_config
from gate.errors import ConfigError, Problem
from gate.pipeline import select_suites
from gate.settings import Settings
from gate.snapshots import Snapshot


def bless(config_path: Path, suites: tuple[str, ...], *, model: str | None, model_version: str | None,
          metrics: bool, commit: str | None, dry_run: bool, now: datetime, settings: Settings) -> None:
    """`baseline bless`: drift outputs of `model` first (so snapshots measure the blessed state), then snapshots."""
    from gate.commands.bless import bless_baseline

    config = load_config(config_path)
    if model:
        drift = [n for n in suites if isinstance(config.suites.get(n), DriftSuiteConfig)]
        if suites and not drift:
            raise ConfigError("--model needs a drift suite", [Problem(
                field="--suite", expected="at least one drift suite when --model is given",
                found=", ".join(suites), fix="add --suite with a drift suite, or leave --model out")])
        blessed = [bless_baseline(config_path, name, model, model_version, dry_run, now) for name in drift or [None]]
        suites = suites or tuple(blessed)
    if metrics:
        bless_snapshots(config, config_path.resolve().parent, suites, now=now, commit=commit, dry_run=dry_run,
                        settings=settings)


def bless_snapshots(config: GateConfig, base_dir: Path, suites: tuple[str, ...], *, now: datetime,
                    commit: str | None, dry_run: bool, settings: Settings) -> list[Path]:
    """Measure the suites as they are now and write `<baselines.dir>/<suite>.json` for each (atomically)."""
    selected = select_suites(config, suites)
    results, _ = measure(config, selected, base_dir, settings)  # the workflow's judge settings too
    commit = commit or vcs.head_commit(base_dir)
    stamp = now.isoformat().replace("+00:00", "Z")
    written = []
    for result in results:
        suite = config.suites[result.name]
        snapshot = Snapshot.from_result(result, gate=config.name, created_at=stamp, commit=commit,
                                        inputs_digest=comparison.inputs_digest(suite, base_dir),
                                        tool_version=__version__)
        path = comparison.snapshot_path(config, base_dir, result.name)
        action = "would write" if dry_run else "wrote"
        if not dry_run:
            comparison.write_snapshot(path, snapshot)
            written.append(path)
        groups = sum(1 for g in result.groups if g.level == "group")
        sys.stdout.write(f"{io.display_path(path)}: {action} the baseline snapshot of {result.name} "
                         f"({len(result.metrics)} suite metrics, {groups} groups, {len(result.items)} items"
                         f"{', commit ' + commit[:7] if commit else ''})\n")
    return written
