"""`llm-gate`, the command line: thin commands that parse their options, build `Settings` (the environment is
read once, in `app.settings`) and make one call — `gate.run` for the pipeline, `gate.cli.commands` for the rest.

`app` holds the typer application, its groups and shared options; `gate_commands` registers run, publish,
init, schema, models and sample; `over_time` registers baseline bless, merge, history and calibrate; `dispatch`
has `main`, which runs one command inside the redaction, path and interrupt guards and maps errors to exit codes.
`commands/` holds what the commands other than `run` do (init, validate, models, bless, history, calibrate,
sample), imported by their registration when the command runs. A new command goes into `gate_commands` or
`over_time` (the order of registration is the order `--help` lists), its work into `commands/`.
The console script is `gate.__main__:main`, which installs the signal handlers before importing this package.
"""

from gate.cli import gate_commands, over_time  # noqa: F401  (register the commands, in --help's order)
from gate.cli.app import app
from gate.cli.dispatch import main  # last: `main` present means the CLI is fully imported (tests/faults)

__all__ = ["app", "main"]
