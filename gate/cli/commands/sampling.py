"""The seed's exercise sampling: pick submissions per exercise spread over the score range.

For `n` submissions, `n` target scores are spaced evenly from the lowest to the highest score; for
each target, one of the not-yet-chosen submissions nearest to it is drawn (at random among equally
near ones). The lowest and highest scores are therefore always represented, and the rest of the
range evenly. The random generator is seeded: the same input and seed give the same sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Scored:
    id: str
    score: float


def spread_sample(submissions: Sequence[Scored], count: int, seed: int) -> list[Scored]:
    """`count` submissions spread over the score range, ordered by score then id."""
    ordered = sorted(submissions, key=lambda s: (s.score, s.id))
    if count <= 0:
        return []
    if len(ordered) <= count:
        return ordered
    rng = random.Random(seed)
    low, high = ordered[0].score, ordered[-1].score
    step = (high - low) / (count - 1) if count > 1 else 0.0
    targets = [low + k * step for k in range(count)] if count > 1 else [(low + high) / 2]
    remaining = list(ordered)
    chosen: list[Scored] = []
    for target in targets:
        distance = min(abs(s.score - target) for s in remaining)
        nearest = [s for s in remaining if abs(s.score - target) - distance <= 1e-9]
        pick = nearest[rng.randrange(len(nearest))]
        remaining.remove(pick)
        chosen.append(pick)
    return sorted(chosen, key=lambda s: (s.score, s.id))


def submission_score(submission: dict) -> float | None:
    """Total credits of a submission: its baseline feedback, else its (tutor) feedback, else `score`."""
    baseline = submission.get("baseline_feedback")
    if isinstance(baseline, dict) and isinstance(baseline.get("feedback"), list):
        return _sum_credits(baseline["feedback"])
    for key in ("feedback", "feedbacks"):
        if isinstance(submission.get(key), list):
            return _sum_credits(submission[key])
    value = submission.get("score")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _sum_credits(items: list) -> float | None:
    credits = [i.get("credits") for i in items if isinstance(i, dict)]
    numbers = [c for c in credits if isinstance(c, (int, float)) and not isinstance(c, bool)]
    return float(sum(numbers)) if len(numbers) == len(credits) else None
