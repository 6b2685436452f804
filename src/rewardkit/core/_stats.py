"""Honest numbers: means with a standard error and a 95% interval, pass@k, paired differences.

Pure (no I/O). Pass rates get the exact-coverage-friendly Wilson score interval; other means a
percentile bootstrap with a fixed seed, so the same data always gives the same interval. Past
`BOOTSTRAP_MAX_N` values the bootstrap is replaced by the normal interval, which the central
limit theorem makes as good at that size and which costs nothing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BOOTSTRAP_MAX_N",
    "Estimate",
    "PairedDiff",
    "bootstrap_interval",
    "estimate",
    "mean",
    "paired_difference",
    "pass_at_k",
    "pass_hat_k",
    "std_error",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal."""
BOOTSTRAP_MAX_N = 5000
"""The largest sample bootstrapped; larger ones use the normal interval."""
RESAMPLES = 2000
SEED = 0

Method = Literal["wilson", "bootstrap", "normal", "none"]


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """A mean and its uncertainty.

    Example:
        >>> estimate([True, True, False, True]).mean
        0.75
    """

    mean: float | None
    """`None` when there are no values."""
    n: int
    std_error: float | None
    """The sample standard deviation over `sqrt(n)`; `None` below two values."""
    low: float | None
    high: float | None
    method: Method
    """How `low`/`high` were computed: `wilson` (pass rates), `bootstrap`, `normal`."""

    def as_dict(self) -> dict[str, object]:
        """The JSON form: `std_error`, `ci95` ([low, high] or null), `ci_method`."""
        ci = None if self.low is None or self.high is None else [self.low, self.high]
        return {"std_error": self.std_error, "ci95": ci, "ci_method": self.method}


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, `None` for no values.

    >>> mean([1, 2, 3, 6])
    3.0
    """
    return math.fsum(values) / len(values) if values else None


def std_error(values: Sequence[float]) -> float | None:
    """The standard error of the mean (sample standard deviation, n - 1, over sqrt(n)).

    >>> std_error([1, 2, 3, 6])
    1.0801234497346435
    """
    n = len(values)
    if n < 2:
        return None
    m = math.fsum(values) / n
    variance = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def wilson_interval(passes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate (good coverage even at 0/n and n/n).

    >>> [round(x, 4) for x in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    if n <= 0:
        raise ValueError(f"wilson_interval needs n >= 1 (got {n})")
    p = passes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_interval(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of the mean, reproducible for a given `seed`."""
    n = len(values)
    if n == 0:
        raise ValueError("bootstrap_interval needs at least one value")
    data = list(values)
    if min(data) == max(data):  # every resample is this multiset: its mean, without drawing
        same = math.fsum(data) / n
        return same, same
    rng = random.Random(seed)
    means = sorted(math.fsum(rng.choices(data, k=n)) / n for _ in range(resamples))
    return means[int(0.025 * (resamples - 1))], means[math.ceil(0.975 * (resamples - 1))]


def estimate(values: Sequence[float | bool], *, seed: int = SEED) -> Estimate:
    """Mean, standard error and 95% interval: Wilson when every value is a bool.

    >>> e = estimate([0.2, 0.4, 0.6])
    >>> round(e.mean, 4), round(e.std_error, 4), e.method
    (0.4, 0.1155, 'bootstrap')
    """
    n = len(values)
    numbers = [float(v) for v in values]
    m, se = mean(numbers), std_error(numbers)
    if m is None:
        return Estimate(mean=None, n=0, std_error=None, low=None, high=None, method="none")
    if all(isinstance(v, bool) for v in values):
        low, high = wilson_interval(sum(bool(v) for v in values), n)
        return Estimate(mean=m, n=n, std_error=se, low=low, high=high, method="wilson")
    if n > BOOTSTRAP_MAX_N and se is not None:
        return Estimate(
            mean=m, n=n, std_error=se, low=m - Z95 * se, high=m + Z95 * se, method="normal"
        )
    low, high = bootstrap_interval(numbers, seed=seed)
    return Estimate(mean=m, n=n, std_error=se, low=low, high=high, method="bootstrap")


def pass_at_k(n: int, passes: int, k: int) -> float:
    """The chance that at least one of `k` samples drawn from `n` (with `passes`) passes.

    The unbiased estimator `1 - C(n - c, k) / C(n, k)`.

    >>> pass_at_k(4, 1, 2)
    0.5
    """
    _check_k(n, passes, k)
    if n - passes < k:
        return 1.0
    return 1.0 - math.comb(n - passes, k) / math.comb(n, k)


def pass_hat_k(n: int, passes: int, k: int) -> float:
    """pass^k: the chance that all of `k` samples drawn from `n` (with `passes`) pass.

    The unbiased estimator `C(c, k) / C(n, k)` (consistency, as tau-bench reports it).

    >>> pass_hat_k(4, 3, 2)
    0.5
    """
    _check_k(n, passes, k)
    return math.comb(passes, k) / math.comb(n, k)


def _check_k(n: int, passes: int, k: int) -> None:
    if not 1 <= k <= n or not 0 <= passes <= n:
        raise ValueError(f"need 1 <= k <= n and 0 <= passes <= n (got n={n}, c={passes}, k={k})")


@dataclass(frozen=True, kw_only=True)
class PairedDiff:
    """The current run minus the baseline, case by case, over the cases both have."""

    diff: Estimate
    """The mean of the per-case differences, with its interval."""
    improved: tuple[str, ...]
    regressed: tuple[str, ...]
    only_current: tuple[str, ...]
    only_baseline: tuple[str, ...]


def paired_difference(
    current: Mapping[str, float], baseline: Mapping[str, float], *, tolerance: float = 1e-9
) -> PairedDiff:
    """Compare two runs' rewards by case id (`current - baseline`).

    >>> d = paired_difference({"a": 1.0, "b": 0.5}, {"a": 0.5, "b": 0.5, "c": 1.0})
    >>> d.diff.mean, d.improved, d.only_baseline
    (0.25, ('a',), ('c',))
    """
    shared = [case for case in current if case in baseline]
    diffs = {case: current[case] - baseline[case] for case in shared}
    return PairedDiff(
        diff=estimate(list(diffs.values())),
        improved=tuple(c for c, d in diffs.items() if d > tolerance),
        regressed=tuple(c for c, d in diffs.items() if d < -tolerance),
        only_current=tuple(c for c in current if c not in baseline),
        only_baseline=tuple(c for c in baseline if c not in current),
    )
