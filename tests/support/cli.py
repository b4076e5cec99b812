"""Running the real CLI entry point in-process, as `llm-gate ARGS…` would."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `gate.cli.main` with `args`."""
    from gate.cli import main

    monkeypatch.setattr(sys, "argv", ["llm-gate", *args])
    with pytest.raises(SystemExit) as caught:
        main()
    out, err = capsys.readouterr()
    return int(caught.value.code or 0), out, err


def outside_actions(monkeypatch, directory: Path) -> None:
    """Run from `directory` as on a developer's machine: no GitHub Actions or action-input variable set, whatever
    the environment running the tests has."""
    monkeypatch.chdir(directory)
    for name in [n for n in os.environ if n.startswith(("GITHUB_", "INPUT_"))]:
        monkeypatch.delenv(name)
