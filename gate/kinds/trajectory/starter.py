"""What `llm-gate init` writes for a trajectory suite (`templates/init/`): its entry in gate.yml with per-task
expectations (tools called and never called, an order, argument constraints, the answer), and example agent runs
where it points that meet them."""

from __future__ import annotations

from gate.kinds.base import Starter

STARTER = Starter(order=60, suite="init/suite.yml.j2",
                  records={"outputs/trajectory/example.jsonl": "init/runs.jsonl.j2"})
