"""`llm-gate validate`: everything `run` checks before its model work, and nothing after it.

It reads gate.yml and every input record exactly as `run` does (`gate.run.read_config`, `gate.steps.load_suites`:
the same located problems, all at once), parses each suite's baseline snapshot, and resolves, without loading,
every model the suites would load (`gate.runtime.facade.resolve_model`, as `models list` does). No scorer runs
and torch is never imported, so it answers in about the time the CLI takes to start: a pre-flight for editors,
pre-commit hooks and the first minutes of a new user.

Exit codes as `run`'s: 0 valid, 2 invalid config or input, 3 a model the suites need is not available offline.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gate import io
from gate.baselines.comparison import read_snapshot, snapshot_path
from gate.errors import ConfigError, ExitCode, InputError, ModelUnavailable, Problem
from gate.kinds.needs import ModelNeed, needed_models
from gate.run import read_config
from gate.runtime.facade import resolve_model
from gate.steps import load_suites, refuse_a_committed_cache, select_suites


def validate_gate(config_path: Path, model_dirs: Sequence[Path] = (), pull_into: Path | None = None) -> ExitCode:
    """Check `config_path` and all it names; print what was checked and what is missing. Raises InputError
    (exit 2) with every input problem; returns RUNTIME_FAILURE (exit 3) when a model is not available offline —
    unless the workflow's `model_dir` (`pull_into`) is set: a run pulls a missing model into it, so validate
    names what that run will download and passes."""
    started = time.perf_counter()
    config = read_config(config_path)
    base_dir = config_path.resolve().parent
    problems: list[Problem] = []
    try:
        loaded = load_suites(select_suites(config, ()), base_dir)
    except InputError as exc:
        problems += exc.problems
        loaded = []
    snapshots = 0
    for name in config.suites:
        try:
            snapshots += read_snapshot(snapshot_path(config, base_dir, name)) is not None
        except InputError as exc:
            problems += exc.problems
    try:
        refuse_a_committed_cache(config, config_path)
    except ConfigError as exc:
        problems += exc.problems
    missing = _check_models(needed_models(config), base_dir, Path(config.runtime.cache_dir), model_dirs, problems)
    if problems:
        raise InputError(f"{io.display_path(config_path)}: the inputs are invalid", problems)
    elapsed = time.perf_counter() - started
    suites = len(loaded)
    sys.stdout.write(f"{io.display_path(config_path)}: {suites} suite{'s' if suites != 1 else ''} and their inputs "
                     f"are valid; {snapshots} baseline snapshot{'s' if snapshots != 1 else ''} read "
                     f"({elapsed:.2f} s, no model loaded)\n")
    if missing and pull_into is not None:
        sys.stdout.write(f"{missing} model(s) not available offline: a run pulls them from the hub into the model "
                         f"directory {io.display_path(pull_into)} (model_dir), once per cache key\n")
    elif missing:
        sys.stdout.write(f"{missing} model(s) not available offline: a run exits 3 until they are pulled or the "
                         "config points at a local model directory\n")
        return ExitCode.RUNTIME_FAILURE
    return ExitCode.PASSED


def _check_models(needs: Sequence[ModelNeed], base_dir: Path, cache_dir: Path, model_dirs: Sequence[Path],
                  problems: list[Problem]) -> int:
    """Print where each needed model would load from (nothing is loaded or downloaded); the number missing. A
    model path gate.yml may not name (outside the workspace) is an input problem, added to `problems`."""
    missing = 0
    for need in needs:
        try:
            resolved = resolve_model(need.name, base_dir=base_dir, cache_dir=cache_dir, allow_download=False,
                                     role=need.role, extra_dirs=model_dirs)
            where = f"{resolved.source.value}: {io.display_path(resolved.path)}"
        except ModelUnavailable as exc:
            missing += 1
            where = f"NOT AVAILABLE OFFLINE. {exc.message}. Fix: {exc.fix}"
        except InputError as exc:
            problems += exc.problems
            continue
        sys.stdout.write(f"model {need.name} ({need.role.words}; {', '.join(need.suites)}) -> {where}\n")
    return missing
