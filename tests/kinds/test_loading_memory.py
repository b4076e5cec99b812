"""Loading many records holds the typed records, not also every raw record beside them (issue 31, item 7): a
million tiny records took gigabytes. Measured with tracemalloc on the heuristic loader (no model)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from gate.kinds.heuristic.config import HeuristicSuiteConfig
from gate.kinds.heuristic.records import HeuristicRecord, load_heuristic
from gate.kinds.records import validate_each

COUNT = 40_000
LINE = '{"model": "m%d", "category": "coding", "prompt_id": "P%d", "response": "x"}\n'


def test_raw_records_are_let_go_as_they_are_validated(in_tmp: Path):
    (in_tmp / "r.jsonl").write_text("".join(LINE % (i // 1000, i % 1000) for i in range(COUNT)))
    config = HeuristicSuiteConfig(kind="heuristic", records=["r.jsonl"])
    tracemalloc.start()
    try:
        data = load_heuristic("rubric", config, in_tmp)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(data.records) == COUNT
    # Before: the raw dicts and RawRecords (~600 B a record) were all alive beside the typed records at the end.
    assert peak - kept < 400 * COUNT, (peak - kept) / COUNT


def test_validate_each_keeps_order_and_every_problem():
    from gate.io import RawRecord, SourceRef

    raw = [RawRecord({"model": "m", "category": "coding", "prompt_id": f"P{i}", "response": "r"} if i != 1 else {},
                     SourceRef("f.jsonl", i + 1), i) for i in range(3)]
    problems: list = []
    records = validate_each(HeuristicRecord, raw, problems)
    assert [r.prompt_id for r in records] == ["P0", "P2"] and raw == []
    assert {p.line for p in problems} == {2}
