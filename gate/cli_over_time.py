"""`llm-gate baseline bless`, `history` and `calibrate`: the commands about a gate over time."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

import typer

from gate.cli import ConfigOption, app, baseline_app


@baseline_app.command("bless")
def baseline_bless(
    config: ConfigOption = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Bless this suite (repeatable; default: all; with --model: the only drift suite).")] = None,  # noqa: E501
    model: Annotated[str | None, typer.Option(help="Drift suites: this candidate model's feedback becomes the baseline feedback.")] = None,  # noqa: E501
    model_version: Annotated[str | None, typer.Option(help="Recorded as baseline_feedback.model_version.")] = None,  # noqa: E501
    metrics: Annotated[bool, typer.Option("--metrics/--no-metrics", help="Write the metric snapshots (<baselines.dir>/<suite>.json).")] = True,  # noqa: E501
    commit: Annotated[str | None, typer.Option(help="Commit recorded in the snapshots (default: GITHUB_SHA or git HEAD).")] = None,  # noqa: E501
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
) -> None:
    """Make this run the baseline: drift outputs (with --model), then a metric snapshot per suite with its
    fingerprint, commit and time. Later runs compare with it (`max_decrease`, trends) only when comparable."""
    from gate.commands.snapshot import bless
    from gate.settings import Settings

    settings = Settings.from_env(os.environ, config=str(config) if config else None)
    bless(settings.config_path, tuple(suite or ()), model=model, model_version=model_version, metrics=metrics,
          commit=commit or settings.github.sha, dry_run=dry_run, now=datetime.now(timezone.utc).replace(microsecond=0))


@app.command()
def history(
    config: ConfigOption = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Only this suite (repeatable).")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", help="Only this metric (repeatable; default: the checked ones).")] = None,  # noqa: E501
    last: Annotated[int, typer.Option(min=0, help="Only the last N runs (0: all).")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Print the trend of each key metric over the default branch's recorded runs."""
    from gate.commands.over_time import show_history
    from gate.settings import Settings

    settings = Settings.from_env(os.environ, config=str(config) if config else None)
    show_history(settings, tuple(suite or ()), tuple(metric or ()), last, as_json)


@app.command()
def calibrate(
    reports: Annotated[list[Path], typer.Argument(help="report.json of k >= 2 repeated runs of the same system.")],
    z: Annotated[float, typer.Option(help="Fail level: z prediction-σ below the mean (above, for lower-is-better).")] = 2.0,  # noqa: E501
    warn_z: Annotated[float, typer.Option(help="Warn level, in the same units (below --z; 0: no warn level).")] = 1.0,  # noqa: E501
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the gate.yml snippet here.")] = None,
) -> None:
    """Propose thresholds from the run-to-run noise of repeated runs, as a gate.yml snippet."""
    from gate.commands.over_time import calibrate_reports

    calibrate_reports(reports, z, warn_z or None, output)
