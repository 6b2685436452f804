"""`cosine_scaled_accuracy_length_reward`: correct first, then short.

A weighted mean of answer accuracy (`accuracy_reward`) and the cosine length score of
`cosine_length_reward`, which gives short correct answers the most and short wrong ones
the least (a long wrong answer at least shows its work).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    reference_texts,
    response_message,
    zero_result,
)
from rewardkit.functions.builtin.math._exact import accuracy_reward
from rewardkit.functions.builtin.text._length import cosine_length_reward
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["cosine_scaled_accuracy_length_reward"]

_CORRECT = 0.9
"""An accuracy at or above this counts as a correct answer for the length score."""


def _weights(correctness_weight: float, length_weight: float) -> tuple[float, float]:
    pair = (correctness_weight, length_weight)
    if not all(isinstance(w, int | float) and math.isfinite(w) and w >= 0 for w in pair) or (
        sum(pair) <= 0
    ):
        raise ValueError(
            "cosine_scaled_accuracy_length_reward: correctness_weight and length_weight must "
            f"be non-negative numbers, not both 0 (got {correctness_weight!r}, {length_weight!r})"
        )
    total = correctness_weight + length_weight
    return correctness_weight / total, length_weight / total


@reward_function
def cosine_scaled_accuracy_length_reward(
    messages: list[Message],
    ground_truth: Any = None,
    extract_fn: Callable[[str], str] | None = None,
    compare_fn: Callable[[str, str], float] | None = None,
    max_length: int = 1000,
    min_value_wrong: float = 0.0,
    max_value_wrong: float = 0.3,
    min_value_correct: float = 0.5,
    max_value_correct: float = 1.0,
    token_method: str = "whitespace",
    correctness_weight: float = 0.7,
    length_weight: float = 0.3,
    **kwargs: Any,
) -> EvaluateResult:
    """`correctness_weight * accuracy + length_weight * length score`, weights normalised.

    The accuracy is `accuracy_reward`'s score; the length score is `cosine_length_reward`'s,
    with the response counted correct when the accuracy is at least 0.9. The result is
    clipped to [0, 1]; `combined_reward` passes when the answer is correct.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference answer, as for `accuracy_reward`.
        extract_fn: `text -> answer` (see `accuracy_reward`).
        compare_fn: `(answer, reference) -> score in [0, 1]` (see `accuracy_reward`).
        max_length: The length at which the length effect saturates.
        min_value_wrong: The length score of the shortest wrong response.
        max_value_wrong: The length score of a wrong response of `max_length` tokens.
        min_value_correct: The length score of a correct response of `max_length` tokens.
        max_value_correct: The length score of the shortest correct response.
        token_method: `"whitespace"`, `"character"` or `"words"`.
        correctness_weight: The weight of accuracy.
        length_weight: The weight of the length score.
        **kwargs: Ignored (accepted for pipeline compatibility).

    A missing or unusable `ground_truth` scores 0.0, with the reason.

    Raises:
        ValueError: a weight is negative or both are 0, or `max_length` is not positive.

    Example:
        >>> result = cosine_scaled_accuracy_length_reward(
        ...     [{"role": "assistant", "content": "The answer is 4."}], "4", max_length=50
        ... )
        >>> round(result.score, 3)
        0.998
    """
    w_accuracy, w_length = _weights(correctness_weight, length_weight)
    try:
        response_message(messages)
    except NoResponse as problem:
        return no_response("combined_reward", problem)
    if ground_truth is None:
        return zero_result(
            "combined_reward",
            "No ground_truth: give the reference answer to check accuracy against.",
        )
    try:
        reference_texts(ground_truth, function="cosine_scaled_accuracy_length_reward")
    except TypeError as exc:
        return zero_result("combined_reward", f"Ground truth not usable: {exc}")
    accuracy = accuracy_reward(messages, ground_truth, extract_fn=extract_fn, compare_fn=compare_fn)
    correct = accuracy.score >= _CORRECT
    length = cosine_length_reward(
        messages,
        is_correct=correct,
        max_length=max_length,
        min_value_wrong=min_value_wrong,
        max_value_wrong=max_value_wrong,
        min_value_correct=min_value_correct,
        max_value_correct=max_value_correct,
        token_method=token_method,
    )
    score = min(1.0, max(0.0, w_accuracy * accuracy.score + w_length * length.score))
    reason = (
        f"{w_accuracy:.2f} × accuracy {accuracy.score:.2f} + {w_length:.2f} × length "
        f"{length.score:.2f} = {score:.3f} ({accuracy.reason}; {length.reason})"
    )
    metrics = {
        "combined_reward": MetricResult(score=score, reason=reason, success=correct),
        "accuracy": MetricResult(
            score=accuracy.score, reason=accuracy.reason or "", success=correct
        ),
        "length": MetricResult(
            score=min(1.0, max(0.0, length.score)), reason=length.reason or "", success=correct
        ),
    }
    return EvaluateResult(score=score, reason=reason, metrics=metrics)
