"""Bad gate.yml files: YAML, structure, types, thresholds, sizes."""

from __future__ import annotations

from tests.badinputs.corpus import MB, Case, case, line_of
from tests.badinputs.projects import gate_yml

# "Billion laughs": nine levels of nine aliases, 9**9 leaves if anything expands them.
_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi", strict=True))


def config_cases() -> list[Case]:
    good = gate_yml("heuristic")
    suite = "  s:\n    kind: heuristic\n    records: heuristic/*\n"

    def suite_with(extra: str) -> dict:
        return {"gate.yml": gate_yml("heuristic", suite + extra)}

    def replaced(old: str, new: str) -> dict:
        assert old in good, old
        return {"gate.yml": good.replace(old, new, 1)}

    return [
        case("config-empty", "config", {"gate.yml": ""}, "gate.yml:1", "a YAML mapping", "an empty file", "Fix:"),
        case("config-yaml-syntax", "config", {"gate.yml": good + "  bad: [unclosed\n"},
             "gate.yml:", "valid YAML", "Fix: check indentation and quoting"),
        case("config-control-character", "config", {"gate.yml": good.replace("name:", "name: \x08", 1)},
             f"gate.yml:{line_of(good, 'name:')}", "printable YAML text", "#x0008", "Fix: delete it"),
        case("config-tab-indent", "config", {"gate.yml": good + "\tkind: rag\n"}, "gate.yml:", "valid YAML", "Fix:"),
        case("config-top-level-list", "config", {"gate.yml": "- version: 1\n"},
             "gate.yml:1", "a YAML mapping", "Fix:"),
        case("config-utf8", "config", {"gate.yml": good.encode() + b"# caf\xe9\n"},
             f"gate.yml:{good.count(chr(10)) + 1}", "UTF-8 text", "Fix:"),
        case("config-not-found", "config", {}, "missing.yml", "an existing gate config", "Fix:", config="missing.yml"),
        case("config-is-directory", "config", {"conf.d/x": ""}, "conf.d", "a file", "Fix:", config="conf.d"),
        case("config-no-version", "config", replaced("version: 1\n", ""),
             "field 'version'", "this required field", "Fix: add `version:`"),
        case("config-version-2", "config", replaced("version: 1", "version: 2"),
             "gate.yml:1", "field 'version'", "one of 1", "Fix:"),
        case("config-version-date", "config", replaced("version: 1", "version: 2024-01-01"),
             "gate.yml:1", "field 'version'", "datetime.date", "Fix:"),
        case("config-unknown-top-level", "config", {"gate.yml": good + "suite: {}\n"},
             "field 'suite'", "unknown field 'suite'", "Fix: did you mean 'suites'?"),
        case("config-duplicate-key", "config", {"gate.yml": good + suite},
             "field 'suites.s'", "each key once", "Fix: merge the two entries"),
        case("config-no-suites", "config", {"gate.yml": good.split("suites:")[0] + "suites: {}\n"},
             "field 'suites'", "at least 1 item", "Fix:"),
        case("config-suites-list", "config", {"gate.yml": good.split("suites:")[0] + "suites: [a, b]\n"},
             "field 'suites'", "a valid dictionary", "Fix:"),
        case("config-unknown-kind", "config", replaced("kind: heuristic", "kind: heuristc"),
             "field 'suites.s.kind'", "a known suite kind", "Fix: did you mean 'heuristic'?"),
        case("config-kind-list", "config", replaced("kind: heuristic", "kind: [heuristic]"),
             "field 'suites.s.kind'", "a known suite kind", "Fix:"),
        case("config-no-kind", "config", replaced("    kind: heuristic\n", ""),
             "field 'suites.s.kind'", "no `kind:`", "Fix: add `kind: drift`"),
        case("config-suite-not-mapping", "config", replaced(suite, "  s: heuristic\n"),
             "field 'suites.s'", "Fix:"),
        case("config-suite-name-path", "config", replaced("  s:\n", "  ../s:\n"),
             "field 'suites'", "(each names a folder of the report)", "Fix:"),
        case("config-unknown-suite-field", "config", suite_with("    record: x\n"),
             "field 'suites.s.record'", "unknown field 'record'", "Fix: did you mean 'records'?"),
        case("config-records-empty-list", "config", replaced("records: heuristic/*", "records: []"),
             "field 'suites.s.records'", "at least 1 item", "Fix:"),
        case("config-records-number", "config", replaced("records: heuristic/*", "records: 123"),
             "field 'suites.s.records'", "a valid list", "Fix:"),
        case("config-records-empty-string", "config", replaced("records: heuristic/*", "records: ''"),
             "field 'suites.s.records.0'", "a string of at least 1 character", "Fix:"),
        case("config-unknown-metric", "config", suite_with("    checks: {final_scor_mean: {min: 1}}\n"),
             "field 'suites.s.checks.final_scor_mean'", "a metric of rubric seed-v1",
             "Fix: did you mean 'final_score_mean'?"),
        case("config-min-above-max", "config", suite_with("    checks: {final_score_mean: {min: 9, max: 1}}\n"),
             "field 'suites.s.checks.final_score_mean'", "`min` (9) is greater than `max` (1)", "Fix:"),
        case("config-check-no-bound", "config", suite_with("    checks: {final_score_mean: {warn: 1}}\n"),
             "field 'suites.s.checks.final_score_mean'", "Fix:"),
        case("config-check-nan", "config", suite_with("    checks: {final_score_mean: {min: .nan}}\n"),
             "field 'suites.s.checks.final_score_mean.min'", "finite number", "Fix:"),
        case("config-check-inf", "config", suite_with("    checks: {final_score_mean: {max: .inf}}\n"),
             "field 'suites.s.checks.final_score_mean.max'", "finite number", "Fix:"),
        case("config-check-text", "config", suite_with("    checks: {final_score_mean: {min: high}}\n"),
             "field 'suites.s.checks.final_score_mean.min'", "a valid number", "'high'", "Fix:"),
        case("config-unknown-scope", "config",
             suite_with("    checks: {final_score_mean: {min: 1, scope: modle}}\n"),
             "field 'suites.s.checks.final_score_mean.scope'", "'modle'", "Fix: did you mean 'model'?"),
        case("config-batch-size-text", "config", {"gate.yml": good + "runtime: {batch_size: big}\n"},
             "field 'runtime.batch_size'", "a valid integer", "'big'", "Fix:"),
        case("config-batch-size-zero", "config", {"gate.yml": good + "runtime: {batch_size: 0}\n"},
             "field 'runtime.batch_size'", "greater than 0", "Fix:"),
        case("config-device-unknown", "config", {"gate.yml": good + "runtime: {device: tpu}\n"},
             "field 'runtime.device'", "'auto', 'cpu' or 'cuda'", "'tpu'", "Fix:"),
        case("config-report-format", "config", replaced("formats: [json]", "formats: [pdf]"),
             "field 'report.formats.0'", "'markdown'", "'pdf'", "Fix:"),
        case("config-name-1mb", "config", replaced("name: badinputs", "name: " + MB),
             "field 'name'", "at most 100 characters", "…", "Fix:"),
        case("config-deep-nesting", "config", {"gate.yml": good + "x: " + "[" * 5000 + "]" * 5000 + "\n"},
             "gate.yml", "Fix:"),
        case("config-huge-integer", "config", {"gate.yml": good + "runtime: {batch_size: " + "9" * 5000 + "}\n"},
             "gate.yml", "numbers of ordinary size", "Fix:"),
        case("config-alias-bomb-in-field", "config",
             {"gate.yml": good.split("suites:")[0] + _BOMB
              + "suites:\n  s: {kind: heuristic, records: *i, description: *i, models: *i}\n"},
             "field 'suites.s.records", "field 'suites.s.description'", "Fix:"),
        case("config-python-tag", "config", {"gate.yml": good + "x: !!python/object/apply:os.system [ls]\n"},
             "gate.yml:", "valid YAML", "Fix:"),
        case("config-alias-bomb", "config", {"gate.yml": good + _BOMB}, "unknown field 'a'", "Fix:"),
    ]
