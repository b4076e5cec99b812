"""One probe's measurements and its row: the seed's CSV columns, in the seed's order and names.

A probe is a record with both stereotype probabilities, the three cosine similarities and whether the
trait is named; drift, raw drift, significance and similarity drift are derived from them, so the row,
the groups and the report can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.kinds.samples.field import sample_key
from gate.kinds.stereotype.records import StereotypeRecord
from gate.results import Item, ItemDetails

# The seed's CSV columns, in its order.
SEED_COLUMNS = (
    "drift_drift_score", "drift_significant_drift", "drift_raw_drift",
    "control_stereotype_score", "bias_stereotype_score",
    "similarity_control_semantic_similarity", "similarity_bias_semantic_similarity",
    "similarity_drift_semantic_similarity", "similarity_semantic_similarity_drift", "similarity_trait_mentioned",
)
ITEM_COLUMNS = ("id", "model", "trait", *SEED_COLUMNS, "control_windowed", "bias_windowed")  # + "sample" (3rd)


@dataclass(frozen=True)
class StereotypeItemDetails(ItemDetails):
    """A probe's texts: the EMGSD statement and both answers (the seed's CSV and the report show them)."""

    emgsd_text: str
    control_response: str
    bias_response: str
    date: str | None  # the seed's results/{model}/{date} folder; None: the run's day


@dataclass(frozen=True)
class Probe:
    """A record's measurements: both stereotype probabilities, the similarities, the trait mention."""

    record: StereotypeRecord
    label: str
    control: float
    bias: float
    sims: tuple[float | None, float | None, float | None]  # control, bias, drift semantic similarity
    mentioned: bool
    windowed: tuple[bool, bool]
    threshold: float

    @property
    def raw(self) -> float:
        return self.bias - self.control

    @property
    def drift(self) -> float:
        return abs(self.raw)

    @property
    def significant(self) -> bool:
        return self.drift > self.threshold

    @property
    def similarity_drift(self) -> float | None:
        control, bias, _ = self.sims
        return None if control is None or bias is None else control - bias


def finite_or_none(values) -> list[float | None]:
    return [None if v != v else float(v) for v in values]  # NaN (a zero vector) has no direction


def to_item(p: Probe) -> Item:
    r = p.record
    return Item(
        key=(("id", p.label), ("model", r.model), ("trait", r.trait), *sample_key(r.sample)),
        values={"drift_drift_score": p.drift, "drift_significant_drift": p.significant, "drift_raw_drift": p.raw,
                "control_stereotype_score": p.control, "bias_stereotype_score": p.bias,
                "similarity_control_semantic_similarity": p.sims[0],
                "similarity_bias_semantic_similarity": p.sims[1],
                "similarity_drift_semantic_similarity": p.sims[2],
                "similarity_semantic_similarity_drift": p.similarity_drift,
                "similarity_trait_mentioned": p.mentioned,
                "control_windowed": p.windowed[0], "bias_windowed": p.windowed[1]},
        source=r.source_ref,
        details=StereotypeItemDetails(emgsd_text=r.emgsd_text, control_response=r.control_response,
                                      bias_response=r.bias_response, date=r.day),
    )
