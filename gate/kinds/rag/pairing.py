"""Which queries of a candidate system and a baseline system pair up, and the comparison of each such pair of
systems (pure; `compare` does the per-metric arithmetic).

A candidate's query and a baseline's query pair when they have the same `id` and ask the same question: their
query texts are equal once whitespace is normalised (`records.RagRecord.pair`); without ids the normalised text
alone pairs them. An id both runs use for different questions is not paired — the answers to two questions say
nothing about which system is better — so Δ, Δ% and the paired tests leave it out, while each system's own
means (the system table, a row's `system_*`) still count every query it measured. The comparison's note says
how many shared ids were left out, naming a few with both records' file:line; when most of them ask different
questions it says the runs do not share a query set. (With no pair at all the input is refused at load time.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import gate.kinds.rag.compare as rag_compare
from gate.kinds.rag.config import RagSuiteConfig
from gate.kinds.rag.records import PairKey, RagRecord

EXAMPLES = 2  # mismatched ids a note names (a note is shown up to 500 characters)
QUERY_SHOWN = 40  # characters of each query text a note shows


def comparisons(records: Sequence[tuple[str, RagRecord]], values: Sequence[Mapping[str, Any]],
                columns: Sequence[str], summaries: Mapping[tuple[str, str], tuple[Sequence[int], Any, Any]],
                suite: RagSuiteConfig) -> tuple[dict[tuple[str, str], list[rag_compare.Row]], list[str]]:
    """Per (candidate system, baseline system): its comparison rows; and the notes on ids left unpaired."""
    out, notes = {}, []
    bases = [(s, data) for (which, s), data in summaries.items() if which == "baseline"]
    for (which, system), (rows, metrics, _) in summaries.items():
        if which != "candidate":
            continue
        for base, (base_rows, base_metrics, _) in bases:
            cand, prior = per_query(records, values, rows), per_query(records, values, base_rows)
            out[(system, base)] = rag_compare.compare(cand, prior, columns, (metrics, base_metrics),
                                                      suite.significance)
            note = mismatch_note(f"{system} vs {base}", [records[i][1] for i in rows],
                                 [records[i][1] for i in base_rows])
            if note:
                notes.append(note)
    return out, notes


def per_query(records: Sequence[tuple[str, RagRecord]], values: Sequence[Mapping[str, Any]],
              rows: Sequence[int]) -> dict[PairKey, dict[str, float | None]]:
    """Each query's values for the comparison, by `RagRecord.pair`. With several samples of a query, their mean
    per metric (over the samples that measured it): generations of the two systems are independent draws, so
    sample s of one has no partner in sample s of the other — their per-query means pair."""
    draws: dict[PairKey, list[Mapping[str, Any]]] = {}
    for i in rows:
        draws.setdefault(records[i][1].pair, []).append(values[i])
    out: dict[PairKey, dict[str, float | None]] = {}
    for key, found in draws.items():
        if len(found) == 1:
            out[key] = dict(found[0])
            continue
        out[key] = {}
        for metric in dict.fromkeys(m for v in found for m in v):
            measured = [v[metric] for v in found if v.get(metric) is not None]
            out[key][metric] = math.fsum(measured) / len(measured) if measured else None
    return out


def mismatched(candidate: Sequence[RagRecord], baseline: Sequence[RagRecord]) -> tuple[int, list[tuple[RagRecord,
                                                                                                         RagRecord]]]:
    """(how many ids both runs use, the (candidate, baseline) first records of those that share no question)."""
    asked: dict[str, dict[PairKey, RagRecord]] = {}
    for record in candidate:
        if record.id is not None:
            asked.setdefault(record.id, {}).setdefault(record.pair, record)
    answered: dict[str, dict[PairKey, RagRecord]] = {}
    for record in baseline:
        if record.id is not None and record.id in asked:
            answered.setdefault(record.id, {}).setdefault(record.pair, record)
    differ = [(next(iter(asked[i].values())), next(iter(found.values()))) for i, found in answered.items()
              if not found.keys() & asked[i].keys()]
    return len(answered), differ


def mismatch_note(title: str, candidate: Sequence[RagRecord], baseline: Sequence[RagRecord]) -> str | None:
    """The note on the ids both runs use for different questions (None: every shared id asks the same one)."""
    shared, differ = mismatched(candidate, baseline)
    if not differ:
        return None
    kept = shared - len(differ)
    head = "the runs do not share a query set: " if 2 * len(differ) > shared else ""
    shown = "; ".join(f"id {_short(c.id or '', 30)!r} {c.source_ref} {_short(c.query)!r} vs {b.source_ref} "
                      f"{_short(b.query)!r}" for c, b in differ[:EXAMPLES])
    more = f"; and {len(differ) - EXAMPLES} more" if len(differ) > EXAMPLES else ""
    return (f"{title}: {head}{len(differ)} of the {shared} ids both runs use ask different questions, so they are "
            f"not paired (Δ and its test use the {kept} that match, whitespace-normalised): {shown}{more}.")


def _short(text: str, limit: int = QUERY_SHOWN) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
