"""Pure core, I/O at the edges (DESIGN.md §2), checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GATE = Path(__file__).resolve().parent.parent / "gate"
HEAVY = {"torch", "transformers", "sentence_transformers", "bert_score", "github"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def python_files(*parts: str) -> list[Path]:
    return sorted(p for p in GATE.rglob("*.py") if p.relative_to(GATE).parts[: len(parts)] == parts)


@pytest.mark.parametrize("path", [p for p in GATE.rglob("*.py") if "runtime" not in p.relative_to(GATE).parts],
                         ids=lambda p: str(p.relative_to(GATE)))
def test_only_runtime_imports_ml_libraries(path):
    assert not imported_modules(path) & (HEAVY - {"github"}), path


@pytest.mark.parametrize("path", python_files("scorers") + [GATE / "judge.py", GATE / "stats.py"],
                         ids=lambda p: str(p.relative_to(GATE)))
def test_pure_core_imports_no_io_libraries(path):
    assert not imported_modules(path) & (HEAVY | {"requests", "urllib", "subprocess"}), path


@pytest.mark.parametrize("path", sorted(GATE.rglob("*.py")), ids=lambda p: str(p.relative_to(GATE)))
def test_modules_stay_small(path):
    assert len(path.read_text().splitlines()) <= 320, f"{path} has grown past ~300 lines: split it by concept"


def test_runtime_package_import_is_cheap():
    import subprocess
    import sys

    code = ("import sys, gate.runtime, gate.runtime.api, gate.runtime.session, gate.scorers, gate.report\n"
            "sys.stdout.write(','.join(m for m in ('torch', 'transformers') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "", done.stdout
