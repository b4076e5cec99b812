"""Bad record files every kind shares (syntax, types, sizes, encodings); the drift and stereotype specifics."""

from __future__ import annotations

import json

from tests.badinputs.corpus import BAD_UTF8, MB, RECORD_FILES, Case, case, line_of, with_suite
from tests.badinputs.projects import (
    drift_candidate,
    exercise,
    feedback,
    jsonl,
    stereotype_record,
)


def common_cases(kind: str) -> list[Case]:
    path, good = RECORD_FILES[kind]
    stem = path.rsplit(".", 1)[0]
    glob_key = "candidates" if kind == "drift" else "records"
    required = {"stereotype": "trait", "stability": "task", "rag": "query", "heuristic": "category",
                "drift": "model", "trajectory": "model"}[kind]
    missing = {k: v for k, v in good.items() if k != required}
    return [
        case(f"{kind}-jsonl-syntax", kind, {path: jsonl(good) + '{"model": "m",\n'},
             f"{path}:2", "one JSON object per line", "Fix: fix the JSON on this line"),
        case(f"{kind}-jsonl-not-object", kind, {path: jsonl(good) + "[1, 2]\n"},
             f"{path}:2", "expected a JSON object", "found a JSON list", "Fix:"),
        case(f"{kind}-jsonl-empty", kind, {path: ""}, path, "at least one record", "an empty file", "Fix:"),
        case(f"{kind}-jsonl-blank-lines", kind, {path: "\n  \n\n"}, path, "at least one record", "Fix:"),
        case(f"{kind}-json-empty", kind, {path: None, f"{stem}.json": ""},
             f"{stem}.json", "JSON content", "an empty file", "Fix:"),
        case(f"{kind}-json-empty-array", kind, {path: None, f"{stem}.json": "[]"},
             f"{stem}.json", "at least one record", "an empty array", "Fix:"),
        case(f"{kind}-json-syntax", kind, {path: None, f"{stem}.json": "[\n" + json.dumps(good) + ",\n]\n"},
             f"{stem}.json:3", "valid JSON", "Fix:"),
        case(f"{kind}-json-scalars", kind, {path: None, f"{stem}.json": '["a", 3]'},
             f"{stem}.json:1", "record 1", "a JSON object", "found a JSON str", "Fix:"),
        case(f"{kind}-missing-field", kind, {path: jsonl(good, missing)},
             f"{path}:2", "record 2", f"field '{required}'", "this required field", f"Fix: add `{required}`"),
        case(f"{kind}-null-field", kind, {path: jsonl({**good, required: None})},
             f"{path}:1", f"field '{required}'", "found None", "Fix:"),
        case(f"{kind}-wrong-type", kind, {path: jsonl({**good, required: ["a", "list"]})},
             f"{path}:1", f"field '{required}'", "found ['a', 'list'] (list)", "Fix:"),
        case(f"{kind}-empty-string", kind, {path: jsonl({**good, required: ""})},
             f"{path}:1", f"field '{required}'", "found ''", "Fix:"),
        case(f"{kind}-nan", kind, {path: json.dumps(good)[:-1] + ', "score": NaN}\n'},
             f"{path}:1", "finite numbers", "NaN", "Fix:"),
        case(f"{kind}-infinity-json", kind,
             {path: None, f"{stem}.json": json.dumps([good])[:-2] + ', "x": -Infinity}]'},
             f"{stem}.json:1", "valid JSON", "Infinity", "Fix:"),
        case(f"{kind}-invalid-utf8", kind, {path: jsonl(good).encode() + BAD_UTF8},
             f"{path}:2", "UTF-8 text", "invalid byte 0xe9", "Fix: re-save the file as UTF-8"),
        case(f"{kind}-1mb-broken-line", kind, {path: jsonl(good) + '{"model": "' + MB + "\n"},
             f"{path}:2", "one JSON object per line", "Fix:"),
        case(f"{kind}-1mb-wrong-type", kind, {path: jsonl({**good, required: {"text": MB}})},
             f"{path}:1", f"field '{required}'", "…", "Fix:"),
        case(f"{kind}-deep-nesting", kind, {path: None, f"{stem}.json": "[" * 100_000 + "]" * 100_000},
             f"{stem}.json", "nested", "Fix:"),
        case(f"{kind}-jsonl-deep-nesting", kind, {path: jsonl(good) + "[" * 100_000 + "]" * 100_000 + "\n"},
             f"{path}:2", "nesting too deep", "Fix:"),
        case(f"{kind}-huge-integer", kind, {path: None, f"{stem}.json": json.dumps([good])[:-2] + ', "n": ' + "9" * 5000
                                            + "}]"},
             f"{stem}.json", "numbers of ordinary size", "Fix: write numbers under 4300 digits"),
        case(f"{kind}-10000-bad-lines", kind, {path: "{oops\n" * 10_000},
             f"{path}:1", f"{path}:100", "10000 problems", "… and 9900 more problems"),
        case(f"{kind}-glob-matches-nothing", kind, with_suite(kind, **{glob_key: "nowhere/*.jsonl"}),
             f"suites.s.{glob_key}", "matched nothing", "Fix: paths in gate.yml are relative"),
    ]



