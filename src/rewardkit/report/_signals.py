"""The per-sample side of the RL diagnostics, as samples stream: each criterion's range and
how many values sit at its ends, the correlation and disagreement of every two criteria, and
reward vs completion length. Fixed in size whatever the number of samples.
"""

from __future__ import annotations

from collections.abc import Callable

from rewardkit.core._moments import CoMoments
from rewardkit.report._groups import FLAT

__all__ = ["MAX_CORRELATED", "REWARD", "Criterion", "Pair", "Signals"]

MAX_CORRELATED = 50
"""Criteria paired (correlation, disagreement) at most: the reward, then the first to appear."""
REWARD = "reward"
_MAX_NEAR = 256
"""Distinct values kept within `FLAT` of a criterion's minimum (or maximum), to count them."""


class Criterion:
    """One criterion's values: how many, their range, and how many sit at either end."""

    __slots__ = ("binary", "high", "low", "n", "near_high", "near_low", "ones", "unit", "zeros")

    def __init__(self, value: float) -> None:
        self.n = self.zeros = self.ones = 0
        self.low = self.high = value
        self.near_low: dict[float, int] = {}
        self.near_high: dict[float, int] = {}
        self.unit = self.binary = True

    def add(self, x: float) -> None:
        """Count one value."""
        self.n += 1
        if not 0.0 <= x <= 1.0:
            self.unit = False
        if self.binary and x != 0.0 and x != 1.0:
            self.binary = False
        self.zeros += abs(x) <= FLAT
        self.ones += abs(x - 1.0) <= FLAT
        if x < self.low:
            self.low = x
            self.near_low = {v: c for v, c in self.near_low.items() if v - x <= FLAT}
        if x - self.low <= FLAT:
            _count(self.near_low, x, max)
        if x > self.high:
            self.high = x
            self.near_high = {v: c for v, c in self.near_high.items() if x - v <= FLAT}
        if self.high - x <= FLAT:
            _count(self.near_high, x, min)

    def ends(self) -> tuple[float, float]:
        """The shares of values at the bottom and at the top of the scale: [0, 1], or the
        observed range when some value is outside it."""
        if self.unit:
            return self.zeros / self.n, self.ones / self.n
        return sum(self.near_low.values()) / self.n, sum(self.near_high.values()) / self.n


def _count(near: dict[float, int], x: float, farthest: Callable[[dict[float, int]], float]) -> None:
    """Count `x`; past `_MAX_NEAR` distinct values (a pathological spread within `FLAT` of the
    end) the one farthest from the end is dropped, so the share there is a lower bound."""
    near[x] = near.get(x, 0) + 1
    if len(near) > _MAX_NEAR:
        del near[farthest(near)]


class Pair:
    """Two criteria over the samples that have both: their correlation, and how often one
    passes (>= 0.5) where the other fails."""

    __slots__ = ("disagree", "moments")

    def __init__(self) -> None:
        self.moments = CoMoments()
        self.disagree = 0


class Signals:
    """The per-sample diagnostics of samples as they stream (`add` each)."""

    def __init__(self) -> None:
        self.samples = 0
        self.criteria: dict[str, Criterion] = {}
        """Every criterion, in order of first appearance."""
        self.paired: dict[str, int] = {}
        """The criteria paired, with their rank (the order they appeared in)."""
        self.pairs: dict[tuple[int, int], Pair] = {}
        """(rank, higher rank) → the two criteria's pair."""
        self.length = CoMoments()
        """(completion length, reward) over every sample with both."""

    def add(self, values: dict[str, float], length: int | None) -> None:
        """Count one sample: its criteria's values (`reward` among them) and its length."""
        self.samples += 1
        ranked = []
        for name, x in values.items():
            criterion = self.criteria.get(name)
            if criterion is None:
                criterion = self.criteria[name] = Criterion(x)
                if len(self.paired) < MAX_CORRELATED - (REWARD not in self.paired) or (
                    name == REWARD
                ):
                    self.paired[name] = len(self.paired)
            criterion.add(x)
            rank = self.paired.get(name)
            if rank is not None:
                ranked.append((rank, x))
        ranked.sort()
        for i, (a, x) in enumerate(ranked):
            for b, y in ranked[i + 1 :]:
                pair = self.pairs.get((a, b))
                if pair is None:
                    pair = self.pairs[(a, b)] = Pair()
                pair.moments.add(x, y)
                pair.disagree += (x >= 0.5) != (y >= 0.5)
        reward = values.get(REWARD)
        if length is not None and reward is not None:
            self.length.add(float(length), reward)
