"""Tool sequences compared: the Levenshtein distance over tool names and what changed between two runs.

`edit_distance(a, b)` is the fewest single-call insertions, deletions and substitutions (each costing 1) that turn
sequence a into b (a swap of two calls costs 2). `nearest` picks, of the baseline runs of a task, the one a run is
closest to (the first of equals). `compare` aligns the two runs' calls along one cheapest edit script and words each
difference: a call `added` (in the run, not the baseline), `dropped`, `moved` (a dropped and an added call of the
same tool: the call happens elsewhere in the sequence), `arguments changed` (aligned calls of the same tool with
different arguments); unchanged calls are listed too, so the report shows both sequences side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.kinds.trajectory.runs import Run, Step, canonical

UNCHANGED, ADDED, DROPPED, MOVED, ARGUMENTS = "", "added", "dropped", "moved", "arguments changed"


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance, two rows of the dynamic programme."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def nearest(run: Run, baseline: Sequence[Run]) -> tuple[Run, int] | None:
    """The baseline run closest to `run` by tool-sequence edit distance, with that distance; None without any."""
    best: tuple[Run, int] | None = None
    for other in baseline:
        distance = edit_distance(other.tools, run.tools)
        if best is None or distance < best[1]:
            best = (other, distance)
    return best


def alignment(a: Sequence[str], b: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """One cheapest edit script as aligned positions: (i, j) kept or substituted, (i, None) deleted, (None, j)
    inserted, in sequence order. Ties prefer keeping a call, then deleting before inserting."""
    n, m = len(a), len(b)
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                cost[i][j] = i + j
            else:
                cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1, cost[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i or j:
        if i and j and cost[i][j] == cost[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


@dataclass(frozen=True)
class Row:
    """One line of the side-by-side view: a baseline call, a run's call, or both, and what changed."""

    baseline: int | None  # the call's 0-based position in the baseline run
    candidate: int | None  # in the run
    change: str  # UNCHANGED, ADDED, DROPPED, MOVED, ARGUMENTS
    note: str = ""  # for a moved call: where it is in the other sequence ("now step 4", "was step 2")


def compare(baseline: Sequence[Step], run: Sequence[Step]) -> tuple[Row, ...]:
    """The two sequences aligned, each difference worded (module docstring)."""
    a, b = [s.tool for s in baseline], [s.tool for s in run]
    rows: list[Row] = []
    for i, j in alignment(a, b):
        if i is not None and j is not None and a[i] == b[j]:
            same = canonical(baseline[i].arguments) == canonical(run[j].arguments)
            rows.append(Row(i, j, UNCHANGED if same else ARGUMENTS))
        else:  # a substitution is a dropped call and an added one
            if i is not None:
                rows.append(Row(i, None, DROPPED))
            if j is not None:
                rows.append(Row(None, j, ADDED))
    added = [k for k, r in enumerate(rows) if r.change == ADDED]
    for k, row in enumerate(rows):
        if row.change != DROPPED or row.baseline is None:
            continue
        match = next((x for x in added if b[rows[x].candidate or 0] == a[row.baseline]), None)
        if match is not None:
            added.remove(match)
            other = rows[match]
            rows[k] = Row(row.baseline, None, MOVED, f"now step {(other.candidate or 0) + 1}")
            rows[match] = Row(None, other.candidate, MOVED, f"was step {row.baseline + 1}")
    return tuple(rows)


def summary(rows: Sequence[Row]) -> dict[str, int]:
    """How many calls were added, dropped, moved and had their arguments changed (a move counted once)."""
    counts = {ADDED: 0, DROPPED: 0, MOVED: 0, ARGUMENTS: 0}
    for row in rows:
        if row.change in (ADDED, DROPPED, ARGUMENTS) or (row.change == MOVED and row.candidate is not None):
            counts[row.change] += 1
    return counts
