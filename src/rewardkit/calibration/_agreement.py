"""Agreement statistics: Cohen's kappa, Krippendorff's alpha, Spearman, Kendall's tau-b,
confusion counts, and a reproducible bootstrap interval for any of them.

Pure (no I/O, no numpy): the formulas are the textbook ones, checked against published worked
examples in `tests/calibration/test_agreement.py`. A statistic that is undefined on its data
(no variance, a single unit) is `None`, never NaN.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from rewardkit.core._moments import correlation

__all__ = [
    "Confusion",
    "Interval",
    "Level",
    "bootstrap",
    "cohen_kappa",
    "confusion",
    "kendall_tau_b",
    "krippendorff_alpha",
    "pearson",
    "ranks",
    "spearman",
]

T = TypeVar("T")
Level = Literal["nominal", "interval"]
RESAMPLES = 1000
SEED = 0


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters over the same items: `(po - pe) / (1 - pe)`.

    `None` when chance agreement is already 1 (both raters gave one and the same label).

    >>> cohen_kappa([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15,
    ...             [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    0.4
    """
    _same_length(a, b)
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    left, right = Counter(a), Counter(b)
    expected = sum(left[c] * right[c] for c in left) / (n * n)
    if expected >= 1.0:
        return None
    return round((observed - expected) / (1.0 - expected), 12)


def krippendorff_alpha(
    units: Sequence[Sequence[float | bool | None]], level: Level = "interval"
) -> float | None:
    """Krippendorff's alpha over `units`, each the values its raters gave (`None`: missing).

    `1 - Do / De`, with the observed disagreement `Do` taken within units (each unit's pairs
    weighted by `1 / (m_u - 1)`) and the expected `De` over every pair of pairable values.
    `level` picks the distance: `nominal` (0 if equal, else 1) or `interval` (squared
    difference). Units with fewer than two values are not pairable and are left out. `None`
    when no disagreement is expected (every value the same) or nothing is pairable.

    >>> round(krippendorff_alpha([[1, 1], [2, 2], [3, 4]], "nominal"), 4)  # 1 - 10/26
    0.6154
    """
    pairable = [[float(v) for v in unit if v is not None] for unit in units]
    pairable = [unit for unit in pairable if len(unit) >= 2]
    values = [v for unit in pairable for v in unit]
    n = len(values)
    if n < 2:
        return None
    observed = math.fsum(_pair_sum(unit, level) / (len(unit) - 1) for unit in pairable) / n
    expected = _pair_sum(values, level) / (n * (n - 1))
    if expected <= 0.0:
        return None
    return round(1.0 - observed / expected, 12)


def _pair_sum(values: Sequence[float], level: Level) -> float:
    """The sum of the distance over all ordered pairs `i != j` (in O(n), not O(n^2))."""
    n = len(values)
    if level == "nominal":
        return float(n * n - sum(c * c for c in Counter(values).values()))
    centre = math.fsum(values) / n
    return 2.0 * n * math.fsum((v - centre) ** 2 for v in values)


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their average rank.

    >>> ranks([10, 20, 20, 5])
    [2.0, 3.5, 3.5, 1.0]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's correlation; `None` when either side has no variance."""
    _same_length(x, y)
    n = len(x)
    if n < 2:
        return None
    mx, my = math.fsum(x) / n, math.fsum(y) / n
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = math.fsum((a - mx) ** 2 for a in x)
    syy = math.fsum((b - my) ** 2 for b in y)
    r = correlation(n, sxx, syy, sxy)
    return None if r is None else round(r, 12)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's correlation of the ranks (ties get average ranks).

    >>> spearman([1, 2, 3, 4, 5], [3, 1, 2, 5, 4])
    0.6
    """
    _same_length(x, y)
    return pearson(ranks(x), ranks(y))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b: `(C - D) / sqrt((n0 - n1) (n0 - n2))`, which corrects for ties.

    Knight's O(n log n) algorithm: sort by `x` (then `y`), count the discordant pairs as the
    inversions of `y` a merge sort undoes, and the tied pairs from runs of equal values.

    >>> kendall_tau_b([1, 2, 3, 4, 5], [3, 1, 2, 5, 4])
    0.4
    >>> kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3])
    0.8
    """
    _same_length(x, y)
    n = len(x)
    pairs = sorted(zip(x, y, strict=True))
    tied_x = _tied_pairs([a for a, _ in pairs])
    tied_xy = _tied_pairs(pairs)
    ys = [b for _, b in pairs]
    discordant = _inversions(ys)  # sorts ys
    tied_y = _tied_pairs(ys)
    total = n * (n - 1) // 2
    denominator = (total - tied_x) * (total - tied_y)
    if denominator <= 0:
        return None
    net = total - tied_x - tied_y + tied_xy - 2 * discordant
    return round(net / math.sqrt(denominator), 12)


