"""`llm-gate`: thin commands over the pipeline. No torch import happens before a model is needed."""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated

import typer

from gate import __version__
from gate.config import CommentMode
from gate.errors import ExitCode, GateError
from gate.publish import actions
from gate.settings import FailOn

app = typer.Typer(
    name="llm-gate",
    help="Gate pull requests on the quality of LLM outputs: score candidate outputs against committed "
    "baselines, judge them against thresholds, and publish one report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
models_app = typer.Typer(help="List and fetch the models a gate uses (offline first).", no_args_is_help=True)
baseline_app = typer.Typer(help="Manage committed baselines.", no_args_is_help=True)
app.add_typer(models_app, name="models")
app.add_typer(baseline_app, name="baseline")

ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="gate.yml (default: INPUT_CONFIG or ./gate.yml).")]  # noqa: E501
AllowOutsideOption = Annotated[bool, typer.Option("--allow-paths-outside-workspace", help="Let gate.yml name paths outside the workspace (absolute paths, `..`, symlinks leading out). Off: a config from a pull request cannot make the gate read or write the runner's files.")]  # noqa: E501


def path_policy(allow_outside: bool) -> AbstractContextManager[object]:
    """One command's path policy: the one `main` installed (workspace, environment opt-in), widened when the
    command line passes --allow-paths-outside-workspace (the workflow's choice, never gate.yml's)."""
    from gate.io import paths

    return paths.use(paths.current().allowing_outside() if allow_outside else paths.current())


def _version(value: bool) -> None:
    if value:
        typer.echo(f"llm-gate {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version.")] = False,
) -> None:
    """Exit codes: 0 passed (warnings allowed), 1 gate failed, 2 invalid config or input, 3 runtime failure,
    130/143 interrupted (SIGINT/SIGTERM): no verdict."""


@app.command()
def run(
    config: ConfigOption = None,
    output_dir: Annotated[Path | None, typer.Option(help="Where reports go (default: report.output_dir).")] = None,
    suite: Annotated[list[str] | None, typer.Option("--suite", "-s", help="Run only this suite (repeatable).")] = None,  # noqa: E501
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Score only this model (repeatable); replaces the suites' `models:`.")] = None,  # noqa: E501
    no_publish: Annotated[bool, typer.Option("--no-publish", help="Write files only; no summary, outputs or PR comment.")] = False,  # noqa: E501
    fail_on: Annotated[FailOn | None, typer.Option(help="fail (default): exit 1 on failures; warn: also on warnings.")] = None,  # noqa: E501
    comment: Annotated[CommentMode | None, typer.Option(help="PR comment: sticky (edit one per gate), new, off. Default: gate.yml.")] = None,  # noqa: E501
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    record_history: Annotated[bool | None, typer.Option("--record-history/--no-record-history", help="Append this run to the history (default: only runs on the default branch in Actions).")] = None,  # noqa: E501
    shard: Annotated[str | None, typer.Option(help="Compute only shard i/N of the model work and save it (then `llm-gate merge`).")] = None,  # noqa: E501
    allow_paths_outside_workspace: Annotated[bool, typer.Option("--allow-paths-outside-workspace", help="Let gate.yml name files outside the workspace (absolute paths, `..`, symlinks leading out). Off: a config from a pull request cannot make the gate read the runner's files.")] = False,  # noqa: E501
) -> None:
    """Score, judge and report: the gate itself.

    In GitHub Actions it also writes the job summary and step outputs, and with a token posts the
    sticky PR comment and the check run. Publishing problems never change the exit code.
    """
    from gate.commands.run import run_gate
    from gate.io import paths
    from gate.settings import Settings

    settings = Settings.from_env(os.environ, config=str(config) if config else None,
                                 output_dir=str(output_dir) if output_dir else None, suites=tuple(suite or ()),
                                 publish=False if no_publish else None,
                                 fail_on=fail_on.value if fail_on else None, comment=comment.value if comment else None,
                                 models=tuple(model or ()), shard=shard, record_history=record_history)
    policy = paths.current().allowing_outside() if allow_paths_outside_workspace else paths.current()
    with paths.use(policy):
        if settings.shard:
            from gate.commands.shard import run_shard

            raise typer.Exit(int(run_shard(settings, settings.shard, quiet=quiet)))
        raise typer.Exit(int(run_gate(settings, quiet=quiet, record_history=settings.record_history)))


