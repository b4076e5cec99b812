"""`llm-gate baseline bless`: make this run the baseline.

Two parts, in this order: with `--model`, each selected suite whose kind keeps baseline outputs in its own inputs
(`Kind.bless_outputs`, e.g. the baseline feedback in exercise files: the seed's "regenerate baseline") takes that
model's outputs as its baseline outputs, written by the kind; then every selected suite is measured as it is now
and snapshotted as `<baselines.dir>/<suite>.json`, so the snapshots measure the blessed state.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from gate import __version__, io
from gate.baselines import comparison
from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.snapshots import Snapshot
from gate.config import GateConfig, SuiteBase
from gate.config.settings import Settings
from gate.errors import ConfigError, Problem
from gate.io import vcs
from gate.kinds import KINDS, get_kind
from gate.kinds.base import Blessing
from gate.report.formatting import counted
from gate.run import measure, read_config
from gate.steps import select_suites


def bless(config_path: Path, suites: tuple[str, ...], *, model: str | None, model_version: str | None,
          metrics: bool, commit: str | None, dry_run: bool, now: datetime, settings: Settings,
          add: bool = False) -> None:
    """`baseline bless`: the outputs of `model` first (so snapshots measure the blessed state), then snapshots."""
    config = read_config(config_path)
    if model:
        keeping = [n for n in suites if n in _keeping(config)]
        if suites and not keeping:
            kinds, a_kind = _kinds_keeping()
            raise ConfigError(f"--model needs {a_kind} suite", [Problem(
                field="--suite", expected=f"at least one {kinds} suite when --model is given",
                found=", ".join(suites), fix=f"add --suite with {a_kind} suite, or leave --model out")])
        targets: list[str | None] = [*keeping] if keeping else [None]  # None: the gate's only such suite
        blessed = [bless_baseline(config_path, name, model, model_version, dry_run, now) for name in targets]
        suites = suites or tuple(blessed)
    if metrics:
        bless_snapshots(config, config_path.resolve().parent, suites, now=now, commit=commit, dry_run=dry_run,
                        settings=settings, add=add)


# ---------------------------------------------------------------- a model's outputs as the baseline outputs


def bless_baseline(config_path: Path, suite_name: str | None, model: str, model_version: str | None,
                   dry_run: bool, now: datetime) -> str:
    """Write `model`'s outputs as the baseline outputs of a suite whose kind keeps them (`Kind.bless_outputs`);
    the suite's name. Without `suite_name`, the gate's only such suite."""
    config = read_config(config_path)
    keeping = _keeping(config)
    kinds, a_kind = _kinds_keeping()
    if suite_name is None and len(keeping) != 1:
        raise ConfigError("which suite?", [Problem(field="--suite", expected=f"the name of {a_kind} suite",
                                                   found=f"{len(keeping)} {kinds} suites: "
                                                         f"{', '.join(keeping) or 'none'}",
                                                   fix="pass --suite NAME")])
    name = suite_name or next(iter(keeping))
    if name not in keeping:
        raise ConfigError("unknown suite", [Problem(field="--suite", expected=f"{a_kind} suite: {', '.join(keeping)}",
                                                    found=repr(name))])
    suite = keeping[name]
    write = get_kind(suite.kind).bless_outputs
    assert write is not None  # `_keeping` holds only such suites
    write(name, suite, config_path.resolve().parent, Blessing(model, model_version, dry_run, now))
    return name


def _keeping(config: GateConfig) -> dict[str, SuiteBase]:
    """The gate's suites whose kind keeps baseline outputs in its own inputs, by name."""
    return {n: s for n, s in config.suites.items() if get_kind(s.kind).bless_outputs is not None}


def _kinds_keeping() -> tuple[str, str]:
    """The kinds that keep baseline outputs as the messages name them, bare and with an article ("a <kind>")."""
    kinds = " or ".join(name for name, kind in KINDS.items() if kind.bless_outputs is not None) or "baseline-keeping"
    return kinds, f"{'an' if kinds[0] in 'aeiou' else 'a'} {kinds}"


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
            snapshot = _added(comparison.read_snapshot(path, type(suite).renamed), snapshot, io.display_path(path))
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
