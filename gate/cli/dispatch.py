"""`main`: one `llm-gate` command inside the guards every command runs in, and its exit code.

Secrets are redacted from stdout, stderr and logs (gate/io/redact.py), the paths a config names are confined to
the workspace (gate/io/paths.py), and a user-facing error becomes its message and exit code, never a bare
traceback. The environment this reads (LLM_GATE_DEBUG, the secrets to redact, the path opt-in) is the
process's own; a command's settings come from `gate.cli.app.settings`.
"""

from __future__ import annotations

import os
import sys

import typer

from gate.cli.app import app
from gate.errors import ExitCode, GateError, RuntimeFailure
from gate.publish import actions


def main() -> None:
    """Entry point: a user-facing error becomes a message and its exit code, never a bare traceback.

    The whole command runs with secrets redacted from stdout, stderr and logs (gate/io/redact.py) and with
    the paths a config names confined to the workspace (gate/io/paths.py).
    """
    from gate.errors import interrupt
    from gate.io import paths, redact

    environ = os.environ
    debug = redact.debug_enabled(environ)
    with interrupt.handling(), redact.guard(environ, debug=debug), \
            paths.use(paths.PathPolicy.from_env(environ)):
        code = _dispatch(debug)
    sys.exit(code)


def _dispatch(debug: bool) -> int:
    try:
        code = app(standalone_mode=False)  # returns the exit code instead of calling sys.exit
        return _unless_interrupted(int(code or 0))
    except GateError as exc:
        if (code := _after_interrupt()) is not None:
            return code
        _print_error(exc)
        return int(exc.exit_code)
    except typer.Exit as exc:
        return _unless_interrupted(int(exc.exit_code))
    except (typer.Abort, KeyboardInterrupt):
        return _unless_interrupted(130, always=True)
    except PermissionError as exc:  # a workspace the process's uid may not write (a runner's other user)
        if (code := _after_interrupt()) is not None:
            return code
        _print_error(permission_failure(exc))
        return int(ExitCode.RUNTIME_FAILURE)
    except typer.TyperException as exc:  # usage errors: unknown option, bad value
        show = getattr(exc, "show", None)
        if show is None:
            raise
        show()
        return int(ExitCode.INVALID_INPUT)
    except Exception as exc:  # anything unexpected: a message, not a traceback
        if (code := _after_interrupt()) is not None:
            return code
        if isinstance(exc, ImportError):  # the model-free image has no model stack: say which image has it
            from gate.errors import model_stack

            if (failure := model_stack.from_import_error(exc)) is not None:
                _print_error(failure)
                return int(failure.exit_code)
        if debug:  # printed here, inside the redacting streams, not by the interpreter after them
            import traceback

            traceback.print_exc(file=sys.stderr)
        sys.stderr.write(f"llm-gate: internal error: {type(exc).__name__}: {exc}\n"
                         "Set LLM_GATE_DEBUG=1 for the traceback and please report it.\n")
        return int(ExitCode.RUNTIME_FAILURE)


def permission_failure(exc: PermissionError) -> RuntimeFailure:
    """What a PermissionError means for a user: which path, as which uid, owned by whom, and how to fix it —
    never "internal error". A self-hosted runner's workspace may belong to another uid than the container's."""
    path = exc.filename
    uid, gid = (os.getuid(), os.getgid()) if hasattr(os, "getuid") else (None, None)
    owner = _owner(path)
    who = f" as uid {uid} (gid {gid})" if uid is not None else ""
    whose = f", which belongs to uid {owner}" if owner is not None and owner != uid else ""
    where = f" {path}" if path else ""
    return RuntimeFailure(
        f"permission denied{where}{who}{whose}: {exc.strerror or exc}",
        fix="run the gate as the user that owns the workspace (docker run --user \"$(id -u):$(id -g)\"; on a "
            "self-hosted runner, the runner's user), or give this uid write access there, or point "
            "report.output_dir and runtime.cache_dir at a directory it may write")


def _owner(path: object) -> int | None:
    """The uid that owns `path`, or its nearest existing parent."""
    if not isinstance(path, (str, os.PathLike)):
        return None
    candidate = os.path.abspath(os.fspath(path))
    while True:
        try:
            return os.stat(candidate).st_uid
        except OSError:
            parent = os.path.dirname(candidate)
            if parent == candidate:
                return None
            candidate = parent


def _unless_interrupted(code: int, always: bool = False) -> int:
    """An interrupted run's exit code (130 SIGINT, 143 SIGTERM) and its one line. typer turns any
    KeyboardInterrupt into a silent exit 130, so which signal it was comes from `gate.errors.interrupt`."""
    from gate.errors import interrupt

    exc = interrupt.raised()
    if exc is None:
        if always:
            sys.stderr.write("llm-gate: interrupted: the run was aborted before it finished, so it has no verdict\n")
        return code
    sys.stderr.write(interrupt.message(exc) + "\n")
    return exc.exit_code


def _after_interrupt() -> int | None:
    """The interrupted run's exit code when this process already raised its interruption, else None. An error
    that follows it is its consequence, not the run's failure: torch's context managers fail their own cleanup
    ("trying to pop from empty mode stack") as `Interrupted` unwinds through a model load, and a handler that
    wraps any exception (a model that "could not be loaded") then reports a broken model for a Ctrl-C."""
    from gate.errors import interrupt

    return _unless_interrupted(0) if interrupt.raised() is not None else None


def _print_error(exc: GateError) -> None:
    label = {ExitCode.INVALID_INPUT: "invalid input", ExitCode.RUNTIME_FAILURE: "runtime failure"}
    # Problems quote file names and values from the inputs: a line of theirs must not become a workflow command.
    sys.stderr.write(actions.inert_commands(f"llm-gate: {label.get(exc.exit_code, 'error')}: {exc}") + "\n")
