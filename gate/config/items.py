"""gate.yml's per-item criterion for k-of-n verdicts (issue 35, item 1): a suite's `items:`.

```yaml
items:
  criterion: {metric: final_score, min: 6.0}   # a draw (one generation of an item) passes when final_score >= 6
  k: 3                                          # pass@k and pass^k at k draws (default: each item's own n)
  pass_rate_min: 0.8                            # an item meets it when its pass rate's Wilson lower bound >= 0.8
checks:
  pass_rate_mean: {min: 0.9}                    # k-of-n metrics are checked like any other metric
  pass_rate_met_share: {min: 0.75, advisory: true}
```

The criterion names an item value of the suite's kind (what items.csv shows per item): checked as gate.yml is
read where its entry alone tells the values (`gate.config.criterion`), else when the records are scored; `k` must not
exceed the draws of any item (checked when the records are read, `gate.judge.passrates`). The per-item values and the
group and suite metrics they give are listed in `KOFN_METRICS`.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from gate.config.strict import StrictModel, invalid

# Group and suite metrics a suite with `items:` gains: each the mean over the group's items of one item value
# (`<column>_mean`; `pass_rate_met_share` the share of items whose Wilson lower bound meets `pass_rate_min`).
KOFN_METRICS: dict[str, str] = {
    "pass_rate_mean": "pass_rate",
    "pass_rate_low_mean": "pass_rate_low",
    "pass_at_k_mean": "pass_at_k",
    "pass_hat_k_mean": "pass_hat_k",
    "pass_rate_met_share": "pass_rate_met",
}
# Item values (items.csv columns, in order) a suite with `items:` gains
KOFN_COLUMNS: tuple[str, ...] = ("passed", "pass_rate", "pass_rate_low", "pass_at_k", "pass_hat_k", "pass_rate_met")


class ItemCriterion(StrictModel):
    """What one draw of an item must meet to pass: exactly one of `min`/`max` on one item value."""

    metric: str = Field(min_length=1, description="The item value each draw is read on (an items.csv column of the "
                        "suite's kind, e.g. `final_score`, `bertscore_f1`, `drift_drift_score`).")
    min: float | None = Field(None, description="A draw passes when the value is at or above this.")
    max: float | None = Field(None, description="A draw passes when the value is at or below this.")

    @model_validator(mode="after")
    def _one_bound(self) -> ItemCriterion:
        if (self.min is None) == (self.max is None):
            raise invalid("exactly one of `min`/`max`", found="both" if self.min is not None else "neither",
                          fix="e.g. `{metric: final_score, min: 6}` (a draw passes at 6 or above)")
        return self


class ItemsConfig(StrictModel):
    """k-of-n per item: each item's draws against `criterion` give its pass rate (c of n), the rate's Wilson
    lower bound, pass@k and pass^k as item values, and their means over a group's items as metrics to check."""

    criterion: ItemCriterion = Field(description="What one draw must meet to pass.")
    k: int | None = Field(None, ge=1, description="pass@k (at least one of k draws passes) and pass^k (all k pass) "
                          "at this k; at most the fewest draws of any item. Default: each item's own number of draws.")
    pass_rate_min: float | None = Field(
        None, ge=0, le=1, description="An item meets the pass rate when the Wilson lower bound (95 %) of its pass "
        "rate is at or above this: `pass_rate_met` per item, `pass_rate_met_share` per group and suite.")

    @property
    def label(self) -> str:
        c = self.criterion
        return f"{c.metric} {'≥' if c.min is not None else '≤'} {c.min if c.min is not None else c.max:g}"

