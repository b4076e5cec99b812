"""`llm-gate`'s entry point: the SIGINT/SIGTERM handlers are in place before anything slow is imported.

Importing the CLI (typer, click, pydantic, the config models) takes a noticeable part of a second, seconds on
a cold runner. With the handlers installed only by `gate.cli.main`, a SIGTERM in that time killed the process
with no line and a Ctrl-C printed a traceback. This module imports only `sys` and `gate.interrupt` (standard
library only) before it installs them; a signal during the CLI's import is held until the import is done
(see gate/interrupt.py) and then ends the run with the usual line and exit code.
"""

from __future__ import annotations

import sys

from gate import interrupt


def main() -> None:
    """Install the handlers, import the CLI, run it; `gate.cli.main` nests its own `handling` inside this one."""
    with interrupt.handling():
        try:
            from gate import cli

            interrupt.checkpoint()  # a signal held while the CLI was imported
            cli.main()  # its own handler for `Interrupted`; this one also covers the moments around it
        except interrupt.Interrupted as exc:
            sys.stderr.write(interrupt.message(exc) + "\n")
            sys.exit(exc.exit_code)
