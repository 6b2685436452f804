"""Exact-match rewards: the response (or its extracted answer) equals the reference.

`exact_match_reward` compares normalised text; `accuracy_reward` (reward-kit's name)
extracts a final answer first and compares numbers numerically (a correctly rounded
answer counts). Neither gives partial credit and neither has special cases for
particular values (reward-kit 0.4.1 has one for 3.14).
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
    numbers_match,
    tag_content,
    without_filler,
)
from rewardkit.functions.builtin._response import (
    NoResponse,
    field,
    no_response,
    reference_texts,
    response_text,
    zero_result,
)
from rewardkit.functions.builtin.math._equal import texts_equal
from rewardkit.functions.builtin.math._final import final_answer
from rewardkit.functions.builtin.math._parse import parse_answer
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["accuracy_reward", "exact_match_reward"]


def _answers_equal(answer: str, reference: str) -> float:
    """1.0 if equal as plain numbers (see `numbers_match`: a correctly rounded answer
    counts), as math (`texts_equal`: `\\frac{1}{2}` is `0.5`, `(0,9)` is not `[0,9)`), or,
    for what is not math, as normalised text."""
    a, b = as_number(answer), as_number(reference)
    if a is not None and b is not None:
        return 1.0 if numbers_match(a, b) else 0.0
    same = texts_equal(reference, answer)
    if same is not None:
        return 1.0 if same else 0.0
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

    By default the answer comes from `extract_answer` (a short response is its own
    answer) and is compared as a number when both sides are numbers (see
    `numbers_match`), else as normalised text. The score is 0.0 or 1.0, or whatever
    `compare_fn` returns (clamped to [0, 1]). A missing or empty `ground_truth`, or a
    response with no answer in it, scores 0.0 with the reason in the metrics
    (`accuracy`, `answer_extraction`).

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference answer (see `exact_match_reward`); the expected
            messages are accepted as in reward-kit.
        extract_fn: `text -> answer`; defaults to `extract_answer`.
        compare_fn: `(answer, reference) -> score in [0, 1]`.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> accuracy_reward(
        ...     [{"role": "assistant", "content": "3x = 12. Therefore, x = 4."}],
        ...     ground_truth=[{"role": "assistant", "content": "4"}],
        ... ).score
        1.0
    """
    problem = _ground_truth_problem(ground_truth)
    if problem is not None:
        return zero_result("accuracy", problem)
    try:
        references = reference_texts(ground_truth, function="accuracy_reward")
        text = response_text(messages)
    except TypeError as exc:
        return zero_result("accuracy", f"Ground truth not usable: {exc}")
    except NoResponse as no:
        return no_response("answer_accuracy", no)
    answer = (extract_fn or _final_or_bare)(text)
    if not answer:
        return zero_result(
            "answer_extraction", f"No answer found in the response {text.strip()!r:.120}"
        )
    expected = [_reference_answer(ref) for ref in references]
    score = max(_checked(compare_fn or _answers_equal, answer, ref) for ref in expected)
    reason = f"Extracted answer {answer!r:.200} vs expected {expected[0]!r:.200}: {score:.2f}"
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"answer_accuracy": MetricResult(score=score, reason=reason, success=score == 1.0)},
    )


def _reference_answer(reference: str) -> str:
    """The reference itself when it is math (`x=4` keeps its `x`), else its extracted
    answer ("The answer is 4." gives `4`)."""
    parsed = parse_answer(reference.strip().strip("$"))
    if parsed is not None and parsed[0] != "text":
        return reference.strip()
    return extract_answer(reference) or reference.strip()


def _final_or_bare(text: str) -> str:
    """The final answer the response commits to (`final_answer`: tags, boxes, `####`,
    "the answer is"), else `_extract_or_bare`'s."""
    final = final_answer(text)
    if final is None or (final.hedged and final.where == "math"):
        return _extract_or_bare(text)  # "So $x = 4$ or $x = -1$": reward-kit reads the last
    return without_filler(final.text)  # a rounded answer counts here


def _extract_or_bare(text: str) -> str:
    """`extract_answer`, or the response itself when it is a bare answer (≤ 5 words)."""
    answer = extract_answer(text)
    if not answer and len(text.split()) <= 5:
        return text.strip().rstrip(".")
    return answer


def _ground_truth_problem(ground_truth: Any) -> str | None:
    """Why `ground_truth` holds no reference answer, or None when it may hold one."""
    if ground_truth is None or (isinstance(ground_truth, list | tuple) and not ground_truth):
        return "Ground truth not provided: pass the expected answer as ground_truth."
    messages = isinstance(ground_truth, list | tuple) and all(
        field(m, "role") is not None and not isinstance(m, str) for m in ground_truth
    )
    if messages and all(field(m, "content") in (None, "", []) for m in ground_truth):
        return "Ground truth message has no content: it holds no expected answer."
    return None
