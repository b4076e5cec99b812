"""What calibration knows of a metric's values, from the kinds' catalogue (`MetricSpec`): the range its values
can take, so that no floor is proposed where it could never fail (a `min` at or below a 0–10 score's 0, a
rate's `max` at or above 1), and whether it is a quality to gate on at all (a p-value is a test's evidence and
a count grows with the suite: no check is proposed on them).

The range is the spec's own `low`/`high` where the kind sets them; otherwise it is read from what the spec
says: a percentage format (`.0%`) or a share, rate or probability is 0–1, a scale written in the description
("(0–10)", "(0-1)") is that scale, a cosine is −1–1, a latency, cost or throughput is ≥ 0. Unknown stays
unbounded (nothing is dropped for it). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gate.baselines.calibration.types import Scale
from gate.results import MetricSpec

_WRITTEN = re.compile(r"\((-?\d+(?:\.\d+)?)\s*[–-]\s*(-?\d+(?:\.\d+)?)\)")
_SHARE = re.compile(r"\b(share|rate|ratio|probability|proportion|fraction)\b", re.IGNORECASE)
_COSINE = re.compile(r"\bcosine\b", re.IGNORECASE)
_NON_NEGATIVE = re.compile(r"\b(latency|cost|per second|seconds)\b", re.IGNORECASE)
_P_VALUE = re.compile(r"(\bp-value\b|\bp of\b|\bp value\b)", re.IGNORECASE)

P_VALUE = ("a p-value: a test's evidence, not a quality (gate on the metric it tests, with `significant: true`)")
COUNT = "a count: it grows with the suite, not with quality"


def scale_of(metric: str, spec: MetricSpec | None) -> Scale:
    """The metric's range and whether it may be gated on, from its spec (None: nothing known)."""
    if metric.endswith("_p") or "p_value" in metric or (spec is not None and _P_VALUE.search(spec.description)):
        return Scale(0.0, 1.0, P_VALUE)
    if spec is None:
        return Scale()
    if spec.fmt == ".0f":
        return Scale(0.0, None, COUNT)
    low, high = spec.low, spec.high
    if low is None and high is None:
        low, high = _inferred(spec)
    return Scale(low, high)


def _inferred(spec: MetricSpec) -> tuple[float | None, float | None]:
    text = spec.description
    if (written := _WRITTEN.search(text)) is not None:
        return float(written.group(1)), float(written.group(2))
    if spec.fmt.endswith("%") or _SHARE.search(text):
        return 0.0, 1.0
    if _COSINE.search(text):
        return -1.0, 1.0
    if _NON_NEGATIVE.search(text) or _NON_NEGATIVE.search(spec.name.replace("_", " ")):
        return 0.0, None
    return None, None


def scales_of(catalogue: Mapping[str, Mapping[str, MetricSpec]],
              available: Mapping[str, set[str]]) -> dict[str, dict[str, Scale]]:
    """By kind, the scale of every metric the reports have (`catalogue`: each kind's specs by metric)."""
    return {kind: {m: scale_of(m, catalogue.get(kind, {}).get(m)) for m in names} for kind, names in available.items()}
