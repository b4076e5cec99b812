"""Names a suite kind retired, still read from gate.yml for a while: each use rewritten to the new name before
validation, with a located deprecation warning (file, line, field, found, what to write instead), never silently.

A kind declares them on its config model (`SuiteBase.renamed`, old -> new, and `renamed_in`, its own mappings whose
keys are metric names). They are rewritten in the suite's own keys (a setting), the keys of its `checks:` and of
the mappings in `renamed_in`, its `items.criterion.metric`, and the `metric` of the waivers naming the suite. Both
names at once is an error: which one the user meant cannot be guessed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from gate.config.located import line_of
from gate.errors import Problem


def apply_renames(data: dict[str, Any], root: yaml.Node | None, filename: str,
                  renames: Mapping[str, Mapping[str, str]], renamed_in: Mapping[str, tuple[str, ...]],
                  ) -> tuple[list[Problem], list[Problem]]:
    """Rewrite the retired names in `data` (gate.yml parsed) in place; (errors, deprecation warnings).
    `renames`: kind -> {old: new}; `renamed_in`: kind -> the suite's mappings keyed by metric names."""
    errors: list[Problem] = []
    warnings: list[Problem] = []
    suites = data.get("suites")
    if not isinstance(suites, dict):
        return errors, warnings
    for name, suite in suites.items():
        kind = suite.get("kind") if isinstance(suite, dict) else None
        names = renames.get(kind, {}) if isinstance(kind, str) else {}
        if not names:
            continue
        where = ("suites", str(name))
        for path, mapping in _mappings(suite, where, ("checks", *renamed_in.get(str(kind), ()))):
            for old, new in names.items():
                if old in mapping:
                    _rename_key(mapping, old, new, path, root, filename, errors, warnings)
        criterion = (suite.get("items") or {}).get("criterion") if isinstance(suite.get("items"), dict) else None
        warnings += _rename_metric(criterion, names, (*where, "items", "criterion"), root, filename)
        for index, waiver in enumerate(data.get("waivers") or []):
            if isinstance(waiver, dict) and waiver.get("suite") == name:
                warnings += _rename_metric(waiver, names, ("waivers", index), root, filename)
    return errors, warnings


def _rename_metric(holder: Any, names: Mapping[str, str], path: tuple[str | int, ...], root: yaml.Node | None,
                   filename: str) -> list[Problem]:
    """A retired name as the `metric:` value of `holder` (a criterion, a waiver) rewritten, with its warning."""
    old = holder.get("metric") if isinstance(holder, dict) else None
    if not isinstance(old, str) or old not in names:
        return []
    holder["metric"] = names[old]
    return [_warning(filename, root, (*path, "metric"), old, names[old])]


def _mappings(suite: dict[str, Any], where: tuple[str, ...], fields: tuple[str, ...],
              ) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    yield where, suite
    for field in fields:
        if isinstance(suite.get(field), dict):
            yield (*where, field), suite[field]


def _rename_key(mapping: dict[str, Any], old: str, new: str, path: tuple[str | int, ...], root: yaml.Node | None,
                filename: str, errors: list[Problem], warnings: list[Problem]) -> None:
    loc = (*path, old)
    if new in mapping:
        errors.append(Problem(file=filename, line=line_of(root, loc), field=".".join(map(str, loc)),
                              expected=f"one of `{old}` (its old name) and `{new}`",
                              found=f"both `{old}` and `{new}`",
                              fix=f"keep `{new}` and delete `{old}`"))
        del mapping[old]  # reported once, here: not again as an unknown field
        return
    renamed = {(new if key == old else key): value for key, value in mapping.items()}  # in gate.yml's order
    mapping.clear()
    mapping.update(renamed)
    warnings.append(_warning(filename, root, loc, old, new))


def _warning(filename: str, root: yaml.Node | None, loc: tuple[str | int, ...], old: str, new: str) -> Problem:
    return Problem(file=filename, line=line_of(root, loc), field=".".join(map(str, loc)),
                   expected=f"`{new}`", found=f"`{old}`, its deprecated name (read as `{new}` for now)",
                   fix=f"rename `{old}` to `{new}`")


def warning_lines(warnings: list[Problem] | tuple[Problem, ...]) -> list[str]:
    """One line per warning, as a run and `llm-gate validate` print them."""
    return [f"warning: {p.file}:{p.line or '?'}: {p.field}: {p.found}; {p.fix}" for p in warnings]
