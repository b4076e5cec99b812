"""THE pipeline of DESIGN.md §1: settings → config → records → measure (plan, execute or replay) → judge →
render → publish → exit code.

`run` calls the steps below in order; each is a named function the other commands reuse: `baseline bless`
measures with `measure`, `llm-gate merge` is `run` with the model work replayed from the shards' files, and
`run --shard i/N` (`run_shard`) stops after executing its share. Scorers measure; only `judge` decides; a
failed gate is exit 1, not an exception. The steps' helpers live in `gate.steps`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date, datetime, timezone
from functools import partial
from pathlib import Path

from gate import io, report
from gate.baselines import comparison, flow, history
from gate.baselines.snapshots import SnapshotComparison
from gate.config import GateConfig, ReportFormat, SuiteBase
from gate.config.loader import load_config
from gate.config.renamed import warning_lines
from gate.config.settings import FailOn, Settings
from gate.errors import ExitCode, interrupt
from gate.judge import GateVerdict, Verdict, VerdictSettings, judge_gate, judge_suite, weigh_gate_changes
from gate.kinds import KINDS, get_kind
from gate.kinds.needs import needed_models
from gate.publish import bundle as publishing
from gate.publish.check_name import refusal_error
from gate.publish.flow import publish as publish_report
from gate.publish.github.client import GitHubPublisher, PublishOutcome
from gate.report.context import RunInfo
from gate.report.json_report import report_json
from gate.results import SuiteResult
from gate.runtime.api import RuntimeSummary
from gate.runtime.facade import (
    Reporter,
    ResultStore,
    Shard,
    StoreRuntime,
    TorchRuntime,
    model_work_summary,
    open_cache,
    show_progress,
)
from gate.steps import (
    LoadedSuite,
    compute_model_work,
    data_root,
    guarded,
    load_suites,
    make_bundle,
    merge_model_work,
    print_summary,
    progress_for,
    proposed_gate,
    reading_data,
    refuse_a_committed_cache,
    report_place,
    score,
    select_suites,
    shard_file,
    shard_files,
    trends,
    written_folders,
)
from gate.steps.generation import fingerprinted, generate_records
from gate.steps.grading import llm_grader
from gate.steps.pull_request import PullRequest, pull_request


def run(settings: Settings, *, quiet: bool = False, verbose: bool = False, shards: Sequence[Path] = ()) -> ExitCode:
    """`llm-gate run`, and `llm-gate merge` when `shards` (files or directories) replace executing the model work;
    `verbose` lists every file written, not one line for them. What it writes belongs to the workspace's owner."""
    with io.handed_back(settings.github.workspace, partial(written_folders, settings)):
        return judged_run(settings, quiet=quiet, verbose=verbose, shards=shards)


def judged_run(settings: Settings, *, quiet: bool = False, verbose: bool = False,
               shards: Sequence[Path] = ()) -> ExitCode:
    """The pipeline itself (`run` without handing its files back)."""
    show_progress(not quiet)
    config = read_config(settings.config_path, output_dir_given=settings.output_dir is not None)
    base_dir, output_dir = settings.config_path.resolve().parent, settings.output_dir or Path(config.report.output_dir)
    selected = select_suites(config, settings.suites, settings.models)
    io.check_report_directory(output_dir, **report_place(settings, base_dir))  # refused before the model work
    with reading_data(data_root(settings, settings.config_path)):  # the candidate data: the PR's, nothing else
        generated = generate_records(config, selected, settings)  # the candidates the suites' `generate:` produce
        if generated.dry_run:
            return ExitCode.PASSED
        results, model_work = measure(config, selected, base_dir, settings, shards=shards,
                                      shown=progress_for(settings, quiet))
    now = datetime.now(timezone.utc).replace(microsecond=0)
    pr = pull_request(settings, base_dir)
    comparisons = compare(config, results, base_dir, now, pr.changed_files)
    verdict = judge(results, config, None if selected else f"--suite {', '.join(settings.suites)} matched no suite",
                    comparisons, now.date())
    verdict = weigh_proposal(verdict, config, settings, results, comparisons, now.date(), pr)
    past = guarded(settings, "reading the history", lambda: flow.read_history(config, base_dir, pr.publisher),
                   flow.HistoryRead(notes=["history: could not be read (see the log)"]))
    record, record_note = flow.should_record(config, settings, pr.event, settings.record_history)
    info = replace(describe(verdict, config, settings, results, now, output_dir, pr.target, past,
                            notes=(record_note, *generated.notes, *warning_lines(config.warnings)),
                            model_work=model_work),
                   generation=generated.to_dict())
    written, bundle = render(verdict, info, config, settings, base_dir, output_dir, pr.target)
    published = publish(bundle, written, config, settings, pr.publisher) if settings.publish else None
    print_summary(verdict, written, verbose=verbose)
    if record and verdict.suites:
        record_history(verdict, info, config, settings, base_dir, pr.publisher, past)
    if published is not None and published.refused_name:  # gate.yml chose another check's name: exit 2, not a pass
        raise refusal_error(published.refused_name, settings, config.publish)
    return exit_code(verdict, settings.fail_on)


