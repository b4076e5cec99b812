"""`llm-gate generate`: the generation step of `run`, alone — the records of the suites with `generate:` written
where their `records:` read them, from the cassettes or the providers (`gate.steps.generation`)."""

from __future__ import annotations

import sys

from gate import io
from gate.config.settings import Settings
from gate.errors import ConfigError, ExitCode, Problem
from gate.run import read_config
from gate.steps import data_root, reading_data, select_suites
from gate.steps.generation import generate_records, generating


def generate_candidates(settings: Settings) -> ExitCode:
    config = read_config(settings.config_path)
    selected = select_suites(config, settings.suites, ())
    if not generating(selected):
        raise ConfigError("nothing to generate", [Problem(
            file=str(settings.config_path), field="suites.*.generate",
            expected="a selected suite with `generate:`", found="none" + (
                f" among {', '.join(settings.suites)}" if settings.suites else ""),
            fix="add `generate:` to a suite (docs/generation.md), or select one with --suite")])
    with reading_data(data_root(settings, settings.config_path)):  # with --base-checkout: the PR's tree
        done = generate_records(config, selected, settings)
    for note in done.notes:
        sys.stdout.write(f"{note}\n")
    for suite in done.suites:
        sys.stdout.write(f"{suite.suite}: wrote {io.display_path(settings.config_path.resolve().parent / suite.output)}"
                         f" ({suite.records:,} records, {suite.mode})\n")
        for model in suite.models:
            s = model.summary
            line = (f"  {model.provider} / {model.model}: {s.calls:,} calls, {s.replayed:,} replayed, "
                    f"{s.recorded:,} recorded")
            line += f", {s.failed + s.not_sent:,} unanswered" if s.failed or s.not_sent else ""
            line += f", ${s.cost_usd:.4f}" if s.recorded and s.cost_usd is not None else ""
            sys.stdout.write(f"{line} → {io.display_path(model.cassette)}\n")
            for note in s.notes:
                sys.stdout.write(f"    {note}\n")
    return ExitCode.PASSED
