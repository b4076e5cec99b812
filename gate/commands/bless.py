"""`llm-gate baseline bless`: write a model's candidate feedback into the exercise files, atomically."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from gate import io
from gate.baseline import baseline_feedback, blessed_exercise, id_key, model_version_of
from gate.config import DriftSuiteConfig
from gate.config_loader import load_config
from gate.errors import ConfigError, InputError, Problem
from gate.records.drift import load_drift


def bless_baseline(config_path: Path, suite_name: str | None, model: str, model_version: str | None,
                   dry_run: bool, now: datetime) -> str:
    """Write `model`'s feedback as the baseline feedback of a drift suite; returns the suite's name."""
    config = load_config(config_path)
    base_dir = config_path.resolve().parent
    drift = {n: s for n, s in config.suites.items() if isinstance(s, DriftSuiteConfig)}
    if suite_name is None and len(drift) != 1:
        raise ConfigError("which suite?", [Problem(field="--suite", expected="the name of a drift suite",
                                                   found=f"{len(drift)} drift suites: {', '.join(drift) or 'none'}",
                                                   fix="pass --suite NAME")])
    name = suite_name or next(iter(drift))
    if name not in drift:
        raise ConfigError("unknown suite", [Problem(field="--suite", expected=f"a drift suite: {', '.join(drift)}",
                                                    found=repr(name))])
    data = load_drift(name, drift[name].model_copy(update={"models": [model]}), base_dir, require_baseline=False)
    version = model_version_of(data.candidates, model_version)
    updates = {(c.exercise_id, c.submission_id): baseline_feedback(c, version, now) for c in data.candidates}
    written = 0
    for path in dict.fromkeys(e.path for e in data.exercises):
        document, problems = io.read_json_document(path)
        if document is None:
            raise InputError("cannot re-read an exercise file", problems)
        value = document.value
        exercises = value if isinstance(value, list) else [value]
        new, changed = [], 0
        for exercise in exercises:
            mine = {sub: fb for (ex, sub), fb in updates.items() if ex == id_key(exercise.get("id"))}
            blessed, count = blessed_exercise(exercise, mine)
            new.append(blessed)
            changed += count
        if changed and not dry_run:
            io.write_json_atomic(path, new if isinstance(value, list) else new[0])
        written += changed
        action = "would update" if dry_run else "updated"
        sys.stdout.write(f"{io.display_path(path)}: {action} {changed} submission(s)\n")
    answered = {(c.exercise_id, c.submission_id) for c in data.candidates}
    kept = [f"{e.id}/{s.id}" for e in data.exercises for s in e.submissions if (e.id, s.id) not in answered]
    sys.stdout.write(f"{'Would bless' if dry_run else 'Blessed'} {written} submission(s) with {model} "
                     f"(model_version {version}).\n")
    if kept:
        shown = ", ".join(kept[:10]) + (" …" if len(kept) > 10 else "")
        sys.stdout.write(f"warning: {len(kept)} submission(s) have no candidate from {model} and keep their "
                         f"previous baseline: {shown}\n")
    return name
