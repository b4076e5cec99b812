"""The heuristic scorer's grouping is linear in the records (issue 23): each record is compared with a group key a
bounded number of times, however many (model, category) groups there are. Counted, not timed: the model names
count their own equality tests. Before, every group scanned every record (groups × records comparisons)."""

from __future__ import annotations

from gate.config import GateConfig
from gate.kinds.base import ScoringContext
from gate.kinds.heuristic import score_heuristic
from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.records import HeuristicData, HeuristicRecord
from gate.kinds.heuristic.rubric import load_rubric
from tests.support.fake_runtime import FakeRuntime

COMPARED = [0]


class CountingName(str):
    """A model name that counts the equality tests it takes part in (dict lookups by an equal copy included)."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        COMPARED[0] += 1
        return str.__eq__(self, other)


def comparisons(tmp_path, models: int) -> int:
    suite = HeuristicSuiteConfig(kind="heuristic", records=["unused.jsonl"])
    rubric = load_rubric(None, tmp_path, "suites.h.rubric")
    records = tuple(HeuristicRecord.model_construct(model=CountingName(f"m{m:04d}"), category=category,
                                                    prompt_id=f"{category[0].upper()}01", response="def f(): pass",
                                                    prompt=None, id=None, sample=None)
                    for m in range(models) for category in ("coding", "paraphrasing"))
    data = HeuristicData(records, rubric, tuple(dict.fromkeys(str(r.model) for r in records)))
    COMPARED[0] = 0
    result = score_heuristic("h", suite, data, ScoringContext(GateConfig(version=1, suites={"h": suite}),
                                                              FakeRuntime(), tmp_path))
    assert len(result.groups_at("group")) == 2 * models and len(result.groups_at("model")) == models
    return COMPARED[0]


def test_grouping_compares_each_record_a_bounded_number_of_times(tmp_path):
    small, large = comparisons(tmp_path, 50), comparisons(tmp_path, 400)
    # 800 records in 800 groups: linear is a few comparisons per record; groups × records would be 640,000
    assert large <= 10 * 800, large
    assert large <= 8 * small + 100, (small, large)  # 8× the records: at most 8× the comparisons
