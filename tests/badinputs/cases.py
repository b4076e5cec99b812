"""The bad-input corpus: every suite kind's input files and gate.yml, broken one way at a time.

Each case starts from the kind's valid project (`projects.base_files`), replaces or adds files, and
lists the substrings its message must contain — where (file:line, record), the field, what was
expected and the fix. The test adds what every case shares: exit 2, no traceback, every problem
line carries `expected …` and `Fix: …`, a message of bounded size, earlier output left intact.
"""

from __future__ import annotations

from tests.badinputs.cases_checks import impossible_check_cases
from tests.badinputs.cases_config import config_cases
from tests.badinputs.cases_kinds import heuristic_cases, rag_cases, stability_cases
from tests.badinputs.cases_records import common_cases, drift_cases, stereotype_cases
from tests.badinputs.cases_trajectory import trajectory_cases
from tests.badinputs.cases_values import config_value_cases, number_cases, surrogate_cases
from tests.badinputs.corpus import MB, RECORD_FILES, Case

__all__ = ["CASES", "MB", "Case"]

CASES: tuple[Case, ...] = (
    *(c for kind in RECORD_FILES for c in common_cases(kind)),
    *drift_cases(), *stereotype_cases(), *stability_cases(), *rag_cases(), *heuristic_cases(), *trajectory_cases(),
    *config_cases(),
    *impossible_check_cases(),
    *surrogate_cases(), *number_cases(), *config_value_cases(),
)
