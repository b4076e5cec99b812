"""`llm-gate baseline bless`, `merge`, `history` and `calibrate`: the commands beyond a single run."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

import typer

from gate.cli.app import (
    AllowOutsideOption,
    CheckNameOption,
    CommentModeOption,
    CommentTitleOption,
    ConfigOption,
    app,
    baseline_app,
    path_policy,
    settings,
)


@baseline_app.command("bless")
def baseline_bless(
    config: ConfigOption = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Bless this suite (repeatable; default: all; with --model: the only suite whose kind keeps baseline outputs).")] = None,  # noqa: E501
    model: Annotated[str | None, typer.Option(help="Suites whose kind keeps baseline outputs in their inputs (e.g. baseline feedback) take this candidate model's outputs as their baseline.")] = None,  # noqa: E501
    model_version: Annotated[str | None, typer.Option(help="Recorded as baseline_feedback.model_version.")] = None,  # noqa: E501
    metrics: Annotated[bool, typer.Option("--metrics/--no-metrics", help="Write the metric snapshots (<baselines.dir>/<suite>.json).")] = True,  # noqa: E501
    commit: Annotated[str | None, typer.Option(help="Commit recorded in the snapshots (default: GITHUB_SHA or git HEAD).")] = None,  # noqa: E501
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change; write nothing.")] = False,
    add: Annotated[bool, typer.Option("--add", help="Fold this run into the existing snapshots as one more run of the same system (the snapshot keeps each item's mean and run-to-run variance); bless 3 or more runs so change checks know the baseline's noise.")] = False,  # noqa: E501
    allow_paths_outside_workspace: AllowOutsideOption = False,
) -> None:
    """Make this run the baseline: a model's outputs (with --model), then a metric snapshot per suite with its
    fingerprint, commit and time. Later runs compare with it (`max_decrease`, trends) only when comparable.
    With --add, this run joins the snapshot's earlier runs (regenerate the outputs between blessings)."""
    from gate.cli.commands.bless import bless

    chosen = settings(config)
    with path_policy(allow_paths_outside_workspace):
        bless(chosen.config_path, tuple(suite or ()), model=model, model_version=model_version, metrics=metrics,
              commit=commit or chosen.github.sha, dry_run=dry_run, add=add,
              now=datetime.now(timezone.utc).replace(microsecond=0), settings=chosen)


@app.command()
def merge(
    shards: Annotated[list[Path] | None, typer.Argument(help="Shard files, or directories holding them (default: INPUT_SHARDS or <output_dir>/shards).")] = None,  # noqa: E501
    config: ConfigOption = None,
    output_dir: Annotated[Path | None, typer.Option(help="Where reports go (default: report.output_dir).")] = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="As the shards were run.")] = None,
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="As the shards were run.")] = None,
    no_publish: Annotated[bool, typer.Option("--no-publish", help="Write files only.")] = False,
    comment_mode: CommentModeOption = None,
    check_name: CheckNameOption = None,
    comment_title: CommentTitleOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    record_history: Annotated[bool | None, typer.Option("--record-history/--no-record-history", help="As for `run`.")] = None,  # noqa: E501
    allow_paths_outside_workspace: AllowOutsideOption = False,
) -> None:
    """Merge the N shards of `run --shard i/N` (exactly an unsharded run), then judge, report and publish."""
    from gate import run as pipeline

    chosen = settings(config, output_dir, suites=tuple(suite or ()), publish=False if no_publish else None,
                      models=tuple(model or ()), record_history=record_history,
                      shards=tuple(str(p) for p in shards or ()),
                      comment_mode=comment_mode.value if comment_mode else None, check_name=check_name,
                      comment_title=comment_title)
    paths = list(chosen.shards) or [(chosen.output_dir or Path("gate-report")) / "shards"]
    with path_policy(allow_paths_outside_workspace):
        code = pipeline.run(chosen, quiet=quiet, shards=paths)
    raise typer.Exit(int(code))


@app.command()
def history(
    config: ConfigOption = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Only this suite (repeatable).")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", help="Only this metric (repeatable; default: the checked ones).")] = None,  # noqa: E501
    last: Annotated[int, typer.Option(min=0, help="Only the last N runs (0: all).")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    allow_paths_outside_workspace: AllowOutsideOption = False,
) -> None:
    """Print the trend of each key metric over the default branch's recorded runs."""
    from gate.cli.commands.history import show_history

    chosen = settings(config)
    with path_policy(allow_paths_outside_workspace):
        show_history(chosen, tuple(suite or ()), tuple(metric or ()), last, as_json)


@app.command()
def calibrate(
    reports: Annotated[list[Path], typer.Argument(help="report.json of k >= 2 repeated runs of the same system.")],
    z: Annotated[float | None, typer.Option(help="min/max: a fresh run of the same system fails a group's threshold with probability Phi(-z) (2: 2.3 %), a Student-t prediction bound. Default: from --floor-budget.")] = None,  # noqa: E501
    floor_budget: Annotated[float, typer.Option(help="Without --z: the false-alarm rate all min/max thresholds of the snippet add together (each of M group thresholds gets floor_budget/M).")] = 0.01,  # noqa: E501
    min_effect: Annotated[bool, typer.Option("--min-effect/--any-change", help="Change checks: bound them at the MDE (a change must be significant and at least that large), or at 0 (any significant change fails; the recipe).")] = False,  # noqa: E501
    warn_budget: Annotated[float, typer.Option(help="Warn levels: the warning rate all warn levels of the snippet add together on an unchanged system (each of M group floors warns with warn_budget/M; 0: no warn levels).")] = 0.1,  # noqa: E501
    warn_z: Annotated[float | None, typer.Option(help="Instead of --warn-budget: each group warns with probability Phi(-warn_z) (below --z).")] = None,  # noqa: E501
    metrics: Annotated[str | None, typer.Option(help="Comma-separated metrics you gate on (default per kind: drift bertscore_f1,credit_drift_mean; rag overall_score,mrr,context_similarity; heuristic final_score_mean and the rubric's category means; stability stability_coefficient; stereotype drift_score_mean).")] = None,  # noqa: E501
    alpha: Annotated[float, typer.Option(help="The gate's `alpha`: the change checks are sized to be detected at alpha/m (Holm), m their number.")] = 0.05,  # noqa: E501
    scope: Annotated[str, typer.Option(help="Scope of the proposed checks (group, a level such as model, or suite: one test on all items, the most powerful).")] = "suite",  # noqa: E501
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the gate.yml snippet here.")] = None,
) -> None:
    """Propose checks from the run-to-run noise of repeated runs, as a gate.yml snippet: per metric a min/max
    and a significance-tested max_decrease/max_increase (the minimum detectable effect), with the whole
    snippet's expected false-alarm rate."""
    from gate.cli.commands.calibrate import calibrate_reports

    calibrate_reports(reports, z, warn_z, output, metrics=metrics, alpha=alpha, scope=scope,
                      floor_budget=floor_budget, min_effect=min_effect, warn_budget=warn_budget or None)
