"""The shared pieces of gate.yml's models: checks and the suite base (with `strict`'s `StrictModel` and `Globs`,
re-exported here).

`gate.config.gate` assembles them (with `gate.config.runtime`'s model and runtime settings, `generation`'s
providers and the registered kinds' suite models) into `GateConfig`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import (
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    model_validator,
)

from gate.config.generation import GenerateConfig
from gate.config.items import ItemsConfig
from gate.config.strict import BoolForNumber as BoolForNumber  # re-exported: gate.config.base is their old home
from gate.config.strict import Globs as Globs
from gate.config.strict import StrictModel as StrictModel
from gate.config.strict import invalid

# ---------------------------------------------------------------- checks


class UnmeasuredPolicy(str, Enum):
    """What a check whose value could not be measured contributes to the verdict (never a pass)."""

    WARN = "warn"
    FAIL = "fail"


class CheckConfig(StrictModel):
    """A threshold on one metric. `min`/`max` bound the value; `max_decrease`/`max_increase` bound its change
    against the suite's blessed baseline snapshot (`llm-gate baseline bless`), optionally only when the
    change is statistically significant. Each bound fails the gate; `warn*` are earlier, softer levels."""

    min: float | None = Field(None, description="Fail when the value is below this.")
    max: float | None = Field(None, description="Fail when the value is above this.")
    warn: float | None = Field(
        None, description="Warn when the value is on the wrong side of this (requires exactly one of min/max)."
    )
    max_decrease: float | None = Field(
        None, ge=0, description="Fail when the value fell by more than this against the baseline snapshot."
    )
    warn_decrease: float | None = Field(None, ge=0, description="Warn when it fell by more than this.")
    max_increase: float | None = Field(
        None, ge=0, description="Fail when the value rose by more than this against the baseline snapshot."
    )
    warn_increase: float | None = Field(None, ge=0, description="Warn when it rose by more than this.")
    significant: bool = Field(
        False,
        description="Judge a change only when it is significant: a paired test of the items against the "
        "baseline snapshot (with its run-to-run noise) rejects 'no change' on the bad side at the gate's `alpha`, "
        "shared by every significance-tested check (`correction`). A check that cannot detect its own bound is "
        "inconclusive (underpowered).",
    )
    confidence: float | None = Field(
        None, description="Removed: the gate's top-level `alpha` is the one false-alarm budget of every "
        "significance-tested check.")
    advisory: bool = Field(
        False,
        description="Measure, judge and show the check, but never block: the suite and gate verdicts, the exit code "
        "and the check run's conclusion follow the required checks only, and the headline counts advisory ones "
        "apart (\"passed; 2 advisory checks failed\"). A significance-tested advisory check is tested alone at "
        "`alpha`, outside the gate's family (it spends none of the blocking checks' budget).",
    )
    scope: str = Field(
        "group",
        description="Where the check applies: `group` (the suite's primary groups, e.g. exercise x model), "
        "another level the suite kind names (e.g. `model`), or `suite`.",
    )

    @property
    def relative(self) -> bool:
        return self.max_decrease is not None or self.max_increase is not None

    @model_validator(mode="after")
    def _bounds_make_sense(self) -> CheckConfig:
        if self.min is None and self.max is None and not self.relative:
            raise invalid("a bound: `min`, `max`, `max_decrease` or `max_increase`", found="a check with none",
                          fix="e.g. `{min: 0.8}` (fails below 0.8) or `{max_decrease: 0.05, significant: true}`")
        for warn, bound in (("warn_decrease", "max_decrease"), ("warn_increase", "max_increase")):
            warn_value, bound_value = getattr(self, warn), getattr(self, bound)
            if warn_value is not None and bound_value is None:
                raise invalid(f"`{bound}` beside `{warn}` (the change that fails)", found=f"`{warn}: {warn_value:g}` "
                              f"without `{bound}`", fix=f"add `{bound}:` (above {warn_value:g}) or drop `{warn}`")
            if warn_value is not None and warn_value > bound_value:
                raise invalid(f"`{warn}` at or below `{bound}`: a change warns from the first and fails past the "
                              "second", found=f"`{warn}: {warn_value:g}` above `{bound}: {bound_value:g}`",
                              fix=f"swap them, or lower `{warn}`")
        if self.confidence is not None:
            alpha = round(1 - self.confidence, 6)
            raise invalid("`alpha` at the top of gate.yml: one false-alarm budget shared by every "
                          "significance-tested check", found=f"`confidence: {self.confidence:g}` on a check "
                          "(retired)", fix=f"drop `confidence` and set `alpha: {alpha:g}` at the top of gate.yml")
        if self.significant and not self.relative:
            raise invalid("`max_decrease` or `max_increase` with `significant: true` (it tests a change against "
                          "the baseline snapshot)", found="`significant: true` on a `min`/`max` check",
                          fix="give the change that fails, e.g. `max_decrease: 0.05`, or drop `significant`")
        if self.warn is not None and self.min is None and self.max is None:
            raise invalid("`warn` beside `min` or `max`", found=f"`warn: {self.warn:g}` on a change check",
                          fix="for changes use `warn_decrease` / `warn_increase`")
        if self.min is not None and self.max is not None:
            if self.min > self.max:
                raise invalid("`min` at or below `max`", found=f"`min` ({self.min:g}) is greater than `max` "
                              f"({self.max:g})", fix="swap them: values fail below `min` and above `max`")
            if self.warn is not None:
                raise invalid("`warn` with exactly one of `min`/`max`", found=f"`warn: {self.warn:g}` with both",
                              fix="split the check in two: a list `[{min: …, warn: …}, {max: …}]`")
        if self.warn is not None and self.min is not None and self.warn < self.min:
            raise invalid("`warn` at or above `min`: values fail below `min` and warn between `min` and `warn`",
                          found=f"`warn: {self.warn:g}` below `min: {self.min:g}`",
                          fix="raise `warn` above `min`, or swap them")
        if self.warn is not None and self.max is not None and self.warn > self.max:
            raise invalid("`warn` at or below `max`: values fail above `max` and warn between `warn` and `max`",
                          found=f"`warn: {self.warn:g}` above `max: {self.max:g}`",
                          fix="lower `warn` below `max`, or swap them")
        return self


@dataclass(frozen=True)
class CheckProblem:
    """Why a check names a value its suite can never produce (a scorer's answer to the loader), and the fix:
    such a check would only ever be unmeasured, silently disabling the gate, so it is a config error."""

    expected: str
    found: str
    fix: str


# ---------------------------------------------------------------- suites


def _one_or_list(value: Any) -> str:
    return "many" if isinstance(value, list) else "one"


# One check or a list of them. Discriminated by shape, so a mistake in a single check is reported at its own
# path (`checks.mrr.min`), never twice (once per union member) or under a member's name.
Checks = Annotated[
    Annotated[CheckConfig, Tag("one")] | Annotated[list[CheckConfig], Field(min_length=1), Tag("many")],
    Discriminator(_one_or_list),
]


class SuiteBase(StrictModel):
    if TYPE_CHECKING:  # each kind's model declares `kind` as its Literal field; for code holding any suite
        kind: str
    description: str | None = None
    checks: dict[str, Checks] | None = Field(
        None, description="Thresholds by metric name: one check, or a list of them (e.g. floors per group and a "
        "significance-tested change check at `scope: suite`). Omitted: the kind's defaults. Given: replaces them."
    )
    items: ItemsConfig | None = Field(
        None, description="k-of-n per item: a criterion each draw (generation) of an item must meet; each item's "
        "pass rate, its Wilson lower bound, pass@k and pass^k become item values, and their means over a group's "
        "items (`pass_rate_mean`, `pass_rate_low_mean`, `pass_at_k_mean`, `pass_hat_k_mean`, `pass_rate_met_share`) "
        "metrics `checks:` can check. Items whose draws straddle the criterion are listed as flaky.")
    unmeasured: UnmeasuredPolicy = Field(
        UnmeasuredPolicy.WARN, description="Verdict of a check whose value could not be measured."
    )
    generate: GenerateConfig | None = Field(
        None, description="Produce this suite's records by asking a provider (gate.yml's `providers:`), recorded "
        "in committed cassettes and replayed in CI; omitted: the records are produced elsewhere.")
    # Names a kind retired (old -> new; metrics and its own settings alike) that gate.yml may still use, each with a
    # located deprecation warning (`gate.config.renamed`): in the suite's keys, its `checks:`, `items.criterion`, the
    # waivers of the suite and the suite mappings named in `renamed_in` (their keys are metric names).
    renamed: ClassVar[Mapping[str, str]] = {}
    renamed_in: ClassVar[tuple[str, ...]] = ()
    # Where gate.yml defines the suite (file name, YAML node tree), so that a problem found reading its inputs
    # (a `models:` filter naming no model, an unknown category, a glob matching nothing) names gate.yml:LINE.
    _place: tuple[str, Any] | None = PrivateAttr(None)

    def locate_in(self, filename: str, root: Any) -> None:
        self._place = (filename, root)

    @property
    def place(self) -> tuple[str, Any] | None:
        return self._place
