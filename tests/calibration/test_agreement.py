"""Each statistic against values worked out by hand or published in its textbook."""

from __future__ import annotations

import random

import pytest

from rewardkit.calibration._agreement import (
    bootstrap,
    cohen_kappa,
    confusion,
    kendall_tau_b,
    krippendorff_alpha,
    pearson,
    ranks,
    spearman,
)
from rewardkit.calibration._metrics import (
    best_threshold,
    combine,
    fail_share_threshold,
    shift,
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four
# observers, twelve units, missing values; nominal alpha 0.743, interval alpha 0.849.
_ = None
OBSERVERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _, _, _],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _, 3],
    [_, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _],
]
UNITS = [list(unit) for unit in zip(*OBSERVERS, strict=True)]


def test_krippendorff_published_example() -> None:
    assert krippendorff_alpha(UNITS, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(UNITS, "interval") == pytest.approx(0.849, abs=5e-4)


def test_krippendorff_edges() -> None:
    assert krippendorff_alpha([[1, 1], [2, 2]], "nominal") == 1.0
    assert krippendorff_alpha([[3, 3], [3, 3]], "interval") is None  # nothing to disagree on
    assert krippendorff_alpha([[1], [2, None]], "interval") is None  # nothing pairable
    # two raters, binary, disagreeing on one of four units: hand-worked 1 - (2/8) / (32/56)
    assert krippendorff_alpha([[1, 1], [0, 0], [1, 0], [0, 0]], "nominal") == pytest.approx(
        1 - (2 / 8) / ((64 - 9 - 25) / 56)
    )


def test_cohen_kappa_worked_example() -> None:
    """50 items: 20 both yes, 5 yes/no, 10 no/yes, 15 both no: po 0.7, pe 0.5, kappa 0.4."""
    a = ["y"] * 25 + ["n"] * 25
    b = ["y"] * 20 + ["n"] * 5 + ["y"] * 10 + ["n"] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([True] * 3, [True] * 3) is None
    assert cohen_kappa([True, False], [False, True]) == -1.0
    with pytest.raises(ValueError, match="differ in length"):
        cohen_kappa([1], [1, 2])


def test_rank_correlations_by_hand() -> None:
    x, y = [1, 2, 3, 4, 5], [3, 1, 2, 5, 4]
    assert spearman(x, y) == pytest.approx(1 - 6 * 8 / (5 * 24))  # sum of d² is 8
    assert kendall_tau_b(x, y) == pytest.approx((7 - 3) / 10)  # 7 concordant, 3 discordant
    # ties: C = 4, D = 0, one pair tied in x and one in y: 4 / sqrt(5 * 5)
    assert kendall_tau_b([1, 2, 2, 3], [1, 2, 3, 3]) == pytest.approx(0.8)
    assert ranks([10, 20, 20, 5]) == [2.0, 3.5, 3.5, 1.0]
    assert spearman([1, 2, 3], [1, 1, 1]) is None
    assert kendall_tau_b([1, 1], [1, 2]) is None
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(0.9933992677987828)


def test_confusion_rates() -> None:
    c = confusion([True, True, True, False], [True, False, True, True])
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 0)
    assert (c.accuracy, c.precision, c.recall, c.specificity) == (0.5, 2 / 3, 2 / 3, 0.0)
    empty = confusion([], [])
    assert (empty.accuracy, empty.precision, empty.recall, empty.specificity) == (None,) * 4


def test_bootstrap_is_reproducible_and_brackets_the_value() -> None:
    data = [float(i % 7) for i in range(50)]
    mean = bootstrap(data, lambda xs: sum(xs) / len(xs), seed=3)
    assert mean == bootstrap(data, lambda xs: sum(xs) / len(xs), seed=3)
    assert mean.low is not None
    assert mean.high is not None
    assert mean.low < mean.value < mean.high  # type: ignore[operator]
    assert bootstrap([], lambda xs: None).as_dict() == {"value": None, "ci95": None}
    assert bootstrap([1.0, 2.0], lambda xs: None).as_dict() == {"value": None, "ci95": None}


def test_thresholds_and_shift() -> None:
    assert best_threshold([1, 2, 3], [True, True, True]) is None
    found = best_threshold([1, 2, 3, 4], [False, True, False, True])
    assert found is not None
    assert (found.value, found.accuracy) == (2.0, 0.75)
    assert found.youden_j == pytest.approx(0.5)
    assert fail_share_threshold([1, 2, 3, 4, 5], 0.0) == 1.0
    assert fail_share_threshold([1, 2, 3, 4, 5], 1.0) > 5.0
    assert fail_share_threshold([], 0.5) is None
    assert shift([0.0, 0.0], [1.0, 1.0], seed=0).as_dict() == {"value": 1.0, "ci95": [1.0, 1.0]}
    assert combine([1.0, 0.0], True) == 0.0  # a tie fails, as eval.yaml samples do
    assert combine([2.0, 4.0], False) == 2.0


def _brute_tau_b(x: list[int], y: list[int]) -> float | None:
    n, net, tied_x, tied_y = len(x), 0, 0, 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 or dy == 0:
                tied_x += dx == 0
                tied_y += dy == 0
            else:
                net += 1 if (dx > 0) == (dy > 0) else -1
    pairs = n * (n - 1) // 2
    denominator = (pairs - tied_x) * (pairs - tied_y)
    return None if denominator <= 0 else net / denominator**0.5


def _brute_threshold(scores: list[int], labels: list[bool]) -> tuple[float, float]:
    """Every candidate, by the documented rule."""
    pos = sum(labels)
    neg = len(labels) - pos

    def key(t: int) -> tuple[int, float, int]:
        tp = sum(s >= t and lab for s, lab in zip(scores, labels, strict=True))
        tn = sum(s < t and not lab for s, lab in zip(scores, labels, strict=True))
        return tp + tn, tp / pos + tn / neg - 1, -t

    best = max(sorted(set(scores)), key=key)
    return float(best), key(best)[0] / len(labels)


def test_fast_algorithms_match_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(500):
        n = rng.randint(0, 25)
        top = rng.choice([2, 5, 40])
        x = [rng.randint(1, top) for _ in range(n)]
        y = [rng.randint(1, top) for _ in range(n)]
        fast, slow = kendall_tau_b(x, y), _brute_tau_b(x, y)
        assert (fast is None) is (slow is None)
        if fast is not None:
            assert fast == pytest.approx(slow)
        labels = [rng.random() < 0.5 for _ in range(n)]
        found = best_threshold(x, labels)
        if found is not None:
            assert (found.value, found.accuracy) == _brute_threshold(x, labels)
        if x:
            share = rng.random()
            t = fail_share_threshold(x, share)
            assert t is not None
            assert sum(s < t for s in x) >= share * n - 1e-9
            assert all(sum(s < u for s in x) < share * n - 1e-9 for u in set(x) if u < t)
