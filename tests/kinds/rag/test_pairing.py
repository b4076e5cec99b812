"""A candidate's and a baseline's queries pair by id and question (issue 35, item 12): an id both runs use for
different questions is not paired and is named in a note with both records' file:line, and a comparison row never
shows a Δ% whose sign contradicts the values beside it — not in the report, the dashboard or comparison.json.

Expected figures are worked out here from the ranks below in plain Python (exact fractions); no gate code computes
an expected value."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from gate.config import CheckConfig, GateConfig, UnmeasuredPolicy
from gate.errors import InputError
from gate.judge import CheckVerdict, judge_suite
from gate.kinds.base import ScoringContext
from gate.kinds.rag import exports, score_rag, view
from gate.kinds.rag.config import RagSuiteConfig, Significance
from gate.kinds.rag.records import load_rag
from gate.report import dashboard
from tests.support.fake_runtime import FakeRuntime


def record(qid: str, question: str, rank: int | None, latency: float = 1.0) -> dict:
    """The one relevant passage "g" retrieved at `rank` (reciprocal rank 1/rank); None: no ground truth, so its
    retrieval metrics are unmeasured."""
    retrieved = ["x", "y", "z"]
    if rank is not None:
        retrieved[rank - 1] = "g"
    return {"id": qid, "query": question, "actual_answer": "An answer.", "expected_answer": "An answer.",
            "retrieved_ids": retrieved, "ground_truth_ids": ["g"] if rank is not None else None, "latency": latency}


def score(directory, candidate: list[dict], baseline: list[dict], resamples: int = 500):
    for name, rows in (("c.jsonl", candidate), ("b.jsonl", baseline)):
        (directory / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = RagSuiteConfig(kind="rag", records=["c.jsonl"], baseline=["b.jsonl"], embedding_metrics=False,
                           significance=Significance(resamples=resamples))
    context = ScoringContext(GateConfig(version=1, suites={"r": suite}), FakeRuntime(), directory)
    return score_rag("r", suite, load_rag("r", suite, directory), context)


def mean(values) -> Fraction:
    values = list(values)
    return sum(values, Fraction(0)) / len(values)


# id -> (candidate question, rank), (baseline question, rank); None: the run has no such id
CASE = {
    "q0": (("question 0?", 1), ("question 0?", 2)),
    "q1": (("question 1?", 1), ("  question   1? ", 3)),  # the same question, spaced differently: paired
    "q2": (("question 2?", 3), ("another question 2?", 1)),  # the id asks something else in the baseline
    "q3": (("question 3?", 3), ("another question 3?", 1)),
    "q4": (("question 4?", 2), ("question 4?", 2)),
    "q5": (("question 5?", 1), None),
    "q6": (None, ("question 6?", 1)),
    "q7": (None, ("question 7?", 1)),
}
BASELINE_ORDER = ("q7", "q0", "q1", "q2", "q3", "q4", "q6")  # so b.jsonl's lines differ from c.jsonl's


def hand_built(directory):
    candidate = [record(q, *c) for q, (c, _) in CASE.items() if c]
    baseline = [record(q, *CASE[q][1]) for q in BASELINE_ORDER]
    return score(directory, candidate, baseline)


def test_ids_that_ask_different_questions_are_not_paired(in_tmp):
    result = hand_built(in_tmp)
    rows = {r.metric: r for r in result.details.comparisons["candidate vs baseline"]}
    mrr = rows["mrr"]
    paired = [q for q, (c, b) in CASE.items() if c and b and " ".join(c[0].split()) == " ".join(b[0].split())]
    assert paired == ["q0", "q1", "q4"]
    cand = mean(Fraction(1, CASE[q][0][1]) for q in paired)  # (1 + 1 + 1/2) / 3
    base = mean(Fraction(1, CASE[q][1][1]) for q in paired)  # (1/2 + 1/3 + 1/2) / 3
    assert (mrr.n, mrr.baseline, mrr.candidate) == (3, pytest.approx(float(base)), pytest.approx(float(cand)))
    assert mrr.delta == pytest.approx(float(cand - base))
    assert mrr.delta_pct == pytest.approx(float(100 * (cand - base) / base))
    # each system's own mean still counts every query it measured (the system table's figure)
    system_cand = mean(Fraction(1, c[1]) for c, _ in CASE.values() if c)
    system_base = mean(Fraction(1, b[1]) for _, b in CASE.values() if b)
    assert (mrr.system_candidate, mrr.n_candidate) == (pytest.approx(float(system_cand)), 6)
    assert (mrr.system_baseline, mrr.n_baseline) == (pytest.approx(float(system_base)), 7)
    assert system_cand < system_base and cand > base  # the case the old rows showed with a contradicting Δ%
    assert result.groups_at("comparison")[0].metrics["delta_mrr"] == pytest.approx(float(cand - base))


def test_the_note_names_each_unpaired_id_with_both_locations(in_tmp):
    [note] = [n for n in hand_built(in_tmp).notes if "ask different questions" in n]
    assert note.startswith("candidate vs baseline: 2 of the 5 ids both runs use ask different questions, so they "
                           "are not paired (Δ and its test use the 3 that match")
    assert "do not share a query set" not in note
    assert "id 'q2' c.jsonl:3 'question 2?' vs b.jsonl:4 'another question 2?'" in note
    assert "id 'q3' c.jsonl:4 'question 3?' vs b.jsonl:5 'another question 3?'" in note
    assert len(note) <= 500  # the report shows a note up to 500 characters


def test_most_ids_differing_means_the_runs_do_not_share_a_query_set(in_tmp):
    candidate = [record(f"q{i}", f"question {i}?", 1) for i in range(6)]
    baseline = [record(f"q{i}", f"question {i}?" if i < 2 else f"other {i}?", 2) for i in range(6)]
    [note] = [n for n in score(in_tmp, candidate, baseline).notes if "ask different questions" in n]
    assert note.startswith("candidate vs baseline: the runs do not share a query set: 4 of the 6 ids both runs use")
    assert note.endswith("; and 2 more.")


def test_no_shared_question_at_all_is_a_located_input_error(in_tmp):
    candidate = [record(f"q{i}", f"question {i}?", 1) for i in range(3)]
    baseline = [record("q9", "unrelated?", 1)] + [record(f"q{i}", f"other {i}?", 2) for i in range(3)]
    with pytest.raises(InputError) as caught:
        score(in_tmp, candidate, baseline)
    [problem] = caught.value.problems
    assert (problem.file, problem.line) == ("b.jsonl", 2)
    assert "the ids both runs use ask different questions (e.g. id 'q0': 'other 0?' here, 'question 0?' at " \
           "c.jsonl:1)" in problem.found


def test_a_check_on_delta_mrr_passes_a_system_that_improved_on_the_shared_queries(in_tmp):
    """The example's `delta_mrr: {min: 0.0, scope: comparison}`: paired by id alone, q2 and q3 (other questions)
    made the candidate look worse: (1 + 1 + 1/3 + 1/3 + 1/2)/5 < (1/2 + 1/3 + 1 + 1 + 1/2)/5."""
    by_id = [q for q, (c, b) in CASE.items() if c and b]
    assert mean(Fraction(1, CASE[q][0][1]) for q in by_id) < mean(Fraction(1, CASE[q][1][1]) for q in by_id)
    check = {"delta_mrr": CheckConfig(min=0.0, scope="comparison")}
    [outcome] = judge_suite(hand_built(in_tmp), check, UnmeasuredPolicy.WARN).checks
    assert outcome.verdict is CheckVerdict.PASS


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _change_sign(metric: str, change: str) -> int:
    """The direction a rendered change states: +/- for a value, faster/cheaper (−) or slower/dearer (+)."""
    if change.endswith(("faster", "cheaper")):
        return -1
    if change.endswith(("slower", "dearer")):
        return 1
    return -1 if change.startswith("-") else 1


def random_case(rng: random.Random) -> tuple[list[dict], list[dict]]:
    ids = [f"q{i}" for i in range(rng.randint(4, 14))]
    candidate, baseline = [], []
    for qid in ids:
        where = rng.random()
        question = f"question {qid}?"
        rank = lambda: rng.choice([1, 2, 3, None]) if rng.random() < 0.2 else rng.randint(1, 3)  # noqa: E731
        if where < 0.75:
            candidate.append(record(qid, question, rank(), rng.uniform(0.1, 3)))
        if where > 0.25 or not candidate or candidate[-1]["id"] != qid:
            other = question if rng.random() < 0.6 else f"what else about {qid}?"
            baseline.append(record(qid, other, rank(), rng.uniform(0.1, 3)))
    rng.shuffle(baseline)
    shared = {r["id"]: r["query"] for r in candidate} | {}
    if not any(shared.get(b["id"]) == b["query"] for b in baseline):  # at least one pair, else an input error
        baseline.append(dict(candidate[0]))
    return candidate, baseline


def expected_mrr_delta(candidate: list[dict], baseline: list[dict]) -> Fraction | None:
    """Δ MRR over the pairs: same id, same question (whitespace-normalised), both with a ground truth."""
    def rr(r: dict) -> Fraction | None:
        return Fraction(1, r["retrieved_ids"].index("g") + 1) if r["ground_truth_ids"] else None
    base = {(r["id"], " ".join(r["query"].split())): rr(r) for r in baseline}
    pairs = [(rr(c), base[k]) for c in candidate if (k := (c["id"], " ".join(c["query"].split()))) in base]
    pairs = [(c, b) for c, b in pairs if c is not None and b is not None]
    return mean(c for c, _ in pairs) - mean(b for _, b in pairs) if pairs else None


@pytest.mark.parametrize("seed", range(25))
def test_no_shown_change_contradicts_the_values_beside_it(in_tmp, seed):
    """Over random partly overlapping query sets (some ids asking other questions, some queries unmeasured): in
    the rows, the report's view, the dashboard's table and comparison.json, Δ and Δ% have the sign of candidate −
    baseline as shown; and delta_mrr is the Δ over the pairs worked out here."""
    candidate, baseline = random_case(random.Random(seed))
    result = score(in_tmp, candidate, baseline, resamples=200)
    [rows] = result.details.comparisons.values()
    for row in rows:
        if row.delta is not None:
            assert _sign(row.delta) == _sign(row.candidate - row.baseline), row
            assert row.delta_pct is None or _sign(row.delta_pct) == _sign(row.delta), row
    expected = expected_mrr_delta(candidate, baseline)
    found = result.groups_at("comparison")[0].metrics["delta_mrr"]
    assert found == (None if expected is None else pytest.approx(float(expected), abs=1e-12))
    suite = judge_suite(result, {}, UnmeasuredPolicy.WARN)
    [shown] = view.build(suite, 5)["comparisons"]
    for cells in shown["rows"]:
        if cells["change"] != "—" and cells["baseline"] != cells["candidate"]:
            direction = _sign(float(cells["candidate"]) - float(cells["baseline"]))
            assert _change_sign(cells["metric"], cells["change"]) == direction, cells
    [table] = dashboard._comparison_tables(suite)
    for cells in table["rows"]:
        if cells["pct"] != "—" and cells["baseline"] != cells["candidate"]:
            direction = _sign(float(cells["candidate"]) - float(cells["baseline"]))
            assert _sign(float(cells["delta"])) in (direction, 0) and cells["pct"][0] == "+-"[direction < 0], cells
    exports.write(suite, in_tmp, "2026-11-28")
    written = json.loads((in_tmp / "comparison.json").read_text())
    for row in written["comparisons"]["candidate vs baseline"]["rows"]:
        if row["delta"] is not None:
            assert _sign(row["delta"]) == _sign(row["candidate"] - row["baseline"]), row
