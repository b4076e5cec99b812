"""What `llm-gate init` writes for a stability suite (`templates/init/`): its entry in gate.yml with the seed's
thresholds, and example records (the answers to reworded prompts, per model and task) where it points."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(order=20, suite="init/suite.yml.j2",
                  records={"outputs/stability/example.jsonl": "init/records.jsonl.j2"})
