"""Compare a run with a baseline run: the paired difference of rewards, and what changed."""

from __future__ import annotations

from dataclasses import dataclass

from rewardkit.report._run import Run
from rewardkit.report._stats import PairedDiff, paired_difference

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


def compare(run: Run, baseline: Run) -> Comparison:
    """Pair `run` with `baseline` by case id.

    >>> from rewardkit.report._run import Case
    >>> now = Run(kind="eval", source="b", cases=[Case(id="a", reward=1.0)])
    >>> before = Run(kind="eval", source="a", cases=[Case(id="a", reward=0.5)])
    >>> compare(now, before).changed[0].delta
    0.5
    """
    current = {c.id: c.reward for c in run.cases if c.reward is not None}
    previous = {c.id: c.reward for c in baseline.cases if c.reward is not None}
    diff = paired_difference(current, previous)
    moved = [Change(id=c, before=previous[c], after=current[c]) for c in diff.improved]
    moved += [Change(id=c, before=previous[c], after=current[c]) for c in diff.regressed]
    moved.sort(key=lambda change: -abs(change.delta))
    return Comparison(source=baseline.source, diff=diff, changed=tuple(moved))
