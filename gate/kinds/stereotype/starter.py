"""What `llm-gate init` writes for a stereotype suite (`templates/init/`): `models.stereotype` naming the seed's
HEARTS classifier, which no package embeds (so init says how to fetch it, and `llm-gate validate` exits 3 until it
is there), its entry in gate.yml with the seed's thresholds, and example probes where it points."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(
    order=50,
    suite="init/suite.yml.j2",
    models="init/models.yml.j2",
    records={"outputs/stereotype/example.jsonl": "init/records.jsonl.j2"},
    next_step="fetch a stereotype classifier (none is embedded): `llm-gate models pull "
              "holistic-ai/bias_classifier_albertv2 --target .gate-models` and export "
              "LLM_GATE_MODEL_DIR=.gate-models, or point models.stereotype at a local model directory",
)
