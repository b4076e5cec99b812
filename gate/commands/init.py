"""`llm-gate init`: a starter gate.yml and the workflows that run and publish it, as other CI tools do."""

from __future__ import annotations

import sys
from pathlib import Path

from gate import __version__, io
from gate.errors import InputError, Problem
from gate.report.markdown import render

REPOSITORY = "llm-quality-gate/llm-quality-gate"
ACTION = f"{REPOSITORY}@v{__version__}"

FILES = {  # target path -> template
    "gate.yml": "init/gate.yml.j2",
    ".github/workflows/llm-quality-gate.yml": "init/workflow.yml.j2",
}
FORK_FILES = {".github/workflows/llm-quality-gate-publish.yml": "init/publish.yml.j2"}


def init_repository(directory: Path, *, fork_safe: bool = True, force: bool = False) -> list[Path]:
    files = {**FILES, **(FORK_FILES if fork_safe else {})}
    existing = [name for name in files if (directory / name).exists()]
    if existing and not force:
        raise InputError("llm-gate init would overwrite files", [
            Problem(file=io.display_path(directory / name), expected="a path that does not exist yet",
                    found="an existing file", fix="move it away or pass --force") for name in existing])
    written = []
    for name, template in files.items():
        path = directory / name
        io.write_text_atomic(path, render({"action": ACTION, "repository": REPOSITORY}, template=template))
        written.append(path)
        sys.stdout.write(f"wrote {io.display_path(path)}\n")
    sys.stdout.write("Next: commit baselines (llm-gate baseline bless), point `candidates:` at your pipeline's "
                     "outputs, and run `llm-gate run` locally before pushing.\n")
    return written
