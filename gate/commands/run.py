"""`llm-gate run`: the pipeline of DESIGN.md §1, in order."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from gate import interrupt, io, report
from gate.baselines import comparison, flow, history, trends
from gate.config import GateConfig, ReportFormat, grader_access
from gate.config.loader import load_config
from gate.errors import ExitCode
from gate.io import paths
from gate.judge import CheckVerdict, GateVerdict, Verdict
from gate.pipeline import compute_model_work, judge, load_suites, score, select_suites
from gate.publish import actions
from gate.publish import bundle as publishing
from gate.publish.flow import publish
from gate.publish.github.client import publisher_for
from gate.report import sizing
from gate.report.annotations import annotations
from gate.report.context import RunInfo
from gate.report.formatting import WORDS, icon
from gate.report.json_report import report_json
from gate.report.kinds.drift import seed_summary
from gate.runtime.api import RuntimeSummary
from gate.runtime.facade import StoreRuntime, TorchRuntime, model_work_summary, open_cache, show_progress
from gate.scorers import get_scorer
from gate.settings import FailOn, Settings

T = TypeVar("T")
COMMENT_OVERHEAD = 600  # characters the marker and footer add to a comment


def run_gate(settings: Settings, quiet: bool = False, record_history: bool | None = None) -> ExitCode:
    show_progress(not quiet)
    config = load_config(settings.config_path, output_dir_given=settings.output_dir is not None)
    base_dir = settings.config_path.resolve().parent
    output_dir = settings.output_dir or Path(config.report.output_dir)
    selected = select_suites(config, settings.suites, settings.models)
    io.check_report_directory(output_dir, **report_place(settings, base_dir))  # refused before the model work
    results, model_work = measure(config, selected, base_dir, settings)
    return finish(results, config, settings, base_dir, output_dir, selected=bool(selected),
                  record_history=record_history, model_work=model_work)


def measure(config: GateConfig, selected: list, base_dir: Path,
            settings: Settings) -> tuple[list, RuntimeSummary | None]:
    """Load and score the selected suites (`llm-gate run`, `baseline bless`); also what the model work cost."""
    judge_with = llm_judge(settings, selected, Path(config.runtime.cache_dir))  # refused before any model work
    loaded = load_suites(selected, base_dir)
    runtime, cache = TorchRuntime(config.runtime, base_dir), open_cache(config.runtime)
    store = compute_model_work(loaded, config, runtime, base_dir, cache=cache)
    model_work = model_work_summary(runtime, cache, store)
    for note in model_work.notes if model_work else ():
        sys.stderr.write(f"warning: {note}\n")
    results = score(loaded, config, StoreRuntime(store), base_dir, judge=judge_with)
    return results, model_work


def finish(results: list, config: GateConfig, settings: Settings, base_dir: Path, output_dir: Path, *,
           selected: bool, record_history: bool | None = None, model_work: RuntimeSummary | None = None) -> ExitCode:
    """Measured results -> baselines, verdicts, history, reports, publishing, exit code (also after a merge)."""
    now = datetime.now(timezone.utc).replace(microsecond=0)
    event = _event(settings)
    target = publishing.target_from_event(settings.github.event_name, event, settings.github.sha)
    publisher = publisher_for(settings) if settings.publish else None  # --no-publish: no API at all
    changed = _guarded(settings, "reading the pull request's files",
                       lambda: flow.changed_files(settings, event, base_dir, publisher), None)
    comparisons = comparison.comparisons(config, results, base_dir, now, changed)
    verdict = judge(results, config, None if selected else f"--suite {', '.join(settings.suites)} matched no suite",
                    comparisons)
    past = _guarded(settings, "reading the history", lambda: flow.read_history(config, base_dir, publisher),
                    flow.HistoryRead(notes=["history: could not be read (see the log)"]))
    record, record_note = flow.should_record(config, settings, event, record_history)
    run = RunInfo(
        generated_at=now.isoformat(),
        output_dir=io.display_path(output_dir), commit=target.head_sha, repository=settings.github.repository,
        run_url=settings.github.run_url, selected_suites=settings.suites, fail_on=settings.fail_on.value,
        dashboard=ReportFormat.HTML in config.report.formats,
        trends=_trends(config, verdict, past.entries),
        stale_outputs=comparison.stale_output_baselines(results, now, config.baselines.max_age_days),
        history_notes=tuple(n for n in [*past.notes, record_note] if n),
        runtime=model_work.to_dict() if model_work else None,
    )
    descriptions = {name: suite.description for name, suite in config.suites.items()}
    # The whole set is staged and swapped in under a lock (gate.io.report_dir): publish.json and report.json
    # are always one run's, and nothing of an earlier run stays; SIGTERM waits for the swap.
    with interrupt.deferred(done=f"the report was written to {io.display_path(output_dir)}"), \
            io.report_directory(output_dir, **report_place(settings, base_dir)) as staging:
        written = report.write(verdict, run, config.report, staging, descriptions).relocated(output_dir)
        bundle = make_bundle(verdict, run, config, descriptions, settings, target)
        io.write_json_atomic(staging / "publish.json", bundle.to_dict())  # for `llm-gate publish` later
    if settings.publish:
        _guarded(settings, "publishing",
                 lambda: publish(bundle, written.markdown, written.markdown_path, settings, config.publish,
                                 publisher), None)
    _print_summary(verdict, written)
    if record and verdict.suites:
        commit, ref = flow.revision(settings, base_dir, run.commit)
        entry = history.Entry.from_report(report_json(verdict, run.generated_at, run.commit), commit=commit, ref=ref)
        notes = _guarded(settings, "recording the history", lambda: flow.record(
            config, base_dir, entry, publisher, settings.publish, past.entries), [])
        for note in notes:
            sys.stdout.write(f"  {note}\n")
    return exit_code(verdict, settings.fail_on)


def report_place(settings: Settings, base_dir: Path) -> dict:
    """Where the output directory was set (for its errors), and the workspace it must never replace."""
    workspace = paths.workspace_for(base_dir)
    if settings.output_dir is not None:
        return {"field": "--output-dir (action input output_dir)", "file": None, "workspace": workspace}
    return {"field": "report.output_dir", "file": io.display_path(settings.config_path), "workspace": workspace}


def _guarded(settings: Settings, what: str, action: Callable[[], T], default: T) -> T:
    """GitHub and the history never decide the exit code (DESIGN.md §8): what their own handling did not
    foresee becomes a warning, and the gate's verdict stands."""
    try:
        return action()
    except Exception as exc:  # an unforeseen reply or a bug at the edge must not turn a failed gate into exit 3
        note = (f"{what} failed unexpectedly ({type(exc).__name__}: {exc}); the report files and the exit code "
                "are the gate's own")
        if settings.github.in_actions:
            actions.issue("warning", note, title="llm-quality-gate")
        else:
            sys.stderr.write(f"llm-gate: warning: {note}\n")
        return default


