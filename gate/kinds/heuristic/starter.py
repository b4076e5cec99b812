"""What `llm-gate init` writes for a heuristic suite (`templates/init/`): its entry in gate.yml with the seed's
thresholds, and example records (responses per model and category, scored by the seed's rubric) where it points."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(order=30, suite="init/suite.yml.j2",
                  records={"outputs/heuristic/example.jsonl": "init/records.jsonl.j2"})
