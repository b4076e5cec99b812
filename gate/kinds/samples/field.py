"""The optional `sample` field of flat records: several generations of one prompt (issue 20, item 9).

A record that carries `sample` is one draw of its item; records that differ only by `sample` are the same item,
generated again. The kinds carry it into the item key as the LAST pair, only where a record has one, so the keys
of runs without samples stay as they were (existing snapshots still pair) and `gate.kinds.samples.collapse`
can merge the draws into one item with their mean and within-item spread — one run measuring its own noise.

Identity checks here are shared by the kinds: the same item with the same sample twice stays a duplicate (each
kind words that one itself), and an item given once with a sample and once without is refused, since it cannot
be told whether the bare record is one more draw or a leftover of another run.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Annotated, Any

from pydantic import BeforeValidator

from gate.errors import Problem
from gate.io import SourceRef
from gate.kinds.records import invalid

SAMPLE = "sample"  # the field and the key's name (the same name as gate.kinds.samples.SAMPLE)
_EXPECTED = "a sample index: a non-negative whole number or a non-empty string (e.g. 0, 1, 2 or \"s2\")"


def _as_sample(value: Any) -> Any:
    """Samples compare as strings, like ids: 2 and "2" are the same draw. An XLSX cell reads 2 as 2.0."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise invalid(_EXPECTED, "write the sample as a number such as 0, 1, 2, not true/false")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        if value < 0:
            raise invalid(_EXPECTED, "number the generations from 0 (or 1) upwards")
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise invalid(_EXPECTED, "give each generation of a prompt its own `sample`, e.g. 0, 1, 2, or leave it out")


Sample = Annotated[str | None, BeforeValidator(_as_sample)]


def sample_key(sample: str | None) -> tuple[tuple[str, str], ...]:
    """The item key's tail: (("sample", s),) for a record with a sample, nothing for one without."""
    return () if sample is None else ((SAMPLE, sample),)


def sample_columns(samples: Any) -> tuple[str, ...]:
    """("sample",) when some record has one: items.csv gains the column only then."""
    return (SAMPLE,) if any(s is not None for s in samples) else ()


class SampleMixing:
    """Finds items given both with and without `sample`; `see` each record once, in input order. Each such item
    is reported once, at its first record that differs from the item's first."""

    def __init__(self) -> None:
        self._first: dict[Hashable, tuple[bool, SourceRef | None]] = {}
        self._reported: set[Hashable] = set()

    def see(self, identity: Hashable, sample: str | None, where: SourceRef | None, what: str,
            record: str | None = None) -> Problem | None:
        """A located problem when this record's identity was first seen the other way (with/without a sample).

        `what` names the item in words ("exercise 7 submission 3 for model m").
        """
        has = sample is not None
        first = self._first.setdefault(identity, (has, where))
        if first[0] == has or identity in self._reported:
            return None
        self._reported.add(identity)
        given, other = ("with", "without") if has else ("without", "with")
        return Problem(file=where.file if where else None, line=where.line if where else None, record=record,
                       field=SAMPLE, expected="`sample` on every record of an item, or on none of them",
                       found=f"{what} mixes records with and without `sample`: this one {given}, the one at "
                             f"{first[1] or 'an earlier record'} {other}",
                       fix="give every generation of this item its own `sample` (0, 1, 2, …), or drop `sample` "
                           "from all of them")
