"""`math_reward`: is the response's final answer mathematically equal to the reference?

Parsing and equivalence come from HuggingFace `math-verify` (the `math` extra), so
`\\frac{1}{2}`, `0.5` and `1/2` are equal and sets, intervals and expressions compare
symbolically. The answer is read from the last `<answer>` block if there is one, else
from the GSM8K `####` line, else from the whole response, where `math-verify` prefers
the last `\\boxed{}` and otherwise the final expression.
"""

from __future__ import annotations

import functools
import math
import threading
from types import ModuleType
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._answers import tag_content
from rewardkit.functions.builtin._extras import require
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    reference_texts,
    response_text,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["math_reward"]


def _math_verify() -> ModuleType:
    return require("math_verify", package="math-verify", extra="math", function="math_reward")


def _timeout() -> int | None:
    # math-verify times out with SIGALRM, which only the main thread may use; elsewhere
    # it would fail every parse and silently score 0, so run without its timeout there.
    return 5 if threading.current_thread() is threading.main_thread() else None


def _answer_region(text: str) -> str:
    tagged = tag_content(text, "answer")
    if tagged is not None:
        return tagged
    if "####" in text:
        return text.rsplit("####", 1)[1].strip()
    return text


def _parse(mv: ModuleType, text: str) -> list[Any]:
    return list(mv.parse(text, parsing_timeout=_timeout()))


@functools.lru_cache(maxsize=1024)
def _parse_reference(reference: str) -> tuple[Any, ...]:
    """The parsed reference; cached, since RL scores many responses per reference."""
    mv = _math_verify()
    # A bare reference such as `\sqrt{2}` or `{1, 2}` is LaTeX without delimiters.
    return tuple(_parse(mv, reference) or _parse(mv, f"${reference}$"))


def _numeric(parsed: list[Any]) -> float | None:
    try:
        value = complex(parsed[0])
    except (TypeError, ValueError, IndexError):
        return None
    return value.real if value.imag == 0 and math.isfinite(value.real) else None


def _close(gold: list[Any], answer: list[Any], rel: float | None, abs_: float | None) -> bool:
    if rel is None and abs_ is None:
        return False
    a, b = _numeric(gold), _numeric(answer)
    if a is None or b is None:
        return False
    return math.isclose(a, b, rel_tol=rel or 0.0, abs_tol=abs_ or 0.0)


@reward_function
def math_reward(
    messages: list[Message],
    ground_truth: Any = None,
    tolerance: float | None = None,
    absolute_tolerance: float | None = None,
    require_units: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's final answer equals `ground_truth` mathematically, else 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference answer, e.g. `"42"`, `"\\\\frac{1}{2}"`, `42`, the
            expected messages, or a list of acceptable answers; positional or keyword.
        tolerance: Also accept numeric answers within this relative tolerance.
        absolute_tolerance: Also accept numeric answers within this absolute tolerance.
        require_units: Not supported; `True` raises `ValueError`.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ImportError: `math-verify` is missing (install `rewardkit[math]`).
        ValueError: `ground_truth` is missing or holds no parsable answer.

    Example:
        >>> math_reward(
        ...     [{"role": "assistant", "content": "Half of 1 is \\\\boxed{0.5}."}],
        ...     "\\\\frac{1}{2}",
        ... ).score
        1.0
    """
    if require_units:
        raise ValueError("math_reward: require_units=True is not supported; drop it.")
    if ground_truth is None:
        raise ValueError('math_reward needs ground_truth, the expected answer (e.g. "42").')
    references = reference_texts(ground_truth, function="math_reward")
    mv = _math_verify()
    golds = [list(_parse_reference(reference)) for reference in references]
    for reference, gold in zip(references, golds, strict=True):
        if not gold:
            raise ValueError(
                f"math_reward: no answer could be parsed from ground_truth {reference!r}"
            )
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("math_answer", problem)
    answer = _parse(mv, _answer_region(text))
    expected = " or ".join(repr(reference) for reference in references)
    if not answer:
        reason = f"No final answer found in the response (expected {expected:.200})"
        correct = False
    else:
        correct = any(
            mv.verify(gold, answer, timeout_seconds=_timeout())
            or _close(gold, answer, tolerance, absolute_tolerance)
            for gold in golds
        )
        shown = answer[-1] if isinstance(answer[-1], str) else answer[0]
        verdict = "equals" if correct else "does not equal"
        reason = f"Answer {shown!s:.200} {verdict} the expected {expected:.200}"
    score = 1.0 if correct else 0.0
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"math_answer": MetricResult(score=score, reason=reason, success=correct)},
    )
