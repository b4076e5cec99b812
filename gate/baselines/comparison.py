"""Where a run stands against its baselines: snapshot files, their age, comparability, and whether this
pull request changes them (the I/O around the pure `gate.baselines.snapshots`)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from gate import io
from gate.baselines.renamed import renamed_snapshot
from gate.baselines.snapshots import Snapshot, SnapshotComparison, age_in_days, compare
from gate.config import GateConfig, SuiteBase
from gate.errors import InputError, Problem
from gate.io import paths
from gate.kinds import get_kind
from gate.results import SuiteResult


def snapshot_path(config: GateConfig, base_dir: Path, suite: str) -> Path:
    shown = f"{config.baselines.dir}/{suite}.json"
    return paths.confine(base_dir / config.baselines.dir / f"{suite}.json", base_dir, "baselines.dir", shown)


def baseline_files(suite: SuiteBase, base_dir: Path) -> list[Path]:
    """The suite's baseline input files (its kind's `baseline:` globs); [] if none."""
    patterns = getattr(suite, "baseline", None)
    if not patterns:
        return []
    patterns = [patterns] if isinstance(patterns, str) else list(patterns)
    return sorted(set(io.expand_globs(patterns, base_dir, "baseline")[0]))


def inputs_digest(suite: SuiteBase, base_dir: Path) -> str | None:
    files = baseline_files(suite, base_dir)
    return io.sha256_files(files) if files else None


def read_snapshot(path: Path, renamed: Mapping[str, str] | None = None) -> Snapshot | None:
    """The snapshot at `path`; None when there is none. A file that is not a snapshot is an input error.
    `renamed`: the metrics its suite's kind renamed (old -> new, `SuiteBase.renamed`), read under the new names
    with a warning on stderr."""
    snapshot = _read_snapshot(path)
    if snapshot is None or not renamed:
        return snapshot
    snapshot, old = renamed_snapshot(snapshot, renamed)
    for name in old:
        sys.stderr.write(f"warning: {io.display_path(path)}: blessed when `{renamed[name]}` was called `{name}`; "
                         f"read as `{renamed[name]}` (the same measure); bless again to write the new name\n")
    return snapshot


def _read_snapshot(path: Path) -> Snapshot | None:
    if not path.is_file():
        return None
    document, problems = io.read_json_document(path, locate=False)
    if document is None:
        raise InputError("cannot read a baseline snapshot", problems)
    try:
        return Snapshot.from_dict(document.value)
    except ValueError as exc:
        raise InputError("invalid baseline snapshot", [Problem(
            file=io.display_path(path), expected=str(exc).removeprefix("expected "), found=None,
            fix="re-bless it with `llm-gate baseline bless`, or delete it to run without a snapshot")]) from None


def write_snapshot(path: Path, snapshot: Snapshot) -> None:
    io.write_json_atomic(path, snapshot.to_dict())


def comparisons(config: GateConfig, results: Sequence[SuiteResult], base_dir: Path, now: datetime,
                changed: Iterable[Path] | None = None) -> dict[str, SnapshotComparison]:
    """Each suite against its snapshot. `changed`: files this pull request changes (None: unknown)."""
    changed_set = {p.resolve() for p in changed} if changed is not None else set()
    out = {}
    for result in results:
        suite = config.suites[result.name]
        path = snapshot_path(config, base_dir, result.name)
        watched = [path, *baseline_files(suite, base_dir)]
        touched = tuple(io.display_path(p) for p in watched if p.resolve() in changed_set)
        out[result.name] = compare(read_snapshot(path, type(suite).renamed), result, path=io.display_path(path),
                                   inputs_digest=inputs_digest(suite, base_dir), now=now,
                                   max_age_days=config.baselines.max_age_days, changed_in_pr=touched)
    return out


def stale_output_baselines(results: Sequence[SuiteResult], now: datetime,
                           max_age_days: int | None) -> dict[str, tuple[str, float]]:
    """Suites whose kept baseline outputs (`Kind.outputs_blessed_at`) are older than allowed:
    suite -> (oldest timestamp, age in days)."""
    out: dict[str, tuple[str, float]] = {}
    if max_age_days is None:
        return out
    for result in results:
        blessed_at = get_kind(result.kind).outputs_blessed_at
        if oldest := blessed_at(result) if blessed_at else None:
            age = age_in_days(oldest, now)
            if age is not None and age > max_age_days:
                out[result.name] = (oldest, age)
    return out
