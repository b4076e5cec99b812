"""`llm-gate run`, `publish`, `init`, `validate`, `schema`, `models list|pull` and `sample`: each parses its
options, builds its `Settings` and makes one call; `run` calls `gate.run`, the pipeline. Imports happen inside the
commands, so `--help` stays fast and never loads torch."""

from __future__ import annotations

import sys
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
    models_app,
    path_policy,
    settings,
)
from gate.config import CommentMode
from gate.config.settings import CASSETTE_MODES, FailOn
from gate.errors import ExitCode

CassettesOption = Annotated[str | None, typer.Option(
    "--cassettes", metavar="|".join(CASSETTE_MODES), help="Generation (`generate:` suites): replay (default: the "
    "committed cassettes answer every call; a miss is an error, never a live call), record-missing (call and record "
    "what they lack) or refresh (call everything again).")]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Generation: print the calls, tokens and cost "
                                            "per suite and model, and stop before any call.")]


@app.command()
def run(
    config: ConfigOption = None,
    output_dir: Annotated[Path | None, typer.Option("--output-dir", "-o", help="Where reports go (default: report.output_dir).")] = None,  # noqa: E501
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Run only this suite (repeatable).")] = None,  # noqa: E501
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Score only this model (repeatable); replaces the suites' `models:`.")] = None,  # noqa: E501
    no_publish: Annotated[bool, typer.Option("--no-publish", help="Write files only; no summary, outputs or PR comment.")] = False,  # noqa: E501
    fail_on: Annotated[FailOn | None, typer.Option(help="fail (default): exit 1 on failures; warn: also on warnings.")] = None,  # noqa: E501
    comment: Annotated[CommentMode | None, typer.Option(help="PR comment: sticky (edit one per gate), new, off. Default: gate.yml.")] = None,  # noqa: E501
    comment_mode: CommentModeOption = None,
    check_name: CheckNameOption = None,
    comment_title: CommentTitleOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or progress lines.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every file written (default: one line).")] = False,  # noqa: E501
    record_history: Annotated[bool | None, typer.Option("--record-history/--no-record-history", help="Append this run to the history (default: only runs on the default branch in Actions).")] = None,  # noqa: E501
    shard: Annotated[str | None, typer.Option(help="Compute only shard i/N of the model work and save it (then `llm-gate merge`).")] = None,  # noqa: E501
    allow_paths_outside_workspace: Annotated[bool, typer.Option("--allow-paths-outside-workspace", help="Let gate.yml name files outside the workspace (absolute paths, `..`, symlinks leading out). Off: a config from a pull request cannot make the gate read the runner's files.")] = False,  # noqa: E501
    base_checkout: Annotated[Path | None, typer.Option("--base-checkout", help="A checkout of the pull request's base branch: gate.yml (--config, relative to the repository root) and everything it names but the candidate data are read from it; the candidate data from the working tree. What the pull request changes in its own gate is shown, never applied.")] = None,  # noqa: E501
    candidates_dir: Annotated[Path | None, typer.Option("--candidates-dir", help="Read the candidate data (`candidates:`, `records:`) from this directory, in the repository's layout (the pull request's downloaded artifact); everything else from the checkout (the trusted workflow_run job).")] = None,  # noqa: E501
    cassettes: CassettesOption = None,
    dry_run: DryRunOption = False,
) -> None:
    """Score, judge and report: the gate itself. Suites with `generate:` first produce their records.

    In GitHub Actions it also writes the job summary and step outputs, and with a token posts the
    sticky PR comment and the check run. Publishing problems never change the exit code.
    """
    from gate import run as pipeline

    chosen = settings(config, output_dir, suites=tuple(suite or ()), publish=False if no_publish else None,
                      fail_on=fail_on.value if fail_on else None, comment=comment.value if comment else None,
                      models=tuple(model or ()), shard=shard, record_history=record_history,
                      comment_mode=comment_mode.value if comment_mode else None, check_name=check_name,
                      comment_title=comment_title, base_checkout=str(base_checkout) if base_checkout else None,
                      candidates_dir=str(candidates_dir) if candidates_dir else None, cassettes=cassettes,
                      generate_dry_run=dry_run)
    with path_policy(allow_paths_outside_workspace):
        if chosen.shard:
            raise typer.Exit(int(pipeline.run_shard(chosen, quiet=quiet)))
        raise typer.Exit(int(pipeline.run(chosen, quiet=quiet, verbose=verbose)))


@app.command()
def generate(
    config: ConfigOption = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Generate only this suite (repeatable).")] = None,  # noqa: E501
    cassettes: CassettesOption = None,
    dry_run: DryRunOption = False,
    allow_paths_outside_workspace: AllowOutsideOption = False,
) -> None:
    """Produce the records of the suites with `generate:`, from their cassettes or their providers, and stop.

    What `run` does first, alone: record the cassettes locally (--cassettes record-missing), then commit them; CI
    replays them with no live call. Exit 2 when replay misses a call (with the command that records it).
    """
    from gate.cli.commands.generate import generate_candidates

    chosen = settings(config, suites=tuple(suite or ()), publish=False, cassettes=cassettes, generate_dry_run=dry_run)
    with path_policy(allow_paths_outside_workspace):
        raise typer.Exit(int(generate_candidates(chosen)))


