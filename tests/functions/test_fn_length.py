"""length_reward and cosine_length_reward."""

from __future__ import annotations

import math
from typing import Any

import pytest

from rewardkit.functions.builtin import cosine_length_reward, length_reward
from rewardkit.functions.builtin.text._length import count_tokens


def words(n: int) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": " ".join(["w"] * n)}]


def test_count_tokens() -> None:
    assert count_tokens("") == 0  # reward-kit 0.4.1 counts an empty text as 1 token
    assert count_tokens("a b", "character") == 3
    with pytest.raises(ValueError, match="token_method must be one of"):
        count_tokens("a", "bpe")


@pytest.mark.parametrize(
    ("kwargs", "n", "score"),
    [
        ({"target_length": 10}, 10, 1.0),
        ({"target_length": 10}, 15, 0.5),
        ({"target_length": 10}, 30, 0.0),
        ({"target_length": 10, "scaling": "cosine"}, 15, 0.5),
        ({"min_length": 10, "max_length": 20}, 15, 1.0),
        ({"min_length": 10, "max_length": 20}, 5, 0.5),
        ({"min_length": 10, "max_length": 20}, 25, 0.5),
        ({"min_length": 10}, 50, 1.0),
        ({"max_length": 10}, 15, 0.5),
        ({}, 50, 0.5),
        ({}, 500, 0.0),
    ],
)
def test_length_scores(kwargs: dict[str, Any], n: int, score: float) -> None:
    result = length_reward(words(n), **kwargs)
    assert math.isclose(result.score, score, abs_tol=1e-9)


def test_cosine_scaling_is_smooth() -> None:
    near = length_reward(words(11), target_length=10, scaling="cosine").score
    assert 0.97 < near < 1.0
    short = length_reward(words(5), min_length=10, scaling="cosine").score
    assert math.isclose(short, 1 - math.cos(math.pi / 4))
    long = length_reward(words(15), max_length=10, scaling="cosine").score
    assert math.isclose(long, math.cos(math.pi / 4))


def test_custom_reward_range_keeps_metrics_in_bounds() -> None:
    # reward-kit 0.4.1 put the mapped score into the metric, which then failed validation.
    result = length_reward(words(10), target_length=10, reward_range=[-1.0, 2.0])
    assert result.score == 2.0
    assert result.metrics["length"].score == 1.0
    worst = length_reward(words(100), target_length=10, reward_range=[-1.0, 2.0])
    assert worst.score == -1.0
    assert worst.metrics["length"].score == 0.0


def test_equal_min_and_max_do_not_divide_by_zero() -> None:
    assert length_reward(words(10), min_length=10, max_length=10).score == 1.0
    assert length_reward(words(15), min_length=10, max_length=10).score == 0.5
    assert length_reward(words(1), max_length=0).score == 0.0
    assert length_reward(words(0), target_length=0).score == 1.0
    assert length_reward([{"role": "assistant", "content": "a"}], target_length=0).score == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_length": 10, "max_length": 5}, "min_length 10 exceeds max_length 5"),
        ({"target_length": -1}, "target_length must be a non-negative integer"),
        ({"scaling": "log"}, "scaling must be one of"),
        ({"token_method": "bpe"}, "token_method must be one of"),
        ({"reward_range": [0, float("inf")]}, "reward_range must be two finite numbers"),
        ({"reward_range": [1]}, "reward_range must be two finite numbers"),
        ({"reward_range": ["low", 1]}, "reward_range must be two finite numbers"),
    ],
)
def test_bad_options_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        length_reward(words(3), **kwargs)


def test_length_metrics_and_no_response() -> None:
    result = length_reward(words(11), target_length=10)
    assert result.metrics["length"].success is True
    assert result.metrics["token_count"].score == 1.0
    assert length_reward(words(12), target_length=10).metrics["length"].success is False
    assert length_reward([], target_length=3).score == 0.0


def test_cosine_length_correct_vs_wrong() -> None:
    short_right = cosine_length_reward(words(1), is_correct=True, max_length=100).score
    long_right = cosine_length_reward(words(100), is_correct=True, max_length=100).score
    short_wrong = cosine_length_reward(words(1), is_correct=False, max_length=100).score
    long_wrong = cosine_length_reward(words(100), is_correct=False, max_length=100).score
    assert short_right > long_right == 0.5
    assert short_wrong < long_wrong == pytest.approx(0.3)
    assert long_right > long_wrong
    assert cosine_length_reward(words(1), correctness=0.95, max_length=100).score == short_right


def test_cosine_length_negative_bounds_do_not_crash() -> None:
    # open-r1's defaults go below 0; reward-kit 0.4.1 put those into a [0, 1] metric.
    result = cosine_length_reward(
        words(1), is_correct=False, max_length=100, min_value_wrong=-1.0, max_value_wrong=-0.5
    )
    assert result.score == pytest.approx(-1.0, abs=1e-3)
    assert 0.0 <= result.metrics["cosine_length"].score <= 1.0


def test_cosine_length_without_correctness_says_so() -> None:
    result = cosine_length_reward(words(5))
    assert "no correctness given" in (result.reason or "")
    with pytest.raises(ValueError, match="max_length must be a positive integer"):
        cosine_length_reward(words(5), max_length=0)
    assert cosine_length_reward([{"role": "user", "content": "x"}]).score == 0.0
