"""What a pull request changes in its own gate, as a reviewer reads it (SECURITY.md, the trust boundary).

A pull request is judged by the base branch's gate: its gate.yml, waivers, rubrics, snapshots and baselines. What the
pull request proposes instead is never applied to its own verdict; it is listed here — a waiver added, a threshold
loosened, a check or suite removed, a snapshot or baseline file edited — and gate.yml's `gate_changes` (the base
branch's) says how such a change counts. Pure: two validated configs, or two sets of file digests, in; changes out.
`relaxes` says whether a change could turn a verdict greener (True), stricter (False) or either (None).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gate.config.gate import GateConfig

# Settings where a larger value lets more through; where a smaller one does. The rest are "changed" (None).
_LOOSER_WHEN_LARGER = {"max_waiver_days", "baselines.max_age_days"}
_LOOSER_WHEN_SMALLER = {"alpha", "baselines.min_paired"}
_STRICTNESS = {"inconclusive": ("fail", "warn", "neutral", "pass"), "gate_changes": ("fail", "warn", "allow")}
# Bounds of one check: for these a larger value loosens, for `min` a smaller one.
_CHECK_LARGER_LOOSENS = ("max", "max_decrease", "warn_decrease", "max_increase", "warn_increase")


@dataclass(frozen=True)
class GateChange:
    what: str  # "waiver added", "check loosened", "suite removed", "setting changed", "snapshot changed", …
    detail: str  # "feedback.bertscore_f1: min 0.8 → 0.7"
    relaxes: bool | None = None  # True: it could turn a verdict greener; False: stricter; None: either


@dataclass(frozen=True)
class GateChanges:
    """The pull request's changes to its gate, and whether the run applied them (`applied`: no base branch's gate
    was available, so the run used the pull request's own — the report says so)."""

    changes: tuple[GateChange, ...]
    source: str  # where the pull request's gate was read: "the pull request's checkout", "GitHub (head 1a2b3c4)"
    applied: bool = False
    proposed_verdict: str | None = None  # what the pull request's own gate.yml would have said (None: not evaluated)
    proposed_note: str | None = None  # why it was not evaluated, or what evaluating it showed
    problems: tuple[str, ...] = ()  # what could not be compared (a file GitHub would not serve, an invalid gate.yml)

    @property
    def relaxing(self) -> int:
        return sum(1 for c in self.changes if c.relaxes is not False)

    def __bool__(self) -> bool:
        return bool(self.changes or self.problems)


def compare_configs(base: GateConfig, proposed: GateConfig) -> list[GateChange]:
    """Every difference between the base branch's gate.yml and the pull request's, waivers and checks first."""
    changes = list(_waivers(base, proposed))
    changes += _suites(base, proposed)
    ignored = {"suites", "waivers"}
    changes += [_setting(path, old, new) for path, old, new in _differences(
        _without(base.model_dump(mode="json"), ignored), _without(proposed.model_dump(mode="json"), ignored))]
    return changes


def compare_files(base: Mapping[str, tuple[str, str]], proposed: Mapping[str, tuple[str, str]]) -> list[GateChange]:
    """Files of the gate (path → (role, digest)) that the pull request adds, removes or edits: a snapshot, a
    baseline, a rubric, a template. Any such edit could change what the run is compared with, so it relaxes."""
    changes = []
    for path in sorted(set(base) | set(proposed)):
        if path not in proposed:
            changes.append(GateChange(f"{base[path][0]} removed", path, True))
        elif path not in base:
            changes.append(GateChange(f"{proposed[path][0]} added", path, True))
        elif base[path][1] != proposed[path][1]:
            changes.append(GateChange(f"{base[path][0]} changed", path, True))
    return changes


# ---------------------------------------------------------------- waivers, suites, checks, settings


def _waivers(base: GateConfig, proposed: GateConfig) -> Iterator[GateChange]:
    old = {_waiver_key(w.model_dump(mode="json")): w for w in base.waivers}
    new = {_waiver_key(w.model_dump(mode="json")): w for w in proposed.waivers}
    for key, waiver in new.items():
        if key not in old:
            where = ", ".join(f"{k}={v}" for k, v in sorted((waiver.where or {}).items()))
            yield GateChange("waiver added", f"{waiver.suite}.{waiver.metric}{f' ({where})' if where else ''} until "
                             f"{waiver.expires.isoformat()}, owner {waiver.owner}: {waiver.reason}", True)
    for key, waiver in old.items():
        if key not in new:
            yield GateChange("waiver removed", f"{waiver.suite}.{waiver.metric} (until {waiver.expires.isoformat()})",
                             False)


