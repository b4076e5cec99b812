"""The `llm-gate` typer application: the root with its version option, the `models` and `baseline` groups, the
options several commands share, and the two things every command does first: read its settings from the
environment (`settings`, the one place a command reads it) and install its path policy (`path_policy`)."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Annotated, Any

import typer

from gate import __version__
from gate.config import CommentWhen
from gate.config.settings import Settings

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
CheckNameOption = Annotated[str | None, typer.Option(help="The check run's name (default: gate.yml's, else the gate's name with the run's suite/model filter).")]  # noqa: E501
CommentTitleOption = Annotated[str | None, typer.Option(help="What keys the sticky comment (default: as the check name).")]  # noqa: E501
CommentModeOption = Annotated[CommentWhen | None, typer.Option(help="When to comment: always, changes, failures, off. Default: gate.yml.")]  # noqa: E501
AllowOutsideOption = Annotated[bool, typer.Option("--allow-paths-outside-workspace", help="Let gate.yml name paths outside the workspace (absolute paths, `..`, symlinks leading out). Off: a config from a pull request cannot make the gate read or write the runner's files.")]  # noqa: E501


def settings(config: Path | None = None, output_dir: Path | None = None, **options: Any) -> Settings:
    """This command's settings: its command-line values over the workflow's `INPUT_*` over the defaults. The
    environment is read here, once per command, and nowhere below the CLI (`gate.config.settings`)."""
    return Settings.from_env(os.environ, config=str(config) if config else None,
                             output_dir=str(output_dir) if output_dir else None, **options)


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