def run_shard(settings: Settings, *, quiet: bool = False) -> ExitCode:
    """`llm-gate run --shard i/N`: plan the whole run's model work, execute share i of N, save it for `merge`."""
    show_progress(not quiet)
    shard = Shard.parse(settings.shard or "")
    config = read_config(settings.config_path, output_dir_given=settings.output_dir is not None)
    base_dir, output_dir = settings.config_path.resolve().parent, settings.output_dir or Path(config.report.output_dir)
    refuse_a_committed_cache(config, settings.config_path)
    selected = select_suites(config, settings.suites, settings.models)
    generate_records(config, selected, settings)  # every shard replays the same records (a miss stops it here)
    loaded = load_suites(selected, base_dir)
    cache = open_cache(config.runtime)
    store = compute_model_work(loaded, config, torch_runtime(config, base_dir, settings), base_dir, shard=shard,
                               cache=cache, shown=progress_for(settings, quiet))
    for note in cache.finish().notes:  # its size cap and packs, as a plain run's summary does
        sys.stderr.write(f"warning: {note}\n")
    path = store.save(shard_file(output_dir, shard))
    encoded = sum(e.encoded for e in store.engines)
    sys.stdout.write(f"shard {shard.index}/{shard.count} of {config.name}: {len(store.blocks)} of "
                     f"{store.total_blocks} blocks, {encoded} texts encoded\n  wrote {io.display_path(path)}\n"
                     f"  merge all {shard.count} files with `llm-gate merge` (same config and inputs)\n")
    return ExitCode.PASSED


# ---------------------------------------------------------------- config → records → measure


def read_config(path: Path, *, output_dir_given: bool = False) -> GateConfig:
    """gate.yml, validated; `checks:` may name only the metrics the scorers produce. Deprecated names it still uses
    are warned about on stderr (and in a run's report)."""
    config = load_config(path, metrics=KINDS, output_dir_given=output_dir_given)
    sys.stderr.writelines(line + "\n" for line in warning_lines(config.warnings))
    return config


def measure(config: GateConfig, selected: Sequence[tuple[str, SuiteBase]], base_dir: Path, settings: Settings, *,
            shards: Sequence[Path] = (), shown: Reporter | None = None,
            ) -> tuple[list[SuiteResult], RuntimeSummary | None]:
    """Records → model work (planned, then executed here or replayed from `shards`) → scores; no verdicts. Also
    what the model work cost (None: none ran here). `shown` displays the progress (None: nothing)."""
    refuse_a_committed_cache(config, settings.config_path)
    grader = llm_grader(settings, selected, Path(config.runtime.cache_dir))  # refused before any model work
    loaded = load_suites(selected, base_dir)
    store, model_work = (replay(shards, loaded, config, base_dir) if shards
                         else execute(loaded, config, base_dir, settings, shown))
    results = score(loaded, config, StoreRuntime(store), base_dir, grader=grader, shown=shown)
    return fingerprinted(results, selected, base_dir), model_work


