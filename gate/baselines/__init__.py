"""Baselines: what a run is compared with (DESIGN.md §2).

A suite's run is judged against more than thresholds (and a kind's own kept baseline outputs, in its folder): the
metric snapshot of blessed runs (`snapshots`, pure, and `comparison`, the files
and their comparability; `fingerprints` says how two measurements differ), the default branch's history of
runs (`history`, the JSONL file; `flow`, reading and recording it around a run, on disk and on a history
branch) with the trends drawn from it (`trends`), and thresholds calibrated from the noise of repeated runs
(`calibration`). Everything but `comparison` and `flow` is pure. Something new a run is compared with gets a
module here that turns files into typed values; the judge (`gate.judge`) only ever receives those values, and
the commands in `gate.cli.commands` write them.
"""

from gate.baselines.calibration import Calibration, Proposal, Skipped, calibrate, propose, snippet
from gate.baselines.comparison import (
    baseline_files,
    comparisons,
    inputs_digest,
    read_snapshot,
    snapshot_path,
    stale_output_baselines,
    write_snapshot,
)
from gate.baselines.fingerprints import fingerprint_differences
from gate.baselines.flow import HistoryRead, HistoryRemote, changed_files, read_history, record, should_record
from gate.baselines.history import ALREADY, Entry, mermaid_trend, sparkline
from gate.baselines.snapshots import (
    Snapshot,
    SnapshotComparison,
    SnapshotGroup,
    SnapshotItem,
    age_in_days,
    compare,
)
from gate.baselines.trends import MetricTrend, SuiteTrend, key_metrics, suite_trends

__all__ = [
    "ALREADY", "Calibration", "Entry", "HistoryRead", "HistoryRemote", "MetricTrend", "Proposal", "Skipped",
    "Snapshot", "SnapshotComparison", "SnapshotGroup", "SnapshotItem", "SuiteTrend", "age_in_days",
    "baseline_files", "calibrate", "changed_files", "compare",
    "comparisons", "fingerprint_differences", "inputs_digest", "key_metrics", "mermaid_trend",
    "propose", "read_history", "read_snapshot", "record", "should_record", "snapshot_path",
    "snippet", "sparkline", "stale_output_baselines", "suite_trends", "write_snapshot",
]
