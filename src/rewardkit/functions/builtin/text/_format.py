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
_OPEN, _BETWEEN, _CLOSE = "<think>\n", "</think>\n<answer>\n", "</answer>"


def _think_answer(text: str, *, whole: bool) -> bool:
    """What `THINK_ANSWER_FORMAT` says of `text`, in linear time.

    The regex backtracks: after each `</think>\\n<answer>\\n` it reads on to the end for
    `</answer>`, quadratic on that separator repeated. Its verdict is that the text, less a
    final newline (`$`; with `whole`, less trailing whitespace), is `<think>\\n`, anything
    holding the separator, then `</answer>`.
    """
    core = text.rstrip() if whole else text.removesuffix("\n")
    if not (core.startswith(_OPEN) and core.endswith(_CLOSE)):
        return False
    return core.find(_BETWEEN, len(_OPEN), len(core) - len(_CLOSE)) >= 0


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
    The default pattern is checked in linear time, with the regex's verdicts; any other
    is run by Python's `re`, which can take quadratic time or worse on some responses to
    some patterns (nested or adjacent `.*?`): keep your own patterns simple.

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
    if format_regex == THINK_ANSWER_FORMAT:
        matched = _think_answer(text, whole=require_exact_match)
    elif require_exact_match:
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
    score_per_tag: float = 0.25,
    require_balanced: bool = True,
    **kwargs: Any,
) -> EvaluateResult:
    """Credit for each required tag present, minus a penalty for each unbalanced one.

    A tag counts when it appears (opened or closed) and, if `require_balanced`, is opened
    as often as it is closed. The score is `min(1, counted * score_per_tag)`, minus
    `score_per_tag` per unbalanced tag when `require_balanced`, floored at 0. The
    `overall` metric passes when every required tag counts.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        required_tags: Tag names without brackets, e.g. `["think", "answer"]`.
        score_per_tag: Credit per tag (0.25, as in reward-kit 0.4.1; use
            `1 / len(required_tags)` for 1.0 when all are there).
        require_balanced: Count only, and penalise, tags opened and closed a different
            number of times.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> tag_count_reward(
        ...     [{"role": "assistant", "content": "<think>x</think><answer>4</answer>"}],
        ...     required_tags=["think", "answer"],
        ...     score_per_tag=0.5,
        ... ).score
        1.0
    """
    if not required_tags:
        raise ValueError("tag_count_reward: required_tags must name at least one tag")
    if not 0.0 <= score_per_tag <= 1.0:
        raise ValueError(f"tag_count_reward: score_per_tag must be in [0, 1] (got {score_per_tag})")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("tag_count", problem)
    metrics: dict[str, MetricResult] = {}
    counted = unbalanced = 0
    for tag in required_tags:
        opening, closing = _tag_counts(text, tag)
        balanced = opening == closing
        ok = (opening or closing) > 0 and (balanced or not require_balanced)
        counted += ok
        unbalanced += not balanced
        metrics[f"tag_{tag}"] = MetricResult(
            score=1.0 if ok else 0.0, reason=_tag_reason(tag, opening, closing), success=ok
        )
    penalty = score_per_tag * unbalanced if require_balanced else 0.0
    score = max(0.0, min(1.0, counted * score_per_tag) - penalty)
    reason = f"{counted}/{len(required_tags)} required tags present, {unbalanced} unbalanced"
    metrics["overall"] = MetricResult(
        score=score, reason=reason, success=counted == len(required_tags)
    )
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _tag_reason(tag: str, opening: int, closing: int) -> str:
    if opening == closing == 0:
        return f"No '{tag}' tag"
    if opening == closing:
        return f"{opening} balanced '{tag}' tag(s)"
    return f"Unbalanced '{tag}' tags: opened {opening} time(s), closed {closing} time(s)"