def _trends(config: GateConfig, verdict: GateVerdict, entries: list) -> dict:
    if config.history is None or not entries:
        return {}
    checked = {name: list(get_scorer(suite.kind).checks_for(suite)) for name, suite in config.suites.items()}
    metrics = trends.key_metrics(checked, [s.result for s in verdict.suites], config.history.metrics)
    return trends.suite_trends(entries, verdict, metrics, config.history.points)


def llm_judge(settings: Settings, selected: list, cache_dir: Path):
    """The LLM judge for suites that enable it. Every enabled judge of `selected` is checked first against what
    the workflow allows (`settings.judge`: endpoints, key variable, never a GitHub token), located in gate.yml."""
    access = settings.judge
    grader_access.check(selected, access, settings.config_path)

    def judge(config, items):
        from gate.scorers.rag.grader_client import run_grader

        return run_grader(config, access.key(config), items, cache_dir=cache_dir / "judge" if config.cache else None)
    return judge


def exit_code(verdict: GateVerdict, fail_on: FailOn) -> ExitCode:
    if verdict.verdict is Verdict.FAIL or (verdict.verdict is Verdict.WARN and fail_on is FailOn.WARN):
        return ExitCode.GATE_FAILED
    return ExitCode.PASSED


def make_bundle(verdict: GateVerdict, run: RunInfo, config: GateConfig, descriptions: dict, settings: Settings,
                target: publishing.Target) -> publishing.PublishBundle:
    """The comment and check-run texts, fitted to GitHub's limit, and the annotations."""
    where = (f"`report.md` in this job's report artifact ([workflow run]({run.run_url}))" if run.run_url
             else f"`{run.output_dir}/report.md`")

    def render(detail: int, note: str | None) -> str:
        return report.render_markdown(verdict, run, config.report, descriptions, detail=detail, cut_note=note,
                                      footer=False)

    summary = sizing.fit(render, sizing.GITHUB_TEXT_LIMIT - 1, where).text
    comment = sizing.fit(render, sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD, where).text
    return publishing.PublishBundle(
        gate=config.name, verdict=verdict.verdict.value,
        conclusion=publishing.conclusion(verdict.verdict, settings.fail_on), title=publishing.check_title(verdict),
        summary=summary, comment=comment, annotations=tuple(annotations(verdict)),
        repository=settings.github.repository, pull_request=target.pull_request, head_sha=target.head_sha,
        run_url=run.run_url,
    )


def _event(settings: Settings) -> dict | None:
    path = settings.github.event_path
    if path is None or not path.is_file():
        return None
    value = io.read_json_quiet(path)
    return value if isinstance(value, dict) else None


def _print_summary(verdict: GateVerdict, written: report.WrittenReport) -> None:
    out = sys.stdout
    out.write(f"{icon(verdict.verdict)} {verdict.name}: {WORDS[verdict.verdict]}\n")
    if verdict.skipped_reason:
        out.write(f"  skipped: {verdict.skipped_reason}\n")
    for suite in verdict.suites:
        counts = ", ".join(f"{suite.count(v)} {v.value}" for v in CheckVerdict if suite.count(v))
        out.write(f"  {icon(suite.verdict)} {suite.result.name} ({suite.result.kind}): {WORDS[suite.verdict]}"
                  f" — checks: {counts or 'none'}\n")
        if suite.result.kind == "drift":
            out.write(f"     {seed_summary(suite)[2]}\n")
    for path in written.files:
        out.write(f"  wrote {io.display_path(path)}\n")
