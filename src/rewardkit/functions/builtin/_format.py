"""Format rewards: the response matches a regular expression, or has the required tags."""

from __future__ import annotations

import functools
import re
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["THINK_ANSWER_FORMAT", "format_reward", "tag_count_reward"]

THINK_ANSWER_FORMAT = r"^<think>\n.*?</think>\n<answer>\n.*?</answer>$"
"""The default of `format_reward`: a `<think>` block, then an `<answer>` block."""


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise ValueError(
            f"format_reward: format_regex {pattern!r} is not a valid regular expression "
            f"({exc}). Fix the pattern, e.g. escape literal brackets as \\["
        ) from None


@reward_function
def format_reward(
    messages: list[Message],
    ground_truth: Any = None,
    format_regex: str = THINK_ANSWER_FORMAT,
    require_exact_match: bool = True,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response follows `format_regex`, else 0.0.

    The pattern is compiled with `re.DOTALL`. With `require_exact_match` the *whole*
    response must match (trailing whitespace aside); otherwise a match anywhere counts.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        format_regex: The pattern; defaults to `THINK_ANSWER_FORMAT`.
        require_exact_match: Require the pattern to match the entire response.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `format_regex` is not a valid regular expression.

    Example:
        >>> text = "<think>\\nhmm\\n</think>\\n<answer>\\n4\\n</answer>"
        >>> format_reward([{"role": "assistant", "content": text}]).score
        1.0
    """
    pattern = _compile(format_regex)
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("format_check", problem)
    if require_exact_match:
        matched = bool(pattern.fullmatch(text) or pattern.fullmatch(text.rstrip()))
    else:
        matched = pattern.search(text) is not None
    how = "the whole response" if require_exact_match else "part of the response"
    reason = f"Format {'matches' if matched else 'does not match'} {format_regex!r} ({how})"
    score = 1.0 if matched else 0.0
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"format_check": MetricResult(score=score, reason=reason, success=matched)},
    )


def _tag_counts(text: str, tag: str) -> tuple[int, int]:
    name = re.escape(tag)
    opening = len(re.findall(rf"<{name}(?:\s[^<>]*)?>", text))
    closing = len(re.findall(rf"</{name}\s*>", text))
    return opening, closing


@reward_function
def tag_count_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    required_tags: list[str],
    score_per_tag: float | None = None,
    require_balanced: bool = True,
    **kwargs: Any,
) -> EvaluateResult:
    """Credit for each required tag present, minus a penalty for each unbalanced one.

    A tag is present when it is opened and closed at least once, and balanced when it is
    opened as often as it is closed. The score is `min(1, present * score_per_tag)`,
    minus `score_per_tag` per unbalanced tag when `require_balanced`, floored at 0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        required_tags: Tag names without brackets, e.g. `["think", "answer"]`.
        score_per_tag: Credit per tag; defaults to `1 / len(required_tags)`, so all tags
            present and balanced score 1.0.
        require_balanced: Penalise tags opened and closed a different number of times.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> tag_count_reward(
        ...     [{"role": "assistant", "content": "<think>x</think><answer>4</answer>"}],
        ...     required_tags=["think", "answer"],
        ... ).score
        1.0
    """
    if not required_tags:
        raise ValueError("tag_count_reward: required_tags must name at least one tag")
    per_tag = 1.0 / len(required_tags) if score_per_tag is None else score_per_tag
    if not 0.0 <= per_tag <= 1.0:
        raise ValueError(f"tag_count_reward: score_per_tag must be in [0, 1] (got {per_tag})")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("overall", problem)
    metrics: dict[str, MetricResult] = {}
    present = unbalanced = 0
    for tag in required_tags:
        opening, closing = _tag_counts(text, tag)
        found, balanced = opening > 0 and closing > 0, opening == closing
        present += found
        unbalanced += not balanced
        ok = found and (balanced or not require_balanced)
        metrics[f"tag_{tag}"] = MetricResult(
            score=1.0 if ok else 0.0,
            reason=f"<{tag}> opened {opening} time(s), closed {closing} time(s)",
            success=ok,
        )
    penalty = per_tag * unbalanced if require_balanced else 0.0
    score = max(0.0, min(1.0, present * per_tag) - penalty)
    reason = f"{present}/{len(required_tags)} required tags present, {unbalanced} unbalanced"
    metrics["overall"] = MetricResult(score=score, reason=reason, success=score == 1.0)
    return EvaluateResult(score=score, reason=reason, metrics=metrics)
