"""Repetition rewards: penalise repeated n-grams, reward lexical diversity.

Text is split into lower-cased words at whitespace, punctuation stripped from their ends
(so "cat," and "cat" are one word, "n-grams" another), or into characters for languages
written without spaces (`zh`, `ja`, `th`).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["diversity_reward", "get_ngrams", "ngrams", "repetition_penalty_reward"]

_CHARACTER_LANGUAGES = frozenset({"zh", "ja", "th"})
_DEFAULT_SIZES = (1, 2, 3)
_DEFAULT_WEIGHTS = (0.2, 0.3, 0.5)


def ngrams(text: str, n: int, language: str = "en") -> list[tuple[str, ...]]:
    """The n-grams of a text, in order.

    Example:
        >>> ngrams("The cat, the cat.", 2)
        [('the', 'cat'), ('cat', 'the'), ('the', 'cat')]
    """
    if language in _CHARACTER_LANGUAGES:
        tokens = [c for c in text if not c.isspace()]
    else:
        words = (word.strip(string.punctuation) for word in text.casefold().split())
        tokens = [word for word in words if word]
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def get_ngrams(text: str, n: int, language: str = "en") -> tuple[list[tuple[str, ...]], int]:
    """reward-kit 0.4.1's shape of `ngrams`: the n-grams and how many there are.

    Example:
        >>> get_ngrams("to be or not to be", 2)[1]
        5
    """
    grams = ngrams(text, n, language)
    return grams, len(grams)


def _positive_int(function: str, name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{function}: {name} must be a positive integer (got {value!r})")
    return value


@reward_function
def repetition_penalty_reward(
    messages: list[Message],
    ground_truth: Any = None,
    ngram_size: int = 3,
    max_penalty: float = 0.5,
    language: str = "en",
    **kwargs: Any,
) -> EvaluateResult:
    """`1 - repeated * max_penalty`, where `repeated = 1 - unique / total` n-grams.

    An empty response, or one shorter than `ngram_size` words, scores 1.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        ngram_size: The n-gram length.
        max_penalty: The penalty for a text of nothing but repeats, in [0, 1].
        language: A language code; `zh`, `ja` and `th` count characters, not words.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> repetition_penalty_reward(
        ...     [{"role": "assistant", "content": "go go go go go"}], ngram_size=1
        ... ).score
        0.6
    """
    n = _positive_int("repetition_penalty_reward", "ngram_size", ngram_size)
    if not 0.0 <= max_penalty <= 1.0:
        raise ValueError(
            f"repetition_penalty_reward: max_penalty must be in [0, 1] (got {max_penalty!r})"
        )
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("repetition", problem)
    grams = ngrams(text, n, language)
    if not grams:
        reason = f"Too short for {n}-grams: nothing repeats"
        return EvaluateResult(
            score=1.0,
            reason=reason,
            metrics={"repetition": MetricResult(score=1.0, reason=reason, success=True)},
        )
    unique = len(set(grams))
    repeated = 1.0 - unique / len(grams)
    penalty = repeated * max_penalty
    score = 1.0 - penalty
    ok = repeated < 0.2
    reason = f"{unique}/{len(grams)} unique {n}-grams, repetition {repeated:.2f}"
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={
            "repetition": MetricResult(score=score, reason=reason, success=ok),
            "unique_ngram_ratio": MetricResult(
                score=1.0 - repeated, reason=f"Unique {n}-gram ratio {1 - repeated:.2f}", success=ok
            ),
            "repetition_penalty": MetricResult(
                score=1.0 - penalty, reason=f"Penalty {penalty:.2f}", success=ok
            ),
        },
    )


def _weights(sizes: Sequence[int], weights: Sequence[float] | None) -> list[float]:
    if weights is None:
        return list(_DEFAULT_WEIGHTS) if tuple(sizes) == _DEFAULT_SIZES else [1.0] * len(sizes)
    if len(weights) != len(sizes) or any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(
            "diversity_reward: weights must be one non-negative number per n-gram size, "
            f"not all zero (got weights={list(weights)} for ngram_sizes={list(sizes)})"
        )
    return [float(w) for w in weights]


@reward_function
def diversity_reward(
    messages: list[Message],
    ground_truth: Any = None,
    ngram_sizes: Sequence[int] = _DEFAULT_SIZES,
    weights: Sequence[float] | None = None,
    language: str = "en",
    **kwargs: Any,
) -> EvaluateResult:
    """Weighted mean of the unique-n-gram ratios over several n-gram sizes.

    Sizes longer than the response are left out and the remaining weights renormalised,
    so the score stays in [0, 1] for any length. An empty response scores 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        ngram_sizes: The n-gram lengths.
        weights: One weight per size; defaults to 0.2/0.3/0.5 for sizes 1/2/3, else equal.
        language: A language code; `zh`, `ja` and `th` count characters, not words.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> diversity_reward([{"role": "assistant", "content": "Yes, absolutely."}]).score
        1.0
    """
    sizes = [_positive_int("diversity_reward", "ngram_sizes[]", n) for n in ngram_sizes]
    if not sizes:
        raise ValueError("diversity_reward: ngram_sizes must name at least one size")
    weight_of = _weights(sizes, weights)
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("diversity", problem)
    metrics: dict[str, MetricResult] = {}
    parts: list[
        tuple[float, float]
    ] = []  # (weight, ratio) of each size the text is long enough for
    for n, weight in zip(sizes, weight_of, strict=True):
        grams = ngrams(text, n, language)
        if grams:
            ratio = len(set(grams)) / len(grams)
            parts.append((weight, ratio))
            metrics[f"ngram_{n}"] = MetricResult(
                score=ratio, reason=f"Unique {n}-gram ratio {ratio:.2f}", success=ratio > 0.7
            )
    if not parts:
        score, reason = 0.0, "Empty response: no diversity"
    else:
        total = sum(w for w, _ in parts)
        if total == 0:  # only zero-weight sizes apply: weigh them equally
            parts, total = [(1.0, r) for _, r in parts], float(len(parts))
        score = sum(w * r for w, r in parts) / total
        reason = f"Lexical diversity {score:.2f} over {len(parts)} n-gram size(s)"
    metrics["diversity"] = MetricResult(score=score, reason=reason, success=score > 0.6)
    return EvaluateResult(score=score, reason=reason, metrics=metrics)
