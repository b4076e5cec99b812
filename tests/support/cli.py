"""Running the real CLI entry point in-process, as `llm-gate ARGS…` would."""

from __future__ import annotations

import sys

import pytest


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `gate.cli.main` with `args`."""
    from gate.cli import main

    monkeypatch.setattr(sys, "argv", ["llm-gate", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    out, err = capsys.readouterr()
    return int(caught.value.code or 0), out, err