def _waiver_key(data: dict[str, Any]) -> str:
    return repr(sorted(data.items(), key=lambda kv: kv[0]))


def _suites(base: GateConfig, proposed: GateConfig) -> Iterator[GateChange]:
    for name, suite in base.suites.items():
        other = proposed.suites.get(name)
        if other is None:
            yield GateChange("suite removed", f"{name} ({suite.kind})", True)
            continue
        if other.kind != suite.kind:
            yield GateChange("suite changed", f"{name}: kind {suite.kind} → {other.kind}", True)
            continue
        yield from _checks(name, suite.checks or {}, other.checks or {})
        ignored = {"checks", "place"}
        for path, old, new in _differences(_without(suite.model_dump(mode="json"), ignored),
                                           _without(other.model_dump(mode="json"), ignored)):
            yield GateChange("suite setting changed", f"{name}.{path}: {_shown(old)} → {_shown(new)}", None)
    for name, suite in proposed.suites.items():
        if name not in base.suites:
            yield GateChange("suite added", f"{name} ({suite.kind})", False)


def _checks(suite: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[GateChange]:
    for metric, check in old.items():
        if metric not in new:
            yield GateChange("check removed", f"{suite}.{metric}: {_bounds(check)}", True)
            continue
        before, after = _dumped(check), _dumped(new[metric])
        if before == after:
            continue
        if len(before) != len(after):
            yield GateChange("check changed", f"{suite}.{metric}: {_bounds(check)} → {_bounds(new[metric])}", None)
            continue
        looser = [_looser(name, old.get(name), now.get(name)) for old, now in zip(before, after, strict=True)
                  for name in set(old) | set(now) if old.get(name) != now.get(name)]
        relaxes = True if any(v is True for v in looser) else (False if all(v is False for v in looser) else None)
        what = {True: "check loosened", False: "check tightened", None: "check changed"}[relaxes]
        yield GateChange(what, f"{suite}.{metric}: {_bounds(check)} → {_bounds(new[metric])}", relaxes)
    for metric, check in new.items():
        if metric not in old:
            yield GateChange("check added", f"{suite}.{metric}: {_bounds(check)}", False)


def _looser(field: str, old: Any, new: Any) -> bool | None:
    """Whether changing one bound of a check lets more through (None: it is not a bound, or cannot tell)."""
    if field == "significant":
        return None
    if field == "scope":
        return None
    if old is None or new is None:
        return new is None if field in ("min", "warn", *_CHECK_LARGER_LOOSENS) else None
    if not isinstance(old, int | float) or not isinstance(new, int | float):
        return None
    if field == "min":
        return new < old
    if field in _CHECK_LARGER_LOOSENS:
        return new > old
    return None  # `warn` loosens one way for a min check and the other for a max check: shown as changed


def _dumped(check: Any) -> list[dict[str, Any]]:
    """A metric's check or checks (`checks:` may list several for one metric) as plain data."""
    return [c.model_dump(mode="json") for c in (check if isinstance(check, list) else [check])]


def _bounds(check: Any) -> str:
    """`{min: 0.8, warn: 0.85}`, or several of them joined for a metric with a list of checks."""
    def one(c: Any) -> str:
        data = c.model_dump(mode="json", exclude_defaults=True)
        return "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in data.items() if v is not None) + "}"
    return " + ".join(one(c) for c in (check if isinstance(check, list) else [check]))


def _setting(path: str, old: Any, new: Any) -> GateChange:
    relaxes: bool | None = None
    if isinstance(old, int | float) and isinstance(new, int | float) and not isinstance(old, bool):
        if path in _LOOSER_WHEN_LARGER:
            relaxes = new > old
        elif path in _LOOSER_WHEN_SMALLER:
            relaxes = new < old
    elif path in _STRICTNESS and old in _STRICTNESS[path] and new in _STRICTNESS[path]:
        order = _STRICTNESS[path]
        relaxes = order.index(new) > order.index(old)
    elif path == "baselines.max_age_days":
        relaxes = new is None
    return GateChange("setting changed", f"{path}: {_shown(old)} → {_shown(new)}", relaxes)


# ---------------------------------------------------------------- flattening


def _without(data: dict[str, Any], keys: set[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def _differences(old: Any, new: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """(dotted path, old, new) for every leaf that differs; lists compare whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            yield from _differences(old.get(key), new.get(key), f"{path}.{key}" if path else str(key))
    elif old != new:
        yield path, old, new


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    text = str(value)
    return text if len(text) <= 80 else text[:79] + "…"
