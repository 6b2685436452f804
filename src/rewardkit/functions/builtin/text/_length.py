"""Length rewards: reward a response for its length, linearly or on a cosine schedule."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["cosine_length_reward", "count_tokens", "length_reward"]

_TOKEN_METHODS = ("whitespace", "character", "words")
_SCALINGS = ("linear", "cosine")
_REFERENCE_LENGTH = 100
"""The length that scores 0 when `length_reward` is given no bounds at all."""


def count_tokens(text: str, method: str = "whitespace") -> int:
    """Count a text's tokens: whitespace-separated chunks, characters, or `\\w+` words.

    Example:
        >>> count_tokens("Hello, big world!"), count_tokens("Hello, big world!", "words")
        (3, 3)
    """
    if method == "whitespace":
        return len(text.split())
    if method == "character":
        return len(text)
    if method == "words":
        return len(re.findall(r"\w+", text))
    raise ValueError(f"token_method must be one of {_TOKEN_METHODS} (got {method!r})")


def _ramp_up(progress: float, scaling: str) -> float:
    """0 → 1 as progress goes 0 → 1 (too short: the closer, the better)."""
    return progress if scaling == "linear" else 1.0 - math.cos(progress * math.pi / 2)


def _ramp_down(progress: float, scaling: str) -> float:
    """1 → 0 as progress goes 0 → 1 (too long: the further, the worse)."""
    return 1.0 - _ramp_up(progress, scaling)


def _fall_off(progress: float, scaling: str) -> float:
    """1 → 0 over progress 0 → 1, the cosine variant flat at both ends."""
    return 1.0 - progress if scaling == "linear" else (1.0 + math.cos(progress * math.pi)) / 2


def _length_score(
    n: int, target: int | None, low: int | None, high: int | None, scaling: str
) -> tuple[float, str, bool]:
    """The normalised score in [0, 1], the reason, and whether the length passes."""
    if target is not None:
        deviation = abs(n - target) / target if target > 0 else float(n > 0)
        score = _fall_off(min(1.0, deviation), scaling)
        return score, f"{n} tokens, {deviation:.0%} off the target {target}", deviation < 0.2
    if low is not None and n < low:
        return _ramp_up(n / low, scaling), f"{n} tokens, below the minimum {low}", False
    if high is not None and n > high:
        width = high - low if low is not None and high > low else max(high, 1)
        score = _ramp_down(min(1.0, (n - high) / width), scaling)
        return score, f"{n} tokens, above the maximum {high}", False
    if low is not None or high is not None:
        return 1.0, f"{n} tokens, within [{low or 0}, {high if high is not None else '∞'}]", True
    score = _fall_off(min(1.0, n / _REFERENCE_LENGTH), scaling)
    return score, f"{n} tokens (no bounds: shorter scores higher)", True


def _check_length(name: str, value: int | None) -> None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"length_reward: {name} must be a non-negative integer (got {value!r})")


def _check_range(reward_range: Sequence[float] | None) -> tuple[float, float]:
    if reward_range is None:
        return 0.0, 1.0
    try:
        values = [float(v) for v in reward_range]
    except (TypeError, ValueError):
        values = []
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise ValueError(
            "length_reward: reward_range must be two finite numbers [worst, best] "
            f"(got {reward_range!r})"
        )
    return values[0], values[1]


@reward_function
def length_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    target_length: int | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    token_method: str = "whitespace",
    scaling: str = "linear",
    reward_range: Sequence[float] | None = None,
    **kwargs: Any,
) -> EvaluateResult:
    """Reward the response's length: near a target, inside bounds, or simply short.

    With `target_length` the score falls with the relative distance from it (0 at 100%
    off). With `min_length`/`max_length` it is full inside the bounds, rises towards the
    minimum and falls past the maximum (to 0 one range-width beyond). With neither,
    shorter is better (0 at 100 tokens). The score in [0, 1] is then mapped onto
    `reward_range`; the `length` metric keeps the [0, 1] value.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        target_length: The ideal token count.
        min_length: The fewest acceptable tokens.
        max_length: The most acceptable tokens.
        token_method: `"whitespace"`, `"character"` or `"words"` (see `count_tokens`).
        scaling: `"linear"` or `"cosine"`.
        reward_range: `[worst, best]` scores; defaults to `[0, 1]`.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: a bound is negative, `min_length > max_length`, or an option is unknown.

    Example:
        >>> length_reward(
        ...     [{"role": "assistant", "content": "one two three four"}], target_length=4
        ... ).score
        1.0
    """
    for name, value in (("target_length", target_length), ("min_length", min_length),
                        ("max_length", max_length)):  # fmt: skip
        _check_length(name, value)
    if min_length is not None and max_length is not None and min_length > max_length:
        raise ValueError(f"length_reward: min_length {min_length} exceeds max_length {max_length}")
    if scaling not in _SCALINGS:
        raise ValueError(f"length_reward: scaling must be one of {_SCALINGS} (got {scaling!r})")
    worst, best = _check_range(reward_range)
    count_tokens("", token_method)  # validates the method before any early return
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("length", problem)
    n = count_tokens(text, token_method)
    normalised, reason, ok = _length_score(n, target_length, min_length, max_length, scaling)
    reference = target_length or max_length or min_length or _REFERENCE_LENGTH
    return EvaluateResult(
        score=worst + (best - worst) * normalised,
        reason=reason,
        metrics={
            "length": MetricResult(score=normalised, reason=reason, success=ok),
            "token_count": MetricResult(
                score=min(1.0, n / reference), reason=f"Token count: {n}", success=ok
            ),
        },
    )


@reward_function
def cosine_length_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    correctness: float | None = None,
    is_correct: bool | None = None,
    max_length: int = 1000,
    min_value_wrong: float = 0.0,
    max_value_wrong: float = 0.3,
    min_value_correct: float = 0.5,
    max_value_correct: float = 1.0,
    token_method: str = "whitespace",
    **kwargs: Any,
) -> EvaluateResult:
    """Cosine-scaled length reward: short correct answers best, short wrong ones worst.

    With `progress = min(1, tokens / max_length)` and `c = (1 + cos(progress * pi)) / 2`, a
    correct response scores `min_value_correct + (max_value_correct - min_value_correct) * c`
    and a wrong one `max_value_wrong + (min_value_wrong - max_value_wrong) * c`. The
    `cosine_length` metric holds `c`. A response counts as correct if `is_correct` is true,
    else if `correctness >= 0.9`; with neither given it counts as wrong (the reason says so).

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        correctness: A correctness score in [0, 1].
        is_correct: Whether the response is correct (wins over `correctness`).
        max_length: The length at which the length effect saturates.
        min_value_wrong: The score of the shortest wrong response.
        max_value_wrong: The score of a wrong response of `max_length` tokens or more.
        min_value_correct: The score of a correct response of `max_length` tokens or more.
        max_value_correct: The score of the shortest correct response.
        token_method: `"whitespace"`, `"character"` or `"words"` (see `count_tokens`).
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> result = cosine_length_reward(
        ...     [{"role": "assistant", "content": "42"}], is_correct=True, max_length=100
        ... )
        >>> round(result.score, 4)
        0.9999
    """
    if not isinstance(max_length, int) or max_length <= 0:
        raise ValueError(
            f"cosine_length_reward: max_length must be a positive integer (got {max_length!r})"
        )
    count_tokens("", token_method)
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("cosine_length", problem)
    n = count_tokens(text, token_method)
    correct = is_correct if is_correct is not None else (correctness or 0.0) >= 0.9
    factor = (1.0 + math.cos(min(1.0, n / max_length) * math.pi)) / 2
    if correct:
        score = min_value_correct + (max_value_correct - min_value_correct) * factor
    else:
        score = max_value_wrong + (min_value_wrong - max_value_wrong) * factor
    given = is_correct is not None or correctness is not None
    verdict = "correct" if correct else ("wrong" if given else "wrong (no correctness given)")
    reason = f"{verdict} response of {n}/{max_length} tokens: {score:.3f}"
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={
            "cosine_length": MetricResult(score=factor, reason=reason, success=correct),
            "token_count": MetricResult(
                score=min(1.0, n / max_length), reason=f"Token count: {n}/{max_length}"
            ),
            "correctness": MetricResult(
                score=1.0 if correct else 0.0, reason=verdict, success=correct
            ),
        },
    )
