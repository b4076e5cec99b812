"""What a run leaves behind and says: where its report directory is, the publish bundle, the console summary,
the trends it shows, and the guard that keeps GitHub and the history from deciding the exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from gate import io, report
from gate.baselines import trends as trend_lines
from gate.config import GateConfig
from gate.config.settings import Settings
from gate.io import paths
from gate.judge import CheckVerdict, GateVerdict, SuiteVerdict, Verdict
from gate.kinds import get_kind
from gate.publish import actions, check_text
from gate.publish import bundle as publishing
from gate.report import sizing
from gate.report.annotations import check_annotations
from gate.report.context import RunInfo
from gate.report.formatting import headline, icon
from gate.report.significance import significance_line
from gate.runtime.facade import Reporter

T = TypeVar("T")
COMMENT_OVERHEAD = 600  # characters the marker and footer add to a comment
# The check run's summary in GitHub's unit (bytes), less what posting adds above it: the annotations line and a
# matrix's jobs line (`gate.publish.check_text.summary`, which never lets the whole pass 65,535 bytes)
SUMMARY_LIMIT = sizing.Limit(sizing.CHECK_RUN_TEXT_BYTES - check_text.SUMMARY_RESERVE, "bytes")


def report_place(settings: Settings, base_dir: Path) -> dict[str, Any]:
    """Where the output directory was set (for its errors), and the workspace it must never replace."""
    workspace = paths.workspace_for(base_dir)
    if settings.output_dir is not None:
        return {"field": "--output-dir (action input output_dir)", "file": None, "workspace": workspace}
    return {"field": "report.output_dir", "file": io.display_path(settings.config_path), "workspace": workspace}


def progress_for(settings: Settings, quiet: bool) -> Reporter:
    """The run's progress display: none with --quiet, bars on a terminal, else timestamped lines, each suite's
    and engine's work a folded group of the log in GitHub Actions (the gate's own `::group::` commands)."""
    return Reporter.for_run(quiet=quiet, in_actions=settings.github.in_actions, group=actions.group)


def guarded(settings: Settings, what: str, action: Callable[[], T], default: T) -> T:
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


def read_event(settings: Settings) -> dict | None:
    """The workflow's event payload (GITHUB_EVENT_PATH), None outside Actions. One that is set but missing,
    unreadable, not JSON or not an object is a visible warning, not a silent 'no pull request'; the run goes on."""
    path = settings.github.event_path
    if path is None:
        return None
    value = io.read_json_quiet(path) if path.is_file() else None
    if isinstance(value, dict):
        return value
    why = ("does not exist" if not path.exists() else "is not a file" if not path.is_file()
           else "cannot be read or is not JSON" if value is None else "is not a JSON object")
    note = (f"the event file GITHUB_EVENT_PATH={path} {why}: this run knows of no pull request (no comment is "
            "posted on one); a container step must see the runner's event file at that path")
    if settings.github.in_actions:
        actions.issue("warning", note, title="llm-quality-gate")
    else:
        sys.stderr.write(f"llm-gate: warning: {note}\n")
    return None


def trends(config: GateConfig, verdict: GateVerdict, entries: list) -> dict:
    """Each suite's key metrics over the recorded runs, for the report (empty without a history)."""
    if config.history is None or not entries:
        return {}
    checked = {name: list(get_kind(suite.kind).checks_for(suite)) for name, suite in config.suites.items()}
    metrics = trend_lines.key_metrics(checked, [s.result for s in verdict.suites], config.history.metrics)
    return trend_lines.suite_trends(entries, verdict, metrics, config.history.points)


def make_bundle(verdict: GateVerdict, run: RunInfo, config: GateConfig, descriptions: dict, settings: Settings,
                target: publishing.Target) -> publishing.PublishBundle:
    """The comment and check-run texts, fitted to GitHub's limit, and the annotations."""
    where = (f"`report.md` in this job's report artifact ([workflow run]({run.run_url}))" if run.run_url
             else f"`{run.output_dir}/report.md`")
    summary, comment = fitted_texts(lambda limit: report.fit_markdown(verdict, run, config.report, descriptions,
                                                                      limit, where))
    posted_as = publish_identity(verdict, config, settings)
    return publishing.PublishBundle(
        gate=config.name, verdict=verdict.verdict.value,
        conclusion=publishing.conclusion(verdict.counts_as, settings.fail_on),
        title=publishing.check_title(verdict, settings.suites, settings.models),
        summary=summary, comment=comment, annotations=tuple(check_annotations(verdict, **gate_lines(settings))),
        repository=settings.github.repository, pull_request=target.pull_request, head_sha=target.head_sha,
        run_url=run.run_url,
        failed_checks=sum(s.count(CheckVerdict.FAIL) for s in verdict.suites),
        warned_checks=sum(s.count(CheckVerdict.WARN) for s in verdict.suites),
        check_name=posted_as.check_name, comment_title=posted_as.comment_title, scope=posted_as.scope,
        changed=publishing.significant_change(verdict),
        leg=publishing.derived_name(config.name, settings.suites, settings.models, verdict.verdict is Verdict.SKIPPED),
        notes=(target.note,) if target.note else (),
    )


