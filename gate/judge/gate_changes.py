"""How a pull request's changes to its own gate count (gate.yml `gate_changes`, the base branch's): pure.

The run is judged by the base branch's gate; a change the pull request proposes (a waiver added, a threshold
loosened, a snapshot edited — `gate.config.changes`) is shown and makes the verdict at least a warning (`warn`,
the default) or a failure (`fail`); `allow` only shows it. Where no base branch's gate was available and the run
applied the pull request's own (`GateChanges.applied`), a change counts at least as a warning whatever the policy
its own gate.yml states.
"""

from __future__ import annotations

from dataclasses import replace

from gate.config import GateChangesPolicy
from gate.config.changes import GateChanges
from gate.judge.types import GateVerdict, Verdict, worst


def weigh_gate_changes(verdict: GateVerdict, changes: GateChanges | None, policy: GateChangesPolicy) -> GateVerdict:
    """`verdict` with the pull request's gate changes attached and counted as `policy` says."""
    if changes is None:
        return verdict
    verdict = replace(verdict, gate_changes=changes)
    if not changes.changes:
        return verdict
    if changes.applied and policy is GateChangesPolicy.ALLOW:
        policy = GateChangesPolicy.WARN
    if policy is GateChangesPolicy.ALLOW:
        return verdict
    floor = Verdict.FAIL if policy is GateChangesPolicy.FAIL else Verdict.WARN
    count = len(changes.changes)
    note = (f"this pull request changes its own gate ({count} change{'s' if count != 1 else ''}): "
            + ("the run applied them (no base branch's gate was available)" if changes.applied
               else "judged by the base branch's gate; gate_changes: " + policy.value))
    return replace(verdict, verdict=worst([verdict.verdict, floor]) if verdict.suites else floor,
                   notes=(*verdict.notes, note))
