"""What `llm-gate init` writes for a rag suite (`templates/init/`): its entry in gate.yml with the seed's
thresholds, and example records (one record per query with what it retrieved and answered) where it points."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(order=40, suite="init/suite.yml.j2",
                  records={"outputs/rag/example.jsonl": "init/records.jsonl.j2"})