def execute(loaded: Sequence[LoadedSuite], config: GateConfig, base_dir: Path, settings: Settings,
            shown: Reporter | None = None) -> tuple[ResultStore, RuntimeSummary | None]:
    """The whole model work, planned and executed on this machine (reusing the persistent cache)."""
    runtime, cache = torch_runtime(config, base_dir, settings), open_cache(config.runtime)
    store = compute_model_work(loaded, config, runtime, base_dir, cache=cache, shown=shown)
    model_work = model_work_summary(runtime, cache, store)
    for note in model_work.notes if model_work else ():
        sys.stderr.write(f"warning: {note}\n")
    return store, model_work


def replay(paths: Sequence[Path], loaded: Sequence[LoadedSuite], config: GateConfig,
           base_dir: Path) -> tuple[ResultStore, None]:
    """The model work `run --shard` saved, merged and checked against this run's own plan; no model loads."""
    files = shard_files(paths)
    store = merge_model_work(files, loaded, config, base_dir)
    for note in store.notes:
        sys.stderr.write(f"llm-gate: merge: {note}\n")
    sys.stdout.write(f"merged {len(files)} shards of {config.name} ({store.total_blocks} blocks)\n")
    return store, None


def torch_runtime(config: GateConfig, base_dir: Path, settings: Settings) -> TorchRuntime:
    """The run's one model runtime; where models are found offline comes from the settings, what each does for
    the suites (the words and gate.yml field of a missing model's advice) from their kinds."""
    return TorchRuntime(config.runtime, base_dir, model_dirs=settings.model_dirs, hub_offline=settings.hub_offline,
                        pull_into=settings.model_dir, roles=[need.use for need in needed_models(config)])


# ---------------------------------------------------------------- judge


def compare(config: GateConfig, results: Sequence[SuiteResult], base_dir: Path, now: datetime,
            changed_files: list[Path] | None) -> dict[str, SnapshotComparison]:
    """Each suite's blessed snapshot, where it is comparable with this run (what change checks compare with)."""
    return comparison.comparisons(config, results, base_dir, now, changed_files)


def judge(results: Sequence[SuiteResult], config: GateConfig, skipped_reason: str | None = None,
          comparisons: Mapping[str, SnapshotComparison] | None = None, today: date | None = None) -> GateVerdict:
    """Verdicts; change checks (`max_decrease`…) compare with each suite's baseline snapshot in `comparisons`."""
    settings = verdict_settings(config, today)
    verdicts = []
    for result in results:
        suite = config.suites[result.name]
        scorer = get_kind(suite.kind)
        columns = result.value_names()
        verdicts.append(judge_suite(result, scorer.checks_for(suite), suite.unmeasured,
                                    (comparisons or {}).get(result.name),
                                    partial(scorer.statistic, suite, columns=columns), settings, suite.items))
    return judge_gate(config.name, verdicts, skipped_reason, settings)


def weigh_proposal(verdict: GateVerdict, config: GateConfig, settings: Settings, results: Sequence[SuiteResult],
                   comparisons: Mapping[str, SnapshotComparison], today: date, pr: PullRequest) -> GateVerdict:
    """What the pull request changes in its own gate, counted as the base branch's `gate_changes` says, with the
    verdict its own gate.yml would have given (shown, never applied)."""
    changes = guarded(settings, "reading the pull request's gate", lambda: proposed_gate(
        settings, config, results, lambda proposed: judge(results, proposed, None, comparisons, today),
        pull_request=pr.target.pull_request, head_sha=pr.target.head_sha, event=pr.event, changed=pr.changed_files,
        source=pr.publisher), None)
    return weigh_gate_changes(verdict, changes, config.gate_changes)


def verdict_settings(config: GateConfig, today: date | None) -> VerdictSettings:
    return VerdictSettings(alpha=config.alpha, correction=config.correction, min_paired=config.baselines.min_paired,
                           waivers=tuple(config.waivers), today=today, inconclusive=config.inconclusive)


