"""Values that parse but are no input (issue 18): overflowing or negative numbers, true/false for a number, a
date that is none, half a surrogate pair, config problems only found after others were fixed, and semantic
config problems that must name gate.yml:LINE like schema errors do."""

from __future__ import annotations

import json

from gate.kinds.heuristic.rubric import RUBRICS
from tests.badinputs.corpus import Case, case, line_of, with_suite
from tests.badinputs.projects import (
    SUITES,
    drift_candidate,
    exercise,
    feedback,
    gate_yml,
    heuristic_record,
    jsonl,
    rag_record,
    stability_record,
    stereotype_record,
)

SURROGATE = "\ud800"  # json.dumps writes it as the escape "\ud800": valid JSON, not valid Unicode
UNICODE = ("text that is valid Unicode", "a lone surrogate \\ud800", "Fix: remove the stray \\ud800 escape")

# kind -> (records file, a record whose free text holds a lone surrogate, the field)
_TEXT_FIELDS = {
    "stereotype": ("stereotype/m", stereotype_record(control_response="Fine." + SURROGATE), "control_response"),
    "stability": ("stability/m", stability_record(response="B" + SURROGATE), "response"),
    "rag": ("rag/candidate", rag_record(actual_answer="It is" + SURROGATE), "actual_answer"),
    "heuristic": ("heuristic/m", heuristic_record(response="def f():" + SURROGATE), "response"),
    "drift": ("outputs/m", drift_candidate(items=[{"title": "T", "description": "D" + SURROGATE, "credits": 1}]),
              "feedback[0].description"),
}


def surrogate_cases() -> list[Case]:
    cases = []
    for kind, (stem, record, field) in _TEXT_FIELDS.items():
        text = json.dumps([record], indent=2)
        cases += [
            case(f"{kind}-lone-surrogate", kind, {f"{stem}.jsonl": jsonl(record)},
                 f"{stem}.jsonl:1", f"field '{field}'", *UNICODE),
            case(f"{kind}-lone-surrogate-json", kind, {f"{stem}.jsonl": None, f"{stem}.json": text},
                 f"{stem}.json:{line_of(text, chr(92) + 'ud800')}", *UNICODE),
        ]
    key = jsonl({**heuristic_record(), "note" + SURROGATE: 1})
    baseline = json.dumps(exercise(), indent=2).replace('"Names both roles."', '"Names\\udfff roles."', 1)
    return [*cases,
            case("heuristic-lone-surrogate-in-key", "heuristic", {"heuristic/m.jsonl": key},
                 "heuristic/m.jsonl:1", *UNICODE),
            case("drift-baseline-lone-surrogate", "drift", {"baselines/ex-7.json": baseline},
                 f"baselines/ex-7.json:{line_of(baseline, 'Names')}", "a lone surrogate \\udfff", "Fix:"),
            case("config-lone-surrogate", "config",
                 {"gate.yml": gate_yml("heuristic").replace("name: badinputs", 'name: "gate\\ud800"')},
                 "gate.yml:2", "text that is valid Unicode", "a lone surrogate \\ud800", "Fix:")]


def number_cases() -> list[Case]:
    out, base = "outputs/m.jsonl", "baselines/ex-7.json"
    huge_baseline = json.dumps(exercise(), indent=2).replace('"credits": 3', '"credits": 1e308', 1)
    bad_date = json.dumps(exercise(), indent=2).replace("2025-08-28T10:00:00Z", "not a date", 1)
    rag = "rag/candidate.jsonl"
    return [
        case("drift-credits-1e308", "drift", {out: jsonl(drift_candidate(items=feedback(1e308)))},
             f"{out}:1", "field 'feedback[0].credits'", "a number ≤ 1000000", "1e+308", "Fix:"),
        case("drift-baseline-credits-1e308", "drift", {base: huge_baseline},
             f"{base}:", "field 'submissions[1].baseline_feedback.feedback[0].credits'", "a number ≤ 1000000",
             "Fix:"),
        case("drift-credits-negative", "drift", {out: jsonl(drift_candidate(items=feedback(-2)))},
             f"{out}:1", "field 'feedback[0].credits'", "a number ≥ 0", "-2 (int)", "Fix: use a value of at least 0"),
        case("drift-baseline-timestamp-not-a-date", "drift", {base: bad_date},
             f"{base}:", "field 'submissions[0].baseline_feedback.timestamp'",
             "an ISO 8601 date and time", "'not a date'", "Fix:"),
        case("rag-latency-1e30", "rag", {rag: jsonl(rag_record(latency=1e30))},
             f"{rag}:1", "field 'latency'", "a number ≤ 1000000", "1e+30", "Fix: use a value of at most 1000000"),
        case("rag-cost-1e300", "rag", {rag: jsonl(rag_record(cost=1e300))},
             f"{rag}:1", "field 'cost'", "a number ≤ 1000000", "Fix:"),
        case("rag-prompt-tokens-bool", "rag", {rag: jsonl(rag_record(prompt_tokens=True))},
             f"{rag}:1", "field 'prompt_tokens'", "a whole number", "True (bool)", "not true/false"),
        case("rag-completion-tokens-10e300", "rag", {rag: jsonl(rag_record(completion_tokens=10**300))},
             f"{rag}:1", "field 'completion_tokens'", "a number ≤ 1000000000", "Fix:"),
        case("rag-grade-1e300", "rag",
             {rag: jsonl(rag_record(ground_truth_relevance=[1e300]))},
             f"{rag}:1", "field 'ground_truth_relevance[0]'", "a number ≤ 1000000", "Fix:"),
        case("stability-logprobs-1e308", "stability",
             {"stability/m.jsonl": jsonl(stability_record("v1", token_logprobs=[-1e308, -1e308]),
                                         stability_record("v2", token_logprobs=[-1e308]))},
             "stability/m.jsonl:1", "field 'token_logprobs'", "≥ -1000000", "Fix:"),
    ]


