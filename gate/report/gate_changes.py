"""The report's "this pull request changes its gate" section: what the pull request proposes for its own gate.yml,
waivers, snapshots, baselines and rubrics, beside the base branch's gate that judged it (`gate.config.changes`).

Every string came from the pull request (a waiver's reason, a path, a suite name): escaped here like model text.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gate.config.changes import GateChanges
from gate.judge import Verdict
from gate.report.escape import inert
from gate.report.formatting import WORDS, icon

MAX_ROWS = 25  # a pull request that changes more is summarised: the count, and the rest in report.json
_RELAXES = {True: "⚠️ loosens", False: "tightens", None: "changes"}


def view(changes: GateChanges | None) -> dict[str, Any] | None:
    """The section's view; None when the run knows of no change (or is not a pull request's)."""
    if changes is None or not changes:
        return None
    rows = [{"effect": _RELAXES[c.relaxes], "what": inert(c.what, limit=60), "detail": inert(c.detail, limit=300)}
            for c in changes.changes[:MAX_ROWS]]
    left = len(changes.changes) - len(rows)
    if changes.applied:
        how = ("No base branch's gate was available, so this run **applied** the pull request's own gate: give the "
               "gate step `base_checkout` (or use the trusted `workflow_run` job) so a pull request never judges "
               "itself.")
    else:
        how = "This run was judged by the base branch's gate; the pull request's version is shown, not applied."
    proposed = None
    if changes.proposed_verdict is not None:
        verdict = Verdict(changes.proposed_verdict)
        proposed = f"With the pull request's own gate.yml the verdict would be: {icon(verdict)} {WORDS[verdict]}."
    elif changes.proposed_note:
        proposed = f"The pull request's own gate.yml: {inert(changes.proposed_note, limit=300)}."
    return {
        "count": len(changes.changes),
        "relaxing": changes.relaxing,
        "rows": rows,
        "more": f"… and {left} more change{'s' if left != 1 else ''} (all in report.json)" if left else None,
        "how": how,
        "source": inert(changes.source, limit=120),
        "proposed": proposed,
        "problems": [inert(p, limit=300) for p in changes.problems[:5]],
    }


def to_json(changes: GateChanges | None) -> dict[str, Any] | None:
    """report.json's `gate_changes` (null outside a pull request)."""
    if changes is None:
        return None
    return {"source": changes.source, "applied": changes.applied, "proposed_verdict": changes.proposed_verdict,
            "proposed_note": changes.proposed_note, "problems": list(changes.problems),
            "changes": [asdict(c) for c in changes.changes]}