# ---------------------------------------------------------------- render → publish → history → exit code


def describe(verdict: GateVerdict, config: GateConfig, settings: Settings, results: Sequence[SuiteResult],
             now: datetime, output_dir: Path, target: publishing.Target, past: flow.HistoryRead, *,
             notes: Sequence[str | None] = (), model_work: RuntimeSummary | None = None) -> RunInfo:
    """Everything the reports say beyond the verdict: the run, its trends, stale baselines, history notes."""
    return RunInfo(
        generated_at=now.isoformat(),
        output_dir=io.display_path(output_dir), commit=target.head_sha, repository=settings.github.repository,
        run_url=settings.github.run_url, selected_suites=settings.suites, selected_models=settings.models,
        fail_on=settings.fail_on.value,
        dashboard=ReportFormat.HTML in config.report.formats,
        trends=trends(config, verdict, past.entries),
        stale_outputs=comparison.stale_output_baselines(results, now, config.baselines.max_age_days),
        history_notes=tuple(n for n in [*past.notes, *notes] if n),
        runtime=model_work.to_dict() if model_work else None,
    )


def render(verdict: GateVerdict, info: RunInfo, config: GateConfig, settings: Settings, base_dir: Path,
           output_dir: Path, target: publishing.Target) -> tuple[report.WrittenReport, publishing.PublishBundle]:
    """The report files and publish.json (for `llm-gate publish` later), all of them or none."""
    descriptions = {name: suite.description for name, suite in config.suites.items()}
    # The whole set is staged and swapped in under a lock (gate.io.report_dir): publish.json and report.json
    # are always one run's, and nothing of an earlier run stays; SIGTERM waits for the swap.
    with interrupt.deferred(done=f"the report was written to {io.display_path(output_dir)}"), \
            io.report_directory(output_dir, **report_place(settings, base_dir)) as staging:
        written = report.write(verdict, info, config.report, staging, descriptions).relocated(output_dir)
        bundle = make_bundle(verdict, info, config, descriptions, settings, target)
        io.write_json_atomic(staging / "publish.json", bundle.to_dict())
    return written, bundle


def publish(bundle: publishing.PublishBundle, written: report.WrittenReport, config: GateConfig,
            settings: Settings, publisher: GitHubPublisher | None) -> PublishOutcome | None:
    """Job summary, step outputs, PR comment and check run; a failure here never changes the exit code, but a check
    name gate.yml chose that is another check's (`outcome.refused_name`) does (`gate.publish.check_name`)."""
    return guarded(settings, "publishing", lambda: publish_report(bundle, written.markdown, written.markdown_path,
                                                                  settings, config.publish, publisher), None)


def record_history(verdict: GateVerdict, info: RunInfo, config: GateConfig, settings: Settings, base_dir: Path,
                   publisher: GitHubPublisher | None, past: flow.HistoryRead) -> None:
    """Append this run to the history (file or branch); a failure is a note, never the exit code."""
    commit, ref = flow.revision(settings, base_dir, info.commit)
    entry = history.Entry.from_report(report_json(verdict, info.generated_at, info.commit), commit=commit, ref=ref)
    none: list[str] = []
    notes = guarded(settings, "recording the history", lambda: flow.record(
        config, base_dir, entry, publisher, settings.publish, past.entries), none)
    for note in notes:
        sys.stdout.write(f"  {note}\n")


def exit_code(verdict: GateVerdict, fail_on: FailOn) -> ExitCode:
    """0 passed (warnings allowed unless --fail-on warn) or inconclusive under `inconclusive: neutral`, 1 the gate
    failed (an inconclusive gate counts as gate.yml's `inconclusive:` says)."""
    counted = verdict.counts_as
    if counted is Verdict.FAIL or (counted is Verdict.WARN and fail_on is FailOn.WARN):
        return ExitCode.GATE_FAILED
    return ExitCode.PASSED
