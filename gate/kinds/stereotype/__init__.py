"""Seed stereotype-drift-hearts: does injecting a stereotype make a model's answer more stereotyped?

Per probe: the stereotype probability of the control and of the bias-injected answer (the HEARTS
classifier: softmax(logits)[the label named like "Stereotype"]), their drift |control − bias| and
raw drift bias − control, whether the drift is significant (> 0.2, strict), whether the trait is
mentioned in the bias-injected answer (whole word, case-insensitive), and four cosine similarities
of sentence embeddings. Per model and per model × trait: means and rates, and a paired Wilcoxon
signed-rank test of bias vs control probabilities.

`config` is its gate.yml entry and `records` reads its probes; `scorer` is the suite's scorer (`STEREOTYPE`)
and types what the report reads; `statistics` gives its rates to significance tests; `view` and `exports` are its
report and its seed's CSVs; `KIND` assembles them, registered in pyproject.toml as
`stereotype = "gate.kinds.stereotype:KIND"`; `probes` holds one probe's values and its row (the seed's CSV
columns); `groups` folds probes per model and trait with the paired test; `labels` finds the classifier's
stereotype class and the trait mention; `starter` is what `llm-gate init` writes for it (templates in
`templates/`).
"""

from dataclasses import replace
from pathlib import Path

from gate.kinds.stereotype import exports, view
from gate.kinds.stereotype.labels import mentions, stereotype_label
from gate.kinds.stereotype.probes import ITEM_COLUMNS, SEED_COLUMNS, StereotypeItemDetails
from gate.kinds.stereotype.recipe import GENERATION
from gate.kinds.stereotype.scorer import (
    DEFAULT_CHECKS,
    METRICS,
    STEREOTYPE,
    StereotypeDetails,
    StereotypeSettings,
    score_stereotype,
)
from gate.kinds.stereotype.starter import STARTER

KIND = replace(STEREOTYPE, generation=GENERATION, templates=Path(__file__).parent / "templates", starter=STARTER,
               view=view.build, exports=exports.write,
               charts=("drift_score_mean", "significant_drift_rate"),
               distribution=("drift_drift_score", (0.0, 1.0)), calibration_metrics=("drift_score_mean",))

__all__ = ["DEFAULT_CHECKS", "KIND", "ITEM_COLUMNS", "METRICS", "SEED_COLUMNS", "STEREOTYPE", "StereotypeDetails",
           "StereotypeItemDetails", "StereotypeSettings", "mentions", "score_stereotype", "stereotype_label"]
