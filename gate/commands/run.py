"""`llm-gate run`: the pipeline of DESIGN.md §1, in order."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

from gate import actions, io, report
from gate.config_loader import load_config
from gate.errors import ExitCode
from gate.judge import CheckVerdict, GateVerdict, Verdict
from gate.pipeline import judge, load_suites, score, select_suites
from gate.report.context import RunInfo
from gate.report.drift_export import seed_summary
from gate.report.formatting import WORDS, icon
from gate.runtime import progress
from gate.runtime.session import TorchRuntime
from gate.settings import FailOn, Settings

MAX_WORKFLOW_ANNOTATIONS = 10  # GitHub shows at most 10 error annotations per step


def run_gate(settings: Settings, quiet: bool = False) -> ExitCode:
    progress.set_enabled(not quiet)
    config = load_config(settings.config_path)
    base_dir = settings.config_path.resolve().parent
    output_dir = settings.output_dir or Path(config.report.output_dir)
    selected = select_suites(config, settings.suites)
    loaded = load_suites(selected, base_dir)
    runtime = TorchRuntime(config.runtime, base_dir)
    results = score(loaded, config, runtime, base_dir)
    verdict = judge(results, config, None if selected else f"--suite {', '.join(settings.suites)} matched no suite")
    run = RunInfo(
        generated_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        output_dir=io.display_path(output_dir), commit=settings.github.sha, repository=settings.github.repository,
        run_url=settings.github.run_url, selected_suites=settings.suites, fail_on=settings.fail_on.value,
    )
    descriptions = {name: suite.description for name, suite in config.suites.items()}
    written = report.write(verdict, run, config.report, output_dir, descriptions)
    if settings.publish:
        publish(verdict, written, settings, summary=config.publish.summary)
    _print_summary(verdict, written)
    return exit_code(verdict, settings.fail_on)


def exit_code(verdict: GateVerdict, fail_on: FailOn) -> ExitCode:
    if verdict.verdict is Verdict.FAIL or (verdict.verdict is Verdict.WARN and fail_on is FailOn.WARN):
        return ExitCode.GATE_FAILED
    return ExitCode.PASSED


def publish(verdict: GateVerdict, written: report.WrittenReport, settings: Settings, summary: bool = True) -> None:
    """Job summary, step outputs and workflow annotations (the GitHub API side comes with `gate.github`)."""
    github = settings.github
    if summary:
        actions.write_summary(github.step_summary, written.markdown)
    actions.write_outputs(github.output, {
        "verdict": verdict.verdict.value,
        "report-path": str(written.markdown_path),
        "failed-checks": str(sum(s.count(CheckVerdict.FAIL) for s in verdict.suites)),
        "warned-checks": str(sum(s.count(CheckVerdict.WARN) for s in verdict.suites)),
    })
    if github.in_actions:
        for line in _annotations(verdict)[:MAX_WORKFLOW_ANNOTATIONS]:
            print(line)


def _annotations(verdict: GateVerdict) -> list[str]:
    lines = []
    for suite in verdict.suites:
        sources = {g.key: g.sources for g in suite.result.groups}
        for check in suite.checks:
            if check.verdict is not CheckVerdict.FAIL:
                continue
            where = next(iter(sources.get(check.key, ())), None)
            message = (f"{suite.result.name}: {check.metric} = {check.value:.3f} "
                       f"({'below min' if check.op.value == 'min' else 'above max'} {check.fail:g}) "
                       f"for {', '.join(f'{k} {v}' for k, v in check.key) or 'the suite'}")
            lines.append(actions.command("error", message, file=where.file if where else None,
                                         line=where.line if where else None, title="LLM quality gate"))
    return lines


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
