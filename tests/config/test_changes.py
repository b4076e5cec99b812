"""What a pull request changes in its own gate, as the report lists it (gate.config.changes): every kind of change
read from two gate.yml texts, with whether it could turn a verdict greener."""

from __future__ import annotations

import textwrap

from gate.config.changes import compare_configs, compare_files
from gate.config.loader import parse_config
from gate.kinds import KINDS

BASE = """\
version: 1
name: g
alpha: 0.05
suites:
  rubric:
    kind: heuristic
    records: h.jsonl
    checks:
      final_score_mean: {min: 6.0, warn: 7.0}
      correctness_mean: {min: 5.0}
  drift:
    kind: drift
    baseline: b/*.json
    candidates: c/*.jsonl
    checks:
      credit_drift_mean: {max: 3.0}
"""


def config(text: str):
    return parse_config(textwrap.dedent(text), "gate.yml", metrics=KINDS)


def changes(proposed: str) -> list[tuple[str, str, bool | None]]:
    return [(c.what, c.detail, c.relaxes) for c in compare_configs(config(BASE), config(proposed))]


def test_the_same_gate_changes_nothing():
    assert changes(BASE) == []


def test_a_waiver_added_relaxes_and_names_its_reach_owner_and_reason():
    found = changes(BASE + "waivers:\n  - {suite: rubric, metric: final_score_mean, reason: new prompt,"
                           " owner: '@mallory', expires: 2026-12-20, where: {model: m1}}\n")
    assert found == [("waiver added", "rubric.final_score_mean (model=m1) until 2026-12-20, owner @mallory: "
                      "new prompt", True)]


def test_thresholds_loosened_tightened_and_removed():
    proposed = BASE.replace("{min: 6.0, warn: 7.0}", "{min: 4.0, warn: 7.0}") \
        .replace("credit_drift_mean: {max: 3.0}", "credit_drift_mean: {max: 2.0}") \
        .replace("      correctness_mean: {min: 5.0}\n", "")
    found = changes(proposed)
    assert found[0] == ("check loosened", "rubric.final_score_mean: {min: 6, warn: 7} → {min: 4, warn: 7}", True)
    assert ("check removed", "rubric.correctness_mean: {min: 5}", True) in found
    assert ("check tightened", "drift.credit_drift_mean: {max: 3} → {max: 2}", False) in found


def test_a_suite_removed_relaxes_and_one_added_does_not():
    proposed = BASE[:BASE.index("  drift:")] + "  more:\n    kind: heuristic\n    records: h2.jsonl\n"
    found = changes(proposed)
    assert ("suite removed", "drift (drift)", True) in found and ("suite added", "more (heuristic)", False) in found


def test_gate_wide_settings_say_which_way_they_move():
    found = changes(BASE.replace("alpha: 0.05", "alpha: 0.01") + "inconclusive: pass\ngate_changes: allow\n")
    assert ("setting changed", "alpha: 0.05 → 0.01", True) in found  # fewer alarms: a regression passes more often
    [inconclusive] = [c for c in found if c[1].startswith("inconclusive:")]  # whatever the default, pass is laxer
    assert inconclusive[1].endswith("→ pass") and inconclusive[2] is True
    assert ("setting changed", "gate_changes: warn → allow", True) in found


def test_gate_files_added_removed_and_edited_all_count_as_relaxing():
    base = {"s/a.json": ("snapshot", "1"), "s/b.json": ("snapshot", "2"), "b/x.json": ("baseline", "3")}
    proposed = {"s/a.json": ("snapshot", "1"), "s/b.json": ("snapshot", "9"), "r.yml": ("rubric", "4")}
    assert [(c.what, c.detail, c.relaxes) for c in compare_files(base, proposed)] == [
        ("baseline removed", "b/x.json", True), ("rubric added", "r.yml", True), ("snapshot changed", "s/b.json", True)]
