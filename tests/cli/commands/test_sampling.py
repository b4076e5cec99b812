"""The seed's exercise sampling: a seeded spread over the score range, and where a submission's score comes from."""

from __future__ import annotations

import random

import pytest

from gate.cli.commands.sampling import Scored, spread_sample, submission_score


def scored(*pairs: tuple[str, float]) -> list[Scored]:
    return [Scored(i, s) for i, s in pairs]


def ids(sample: list[Scored]) -> list[str]:
    return [s.id for s in sample]


ELEVEN = [Scored(f"s{k:02d}", float(k)) for k in range(11)]
CROWDED = [Scored(f"c{k:02d}", float(k % 7)) for k in range(30)]  # scores 0..6, each 4-5 times


def test_hand_worked_even_spread_picks_every_other_score():
    # 0..10, 6 targets: step (10 - 0) / 5 = 2 -> targets 0, 2, 4, 6, 8, 10, each hit exactly by one submission.
    for seed in range(5):
        sample = spread_sample(ELEVEN, 6, seed)
        assert [s.score for s in sample] == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        assert ids(sample) == ["s00", "s02", "s04", "s06", "s08", "s10"]


def test_hand_worked_uneven_scores_take_the_nearest_not_yet_chosen():
    # scores 0, 1, 2.6, 3, 9, 10; count 3 -> targets 0, 5, 10.
    # target 0 -> a(0); target 5 -> nearest is d(3) at distance 2 (c 2.4 away, e 4 away); target 10 -> f(10).
    subs = scored(("a", 0), ("b", 1), ("c", 2.6), ("d", 3), ("e", 9), ("f", 10))
    for seed in range(5):
        assert ids(spread_sample(subs, 3, seed)) == ["a", "d", "f"]


def test_a_submission_is_chosen_once_and_the_next_nearest_fills_in():
    # scores 0, 0.9, 1.1, 10; count 3 -> targets 0, 5, 10. Target 5: 1.1 (3.9 away) beats 0.9 (4.1 away).
    subs = scored(("a", 0), ("b", 0.9), ("c", 1.1), ("d", 10))
    assert ids(spread_sample(subs, 3, seed=0)) == ["a", "c", "d"]


def test_same_seed_same_sample_and_input_order_does_not_matter():
    first = spread_sample(CROWDED, 8, seed=42)
    shuffled = list(CROWDED)
    random.Random(7).shuffle(shuffled)
    assert spread_sample(CROWDED, 8, seed=42) == first
    assert spread_sample(shuffled, 8, seed=42) == first


def test_different_seeds_can_give_different_samples():
    samples = {tuple(ids(spread_sample(CROWDED, 8, seed))) for seed in range(20)}
    assert len(samples) > 1


@pytest.mark.parametrize("count", [2, 3, 5, 8, 12])
@pytest.mark.parametrize("seed", range(10))
def test_lowest_and_highest_scores_are_always_represented(count, seed):
    subs = scored(("lo1", 0), ("lo2", 0), ("m1", 4), ("m2", 5), ("m3", 5), ("m4", 5), ("hi", 9.5)) + \
        [Scored(f"x{k}", 5.0) for k in range(10)]
    sample = spread_sample(subs, count, seed)
    assert len(sample) == count
    assert len(set(ids(sample))) == count
    assert sample[0].score == 0 and sample[-1].id == "hi"


def test_output_is_ordered_by_score_then_id():
    sample = spread_sample(CROWDED, 12, seed=3)
    assert sample == sorted(sample, key=lambda s: (s.score, s.id))
    assert set(sample) <= set(CROWDED)


def test_fewer_submissions_than_count_returns_them_all_sorted():
    subs = scored(("b", 3), ("a", 1), ("c", 2))
    assert ids(spread_sample(subs, 5, seed=1)) == ["a", "c", "b"]
    assert ids(spread_sample(subs, 3, seed=1)) == ["a", "c", "b"]
    assert spread_sample([], 4, seed=1) == []


def test_count_one_takes_the_middle_of_the_range():
    # target (0 + 10) / 2 = 5: the submission scored 4.5 is the nearest.
    subs = scored(("a", 0), ("b", 4.5), ("c", 6), ("d", 10))
    for seed in range(5):
        assert ids(spread_sample(subs, 1, seed)) == ["b"]


def test_count_zero_is_empty():
    assert spread_sample(ELEVEN, 0, seed=0) == []


def test_all_equal_scores_draw_count_distinct_submissions():
    subs = [Scored(f"e{k}", 3.0) for k in range(10)]
    drawn = set()
    for seed in range(30):
        sample = spread_sample(subs, 4, seed)
        assert len(sample) == 4 and len(set(ids(sample))) == 4
        assert ids(sample) == sorted(ids(sample))
        drawn |= set(ids(sample))
    assert len(drawn) > 4  # the RNG, not the order, decides


def test_ties_are_broken_only_by_the_seeded_rng():
    # targets 0, 2, 4. For target 2 the nearest are b(1), c(1) and d(3), all 1 away; nothing else may win.
    subs = scored(("a", 0), ("b", 1), ("c", 1), ("d", 3), ("e", 4))
    middles = set()
    for seed in range(60):
        sample = spread_sample(subs, 3, seed)
        assert sample[0].id == "a" and sample[-1].id == "e"
        middles.add(sample[1].id)
        assert spread_sample(list(reversed(subs)), 3, seed) == sample
    assert middles == {"b", "c", "d"}


# ---------------------------------------------------------------- submission_score


def fb(*credits) -> list[dict]:
    return [{"title": "t", "description": "d", "credits": c} for c in credits]


def test_score_prefers_baseline_feedback_then_feedback_then_score():
    assert submission_score({"baseline_feedback": {"feedback": fb(1, 2.5)}, "feedback": fb(9), "score": 7}) == 3.5
    assert submission_score({"feedback": fb(1, 1, 0.5), "score": 7}) == 2.5
    assert submission_score({"feedbacks": fb(4)}) == 4.0
    assert submission_score({"score": 7}) == 7.0
    assert submission_score({"score": 6.5}) == 6.5
    assert submission_score({"baseline_feedback": {"feedback": []}, "score": 7}) == 0.0
    # a baseline without a feedback list does not count; the next source does
    assert submission_score({"baseline_feedback": {"timestamp": "x"}, "score": 7}) == 7.0


def test_score_is_missing_or_unusable():
    assert submission_score({"id": 1, "text": "x"}) is None
    assert submission_score({"score": "7"}) is None
    assert submission_score({"score": True}) is None
    assert submission_score({"score": None}) is None
    assert submission_score({"feedback": fb(1, "two")}) is None
    assert submission_score({"feedback": fb(1, None)}) is None
    assert submission_score({"feedback": fb(1, True)}) is None
    assert submission_score({"baseline_feedback": {"feedback": fb(False)}, "score": 3}) is None
