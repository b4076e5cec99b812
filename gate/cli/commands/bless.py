"""`llm-gate baseline bless`: make this run the baseline.

Two parts, in this order: with `--model`, a drift suite's candidate feedback is written into its exercise
files as the baseline feedback (the seed's "regenerate baseline", atomically, keeping everything else);
then every selected suite is measured as it is now and snapshotted as `<baselines.dir>/<suite>.json`, so the
snapshots measure the blessed state.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from gate import __version__, io
from gate.baselines import comparison
from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.snapshots import Snapshot
from gate.config import GateConfig
from gate.config.settings import Settings
from gate.errors import ConfigError, InputError, Problem
from gate.io import vcs
from gate.kinds.drift.config import DriftSuiteConfig
from gate.kinds.drift.feedback import baseline_feedback, blessed_exercise, id_key, model_version_of
from gate.kinds.drift.records import load_drift
from gate.report.formatting import counted
from gate.run import measure, read_config
from gate.steps import select_suites


def bless(config_path: Path, suites: tuple[str, ...], *, model: str | None, model_version: str | None,
          metrics: bool, commit: str | None, dry_run: bool, now: datetime, settings: Settings,
          add: bool = False) -> None:
    """`baseline bless`: drift outputs of `model` first (so snapshots measure the blessed state), then snapshots."""
    config = read_config(config_path)
    if model:
        drift = [n for n in suites if isinstance(config.suites.get(n), DriftSuiteConfig)]
        if suites and not drift:
            raise ConfigError("--model needs a drift suite", [Problem(
                field="--suite", expected="at least one drift suite when --model is given",
                found=", ".join(suites), fix="add --suite with a drift suite, or leave --model out")])
        targets: list[str | None] = [*drift] if drift else [None]  # None: the gate's only drift suite
        blessed = [bless_baseline(config_path, name, model, model_version, dry_run, now) for name in targets]
        suites = suites or tuple(blessed)
    if metrics:
        bless_snapshots(config, config_path.resolve().parent, suites, now=now, commit=commit, dry_run=dry_run,
                        settings=settings, add=add)


# ---------------------------------------------------------------- drift baseline feedback


def bless_baseline(config_path: Path, suite_name: str | None, model: str, model_version: str | None,
                   dry_run: bool, now: datetime) -> str:
    """Write `model`'s feedback as the baseline feedback of a drift suite; returns the suite's name."""
    config = read_config(config_path)
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
    sampled = [c for c in data.candidates if c.sample is not None]
    if sampled:  # which generation would become the baseline feedback? refuse rather than keep the last one
        first = sampled[0]
        raise ConfigError("the candidates have repeated samples", [Problem(
            field="--model", expected=f"one generation of {model} per submission to bless as the baseline feedback",
            found=f"records with `sample` (exercise {first.exercise_id}, submission {first.submission_id}, "
                  f"sample {first.sample})",
            fix="bless from a candidate file with one generation per submission (without `sample`)")])
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


# ---------------------------------------------------------------- metric snapshots


def bless_snapshots(config: GateConfig, base_dir: Path, suites: tuple[str, ...], *, now: datetime,
                    commit: str | None, dry_run: bool, settings: Settings, add: bool = False) -> list[Path]:
    """Measure the suites as they are now and write `<baselines.dir>/<suite>.json` for each (atomically); with
    `add`, fold the run into each existing snapshot (which must be comparable: same kind, fingerprint, inputs)."""
    selected = select_suites(config, suites)
    if add:  # refused before the model work: every suite needs a snapshot to add to
        _check_addable(config, base_dir, [name for name, _ in selected])
    results, _ = measure(config, selected, base_dir, settings)  # the workflow's judge settings too
    commit = commit or vcs.head_commit(base_dir)
    stamp = now.isoformat().replace("+00:00", "Z")
    written = []
    for result in results:
        suite = config.suites[result.name]
        path = comparison.snapshot_path(config, base_dir, result.name)
        snapshot = Snapshot.from_result(result, gate=config.name, created_at=stamp, commit=commit,
                                        inputs_digest=comparison.inputs_digest(suite, base_dir),
                                        tool_version=__version__)
        if add:
            snapshot = _added(comparison.read_snapshot(path), snapshot, io.display_path(path))
        action = "would write" if dry_run else "wrote"
        if not dry_run:
            comparison.write_snapshot(path, snapshot)
            written.append(path)
        groups = sum(1 for g in result.groups if g.level == "group")
        runs = (f", run {snapshot.runs} of the same system" if add else
                ", one run: bless --add further runs so change checks know the baseline's noise")
        sys.stdout.write(f"{io.display_path(path)}: {action} the baseline snapshot of {result.name} "
                         f"({counted(len(result.metrics), 'suite metric')}, {counted(groups, 'group')}, "
                         f"{counted(len(result.items), 'item')}"
                         f"{', commit ' + commit[:7] if commit else ''}{runs})\n")
    return written


def _check_addable(config: GateConfig, base_dir: Path, names: list[str]) -> None:
    problems = []
    for name in names:
        path = comparison.snapshot_path(config, base_dir, name)
        if not path.is_file():
            problems.append(Problem(file=io.display_path(path), field="--add",
                                    expected=f"an existing baseline snapshot of suite {name} to add this run to",
                                    found="no snapshot", fix="bless the first run without --add"))
    if problems:
        raise ConfigError("nothing to add to", problems)


def _added(existing: Snapshot | None, run: Snapshot, shown: str) -> Snapshot:
    """`existing` with `run` folded in; an error when they are not runs of the same measurement."""
    if existing is None:  # removed since the check: say so rather than start over silently
        raise ConfigError("nothing to add to", [Problem(file=shown, field="--add", expected="a baseline snapshot",
                                                        found="no snapshot", fix="bless without --add")])
    differences = [f"kind: {existing.kind} → {run.kind}"] if existing.kind != run.kind else []
    differences += fingerprint_differences(existing.fingerprint, run.fingerprint)
    if existing.inputs_digest != run.inputs_digest:
        differences.append("the baseline input files changed")
    if differences:
        raise ConfigError("this run is not comparable with the snapshot", [Problem(
            file=shown, field="--add", expected="a run measured the same way (same models, settings, inputs)",
            found="; ".join(differences[:6]), fix="bless without --add to start a new snapshot")])
    return existing.add_run(run)
