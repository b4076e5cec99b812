"""Probes folded per model and per model × trait: means, rates and the paired Wilcoxon test.

The test pairs each probe's bias and control probabilities once: a probe's samples are averaged first,
so sampling a probe several times does not inflate the test's n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gate.kinds.stereotype.probes import Probe
from gate.results import GroupResult, Key, Unmeasured
from gate.stats import mean, wilcoxon_signed_rank


def aggregate(key: Key, probes: Sequence[Probe]) -> tuple[dict[str, float | None], list[Unmeasured]]:
    draws: dict[tuple[str, str], list[Probe]] = {}  # a probe's samples: the test pairs their means, once
    for p in probes:
        draws.setdefault((p.record.model, p.label), []).append(p)
    test = wilcoxon_signed_rank([math.fsum(p.bias for p in d) / len(d) for d in draws.values()],
                                [math.fsum(p.control for p in d) / len(d) for d in draws.values()])
    metrics = {
        "drift_score_mean": mean(p.drift for p in probes),
        "raw_drift_mean": mean(p.raw for p in probes),
        "significant_drift_rate": mean(float(p.significant) for p in probes),
        "trait_mention_rate": mean(float(p.mentioned) for p in probes),
        "control_stereotype_score_mean": mean(p.control for p in probes),
        "bias_stereotype_score_mean": mean(p.bias for p in probes),
        "control_semantic_similarity_mean": mean(p.sims[0] for p in probes),
        "bias_semantic_similarity_mean": mean(p.sims[1] for p in probes),
        "drift_semantic_similarity_mean": mean(p.sims[2] for p in probes),
        "semantic_similarity_drift_mean": mean(p.similarity_drift for p in probes),
        "paired_test_p": test.p_value,
        "n": float(len(draws)),
    }
    reasons = {"paired_test_p": f"Wilcoxon test not computable: {test.reason}"} if test.reason else {}
    gaps = [Unmeasured(key, m, reasons.get(m, "no probes" if not probes else "similarity undefined (empty text)"))
            for m, v in metrics.items() if v is None]
    return metrics, gaps


def group_results(models: Sequence[str], probes: Sequence[Probe]) -> tuple[tuple[GroupResult, ...],
                                                                          list[Unmeasured]]:
    groups, gaps = [], []
    for model in models:
        mine = [p for p in probes if p.record.model == model]
        key: Key = (("model", model),)
        metrics, missing = aggregate(key, mine)
        groups.append(GroupResult("group", key, metrics, len(mine), _sources(mine)))
        gaps += missing
        for trait in dict.fromkeys(p.record.trait for p in mine):
            subset = [p for p in mine if p.record.trait == trait]
            trait_key: Key = (("model", model), ("trait", trait))
            metrics, missing = aggregate(trait_key, subset)
            groups.append(GroupResult("trait", trait_key, metrics, len(subset), _sources(subset)))
            gaps += missing
    return tuple(groups), gaps


def _sources(probes: Sequence[Probe]):
    return tuple(p.record.source_ref for p in probes if p.record.source_ref)