def gate_lines(settings: Settings) -> dict[str, Any]:
    """gate.yml as annotations name it and the line of each suite in it: where a check on rows of a spreadsheet
    points (GitHub shows no lines of a binary file). Nothing when gate.yml cannot be read again."""
    from gate.config.located import line_of, parse_yaml

    try:
        text = settings.config_path.read_text(encoding="utf-8")
        data, root = parse_yaml(text, io.display_path(settings.config_path), "gate.yml")
    except Exception:  # read and validated once already: a file that changed since is no reason to fail here
        return {}
    suites = data.get("suites") if isinstance(data, dict) else None
    lines = {str(name): line_of(root, ("suites", name)) or 1 for name in (suites if isinstance(suites, dict) else {})}
    return {"gate_file": io.display_path(settings.config_path), "suite_lines": lines}


def fitted_texts(fit: Callable[[int | sizing.Limit], sizing.Fitted]) -> tuple[str, str]:
    """(the check-run summary, the comment): the report fitted to each one's limit in the unit GitHub counts,
    `fit(limit)`: the summary in UTF-8 bytes (`SUMMARY_LIMIT`), the comment in characters. A report that fits the
    summary whole and the comment's characters is rendered once for both; one that had to be cut for either is
    fitted to each (a cut for bytes is not the most the comment's characters hold, and the reverse)."""
    summary = fit(SUMMARY_LIMIT)
    comment_limit = sizing.GITHUB_TEXT_LIMIT - COMMENT_OVERHEAD
    if summary.detail == sizing.FULL_DETAIL and len(summary.text) <= comment_limit:
        return summary.text, summary.text
    return summary.text, fit(comment_limit).text


def publish_identity(verdict: GateVerdict, config: GateConfig, settings: Settings) -> publishing.PublishIdentity:
    """The check run's name, the comment's title (the workflow's, gate.yml's, else derived from the gate's name and
    the run's filter) and the scope that decides what the run may replace on GitHub."""
    skipped = verdict.verdict is Verdict.SKIPPED
    derived = publishing.derived_name(config.name, settings.suites, settings.models, skipped)
    return publishing.PublishIdentity(
        check_name=settings.check_name or config.publish.check_name or derived,
        comment_title=settings.comment_title or config.publish.comment_title or derived,
        scope=publishing.run_scope(settings.suites, settings.models, skipped))


SHOWN_FILES = 4  # the summary names this many of the files written; --verbose lists all


def print_summary(verdict: GateVerdict, written: report.WrittenReport, *, verbose: bool = False) -> None:
    """The verdict per suite and the files written (one line, or each file with `verbose`), on stdout.

    Two counts stand side by side and count different things, so each says what it counts: `gate.yml checks`
    are the thresholds judged (per suite, group or model), a kind's own line (`Kind.summary_line`, e.g. a seed's
    "Tests: x/y") counts what its seed counted."""
    out = sys.stdout
    words = headline(verdict.verdict, verdict.suites)  # never a plain "passed" when waived; advisory ones apart
    out.write(f"{icon(verdict.verdict)} {verdict.name}: {words}\n")
    if verdict.skipped_reason:
        out.write(f"  skipped: {verdict.skipped_reason}\n")
    totals = {v: sum(s.count(v) for s in verdict.suites) for v in CheckVerdict}
    if any(totals.values()):
        out.write("  gate.yml checks: " + ", ".join(f"{n} {v.value}" for v, n in totals.items() if n) + "\n")
    if advisory := ", ".join(f"{n} {v.value}" for v in CheckVerdict if (n := verdict.advisory_count(v))):
        out.write(f"  advisory checks (never blocking): {advisory}\n")
    if verdict.counts_as is not verdict.verdict:
        out.write(f"  counts as {verdict.counts_as.value} (gate.yml: inconclusive: {verdict.inconclusive.value})\n")
    if line := significance_line(verdict):
        out.write(f"  {line}\n")
    for note in verdict.notes:
        out.write(f"  note: {note}\n")
    for suite in verdict.suites:
        counts = ", ".join(f"{suite.count(v)} {v.value}" for v in CheckVerdict if suite.count(v))
        out.write(f"  {icon(suite.verdict)} {suite.result.name} ({suite.result.kind}): "
                  f"{headline(suite.verdict, [suite])}"
                  f" — checks: {counts or 'none'}{_advisory_counts(suite)}\n")
        summary_line = get_kind(suite.result.kind).summary_line
        if summary_line is not None:
            out.write(f"     {summary_line(suite)}\n")
    out.write(written_line(written) + "\n")
    if verbose:
        for path in written.files:
            out.write(f"    {io.display_path(path)}\n")


def _advisory_counts(suite: SuiteVerdict) -> str:
    """"; advisory: 1 pass, 2 fail" — the advisory checks, which never block, counted apart ("" when none)."""
    counts = ", ".join(f"{n} {v.value}" for v in CheckVerdict if (n := suite.count(v, advisory=True)))
    return f"; advisory (never blocking): {counts}" if counts else ""


def written_line(written: report.WrittenReport) -> str:
    """`  wrote 16 files to gate-report/ (report.md, report.json, …)`: the files a run wrote, in one line."""
    names = [path.relative_to(written.output_dir).as_posix() if path.is_relative_to(written.output_dir) else str(path)
             for path in written.files]
    shown = ", ".join(names[:SHOWN_FILES]) + (f", … {len(names) - SHOWN_FILES} more (--verbose lists them)"
                                              if len(names) > SHOWN_FILES else "")
    if not names:
        return f"  wrote no files to {io.display_path(written.output_dir)}/"
    count = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    return f"  wrote {count} to {io.display_path(written.output_dir)}/ ({shown})"
