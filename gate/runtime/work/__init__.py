"""The model work of a run, independent of how models run: `plan` (the planning pass's recorder and the
deterministic plan of text blocks), `execute` (a plan, or one shard of it, on a `TorchRuntime`), `store` (the
results as one file, shards merged exactly), `replay` (`StoreRuntime` answers the scorers from a store) and
`cache` (the persistent per-text cache). No torch here. A new engine kind needs its block runner in
`execute`, its answers in `replay`, and its requests recorded in `plan`.
"""

from gate.runtime.work.cache import ArrayCache
from gate.runtime.work.execute import execute, summary
from gate.runtime.work.plan import RecordingRuntime, Shard, WorkPlan, block_texts_for, build_plan
from gate.runtime.work.replay import NotInStore, StoreRuntime
from gate.runtime.work.store import ResultStore

__all__ = ["ArrayCache", "NotInStore", "RecordingRuntime", "ResultStore", "Shard", "StoreRuntime", "WorkPlan",
           "block_texts_for", "build_plan", "execute", "summary"]
