"""Streaming sums: a series' mean and interval (`Column`), two series' correlation (`CoMoments`).

Both hold a fixed amount whatever the number of values. Sums are taken about the first value
(a shift), which keeps the variance free of the cancellation of raw sums of squares.
"""

from __future__ import annotations

import math
from array import array
from typing import Literal

from rewardkit.core._stats import BOOTSTRAP_MAX_N, Z95, Estimate, estimate, wilson_interval

__all__ = ["CoMoments", "Column", "correlation"]


class Column:
    """One series (the reward, or one judge's values) as it streams; `estimate()` at the end.

    Up to `BOOTSTRAP_MAX_N` values it keeps them (8 bytes each) and its estimate is exactly
    `estimate(values)`, bootstrap included; past that it keeps only counts and sums, which is
    all the Wilson and the normal interval used there need.

    Example:
        >>> column = Column()
        >>> for value in (True, False, True, True):
        ...     column.add(value)
        >>> column.estimate().mean, column.metric
        (0.75, 'pass_rate')
    """

    __slots__ = ("bools", "kept", "n", "passes", "shift", "sum", "sum_squares")

    def __init__(self) -> None:
        self.n = self.bools = self.passes = 0
        self.shift = self.sum = self.sum_squares = 0.0
        self.kept: array[float] | None = array("d")

    def add(self, value: bool | float) -> None:
        """Count one value (a bool is a pass or a fail)."""
        if self.n == 0:
            self.shift = float(value)
        self.n += 1
        if isinstance(value, bool):
            self.bools += 1
            self.passes += value
        d = value - self.shift
        self.sum += d
        self.sum_squares += d * d
        if self.kept is not None:
            if self.n > BOOTSTRAP_MAX_N:
                self.kept = None
            else:
                self.kept.append(value)

    @property
    def metric(self) -> Literal["pass_rate", "mean", "none"]:
        """`pass_rate` when every value is a bool, `mean` when none is, else `none`."""
        if self.n and self.bools == self.n:
            return "pass_rate"
        return "mean" if self.n and not self.bools else "none"

    def estimate(self) -> Estimate:
        """The mean with its 95% interval, as `estimate` gives it (none for mixed values)."""
        metric = self.metric
        if metric == "none":
            return estimate([])
        if self.kept is not None:
            return estimate([v == 1.0 for v in self.kept] if metric == "pass_rate" else self.kept)
        n = self.n
        if metric == "pass_rate":
            mean = self.passes / n
            se = math.sqrt(self.passes * (n - self.passes) / (n * (n - 1)) / n)
            low, high = wilson_interval(self.passes, n)
            return Estimate(mean=mean, n=n, std_error=se, low=low, high=high, method="wilson")
        mean = self.shift + self.sum / n
        variance = max(0.0, self.sum_squares - self.sum * self.sum / n) / (n - 1)
        se = math.sqrt(variance / n)
        return Estimate(
            mean=mean, n=n, std_error=se, low=mean - Z95 * se, high=mean + Z95 * se, method="normal"
        )


class CoMoments:
    """Pairs `(x, y)` as they stream: enough for Pearson's r.

    Example:
        >>> pairs = CoMoments()
        >>> for x, y in [(1, 2), (2, 4), (3, 7)]:
        ...     pairs.add(x, y)
        >>> round(pairs.correlation(), 6)
        0.993399
    """

    __slots__ = ("n", "sx", "sxx", "sxy", "sy", "syy", "x0", "y0")

    def __init__(self) -> None:
        self.n = 0
        self.x0 = self.y0 = self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, x: float, y: float) -> None:
        """Count one pair."""
        if self.n == 0:
            self.x0, self.y0 = x, y
        self.n += 1
        dx, dy = x - self.x0, y - self.y0
        self.sx += dx
        self.sy += dy
        self.sxx += dx * dx
        self.syy += dy * dy
        self.sxy += dx * dy

    def centered(self) -> tuple[float, float, float]:
        """The sums of squares and of products about the means: `(Sxx, Syy, Sxy)`."""
        n = self.n or 1
        return (
            self.sxx - self.sx * self.sx / n,
            self.syy - self.sy * self.sy / n,
            self.sxy - self.sx * self.sy / n,
        )

    def correlation(self) -> float | None:
        """Pearson's r; `None` below two pairs or when a side is constant."""
        return correlation(self.n, *self.centered())


def correlation(n: int, sxx: float, syy: float, sxy: float) -> float | None:
    """Pearson's r from `n` pairs' centered sums; `None` below two pairs or when a side is flat.

    >>> round(correlation(3, 2.0, 114 / 9, 5.0), 6)
    0.993399
    """
    if n < 2 or sxx <= 1e-12 or syy <= 1e-12:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
