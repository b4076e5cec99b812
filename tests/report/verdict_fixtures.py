"""Judged gates built directly from verdict values (no scorer, no model): a stability suite of any size, with
checks of every verdict — the report's input, shaped as the judge (gate.judge) hands it over."""

from __future__ import annotations

from dataclasses import dataclass

from gate.config import UnmeasuredPolicy
from gate.io.source import SourceRef
from gate.judge import Change, CheckResult, CheckVerdict, GateVerdict, Op, SuiteVerdict, Verdict, WaiverInfo, worst
from gate.kinds.stability.scorer import StabilityDetails, StabilityItemDetails, StabilitySettings
from gate.results import GroupResult, Item, SuiteResult


def stability_result(name: str, models: int, tasks: int, items: int) -> SuiteResult:
    """`models` × `tasks` groups holding `items` questions between them, spread evenly."""
    model_names = tuple(f"model-{m}" for m in range(models))
    task_names = tuple(f"task-{t}" for t in range(tasks))
    cells = [(m, t) for m in model_names for t in task_names]
    item_list, counts = [], dict.fromkeys(cells, 0)
    for i in range(items):
        m, t = cells[i % len(cells)]
        counts[(m, t)] += 1
        item_list.append(Item((("model", m), ("task", t), ("question_id", str(i))),
                              {"stability_coefficient": 0.5, "mean_similarity": 0.6, "answer_probability": 1.0},
                              SourceRef("outputs/answers.jsonl", i + 1), StabilityItemDetails(responses=())))
    groups = [GroupResult("group", (("model", m), ("task", t)),
                          {"stability_coefficient": 0.5, "stability_coefficient_std": 0.1, "questions": counts[(m, t)]},
                          counts[(m, t)], (SourceRef("outputs/answers.jsonl", 1 + cells.index((m, t))),))
              for m, t in cells]
    groups += [GroupResult("model", (("model", m),), {"stability_coefficient": 0.5}, items // models)
               for m in model_names]
    settings = StabilitySettings(embedding="tiny", answer_probability="mean", models=model_names, tasks=task_names,
                                 questions=items, responses=items, probabilities=False)
    return SuiteResult(name=name, kind="stability", metrics={"stability_coefficient": 0.5}, groups=tuple(groups),
                       items=tuple(item_list), item_columns=("model", "task", "question_id", "stability_coefficient"),
                       details=StabilityDetails(settings=settings))


def group_check(result: SuiteResult, index: int, verdict: CheckVerdict, **extra) -> CheckResult:
    group = result.groups_at("group")[index]
    value = None if verdict is CheckVerdict.UNMEASURED else 0.5
    return CheckResult("stability_coefficient", "group", group.key, Op.MIN, 0.8, None, value, verdict,
                       suite=result.name, **extra)


def judged(result: SuiteResult, checks: list[CheckResult], comparison=None) -> SuiteVerdict:
    policy = UnmeasuredPolicy.WARN
    return SuiteVerdict(result, tuple(checks), worst([c.counts_as(policy) for c in checks]), policy, comparison)


def gate(*suites: SuiteVerdict, name: str = "quality", tested: int = 0, notes: tuple[str, ...] = (),
         **extra) -> GateVerdict:
    return GateVerdict(name, worst([s.verdict for s in suites]) if suites else Verdict.SKIPPED, suites,
                       alpha=0.05, correction="holm", tested=tested, notes=notes, **extra)


def a_change(p: float = 0.004, p_adjusted: float = 0.012, runs: int = 3, **extra) -> Change:
    """−0.031 on 24 paired items, tested: the change line the report shows for it is written out in the tests."""
    fields = {"n": 24, "tested": True, "estimate": -0.031, "se": 0.008, "df": 23.0, "method": "paired t-test",
              "runs": runs, "shared_sd": 0.004 if runs > 1 else None, "paired_share": 1.0, "p_value": p,
              "p_adjusted": p_adjusted, "alpha": 0.05, "mde": 0.021, "significant": p_adjusted <= 0.05, **extra}
    return Change(0.871, 0.840, "max_decrease", **fields)


def change_check(result: SuiteResult, index: int, verdict: CheckVerdict, change: Change, fail: float = -0.02,
                 **extra) -> CheckResult:
    group = result.groups_at("group")[index]
    return CheckResult("stability_coefficient", "group", group.key, Op.MIN, fail, None, -0.031, verdict,
                       change=change, suite=result.name, **extra)


WAIVER = WaiverInfo("accepted: the new prompt trades stability for recall", "@ana", "2026-12-31",
                    replaced="fail")
EXPIRED = WaiverInfo("temporary", "@bo", "2026-01-01", expired=True)


@dataclass(frozen=True)
class Snapshot:
    """What the report reads of a blessed snapshot (gate.judge.BaselineSnapshot)."""

    runs: int = 3
    created_at: str = "2026-11-20T09:00:00+00:00"
    commit: str | None = "0123456789abcdef"
    items: tuple = ()

    def group_value(self, level, key, metric):
        return None

    def group_sd(self, level, key, metric):
        return None

    def group_keys(self, level):
        return ()


@dataclass(frozen=True)
class Comparison:
    """A suite's run against its snapshot (gate.judge.BaselineComparison)."""

    snapshot: Snapshot | None = Snapshot()
    path: str = "baselines/metrics/stab.json"
    differences: tuple[str, ...] = ()
    age_days: float | None = 2.0
    stale: bool = False
    changed_in_pr: tuple[str, ...] = ()
    comparable: bool = True
    not_comparable_reason: str | None = None