def config_value_cases() -> list[Case]:
    good = gate_yml("heuristic")
    suite = SUITES["heuristic"]

    def suite_with(extra: str) -> dict:
        return {"gate.yml": gate_yml("heuristic", suite + extra)}

    one_pass = gate_yml("heuristic", suite + "    chekcs: {}\n    checks:\n      final_scor_mean: {min: 5}\n"
                        "      missing_ratio: {max: high}\n")
    kinds = gate_yml("heuristic", suite + "  t:\n    kind: rubrik\n  u:\n    kind: rag\n    record: r.jsonl\n")
    custom = suite_with("    rubric: mine.yml\n    checks:\n      brevity_mean: {min: 1}\n")
    rubric = (RUBRICS / "seed-v1.yml").read_text(encoding="utf-8")
    return [
        case("config-check-min-bool", "config", suite_with("    checks: {final_score_mean: {min: true}}\n"),
             "gate.yml:10", "field 'suites.s.checks.final_score_mean.min'", "a number, not true/false",
             "True (a YAML boolean)", "Fix: write the number itself"),
        case("config-version-bool", "config", {"gate.yml": good.replace("version: 1", "version: true")},
             "gate.yml:1", "field 'version'", "a number, not true/false", "Fix:"),
        case("config-batch-size-bool", "config", {"gate.yml": good + "runtime: {batch_size: true}\n"},
             f"gate.yml:{good.count(chr(10)) + 1}", "field 'runtime.batch_size'", "a number, not true/false", "Fix:"),
        case("config-one-pass-field-metric-threshold", "config", {"gate.yml": one_pass},
             "(3 problems)", "gate.yml:10, field 'suites.s.chekcs'", "Fix: did you mean 'checks'?",
             "gate.yml:12, field 'suites.s.checks.final_scor_mean'", "Fix: did you mean 'final_score_mean'?",
             "gate.yml:13, field 'suites.s.checks.missing_ratio.max'", "'high'"),
        case("config-one-pass-kind-and-field", "config", {"gate.yml": kinds},
             f"gate.yml:{line_of(kinds, 'rubrik')}, field 'suites.t.kind'", "unknown kind 'rubrik'",
             f"gate.yml:{line_of(kinds, 'record:')}, field 'suites.u.record'", "did you mean 'records'?"),
        case("config-models-filter-located", "config", suite_with("    models: [mm]\n"),
             "gate.yml:10, field 'suites.s.models'", "'mm' has none", "Fix: did you mean 'm'?"),
        case("config-expected-category-located", "config", suite_with("    expected: {prompts: {poetry: 3}}\n"),
             "gate.yml:10, field 'suites.s.expected.prompts.poetry'", "a category of rubric seed-v1", "Fix:"),
        case("config-glob-nothing-located", "config", with_suite("heuristic", records="nowhere/*"),
             f"gate.yml:{line_of(with_suite('heuristic', records='nowhere/*')['gate.yml'], 'nowhere')}, "
             "field 'suites.s.records'", "matched nothing", "Fix:"),
        case("config-rubric-missing-located", "config", suite_with("    rubric: nope.yml\n"),
             "gate.yml:10, field 'suites.s.rubric'", "'nope.yml'", "Fix:"),
        case("config-custom-rubric-unknown-metric-located", "config", {**custom, "mine.yml": rubric},
             "gate.yml:12, field 'suites.s.checks.brevity_mean'", "a metric of rubric", "Fix:"),
    ]
