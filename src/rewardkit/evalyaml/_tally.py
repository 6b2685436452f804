"""Statistics of a run fed one case at a time, so that memory stays flat in the number of cases.

The numbers equal those of `rewardkit.core._stats.estimate` over all the values at once:
sums are kept exact (Shewchuk's partials, which `math.fsum` also keeps), and a series keeps
its values only up to `BOOTSTRAP_MAX_N`, where the bootstrap needs them; past that the
normal interval needs the mean and a second pass for the deviations (`Series.deviation`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rewardkit.core._stats import BOOTSTRAP_MAX_N, Z95, Estimate, estimate, wilson_interval

__all__ = ["JudgeTally", "Series", "add_usage"]


class Series:
    """One series of values (a judge's across cases, or the case rewards)."""

    def __init__(self) -> None:
        self.n = 0
        self.passes = 0
        """How many values are `True`."""
        self.total: float = 0
        """The plain left-to-right sum, as `sum()` gives it."""
        self.kept: list[float | bool] | None = []
        """The values while there are at most `BOOTSTRAP_MAX_N`; None past that."""
        self._bools = True
        self._sum: list[float] = []
        self._squares: list[float] = []

    def add(self, value: float | bool) -> None:
        """Take one more value."""
        self.n += 1
        self.passes += value is True
        self.total += value
        self._bools = self._bools and isinstance(value, bool)
        _grow(self._sum, float(value))
        if self.kept is not None:
            self.kept.append(value)
            if len(self.kept) > BOOTSTRAP_MAX_N:
                self.kept = None

    @property
    def second_pass(self) -> bool:
        """Whether the values must be fed again through `deviation` (their spread)."""
        return self.kept is None

    def deviation(self, value: float | bool) -> None:
        """Take a value again, on the second pass."""
        _grow(self._squares, (float(value) - self._mean()) ** 2)

    def estimate(self) -> Estimate:
        """The mean and its interval, as `estimate` gives them over every value."""
        if self.kept is not None:
            return estimate(self.kept)
        mean, n = self._mean(), self.n
        se = math.sqrt(math.fsum(self._squares) / (n - 1) / n)
        if self._bools:
            low, high = wilson_interval(self.passes, n)
            return Estimate(mean=mean, n=n, std_error=se, low=low, high=high, method="wilson")
        low, high = mean - Z95 * se, mean + Z95 * se
        return Estimate(mean=mean, n=n, std_error=se, low=low, high=high, method="normal")

    def _mean(self) -> float:
        return math.fsum(self._sum) / self.n


class JudgeTally:
    """One judge across cases, from each case's entry (`{value, status, ...}` of `per_case`).

    Skipped and errored cases are counted apart and left out of the metrics; a judge whose
    scored values are all booleans has a pass rate, all numbers a mean, a mix neither.
    """

    def __init__(self) -> None:
        self.scored = self.errored = self.skipped = 0
        self.values = Series()
        self._kinds: set[bool] = set()
        self._samples: int | None = None
        self._stable = self._sampled = 0
        self.usage: dict[str, int | float] = {}
        """Tokens and cost of the judge's calls over the cases (`add_usage`)."""

    def add(self, entry: Mapping[str, Any]) -> None:
        """Take the judge's entry of one more case."""
        add_usage(self.usage, entry.get("usage"))
        status = entry["status"]
        self.errored += status in ("error", "timeout")
        self.skipped += status == "skipped"
        if status != "scored":
            return
        self.scored += 1
        value = entry["value"]
        self._kinds.add(isinstance(value, bool))
        self.values.add(value if isinstance(value, bool) else float(value))
        stability = entry.get("stability")
        if stability is not None:
            if self._samples is None:
                self._samples = stability.get("samples", 1)
            self._sampled += 1
            self._stable += bool(stability.get("stable"))

    @property
    def homogeneous(self) -> bool:
        """All scored values are booleans, or all are numbers."""
        return len(self._kinds) == 1

    def result(self) -> dict[str, Any]:
        """The judge's `judges` entry of summary.json (after any second pass)."""
        mean = pass_rate = None
        stats = Estimate(mean=None, n=0, std_error=None, low=None, high=None, method="none")
        if self.homogeneous:
            mean = self.values.total / self.scored
            pass_rate = mean if self._kinds == {True} else None
            stats = self.values.estimate()
        entry: dict[str, Any] = {
            "mean": mean,
            "pass_rate": pass_rate,
            "scored_cases": self.scored,
            "errored_cases": self.errored,
            "skipped_cases": self.skipped,
            **stats.as_dict(),
        }
        if self._samples is not None and self._samples > 1:
            entry["stability"] = {
                "samples": self._samples,
                "stable_cases": self._stable,
                "total_cases": self._sampled,
            }
        if self.usage:
            entry["usage"] = dict(self.usage)
        return entry


def add_usage(total: dict[str, int | float], usage: Any) -> None:
    """Add one `usage` dict (`Usage.as_dict()`) into `total`, field by field. `cost_usd` is
    the sum of the costs known: a call whose price is unknown adds none, and a total with no
    known cost has no `cost_usd`."""
    if not isinstance(usage, Mapping):
        return
    for key, value in usage.items():
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            total[key] = total.get(key, 0) + value


def _grow(partials: list[float], x: float) -> None:
    """Add `x` to the exact sum that `partials` hold (non-overlapping; `math.fsum` rounds it)."""
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        high = x + y
        low = y - (high - x)
        if low:
            partials[i] = low
            i += 1
        x = high
    partials[i:] = [x]
