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


GITHUB_PACKAGE = GATE / "publish" / "github"


@pytest.mark.parametrize("path", [p for p in GATE.rglob("*.py") if GITHUB_PACKAGE not in p.parents],
                         ids=lambda p: str(p.relative_to(GATE)))
def test_only_the_github_package_imports_pygithub(path):
    """Only gate/publish/github/ talks to GitHub: its client retries every request and scrubs the token."""
    assert "github" not in imported_modules(path), path


# The LLM grader's HTTP client is the one exception under scorers/: the command hands it in (ScoringContext.grader).
GRADER_CLIENT = GATE / "kinds" / "rag" / "grader_client.py"


@pytest.mark.parametrize("path", [p for p in python_files("kinds") if p != GRADER_CLIENT] + python_files("judge")
                         + python_files("stats"), ids=lambda p: str(p.relative_to(GATE)))
def test_pure_core_imports_no_io_libraries(path):
    assert not imported_modules(path) & (HEAVY | {"requests", "urllib", "subprocess"}), path


def gate_imports(path: Path) -> set[str]:
    """Every gate module a file imports, function-local and TYPE_CHECKING imports included."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("gate")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("gate"):
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


RECORDS = [GATE / "kinds" / "records.py", *python_files("kinds", "samples")] + sorted(GATE.glob("kinds/*/records.py"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(GATE)))
def test_records_never_import_scorers_or_the_judge(path):
    assert not {n for n in gate_imports(path) if n.endswith(".scorer") or ".scorer." in n
                or n.startswith("gate.judge.") or n == "gate.judge"}, path


@pytest.mark.parametrize("path", [p for p in python_files("kinds") if p not in (GRADER_CLIENT, GRADER_CLIENT.parent /
                                   "__init__.py")] + python_files("judge"), ids=lambda p: str(p.relative_to(GATE)))
def test_no_scorer_or_judge_module_imports_the_grader_client(path):
    """The scorer stays pure: it gets the grader as a function and never sends a request itself. Only the kind's
    registration names the client (`Kind.grade`, imported when the command first grades)."""
    assert not {n for n in gate_imports(path) if n.startswith("gate.kinds.rag.grader_client")}, path


def test_the_judge_imports_no_kind():
    assert not {n for p in python_files("judge") for n in gate_imports(p) if n.startswith("gate.kinds")}


COMPILED = GATE / "report" / "compiled"  # Jinja2's generated code (scripts/compile-templates), one per template


@pytest.mark.parametrize("path", [p for p in sorted(GATE.rglob("*.py")) if p.parent != COMPILED],
                         ids=lambda p: str(p.relative_to(GATE)))
def test_modules_stay_small(path):
    assert len(path.read_text().splitlines()) <= 320, (
        f"{path} has grown past ~300 lines: split it by concept into a package (as util.py became util/), "
        "not into prefixed siblings")


def test_runtime_package_import_is_cheap():
    import subprocess
    import sys

    code = ("import sys, gate.runtime, gate.runtime.api, gate.runtime.engines.session, gate.kinds, gate.report\n"
            "sys.stdout.write(','.join(m for m in ('torch', 'transformers') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "", done.stdout


@pytest.mark.parametrize("path", [p for p in sorted(GATE.rglob("*.py")) if p.relative_to(GATE).parts[0] != "runtime"],
                         ids=lambda p: str(p.relative_to(GATE)))
def test_outside_the_runtime_only_its_api_and_facade_are_imported(path):
    """`engines/` and `work/` are the runtime's inside: scorers see `gate.runtime.api`, the pipeline and the
    commands call `gate.runtime.facade`."""
    inner = {n for n in gate_imports(path) if n.startswith("gate.runtime.")
             and not n.startswith(("gate.runtime.api", "gate.runtime.facade"))}
    assert not inner, path
