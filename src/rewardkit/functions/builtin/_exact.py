"""Exact-match rewards: the response (or its extracted answer) equals the reference.

`exact_match_reward` compares normalised text; `accuracy_reward` (reward-kit's name)
extracts a final answer first and compares numbers numerically. Neither gives partial
credit and neither has special cases for particular values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._answers import (
    as_number,
    extract_answer,
    normalize_answer,
    tag_content,
)
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    reference_texts,
    response_text,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["accuracy_reward", "exact_match_reward"]


def _answers_equal(answer: str, reference: str) -> float:
    """1.0 if equal as numbers (relative tolerance 1e-9) or as normalised text."""
    a, b = as_number(answer), as_number(reference)
    if a is not None and b is not None:
        return 1.0 if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) else 0.0
    return 1.0 if normalize_answer(answer) == normalize_answer(reference) else 0.0


def _checked(compare: Callable[[str, str], float], answer: str, reference: str) -> float:
    value = float(compare(answer, reference))
    if not math.isfinite(value):
        raise ValueError(
            f"accuracy_reward: compare_fn returned {value}; it must return a finite score"
        )
    return min(1.0, max(0.0, value))


@reward_function
def exact_match_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    case_sensitive: bool = False,
    ignore_punctuation: bool = False,
    answer_tag: str | None = "answer",
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response equals a reference answer after normalisation, else 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference: a string, a message, the expected messages, or a
            list of acceptable strings.
        case_sensitive: Compare case as well.
        ignore_punctuation: Remove punctuation before comparing.
        answer_tag: When the response has `<answer_tag>...</answer_tag>`, compare only the
            last such block; `None` always compares the whole response.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> exact_match_reward(
        ...     [{"role": "assistant", "content": "<answer> Paris. </answer>"}],
        ...     ground_truth="paris",
        ... ).score
        1.0
    """
    references = reference_texts(ground_truth, function="exact_match_reward")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("exact_match", problem)
    if answer_tag is not None:
        text = tag_content(text, answer_tag) or text

    def norm(s: str) -> str:
        return normalize_answer(
            s, case_sensitive=case_sensitive, ignore_punctuation=ignore_punctuation
        )

    matched = norm(text) in {norm(ref) for ref in references}
    reason = (
        f"Response matches the reference {references[0]!r}"
        if matched
        else f"Response {text.strip()!r:.200} matches none of {len(references)} reference(s)"
    )
    score = 1.0 if matched else 0.0
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"exact_match": MetricResult(score=score, reason=reason, success=matched)},
    )


@reward_function
def accuracy_reward(
    messages: list[Message],
    ground_truth: Any = None,
    extract_fn: Callable[[str], str] | None = None,
    compare_fn: Callable[[str, str], float] | None = None,
    **kwargs: Any,
) -> EvaluateResult:
    """Extract the final answer and compare it with the reference answer.

    By default the answer comes from `extract_answer` and is compared as a number when
    both sides are numbers (relative tolerance 1e-9), else as normalised text. The score
    is 0.0 or 1.0, or whatever `compare_fn` returns (clamped to [0, 1]).

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference answer (see `exact_match_reward`); the expected
            messages are accepted as in reward-kit.
        extract_fn: `text -> answer`; defaults to `extract_answer`.
        compare_fn: `(answer, reference) -> score in [0, 1]`.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> accuracy_reward(
        ...     [{"role": "assistant", "content": "So the answer is 1,000."}],
        ...     ground_truth=[{"role": "assistant", "content": "1000"}],
        ... ).score
        1.0
    """
    references = reference_texts(ground_truth, function="accuracy_reward")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("answer_accuracy", problem)
    answer = (extract_fn or extract_answer)(text)
    expected = [extract_answer(ref) for ref in references]
    score = max(_checked(compare_fn or _answers_equal, answer, ref) for ref in expected)
    reason = f"Extracted answer {answer!r:.200} vs expected {expected[0]!r:.200}: {score:.2f}"
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"answer_accuracy": MetricResult(score=score, reason=reason, success=score == 1.0)},
    )
