"""Write a judged run to disk: report.md, report.json, report.html, junit.xml, <suite>/items.csv and the
seeds' own exports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gate import io
from gate.config import ReportConfig, ReportFormat
from gate.judge import GateVerdict
from gate.kinds import get_kind
from gate.report import context, flaky, markdown, sizing
from gate.report.json_report import report_json
from gate.results import Key, SuiteResult


@dataclass(frozen=True)
class WrittenReport:
    output_dir: Path
    markdown: str
    files: tuple[Path, ...]

    @property
    def markdown_path(self) -> Path:
        return self.output_dir / "report.md"

    def relocated(self, output_dir: Path) -> WrittenReport:
        """The same report once the staging directory it was written to has become `output_dir`."""
        return WrittenReport(output_dir, self.markdown,
                             tuple(output_dir / path.relative_to(self.output_dir) for path in self.files))


def render_markdown(verdict: GateVerdict, run: context.RunInfo, config: ReportConfig,
                    descriptions: Mapping[str, str | None] | None = None, *, detail: int = sizing.FULL_DETAIL,
                    cut_note: str | None = None, footer: bool = True, rows: int | None = None,
                    groups: int | None = None, models: int | None = None) -> str:
    """`rows` cuts the gate-level "checks not passed" table of a shortened report (`detail` ≤ 1) to its first
    rows by severity, `groups` each suite's per-group tables (`detail` 1), `models` its per-model table
    (`detail` 0), failing first (None: all; `fit_markdown` chooses them)."""
    view = context.build(verdict, run, config.worst_items, descriptions, detail=detail, cut_note=cut_note,
                         footer=footer, rows=rows, groups=groups, models=models)
    return markdown.render(view, override_dir=config.templates_dir)


def fit_markdown(verdict: GateVerdict, run: context.RunInfo, config: ReportConfig,
                 descriptions: Mapping[str, str | None] | None, limit: int | sizing.Limit,
                 full_report: str) -> sizing.Fitted:
    """The report fitted to `limit` (an int: characters; a check-run summary: `sizing.Limit` in bytes), footer left
    to the caller.
    Each level's view is built once; the bisection over the rows each table keeps only re-renders it."""
    built: dict[int, dict] = {}

    def view(detail: int) -> dict:
        if detail not in built:
            built[detail] = context.whole(verdict, run, config.worst_items, descriptions, detail=detail, footer=False)
        return built[detail]

    def render(cut: sizing.Cut, note: str | None) -> str:
        return markdown.render(context.cut(view(cut.detail), cut, note), override_dir=config.templates_dir)

    return sizing.fit(render, limit, full_report, lambda: context.sizes(view(1), view(0)))


def write(verdict: GateVerdict, run: context.RunInfo, config: ReportConfig, output_dir: Path,
          descriptions: Mapping[str, str | None] | None = None) -> WrittenReport:
    text = render_markdown(verdict, run, config, descriptions)
    files: list[Path] = []
    if ReportFormat.MARKDOWN in config.formats:
        io.write_text_atomic(output_dir / "report.md", text)
        files.append(output_dir / "report.md")
    if ReportFormat.JSON in config.formats:
        document = report_json(verdict, run.generated_at, run.commit, run.runtime, run.generation)
        io.write_json_atomic(output_dir / "report.json", document, inline_below=4)  # a group, check, value: a line
        files.append(output_dir / "report.json")
    if ReportFormat.HTML in config.formats:
        from gate.report import dashboard

        io.write_text_atomic(output_dir / "report.html", dashboard.render(verdict, run))
        files.append(output_dir / "report.html")
    if ReportFormat.JUNIT in config.formats:
        from gate.report.junit import junit_xml

        io.write_text_atomic(output_dir / "junit.xml", junit_xml(verdict, run.generated_at))
        files.append(output_dir / "junit.xml")
    run_day = run.generated_at[:10]
    for suite in verdict.suites:
        directory = output_dir / suite.result.name
        io.write_csv_atomic(directory / "items.csv", flaky.csv_columns(suite),
                            item_rows(suite.result, flaky.csv_cells(suite) if flaky.sampled(suite.result) else None))
        files.append(directory / "items.csv")
        seed_exports = get_kind(suite.result.kind).exports  # the files the kind's seed wrote
        if seed_exports:
            files += seed_exports(suite, directory, run_day)
    return WrittenReport(output_dir, text, tuple(files))


def item_rows(result: SuiteResult, flaky_cells: Mapping[Key, str] | None = None) -> list[list[object]]:
    """items.csv's rows; with `flaky_cells` (a suite with repeated samples) a last `flaky` cell per item."""
    rows = []
    extra = flaky_cells is not None and flaky.COLUMN not in result.item_columns
    for item in result.items:
        values = {**dict(item.key), **item.values}
        cell = (flaky_cells or {}).get(item.key, "") if extra else None
        rows.append(flaky.csv_row(values, result.item_columns, cell))
    return rows
