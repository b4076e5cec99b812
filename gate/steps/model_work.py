"""The run's model work, computed whole or in shards, and the shards' files found and merged.

A plain run: `store = compute_model_work(...)`, then `score(..., StoreRuntime(store), ...)`. A sharded run:
each shard `compute_model_work(..., shard=Shard.parse("i/N")).save(shard_file(...))`; the merge scores
`StoreRuntime(merge_model_work(shard_files(paths), ...))`. Both equal the plain run bitwise
(gate/runtime/work/plan.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from gate import io
from gate.config import GateConfig
from gate.errors import ConfigError, InputError, Problem, model_stack
from gate.io import vcs
from gate.kinds import get_kind
from gate.runtime.api import ClassifierLabels
from gate.runtime.facade import (
    ArrayCache,
    NotInStore,
    Reporter,
    ResultStore,
    Shard,
    StoreRuntime,
    TorchRuntime,
    WorkPlan,
    engine_label,
    execute,
    merge_stores,
    plan,
    recorder,
    suites_label,
)
from gate.steps.suites import LoadedSuite, ask

SHARD_SUFFIX = ".npz"


def refuse_a_committed_cache(config: GateConfig, config_path: Path) -> None:
    """A cache directory the repository tracks holds what a commit put there: an entry a pull request committed
    would stand in for a model's output (its key is computable from public facts), and the LLM judge's cached
    grades likewise. Refused before any model work; the model directory under it (`models/`) is exempt -- a
    model committed there is the repository's choice of model, as anywhere else."""
    if not config.runtime.cache:
        return
    cache_dir = Path(config.runtime.cache_dir).resolve()
    models = cache_dir / "models"
    listed = vcs.tracked(Path.cwd(), cache_dir)
    if listed is None:  # no git (the Docker action's image), or one that refuses a workspace another user owns
        listed = io.tracked_files(Path.cwd(), cache_dir)
    found = [p for p in listed or [] if not p.resolve().is_relative_to(models)]
    if found:
        shown = io.display_path(found[0])
        raise ConfigError(f"{config_path}: runtime.cache_dir is tracked by git", [Problem(
            file=str(config_path), field="runtime.cache_dir", expected="a cache directory git does not track",
            found=f"{len(found)} tracked file(s) in {config.runtime.cache_dir}, e.g. {shown}",
            fix=f"run `git rm -r --cached {config.runtime.cache_dir}`, add it to .gitignore and keep it with "
                "actions/cache: a committed entry would stand in for the model output a pull request chose")])


def plan_model_work(loaded: Sequence[LoadedSuite], config: GateConfig, base_dir: Path,
                    labels: Callable[[str], ClassifierLabels], block_texts: int | None = None) -> WorkPlan:
    """The planning pass: the scorers of suites with model work ask a `RecordingRuntime`; nothing runs."""
    return _planned(loaded, config, base_dir, labels, block_texts)[0]


def _planned(loaded: Sequence[LoadedSuite], config: GateConfig, base_dir: Path,
             labels: Callable[[str], ClassifierLabels], block_texts: int | None,
             ) -> tuple[WorkPlan, dict[str, str], dict[str, list[str]]]:
    """The plan, each engine's label for the progress display: the suites it serves (one suite at a time
    through the one recorder asks exactly what all at once would), then the engine; and the engines (their
    labels) each suite with model work needs."""
    recording = recorder(labels)
    users: dict[str, list[str]] = {}
    for suite in (s for s in loaded if get_kind(s.config.kind).models_of is not None):
        asked = len(recording.requests)
        ask([suite], config, recording, base_dir)
        for request in recording.requests[asked:]:
            users.setdefault(request.engine.id, [])
            if suite.name not in users[request.engine.id]:
                users[request.engine.id].append(suite.name)
    work = plan(recording.requests, config.runtime, block_texts)
    needs: dict[str, list[str]] = {}
    for engine in work.engines:
        for name in users.get(engine.key.id, []):
            needs.setdefault(name, []).append(engine_label(engine.key.kind, engine.key.name, engine.key.layer))
    return work, {e.key.id: " · ".join(filter(None, (suites_label(users.get(e.key.id, [])),
                                                     engine_label(e.key.kind, e.key.name, e.key.layer))))
                  for e in work.engines}, needs


def compute_model_work(loaded: Sequence[LoadedSuite], config: GateConfig, runtime: TorchRuntime, base_dir: Path,
                       shard: Shard | None = None, block_texts: int | None = None,
                       cache: ArrayCache | None = None, shown: Reporter | None = None) -> ResultStore:
    """All model work of the run (`shard` None), or shard i/N's share of it, on `runtime` (a TorchRuntime),
    reusing the persistent `cache` (None: none; a cold run's results are bitwise the sharded ones); `shown`
    displays it, one task per engine labelled with the suites it serves. Where the model stack is not installed
    (the model-free image) a plan with model work is refused here, naming its suites (exit 3)."""
    work, labels, needs = _planned(loaded, config, base_dir, runtime.declared_labels, block_texts)
    if work.engines and (absent := model_stack.missing()):
        raise model_stack.model_work_refused(needs, absent)
    return execute(work, runtime, shard, cache, shown, labels)


def merge_model_work(paths: Sequence[Path], loaded: Sequence[LoadedSuite], config: GateConfig,
                     base_dir: Path) -> ResultStore:
    """The shards' files merged and checked against this run's own plan (so its inputs must be theirs)."""
    store = merge_stores(paths)
    try:  # the labels come from the store: a merge loads no model
        digest = plan_model_work(loaded, config, base_dir, StoreRuntime(store).classifier_labels,
                                 store.block_texts).digest
    except NotInStore:  # this run asks for a classifier the shards never loaded
        digest = ""
    store.require_plan(digest)
    return store


def shard_file(output_dir: Path, shard: Shard) -> Path:
    """Where `run --shard i/N` saves its share: <output_dir>/shards/shard-i-of-N.npz."""
    return output_dir / "shards" / f"shard-{shard.index}-of-{shard.count}{SHARD_SUFFIX}"


def shard_files(paths: Sequence[Path]) -> list[Path]:
    """The shard files among `paths`: files as given, directories searched recursively for *.npz."""
    found: dict[Path, None] = {}
    problems = []
    for path in paths:
        if path.is_dir():
            inside = sorted(path.rglob(f"*{SHARD_SUFFIX}"))
            if not inside:
                problems.append(Problem(file=io.display_path(path), expected=f"shard files (*{SHARD_SUFFIX})",
                                        found="a directory without any",
                                        fix="download every shard's artifact into it (`llm-gate run --shard i/N` "
                                            "writes <output_dir>/shards/shard-i-of-N.npz)"))
            found.update(dict.fromkeys(inside))
        elif path.is_file():
            found[path] = None
        else:
            problems.append(Problem(file=io.display_path(path), expected="a shard file or a directory of them",
                                    found="nothing there", fix="check the path"))
    if problems:
        raise InputError("cannot find the shards to merge", problems)
    return list(found)