@app.command(hidden=True)
def publish(
    report: Annotated[Path | None, typer.Option(help="Ignored: the command was removed.")] = None,
) -> None:
    """Removed: posted a verdict a pull request's run had saved. The trusted workflow_run job runs `llm-gate run
    --candidates-dir DIR` on the pull request's candidate files instead (docs/github.md)."""
    from gate.cli.commands.publish import publish_removed

    raise typer.Exit(int(publish_removed()))


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="The repository to set up.")] = Path("."),
    trusted: Annotated[bool, typer.Option("--trusted/--single-job", help="--trusted (default): the trusted recipe, a pull_request workflow that uploads the candidate outputs and a workflow_run workflow of the default branch that gates them and posts. --single-job: one pull_request job that reads the gate from a checkout of the base branch (same-repository pull requests).")] = True,  # noqa: E501
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    kinds: Annotated[str | None, typer.Option("--kinds", help="Suite kinds to start with, comma-separated: drift, stability, heuristic, rag, stereotype, trajectory (the installed kinds that bring a starter), or all. Each gets a suite in gate.yml and an example record file where it points. Default: drift.")] = None,  # noqa: E501
) -> None:
    """Write a starter gate.yml that runs offline (the embedded all-MiniLM-L6-v2), example records for each
    chosen suite kind, the GitHub workflows that gate pull requests with it (the trusted recipe unless
    --single-job), and .gitignore lines for what a run generates (appended to an existing .gitignore)."""
    from gate.cli.commands.init import init_repository, parse_kinds

    init_repository(directory, kinds=parse_kinds(kinds), trusted=trusted, force=force)


@app.command()
def validate(config: ConfigOption = None, allow_paths_outside_workspace: AllowOutsideOption = False) -> None:
    """Check gate.yml, every input record and baseline snapshot it names, and that its models are available
    offline, without loading a model (no torch): all problems at once.

    Exits 0 valid, 2 invalid config or input (located: file, line, field, expected, found, fix), 3 a model the
    suites need is not available offline (`llm-gate models pull`)."""
    from gate.cli.commands.validate import validate_gate

    chosen = settings(config)
    with path_policy(allow_paths_outside_workspace):
        raise typer.Exit(int(validate_gate(chosen.config_path, chosen.model_dirs, chosen.model_dir)))


@app.command()
def schema(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to a file instead of stdout.")] = None,
) -> None:
    """Print the JSON Schema of gate.yml (for editors and validation)."""
    import json

    from gate import io
    from gate.config import json_schema

    text = json.dumps(json_schema(), indent=2) + "\n"
    if output:
        io.write_text_atomic(output, text)
    else:
        sys.stdout.write(text)


@models_app.command("list")
def models_list(config: ConfigOption = None, allow_paths_outside_workspace: AllowOutsideOption = False) -> None:
    """Show each configured model and where it would be loaded from (nothing is downloaded).

    Exits 3 (runtime failure) when a model the gate's suites use cannot load offline: the config is valid, but
    a run would fail until the model is pulled (`llm-gate models pull`)."""
    from gate.cli.commands.models import list_models

    model_dirs = settings().model_dirs
    with path_policy(allow_paths_outside_workspace):
        missing = list_models(config, model_dirs)
    if missing:
        raise typer.Exit(int(ExitCode.RUNTIME_FAILURE))


@models_app.command("pull")
def models_pull(
    names: Annotated[list[str] | None, typer.Argument(help="Hub ids; default: the models of the config.")] = None,
    config: ConfigOption = None,
    target: Annotated[Path | None, typer.Option(help="Model directory (default: <cache_dir>/models; "
                                                       "set LLM_GATE_MODEL_DIR to read it at run time).")] = None,
    allow_paths_outside_workspace: AllowOutsideOption = False,
) -> None:
    """Download models into the gate's model directory so runs work offline."""
    from gate.cli.commands.models import pull_models

    with path_policy(allow_paths_outside_workspace):
        pull_models(names or [], config, target)


@app.command()
def sample(
    exercises: Annotated[list[Path], typer.Argument(help="Exercise JSON files with scored submissions.")],
    output_dir: Annotated[Path, typer.Option("--output-dir", "-o", help="Where sampled_exercise-<id>.json go.")],
    per_exercise: Annotated[int, typer.Option(min=1, help="Submissions per exercise (the seed uses 10-12).")] = 12,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed gives the same sample.")] = 0,
) -> None:
    """Sample submissions per exercise, spread over the score range (the seed's exercise sampling)."""
    from gate.cli.commands.sample import sample_exercises

    sample_exercises(exercises, output_dir, per_exercise, seed)
