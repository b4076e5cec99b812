"""The judge: verdicts, and nothing else. Scorers measure; only the judge decides (DESIGN.md §1).

Measured results and the configured checks go in, pass / warn / fail come out: `types` holds the verdict
values every part shares (and, as Protocols, what the judge reads of a baseline comparison), `thresholds`
judges a value against `min` / `max` / `warn`, `changes` judges a change against the blessed baseline
snapshot (with a paired test on the items), `family` shares the gate's false-alarm budget among the
significance-tested checks and decides them, `waivers` applies gate.yml's waivers, and `verdicts` folds them
into suite and gate verdicts.
Everything here is pure. A new kind of check goes in a module of its own that returns `CheckResult`s,
called from `verdicts.judge_suite`. (A suite's LLM-as-judge, gate.yml's `judge:`, is not part of this: it is
an LLM grader, called by the kind's scorer, and it measures.)
"""

from gate.judge.changes import change_checks
from gate.judge.family import decide, decide_family
from gate.judge.gate_changes import weigh_gate_changes
from gate.judge.pairs import paired_rows, paired_values
from gate.judge.thresholds import TOLERANCE, judge_value, threshold_checks
from gate.judge.types import (
    BaselineComparison,
    BaselineItem,
    BaselineSnapshot,
    Change,
    CheckResult,
    CheckVerdict,
    FlakyItem,
    GateVerdict,
    Op,
    SuiteVerdict,
    Verdict,
    WaiverInfo,
    worst,
)
from gate.judge.verdicts import VerdictSettings, judge_gate, judge_suite
from gate.judge.waivers import apply_waivers

__all__ = ["TOLERANCE", "BaselineComparison", "BaselineItem", "BaselineSnapshot", "Change", "CheckResult",
           "CheckVerdict", "FlakyItem", "GateVerdict", "Op", "SuiteVerdict", "Verdict", "VerdictSettings", "WaiverInfo",
           "apply_waivers", "change_checks", "decide", "decide_family", "judge_gate", "judge_suite", "judge_value",
           "paired_rows", "paired_values", "threshold_checks", "weigh_gate_changes", "worst"]
