"""The seed's 'Tests: x/y passed' beside a drift suite says what it counts, and a failed suite whose pairs all
passed the seed's tests says that gate.yml's other checks failed it: 'Tests: 2/2 passed' under ❌ read as a
contradiction (issue 32, item 14c)."""

from __future__ import annotations

import dataclasses

from gate.judge import Verdict
from gate.kinds.drift import view as drift
from tests.kinds.drift.test_view import FAIL, PASS, check, group, judged, key


def test_a_failed_suite_whose_pairs_all_passed_names_the_checks_that_failed_it():
    groups = [group("1", "a"), group("1", "b")]
    checks = [check("bertscore_f1", PASS, key("1", "a")), check("bertscore_f1", PASS, key("1", "b")),
              check("bertscore_f1", FAIL, (), scope="suite", fail=0.0)]  # e.g. a significant decrease
    suite = dataclasses.replace(judged(groups, checks), verdict=Verdict.FAIL)
    caption = drift.seed_caption(suite)
    assert caption.startswith("Tests: 2/2 passed (min F1 >= 0.8")
    assert "the seed's tests: both thresholds per exercise × model pair" in caption
    assert caption.endswith("; the suite failed on gate.yml's other checks (1 failed)")
    assert drift.build(suite, worst_items=0)["seed_line"] == caption  # report.md's line


def test_a_passing_suite_says_only_what_the_tests_count():
    suite = judged([group("1", "a")], [check("bertscore_f1", PASS, key("1", "a"))])
    assert drift.seed_caption(suite).endswith("— the seed's tests: both thresholds per exercise × model pair")