@app.command()
def publish(
    report: Annotated[Path | None, typer.Option(help="The report directory a run wrote (default: INPUT_REPORT_DIR "
                                                     "or gate-report).")] = None,
    comment: Annotated[CommentMode | None, typer.Option(help="sticky (default), new or off.")] = None,
) -> None:
    """Post a saved report (publish.json) to the pull request: for fork PRs, from a workflow_run workflow."""
    from gate.commands.publish import publish_report
    from gate.settings import Settings

    settings = Settings.from_env(os.environ, comment=comment.value if comment else None)
    directory = report or Path(os.environ.get("INPUT_REPORT_DIR", "").strip() or "gate-report")
    raise typer.Exit(int(publish_report(directory, settings)))


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="The repository to set up.")] = Path("."),
    fork_safe: Annotated[bool, typer.Option(help="Also write the workflow_run workflow that publishes for "
                                                 "pull requests from forks.")] = True,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
) -> None:
    """Write a starter gate.yml and the GitHub workflow(s) that run it on pull requests."""
    from gate.commands.init import init_repository

    init_repository(directory, fork_safe=fork_safe, force=force)


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
    from gate.commands.models import list_models

    with path_policy(allow_paths_outside_workspace):
        missing = list_models(config)
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
    from gate.commands.models import pull_models

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
    from gate.commands.sample import sample_exercises

    sample_exercises(exercises, output_dir, per_exercise, seed)


def main() -> None:
    """Entry point: a user-facing error becomes a message and its exit code, never a bare traceback.

    The whole command runs with secrets redacted from stdout, stderr and logs (gate/redact.py) and with
    the paths a config names confined to the workspace (gate/io/paths.py).
    """
    from gate import interrupt, redact
    from gate.io import paths

    debug = redact.debug_enabled(os.environ)
    with interrupt.handling(), redact.guard(os.environ, debug=debug), \
            paths.use(paths.PathPolicy.from_env(os.environ)):
        code = _dispatch(debug)
    sys.exit(code)


def _dispatch(debug: bool) -> int:
    try:
        code = app(standalone_mode=False)  # returns the exit code instead of calling sys.exit
        return _unless_interrupted(int(code or 0))
    except GateError as exc:
        _print_error(exc)
        return int(exc.exit_code)
    except typer.Exit as exc:
        return _unless_interrupted(int(exc.exit_code))
    except (typer.Abort, KeyboardInterrupt):
        return _unless_interrupted(130, always=True)
    except typer.TyperException as exc:  # usage errors: unknown option, bad value
        show = getattr(exc, "show", None)
        if show is None:
            raise
        show()
        return int(ExitCode.INVALID_INPUT)
    except Exception as exc:  # anything unexpected: a message, not a traceback
        if debug:  # printed here, inside the redacting streams, not by the interpreter after them
            import traceback

            traceback.print_exc(file=sys.stderr)
        sys.stderr.write(f"llm-gate: internal error: {type(exc).__name__}: {exc}\n"
                         "Set LLM_GATE_DEBUG=1 for the traceback and please report it.\n")
        return int(ExitCode.RUNTIME_FAILURE)


def _unless_interrupted(code: int, always: bool = False) -> int:
    """An interrupted run's exit code (130 SIGINT, 143 SIGTERM) and its one line. typer turns any
    KeyboardInterrupt into a silent exit 130, so which signal it was comes from `gate.interrupt`."""
    from gate import interrupt

    exc = interrupt.raised()
    if exc is None:
        if always:
            sys.stderr.write("llm-gate: interrupted: the run was aborted before it finished, so it has no verdict\n")
        return code
    sys.stderr.write(interrupt.message(exc) + "\n")
    return exc.exit_code


def _print_error(exc: GateError) -> None:
    label = {ExitCode.INVALID_INPUT: "invalid input", ExitCode.RUNTIME_FAILURE: "runtime failure"}
    # Problems quote file names and values from the inputs: a line of theirs must not become a workflow command.
    sys.stderr.write(actions.inert_commands(f"llm-gate: {label.get(exc.exit_code, 'error')}: {exc}") + "\n")


from gate import cli_over_time  # noqa: E402,F401  (registers baseline bless, history, calibrate)
