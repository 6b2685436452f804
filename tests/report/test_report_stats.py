"""Statistics against hand-computed values, and interval coverage in simulation."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardkit.core._moments import CoMoments
from rewardkit.core._stats import bootstrap_interval, mean, std_error
from rewardkit.report import estimate, paired_difference, pass_at_k, pass_hat_k, wilson_interval


def test_mean_and_standard_error_by_hand() -> None:
    # deviations -2, -1, 0, 3: variance 14 / 3, standard error sqrt(14 / 3 / 4)
    assert mean([1, 2, 3, 6]) == 3.0
    assert std_error([1, 2, 3, 6]) == pytest.approx(math.sqrt(14 / 12))
    assert std_error([5.0]) is None
    assert mean([]) is None


def test_wilson_by_hand() -> None:
    z = 1.959963984540054
    p, n = 0.8, 10
    centre = (p + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(p * (1 - p) / n + z * z / 400) / (1 + z * z / 10)
    assert wilson_interval(8, 10) == pytest.approx((centre - half, centre + half))
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(z * z / (10 + z * z))  # at p = 0 the bound is z²/(n + z²)
    with pytest.raises(ValueError, match="n >= 1"):
        wilson_interval(0, 0)


def test_estimate_picks_wilson_for_bools_and_bootstrap_for_numbers() -> None:
    rate = estimate([True, True, False, True])
    assert (rate.mean, rate.method) == (0.75, "wilson")
    assert (rate.low, rate.high) == pytest.approx(wilson_interval(3, 4))
    numbers = estimate([0.2, 0.4, 0.6])
    assert numbers.method == "bootstrap"
    assert numbers.low is not None
    assert numbers.high is not None
    assert 0.2 <= numbers.low <= 0.4 <= numbers.high <= 0.6
    assert estimate([0.2, 0.4, 0.6]) == numbers  # fixed seed: the same interval every time
    assert estimate([]).method == "none"
    assert estimate([0.5]).as_dict() == {
        "std_error": None,
        "ci95": [0.5, 0.5],
        "ci_method": "bootstrap",
    }


def test_large_samples_use_the_normal_interval() -> None:
    values = [float(i % 2) for i in range(6000)]
    e = estimate(values)
    assert e.method == "normal"
    assert e.low == pytest.approx(0.5 - 1.959963984540054 * e.std_error)  # type: ignore[operator]


def test_pass_at_k_and_pass_hat_k_by_hand() -> None:
    # n = 5 samples, c = 2 pass, k = 2: 1 - C(3,2)/C(5,2) = 0.7; C(2,2)/C(5,2) = 0.1
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    assert pass_at_k(5, 2, 1) == pass_hat_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(3, 2, 2) == 1.0
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(3, 1, 4)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_at_k_is_monotone(nc: tuple[int, int]) -> None:
    n, c = nc
    at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
    hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert at == sorted(at)
    assert hat == sorted(hat, reverse=True)
    assert all(h <= a + 1e-12 for a, h in zip(at, hat, strict=True))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=1, max_size=30))
def test_interval_contains_the_mean(values: list[float]) -> None:
    e = estimate(values)
    assert e.low is not None
    assert e.high is not None
    assert e.mean is not None
    assert e.low - 1e-9 <= e.mean <= e.high + 1e-9


def test_paired_difference_by_hand() -> None:
    d = paired_difference({"a": 1.0, "b": 0.5, "c": 0.0}, {"a": 0.5, "b": 0.5, "c": 0.5, "z": 1})
    assert d.diff.mean == pytest.approx(0.0)
    assert d.diff.std_error == pytest.approx(math.sqrt(0.25 / 3 / 1))  # diffs .5, 0, -.5
    assert (d.improved, d.regressed, d.only_baseline, d.only_current) == (
        ("a",),
        ("c",),
        ("z",),
        (),
    )


def _pearson(xs: list[float], ys: list[float]) -> float | None:
    pairs = CoMoments()
    for x, y in zip(xs, ys, strict=True):
        pairs.add(x, y)
    return pairs.correlation()


def test_pearson_by_hand() -> None:
    assert _pearson([1, 2, 3], [2, 4, 6]) == pytest.approx(1.0)
    assert _pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert _pearson([1, 2, 3], [1, 1, 1]) is None
    assert _pearson([1], [1]) is None
    # xs 1, 2, 3 and ys 2, 4, 7: Sxx = 2, Syy = 114 / 9, Sxy = 5
    assert _pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(5 / math.sqrt(2 * 114 / 9))
    # far from zero: the sums are taken about the first pair, so nothing cancels
    assert _pearson([1e9 + 1, 1e9 + 2, 1e9 + 3], [2, 4, 7]) == pytest.approx(0.9933993, abs=1e-7)


def test_wilson_covers_the_true_rate_at_about_95_percent() -> None:
    # Wilson's coverage oscillates with p for a fixed n; averaged over p it is nominal
    rng = random.Random(7)
    trials, n = 4000, 30
    covered = 0
    for _ in range(trials):
        p = rng.uniform(0.05, 0.95)
        passes = sum(rng.random() < p for _ in range(n))
        low, high = wilson_interval(passes, n)
        covered += low <= p <= high
    assert 0.93 <= covered / trials <= 0.975


def test_bootstrap_covers_the_true_mean_at_about_95_percent() -> None:
    rng = random.Random(11)
    trials, n, true_mean = 300, 40, 2 / 7  # Beta(2, 5): skewed, bounded like a reward
    covered = 0
    for trial in range(trials):
        values = [rng.betavariate(2, 5) for _ in range(n)]
        low, high = bootstrap_interval(values, resamples=400, seed=trial)
        covered += low <= true_mean <= high
    # percentile bootstrap under-covers a little at n = 40; 300 trials have SE ~ 0.013
    assert 0.89 <= covered / trials <= 0.99
