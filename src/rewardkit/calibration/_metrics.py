"""The calibration figures: a judge's scores against human labels, across its own samples,
the thresholds that fit the labels, and the shifts bias probes measure.

Pure (no I/O). Every figure is an `Interval`: the value on the data and its 95% bootstrap
interval over items, with a fixed seed (see `_agreement.bootstrap`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from rewardkit.calibration._agreement import (
    Interval,
    Level,
    bootstrap,
    cohen_kappa,
    confusion,
    kendall_tau_b,
    krippendorff_alpha,
    spearman,
)

__all__ = [
    "THRESHOLD_RULE",
    "Threshold",
    "best_threshold",
    "combine",
    "fail_share_threshold",
    "pass_fail_figures",
    "preference_figures",
    "samples_alpha",
    "score_figures",
    "shift",
    "threshold_interval",
]

THRESHOLD_RULE = "max accuracy; ties: max Youden J, then the lowest threshold"


def combine(values: Sequence[float], boolean: bool) -> float:
    """A judge's samples of one item as one score, as eval.yaml `samples:` combines them:
    a strict majority of verdicts (a tie fails), else the lower median.

    >>> combine([1.0, 0.0, 1.0], True), combine([3.0, 5.0, 4.0, 2.0], False)
    (1.0, 3.0)
    """
    if boolean:
        return 1.0 if sum(v >= 0.5 for v in values) * 2 > len(values) else 0.0
    return float(statistics.median_low(values))


def pass_fail_figures(
    verdicts: Sequence[bool], labels: Sequence[bool], *, seed: int
) -> dict[str, object]:
    """Accuracy, precision, recall, specificity and Cohen's kappa of pass/fail verdicts."""
    pairs = list(zip(verdicts, labels, strict=True))

    def rate(name: str) -> Interval:
        return bootstrap(pairs, lambda ps: getattr(confusion(*_unzip(ps)), name), seed=seed)

    counts = confusion(verdicts, labels)
    return {
        "accuracy": rate("accuracy").as_dict(),
        "precision": rate("precision").as_dict(),
        "recall": rate("recall").as_dict(),
        "specificity": rate("specificity").as_dict(),
        "kappa": bootstrap(pairs, lambda ps: cohen_kappa(*_unzip(ps)), seed=seed).as_dict(),
        "confusion": {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, "tn": counts.tn},
    }


def score_figures(
    scores: Sequence[float], labels: Sequence[float], *, seed: int
) -> dict[str, object]:
    """Spearman, Kendall's tau-b and Krippendorff's alpha (interval) of scores vs labels."""
    pairs = list(zip(scores, labels, strict=True))
    return {
        "spearman": bootstrap(pairs, lambda ps: spearman(*_unzip(ps)), seed=seed).as_dict(),
        "kendall_tau_b": bootstrap(
            pairs, lambda ps: kendall_tau_b(*_unzip(ps)), seed=seed
        ).as_dict(),
        "alpha_interval": bootstrap(
            pairs, lambda ps: krippendorff_alpha(ps, "interval"), seed=seed
        ).as_dict(),
    }


def preference_figures(
    picks: Sequence[str], preferred: Sequence[str], *, seed: int
) -> dict[str, object]:
    """How often the judge picks the output people preferred, and Cohen's kappa of picks."""
    pairs = list(zip(picks, preferred, strict=True))

    def accuracy(ps: Sequence[tuple[str, str]]) -> float | None:
        return sum(a == b for a, b in ps) / len(ps) if ps else None

    return {
        "accuracy": bootstrap(pairs, accuracy, seed=seed).as_dict(),
        "kappa": bootstrap(pairs, lambda ps: cohen_kappa(*_unzip(ps)), seed=seed).as_dict(),
    }


def samples_alpha(runs: Sequence[Sequence[float | None]], *, boolean: bool, seed: int) -> Interval:
    """Krippendorff's alpha across a judge's repeated samples: `runs[i]` holds item `i`'s
    value in each sample (`None`: that sample failed). Nominal for verdicts, else interval."""
    level: Level = "nominal" if boolean else "interval"
    return bootstrap(list(runs), lambda units: krippendorff_alpha(units, level), seed=seed)


@dataclass(frozen=True, kw_only=True)
class Threshold:
    """The judge score at which an item passes (`score >= value`)."""

    value: float
    accuracy: float
    youden_j: float


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> Threshold | None:
    """The threshold that best reproduces pass/fail labels (see `THRESHOLD_RULE`); `None`
    without both a passing and a failing label. One sweep over the sorted scores.

    >>> best_threshold([1, 2, 3, 4, 5], [False, False, True, True, True]).value
    3.0
    """
    positives = sum(bool(label) for label in labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return None
    ordered = sorted(zip(scores, labels, strict=True))
    tn = fn = 0  # items below the candidate threshold: they fail
    best: tuple[int, float, float] | None = None
    for k, (score, label) in enumerate(ordered):
        if k == 0 or score != ordered[k - 1][0]:  # threshold `score`: the items from k pass
            correct = tn + (positives - fn)
            j = (positives - fn) / positives + tn / negatives - 1.0
            if best is None or (correct, j) > (best[0], best[1]):  # equal: the lower stays
                best = (correct, j, float(score))
        if label:
            fn += 1
        else:
            tn += 1
    assert best is not None
    return Threshold(value=best[2], accuracy=best[0] / len(labels), youden_j=best[1])


def threshold_interval(
    scores: Sequence[float], labels: Sequence[bool], *, seed: int
) -> dict[str, object] | None:
    """`best_threshold`, its accuracy and Youden J, and the threshold's bootstrap interval."""
    found = best_threshold(scores, labels)
    if found is None:
        return None
    pairs = list(zip(scores, labels, strict=True))

    def value(ps: Sequence[tuple[float, bool]]) -> float | None:
        t = best_threshold(*_unzip(ps))
        return None if t is None else t.value

    interval = bootstrap(pairs, value, seed=seed).as_dict()
    return {
        **interval,
        "rule": THRESHOLD_RULE,
        "accuracy": found.accuracy,
        "youden_j": found.youden_j,
    }


def fail_share_threshold(scores: Sequence[float], share: float) -> float | None:
    """The lowest score `t` at which at least `share` of `scores` fall below `t` (fail).

    >>> fail_share_threshold([1, 2, 3, 4, 5], 0.4)
    3.0
    """
    ordered = sorted(scores)
    if not ordered:
        return None
    needed = share * len(ordered) - 1e-12
    for k, score in enumerate(ordered):  # k scores lie below the first `score`
        if (k == 0 or score != ordered[k - 1]) and k >= needed:
            return float(score)
    return math.nextafter(float(ordered[-1]), math.inf)  # everything must fail


def shift(before: Sequence[float], after: Sequence[float], *, seed: int) -> Interval:
    """The mean change `after - before` over paired items, with its bootstrap interval.

    >>> shift([0.0, 1.0], [1.0, 1.0], seed=0).value
    0.5
    """
    diffs = [b - a for a, b in zip(before, after, strict=True)]
    return bootstrap(diffs, lambda ds: math.fsum(ds) / len(ds) if ds else None, seed=seed)


A = TypeVar("A")
B = TypeVar("B")


def _unzip(pairs: Sequence[tuple[A, B]]) -> tuple[list[A], list[B]]:
    return [a for a, _ in pairs], [b for _, b in pairs]