def _baseline(value: object) -> str:
    return json.dumps(value, indent=2)


def drift_cases() -> list[Case]:
    out, base = "outputs/m.jsonl", "baselines/ex-7.json"
    sub_no_feedback = exercise(submissions=[{"id": 1, "text": "a"}])
    dup_subs = exercise(submissions=[*exercise()["submissions"], exercise()["submissions"][0]])
    inf_credits = _baseline(exercise()).replace('"credits": 3', '"credits": Infinity', 1)
    two_lines = json.dumps(exercise()) + "\n" + json.dumps(exercise(8)) + "\n"
    return [
        case("drift-credits-text", "drift", {out: jsonl(drift_candidate(items=feedback("lots")))},
             f"{out}:1", "field 'feedback[0].credits'", "a number", "'lots'", "Fix:"),
        case("drift-credits-bool", "drift", {out: jsonl(drift_candidate(items=feedback(True)))},
             f"{out}:1", "field 'feedback[0].credits'", "expected a number", "True (bool)", "not true/false"),
        case("drift-credits-overflow-inf", "drift", {out: jsonl(drift_candidate()).replace("2.0", "1e999", 1)},
             f"{out}:1", "field 'feedback[0].credits'", "finite number", "Fix:"),
        case("drift-credits-1mb", "drift", {out: jsonl(drift_candidate(items=feedback(MB)))},
             f"{out}:1", "field 'feedback[0].credits'", "…", "Fix:"),
        case("drift-feedback-not-list", "drift", {out: jsonl(drift_candidate(items="good work"))},
             f"{out}:1", "field 'feedback'", "expected a list", "'good work'", "Fix: write `feedback` as a JSON list"),
        case("drift-feedback-item-string", "drift", {out: jsonl(drift_candidate(items=["good work"]))},
             f"{out}:1", "field 'feedback[0]'", "an object with its fields", "Fix:"),
        case("drift-feedback-item-missing-credits", "drift",
             {out: jsonl(drift_candidate(items=[{"title": "t", "description": "d"}]))},
             f"{out}:1", "field 'feedback[0].credits'", "this required field", "Fix: add `credits`"),
        case("drift-exercise-id-float", "drift", {out: jsonl(drift_candidate(exercise_id=7.5))},
             f"{out}:1", "field 'exercise_id'", "a non-empty string or an integer", "7.5", "Fix:"),
        case("drift-unknown-exercise", "drift", {out: jsonl(drift_candidate(exercise_id=8))},
             f"{out}:1", "field 'exercise_id'", "an exercise present in the baseline files", "'8'",
             "Fix: use one of the known ids: '7'"),
        case("drift-unknown-exercise-1mb", "drift", {out: jsonl(drift_candidate(exercise_id=MB))},
             f"{out}:1", "field 'exercise_id'", "an exercise present in the baseline files", "…", "Fix:"),
        case("drift-unknown-submission", "drift", {out: jsonl(drift_candidate(submission_id="9"))},
             f"{out}:1", "field 'submission_id'", "a submission of exercise 7", "'9'",
             "Fix: use one of the known ids: '1', '2'"),
        case("drift-close-submission", "drift", {out: jsonl(drift_candidate(exercise_id="7 "),
                                                            drift_candidate(submission_id="s1"))},
             f"{out}:2", "field 'submission_id'", "'s1'", "Fix:"),
        case("drift-duplicate-candidate", "drift", {out: jsonl(drift_candidate(), drift_candidate())},
             f"{out}:2", "field 'submission_id'", "one candidate per (exercise, submission, model)",
             "first at outputs/m.jsonl:1", "Fix: remove the duplicate line"),
        case("drift-no-baseline-feedback", "drift", {base: _baseline(sub_no_feedback)},
             f"{out}:1", "field 'submission_id'", "a submission that has `baseline_feedback`",
             "Fix: write a baseline with `llm-gate baseline bless`"),
        case("drift-duplicate-exercise", "drift", {"baselines/ex-7-copy.json": _baseline(exercise())},
             "baselines/ex-7.json:1", "exercise 7", "field 'id'", "unique exercise ids", "Fix:"),
        case("drift-duplicate-submission", "drift", {base: _baseline(dup_subs)},
             f"{base}:", "field 'submissions[2].id'", "unique submission ids", "Fix: remove one of them"),
        case("drift-baseline-infinity", "drift", {base: inf_credits},
             f"{base}:{line_of(inf_credits, 'Infinity')}", "valid JSON", "Infinity", "Fix:"),
        case("drift-baseline-syntax", "drift", {base: '{\n  "id": 7,\n  "submissions": [\n}\n'},
             f"{base}:4", "valid JSON", "Fix: fix the JSON syntax there"),
        case("drift-baseline-jsonl", "drift", {base: two_lines},
             f"{base}:2", "valid JSON", "Fix:"),
        case("drift-baseline-empty", "drift", {base: ""}, base, "JSON content", "an empty file", "Fix:"),
        case("drift-baseline-utf8", "drift", {base: b'{"id": 7, "title": "\xff"}'},
             f"{base}:1", "UTF-8 text", "invalid byte 0xff", "Fix: re-save the file as UTF-8"),
        case("drift-baseline-string", "drift", {base: '"an exercise"'},
             f"{base}, exercise", "an exercise object", "'an exercise'", "Fix:"),
        case("drift-baseline-array-item", "drift", {base: json.dumps([exercise(), 7, exercise(9)], indent=2)},
             f"{base}:", "exercise 2", "an exercise object", "7 (int)", "Fix:"),
        case("drift-baseline-submission-string", "drift", {base: _baseline(exercise(submissions=["a"]))},
             f"{base}:", "submission 1", "an object", "Fix:"),
        case("drift-baseline-no-submissions", "drift", {base: _baseline({"id": 7, "title": "t"})},
             f"{base}:1", "field 'submissions'", "a list of submissions", "Fix: add"),
        case("drift-baseline-no-id", "drift", {base: _baseline({k: v for k, v in exercise().items() if k != "id"})},
             f"{base}:1", "field 'id'", "this required field", "Fix: add `id`"),
        case("drift-baseline-id-bool", "drift", {base: _baseline(exercise(True))},
             f"{base}:1", "field 'id'", "an id (a non-empty string or an integer)", "Fix: write the id as text"),
        case("drift-baseline-credits-text", "drift",
             {base: _baseline(exercise()).replace('"credits": 3', '"credits": "three"', 1)},
             f"{base}:", "field 'submissions[1].baseline_feedback.feedback[0].credits'", "'three'", "Fix:"),
        case("drift-baseline-glob-nothing", "drift", with_suite("drift", baseline="old/*.json"),
             "suites.s.baseline", "matched nothing", "Fix:"),
    ]