def _tied_pairs(ordered: Sequence[object]) -> int:
    """The pairs of equal values in a sorted sequence."""
    count = run = 0
    for i in range(1, len(ordered) + 1):
        if i < len(ordered) and ordered[i] == ordered[i - 1]:
            run += 1
        else:
            count += run * (run + 1) // 2
            run = 0
    return count


def _inversions(values: list[float]) -> int:
    """Sort `values` in place (a bottom-up merge sort); return the pairs it found reversed."""
    n, width, swaps = len(values), 1, 0
    buffer = list(values)
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if values[j] < values[i]:
                    buffer[k] = values[j]
                    swaps += mid - i
                    j += 1
                else:
                    buffer[k] = values[i]
                    i += 1
                k += 1
            buffer[k:hi] = values[i:mid] if i < mid else values[j:hi]
        values[:] = buffer
        width *= 2
    return swaps


@dataclass(frozen=True, kw_only=True)
class Confusion:
    """Pass/fail counts of a judge against human labels (`True` = pass)."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float | None:
        return (self.tp + self.tn) / self.n if self.n else None

    @property
    def precision(self) -> float | None:
        """Of the items the judge passed, the share people passed."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """Of the items people passed, the share the judge passed."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def specificity(self) -> float | None:
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None


def confusion(judge: Sequence[bool], labels: Sequence[bool]) -> Confusion:
    """Count the judge's verdicts against the labels.

    >>> confusion([True, True, False, False], [True, False, True, False]).accuracy
    0.5
    """
    _same_length(judge, labels)
    pairs = Counter(zip(judge, labels, strict=True))
    return Confusion(
        tp=pairs[True, True], fp=pairs[True, False], fn=pairs[False, True], tn=pairs[False, False]
    )


@dataclass(frozen=True, kw_only=True)
class Interval:
    """A statistic on the data and its 95% percentile-bootstrap interval over items."""

    value: float | None
    low: float | None
    high: float | None
    resamples: int
    """How many resamples had the statistic defined (it can be undefined on some)."""

    def as_dict(self) -> dict[str, object]:
        """`{"value", "ci95": [low, high] | null}`."""
        ci = None if self.low is None or self.high is None else [self.low, self.high]
        return {"value": self.value, "ci95": ci}


def bootstrap(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], float | None],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """`statistic(items)` and its 95% interval from `resamples` resamples of the items
    (with replacement, seeded: the same data always gives the same interval).

    >>> bootstrap([1.0, 1.0, 1.0], lambda xs: sum(xs) / len(xs)).as_dict()
    {'value': 1.0, 'ci95': [1.0, 1.0]}
    """
    value = statistic(items)
    if not items:
        return Interval(value=value, low=None, high=None, resamples=0)
    rng = random.Random(seed)
    found = []
    for _ in range(resamples):
        drawn = statistic(rng.choices(items, k=len(items)))
        if drawn is not None and math.isfinite(drawn):
            found.append(drawn)
    if len(found) < resamples // 2:  # undefined on most resamples: no honest interval
        return Interval(value=value, low=None, high=None, resamples=len(found))
    found.sort()
    low = found[int(0.025 * (len(found) - 1))]
    high = found[math.ceil(0.975 * (len(found) - 1))]
    return Interval(value=value, low=low, high=high, resamples=len(found))


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"the two sequences differ in length ({len(a)} and {len(b)})")
