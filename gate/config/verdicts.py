"""How checks become verdicts, gate-wide (DESIGN.md §10): the false-alarm budget, its correction, what
"could not tell" counts as, and the waivers that accept a known regression for a while.

gate.yml keeps them at the top level:

```yaml
alpha: 0.05            # one false-alarm budget for every `significant: true` check of the gate
correction: holm       # holm (family-wise, any dependence) | bh (false discovery rate) | none
inconclusive: neutral  # neutral: the check run is neutral and the exit code 0 | warn | fail | pass
waivers:
  - {suite: retrieval, metric: overall_score, reason: "new retriever, see #412", owner: "@ana", expires: 2026-12-31}
```
"""

from __future__ import annotations

import datetime as dt
from enum import Enum

from pydantic import Field, field_validator

from gate.config.base import StrictModel
from gate.config.strict import invalid
from gate.stats import Correction

__all__ = ["Correction", "GateChangesPolicy", "InconclusivePolicy", "Waiver"]


class InconclusivePolicy(str, Enum):
    NEUTRAL = "neutral"  # its own verdict; the check run is `neutral`, the exit code 0
    WARN = "warn"  # counts as a warning (exit 1 only with --fail-on warn)
    FAIL = "fail"  # counts as a failure: exit 1, the check run fails
    PASS = "pass"  # counts as a pass (the report still says inconclusive)


class GateChangesPolicy(str, Enum):
    """What a pull request that changes its own gate (gate.yml, waivers, rubrics, snapshots, baselines) gets: the
    run is always judged by the base branch's gate; the change is shown, and this says how it counts."""

    FAIL = "fail"  # the gate fails until the change is merged by someone who may change the gate
    WARN = "warn"  # the verdict is at least a warning, and the change is shown (default)
    ALLOW = "allow"  # shown only


class Waiver(StrictModel):
    """Accept a check's result until `expires`: it shows as waived (never as passed), with the reason and owner.
    An expired waiver stops working and the report says so."""

    suite: str = Field(min_length=1, description="The suite whose check is waived.")
    metric: str = Field(min_length=1, description="The checked metric (as in the suite's `checks:`).")
    scope: str | None = Field(None, description="Only checks at this scope (`group`, a level, `suite`). Default: any.")
    where: dict[str, str] | None = Field(
        None, description="Only the groups whose key has these values, e.g. `{model: gpt-4o}`. Default: every group.")
    reason: str = Field(min_length=3, max_length=500, description="Why the result is accepted (shown in the report).")
    owner: str = Field(min_length=1, max_length=100, description="Who answers for it, e.g. `@ana` or a team.")
    expires: dt.date = Field(description="The last day the waiver works (YYYY-MM-DD).")

    @field_validator("reason", "owner")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise invalid("a few words (shown beside the waived check)", found="nothing but white space",
                          fix="say why it is waived and who owns it, e.g. `reason: flaky judge, see #123`")
        return value.strip()
