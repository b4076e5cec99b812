"""`llm-gate`'s entry point: the SIGINT/SIGTERM handlers are in place before anything slow is imported.

Importing the CLI (typer, click, pydantic, the config models) takes a noticeable part of a second, seconds on
a cold runner. With the handlers installed only by `gate.cli.main`, a SIGTERM in that time killed the process
with no line and a Ctrl-C printed a traceback. This module imports only `sys` and `gate.errors.interrupt` (standard
library only) before it installs them; a signal during the CLI's import is held until the import is done
(see gate/errors/interrupt.py) and then ends the run with the usual line and exit code.
"""

from __future__ import annotations

import gc
import os
import sys

from gate.errors import interrupt

# pydantic looks for plugins by reading every installed distribution's entry points when it builds its first
# model (up to ~0.09 s of the CLI's import with torch's stack installed; ~0.02 s of a whole cached run in an
# interleaved comparison); the gate's models use none.
# Set only for this process and what it starts; an explicit value is kept.
PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main() -> None:
    """Install the handlers, import the CLI, run it; `gate.cli.main` nests its own `handling` inside this one."""
    os.environ.setdefault(*PYDANTIC_PLUGINS)
    try:
        with interrupt.handling():
            try:
                from gate import cli

                # What the imports made lives to the end: the run's full collections need not walk it each time
                # (4,000 records allocate enough to trigger several; ~0.08 s of a small gate's cached run).
                gc.freeze()
                interrupt.checkpoint()  # a signal held while the CLI was imported
                cli.main()  # its own handler for `Interrupted`; this one also covers the moments around it
            except interrupt.Interrupted as exc:
                sys.stderr.write(interrupt.message(exc) + "\n")
                sys.exit(exc.exit_code)
    finally:
        # The interpreter's exit-time collections walk every object the run made (the config models, the
        # scorers' tables, what the lazily imported modules hold): ~0.1 s of every command. Frozen, they are
        # left to reference counting; the process ends next, everything it writes is already closed (atomic
        # files) and stdout/stderr are flushed by the interpreter as always.
        gc.freeze()


if __name__ == "__main__":
    main()
