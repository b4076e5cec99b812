"""What `llm-gate init` writes for a drift suite (`templates/init/`): the embedded all-MiniLM-L6-v2 as its
BERTScore backbone (the seed's roberta-large commented beside it), a suite with thresholds set for that backbone,
and an exercise file whose baseline feedback the example candidates reword."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(
    order=10,
    default=True,  # the gate's headline suite; the one today's users of the seed start with
    suite="init/suite.yml.j2",
    models="init/models.yml.j2",
    models_first=True,  # the backbone its thresholds are set for leads `models:`
    records={"baselines/feedback/example-exercise.json": "init/exercise.json.j2",
             "outputs/feedback/example.jsonl": "init/candidates.jsonl.j2"},
    bless_hint="`--model M` also makes model M's feedback the drift baseline",
)
