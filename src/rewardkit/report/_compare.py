"""Compare a run with a baseline run: the paired difference of rewards, and what changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rewardkit.core._stats import PairedDiff, paired_difference

__all__ = ["Change", "Comparison", "compare"]


@dataclass(frozen=True, kw_only=True)
class Change:
    """One case whose reward moved."""

    id: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        """`after - before`."""
        return self.after - self.before


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """This run against `source`, paired by case id (cases without a reward left out)."""

    source: str
    diff: PairedDiff
    changed: tuple[Change, ...]
    """Every case that improved or regressed, the largest moves first."""


def compare(
    current: Mapping[str, float], baseline: Mapping[str, float], *, source: str
) -> Comparison:
    """Pair the rewards of this run with those of the `baseline` run (read from `source`).

    >>> compare({"a": 1.0}, {"a": 0.5}, source="before").changed[0].delta
    0.5
    """
    diff = paired_difference(current, baseline)
    moved = [Change(id=c, before=baseline[c], after=current[c]) for c in diff.improved]
    moved += [Change(id=c, before=baseline[c], after=current[c]) for c in diff.regressed]
    moved.sort(key=lambda change: -abs(change.delta))
    return Comparison(source=source, diff=diff, changed=tuple(moved))