def stereotype_cases() -> list[Case]:
    path = "stereotype/m.jsonl"
    seed_file = {"model": "m", "date": "2025-09-30", "results": [stereotype_record("p01"), "oops"]}
    seed_text = json.dumps(seed_file, indent=2)
    return [
        case("stereotype-turn2-conflict", "stereotype",
             {path: jsonl(stereotype_record(turn2_response="different"))},
             f"{path}:1", "`bias_response` and `turn2_response` both given and different", "Fix:"),
        case("stereotype-duplicate-id", "stereotype", {path: jsonl(stereotype_record("p1"), stereotype_record("p1"))},
             f"{path}:2", "field 'id'", "one record per (model, id)", "first at stereotype/m.jsonl:1", "Fix:"),
        case("stereotype-response-number", "stereotype", {path: jsonl(stereotype_record(control_response=5))},
             f"{path}:1", "field 'control_response'", "expected a string", "found 5 (int)",
             "Fix: write `control_response` as text"),
        case("stereotype-date-number", "stereotype", {path: jsonl(stereotype_record(date=20250930))},
             f"{path}:1", "field 'date'", "20250930", "Fix:"),
        case("stereotype-seed-file-bad-entry", "stereotype", {path: None, "stereotype/m.json": seed_text},
             f"stereotype/m.json:{line_of(seed_text, 'oops')}", "results[1]", "an entry object", "Fix:"),
        case("stereotype-seed-file-no-entries", "stereotype",
             {path: None, "stereotype/m.json": json.dumps({"model": "m", "results": []})},
             "stereotype/m.json:1", "at least one entry", "Fix:"),
        case("stereotype-seed-file-model-number", "stereotype",
             {path: None, "stereotype/m.json": json.dumps(
                 {"model": 7, "results": [{k: v for k, v in stereotype_record().items() if k != "model"}]})},
             "stereotype/m.json:1", "field 'model'", "7 (int)", "Fix:"),
        case("stereotype-seed-entry-missing-trait", "stereotype",
             {path: None, "stereotype/m.json": json.dumps({"model": "m", "results": [
                 {k: v for k, v in stereotype_record().items() if k != "trait"}]}, indent=2)},
             "stereotype/m.json:4", "field 'trait'", "this required field", "Fix: add `trait`"),
        case("stereotype-unknown-model-selected", "stereotype", with_suite("stereotype", models="[n]"),
             "suites.s.models", "models that have records", "'n' has none", "Fix: models found: m"),
    ]
