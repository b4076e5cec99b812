"""Every third-party package `gate/` imports is a declared dependency (pyproject.toml), so a fresh install works."""

from __future__ import annotations

import ast
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent


def imported_top_level_names() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in (ROOT / "gate").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for requirement in project["dependencies"]:
        name = requirement.split(";")[0]
        for stop in "<>=!~[ ":
            name = name.split(stop)[0]
        names.add(name.strip().lower().replace("_", "-"))
    return names


def test_every_third_party_import_is_declared():
    distributions = packages_distributions()
    stdlib = sys.stdlib_module_names
    missing = []
    for name, files in sorted(imported_top_level_names().items()):
        if name in stdlib or name in ("gate", "__future__"):
            continue
        owners = {d.lower().replace("_", "-") for d in distributions.get(name, [])}
        if not owners & declared():
            missing.append(f"{name} (distribution {sorted(owners) or 'unknown'}) imported by {sorted(files)[:3]}")
    assert missing == [], "declare these in pyproject.toml [project] dependencies:\n" + "\n".join(missing)
