"""`llm-gate run --shard i/N` and `llm-gate merge`: a run's model work split over N runners, merged exactly.

A shard computes its share of the run's model work (whole blocks of texts, `gate.runtime.work.plan`) and
saves it as one file. The merge loads the N files, checks they belong to this run (same inputs,
config, models and libraries; every shard once), scores every suite from them — exactly the values an
unsharded run computes — and then judges, reports and publishes like `llm-gate run`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gate import io
from gate.commands.run import finish, llm_judge, report_place
from gate.config.loader import load_config
from gate.errors import ExitCode, InputError, Problem
from gate.pipeline import compute_model_work, load_suites, merge_model_work, score, select_suites
from gate.runtime.facade import Shard, StoreRuntime, TorchRuntime, open_cache, show_progress
from gate.settings import Settings

SHARD_SUFFIX = ".npz"


def shard_file(output_dir: Path, shard: Shard) -> Path:
    return output_dir / "shards" / f"shard-{shard.index}-of-{shard.count}{SHARD_SUFFIX}"


def run_shard(settings: Settings, shard_text: str, quiet: bool = False) -> ExitCode:
    show_progress(not quiet)
    shard = Shard.parse(shard_text)
    config = load_config(settings.config_path, output_dir_given=settings.output_dir is not None)
    base_dir = settings.config_path.resolve().parent
    output_dir = settings.output_dir or Path(config.report.output_dir)
    loaded = load_suites(select_suites(config, settings.suites, settings.models), base_dir)
    store = compute_model_work(loaded, config, TorchRuntime(config.runtime, base_dir), base_dir, shard=shard,
                               cache=open_cache(config.runtime))
    path = store.save(shard_file(output_dir, shard))
    encoded = sum(e.encoded for e in store.engines)
    sys.stdout.write(f"shard {shard.index}/{shard.count} of {config.name}: {len(store.blocks)} of "
                     f"{store.total_blocks} blocks, {encoded} texts encoded\n  wrote {io.display_path(path)}\n"
                     f"  merge all {shard.count} files with `llm-gate merge` (same config and inputs)\n")
    return ExitCode.PASSED


def shard_files(paths: list[Path]) -> list[Path]:
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


def merge(settings: Settings, paths: list[Path], quiet: bool = False,
          record_history: bool | None = None) -> ExitCode:
    show_progress(not quiet)
    config = load_config(settings.config_path, output_dir_given=settings.output_dir is not None)
    base_dir = settings.config_path.resolve().parent
    output_dir = settings.output_dir or Path(config.report.output_dir)
    selected = select_suites(config, settings.suites, settings.models)
    io.check_report_directory(output_dir, **report_place(settings, base_dir))  # refused before the merge work
    judge_with = llm_judge(settings, selected, Path(config.runtime.cache_dir))  # refused before any model work
    loaded = load_suites(selected, base_dir)
    files = shard_files(paths)
    store = merge_model_work(files, loaded, config, base_dir)
    for note in store.notes:
        sys.stderr.write(f"llm-gate: merge: {note}\n")
    sys.stdout.write(f"merged {len(files)} shards of {config.name} ({store.total_blocks} blocks)\n")
    results = score(loaded, config, StoreRuntime(store), base_dir, judge=judge_with)
    return finish(results, config, settings, base_dir, output_dir, selected=bool(selected),
                  record_history=record_history)
