"""cosine_scaled_accuracy_length_reward: accuracy first, brevity second."""

from __future__ import annotations

import math
from typing import Any

import pytest

from rewardkit.functions.builtin import cosine_scaled_accuracy_length_reward as reward

LONG = "Let me think about it carefully, step by step, before I answer. " * 3


def said(text: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "What is 2+2?"}, {"role": "assistant", "content": text}]


def cosine(tokens: int, max_length: int) -> float:
    return (1 + math.cos(min(1.0, tokens / max_length) * math.pi)) / 2


def test_score_is_the_weighted_mean() -> None:
    result = reward(said("The answer is 4."), "4", max_length=50)
    length = 0.5 + 0.5 * cosine(4, 50)
    assert result.score == pytest.approx(0.7 * 1.0 + 0.3 * length)
    assert result.metrics["accuracy"].score == 1.0
    assert result.metrics["length"].score == pytest.approx(length)
    assert result.metrics["combined_reward"].success is True


def test_wrong_answers_score_low_and_longer_wrong_ones_a_little_more() -> None:
    short = reward(said("The answer is 5."), "4", max_length=50)
    long = reward(said(f"{LONG} The answer is 5."), "4", max_length=50)
    assert short.score == pytest.approx(0.3 * 0.3 * (1 - cosine(4, 50)))
    assert short.score < long.score < 0.3
    assert short.metrics["combined_reward"].success is False


def test_correct_beats_wrong_and_short_beats_long() -> None:
    short = reward(said("The answer is 4."), "4", max_length=50).score
    long = reward(said(f"{LONG} The answer is 4."), "4", max_length=50).score
    wrong = reward(said("The answer is 5."), "4", max_length=50).score
    assert short > long > wrong


def test_weights_are_normalised() -> None:
    ten_to_one = reward(said("4"), "4", correctness_weight=10, length_weight=1)
    same = reward(said("4"), "4", correctness_weight=10 / 11, length_weight=1 / 11)
    assert ten_to_one.score == pytest.approx(same.score)
    only_accuracy = reward(
        said(f"{LONG} The answer is 4."), "4", correctness_weight=1, length_weight=0
    )
    assert only_accuracy.score == 1.0


def test_reference_as_messages() -> None:
    gt = [{"role": "assistant", "content": "4"}]
    assert reward(said("The answer is 4."), gt).metrics["accuracy"].score == 1.0


def test_missing_response_or_ground_truth_scores_zero() -> None:
    assert reward([], "4").score == 0.0
    missing = reward(said("4"), None)
    assert missing.score == 0.0
    assert "No ground_truth" in (missing.reason or "")


@pytest.mark.parametrize("weights", [(-1, 1), (0, 0), (math.nan, 1)])
def test_bad_weights_raise(weights: tuple[float, float]) -> None:
    with pytest.raises(ValueError, match="correctness_weight and length_weight"):
        reward(said("4"), "4", correctness_weight=weights[0], length_weight=weights[1])


def test_a_ground_truth_of_the_wrong_type_scores_zero() -> None:
    result = reward(said("4"), {"answer": 4})
    assert result.score == 0.0
    assert "Ground truth not usable" in (result.reason or "")
