"""The helpers of the named steps `gate/run.py` calls in order (DESIGN.md §1); `run.py` reads as the pipeline.

`suites` selects the suites, loads their typed records and runs the scorers; `model_work` plans the run's
model work and executes it (whole or one shard) or merges the shards' files; `output` holds what the end of a
run needs (report directory, publish bundle, console summary, trends, the guard that keeps GitHub from
deciding the exit code). A new step goes into `gate/run.py` by name; its helpers, if it needs any, here.
"""

from gate.steps.gate_changes import proposed_gate
from gate.steps.model_work import (
    SHARD_SUFFIX,
    compute_model_work,
    merge_model_work,
    plan_model_work,
    refuse_a_committed_cache,
    shard_file,
    shard_files,
)
from gate.steps.output import guarded, make_bundle, print_summary, progress_for, read_event, report_place, trends
from gate.steps.places import data_root, reading_data, written_folders
from gate.steps.suites import LoadedSuite, load_suites, score, select_suites

__all__ = ["SHARD_SUFFIX", "LoadedSuite", "compute_model_work", "data_root", "guarded", "load_suites",
           "make_bundle", "merge_model_work", "plan_model_work", "print_summary", "progress_for", "read_event",
           "proposed_gate", "reading_data", "refuse_a_committed_cache", "report_place", "score",
           "select_suites", "shard_file", "shard_files", "trends", "written_folders"]
