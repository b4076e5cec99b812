"""The runtime as the pipeline and the commands call it: plan, execute, replay, and the cache around them.

A run: `TorchRuntime(config.runtime, base_dir)`; the scorers ask a `recorder(...)`; `plan(...)` turns what
they asked for into a `WorkPlan`; `execute(plan, runtime, shard, open_cache(...))` gives the `ResultStore`
(a shard's share with `shard`; `merge_stores` joins the shards' files); the scorers then run against
`StoreRuntime(store)`; `model_work_summary` says what it cost. Nothing outside `gate.runtime` needs more
than this module and `gate.runtime.api`. Importing it loads no torch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from gate.config import ModelRole, RuntimeConfig
from gate.runtime.api import ClassifierLabels, RuntimeSummary
from gate.runtime.engines.models import EMBEDDED_NAMES, ResolvedModel
from gate.runtime.engines.models import pull as pull_model
from gate.runtime.engines.models import resolve as resolve_model
from gate.runtime.engines.progress import Mode as ProgressMode
from gate.runtime.engines.progress import Reporter, engine_label, suites_label
from gate.runtime.engines.progress import set_enabled as show_progress
from gate.runtime.engines.session import TorchRuntime, resolve_layer
from gate.runtime.work import (
    ArrayCache,
    NotInStore,
    RecordingRuntime,
    ResultStore,
    Shard,
    StoreRuntime,
    WorkPlan,
    block_texts_for,
    build_plan,
    execute,
    summary,
)
from gate.runtime.work.plan import Request

__all__ = ["EMBEDDED_NAMES", "ArrayCache", "NotInStore", "ProgressMode", "RecordingRuntime", "Reporter",
           "ResolvedModel", "ResultStore", "Shard", "StoreRuntime", "TorchRuntime", "WorkPlan", "engine_label",
           "execute", "merge_stores", "model_work_summary", "open_cache", "plan", "pull_model", "recorder",
           "resolve_model", "show_progress", "suites_label", "causal_lm"]


def recorder(labels: Callable[[str], ClassifierLabels]) -> RecordingRuntime:
    """The planning pass's runtime: records what the scorers ask for and answers placeholders (`labels` answers
    `classifier_labels`, from the loaded model or from a store)."""
    return RecordingRuntime(labels, resolve_layer)


def plan(requests: Iterable[Request], settings: RuntimeConfig, block_texts: int | None = None) -> WorkPlan:
    """The run's model work as blocks of about `block_texts` texts (default: by `runtime.batch_size`)."""
    return build_plan(requests, block_texts or block_texts_for(settings.batch_size), settings.batch_size,
                      settings.batch_tokens)


def open_cache(settings: RuntimeConfig) -> ArrayCache:
    """The run's persistent model-output cache (`runtime.cache`, `runtime.cache_dir`, `runtime.cache_max_mb`)."""
    return ArrayCache(Path(settings.cache_dir) if settings.cache else None, settings.cache_max_mb * 2**20)


def model_work_summary(runtime: TorchRuntime, cache: ArrayCache, store: ResultStore) -> RuntimeSummary | None:
    """What the model work cost (None when the run had none). A run whose every output was cached has a summary
    (its cache hits) although no model loaded and torch was never imported."""
    if not store.engines:
        return None
    return summary(runtime, cache, store)


def merge_stores(paths: Sequence[Path]) -> ResultStore:
    """The shards' files, each checked, merged into one store (`ResultStore.merge` says which file differs)."""
    return ResultStore.merge([ResultStore.load(p) for p in paths])


# A local provider's model (`providers.<name>.model`, type local), as a missing one's advice names it.
CAUSAL_LM = ModelRole("local", "causal LM", "the local provider's `model`")


def causal_lm(name: str, settings: RuntimeConfig, base_dir: Path, *, model_dirs: Sequence[Path] = (),
              hub_offline: bool = False, pull_into: Path | None = None) -> object:
    """A local Hugging Face causal LM for generation (`gate.generate.providers.local.LocalEngine`), found like
    every other model (a local directory, the workflow's model directories, the Hugging Face cache, or pulled into
    `pull_into`); torch is imported here, only when a suite generates with a local provider."""
    from gate.runtime.engines.causal import CausalLM

    found = resolve_model(name, base_dir=base_dir, cache_dir=Path(settings.cache_dir), role=CAUSAL_LM,
                          extra_dirs=model_dirs, hub_offline=hub_offline, pull_into=pull_into)
    return CausalLM(found.path, device=settings.device.value, name=name)
