"""`math_reward`: are the response's answers the reference's?

Numbers are read with `extract_numbers` (`\\frac{1}{2}`, `0.5` and `1/2` are equal);
a reference with no number in it (sets, intervals, `\\sqrt{2}`, expressions), and a
one-answer reference or final box with structure a number reader would cut (`2\\pi`,
`4\\sqrt2`, `\\pm`, relations, intervals, a signed fraction: `_STRUCTURE`), is
compared symbolically by HuggingFace `math-verify` (the `math` extra), which reads the
last `<answer>` block, else the GSM8K `####` line, else the last `\\boxed{}` or final
expression, in the last 8,000 characters of that region.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from types import ModuleType
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._answers import boxed_content, tag_content
from rewardkit.functions.builtin._extras import require
from rewardkit.functions.builtin._numbers import (
    Extracted,
    box_spans,
    compare_numbers,
    extract_numbers,
    has_unit,
)
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


_MAX_VERIFIED = 8_000
"""math-verify reads at most the last this many characters of the answer region (its
final answer is at the end; the whole of a long chain of thought would cost seconds)."""


def _answer_region(text: str) -> str:
    tagged = tag_content(text, "answer")
    if tagged is None and "####" in text:
        tagged = text.rsplit("####", 1)[1].strip()
    region = text if tagged is None else tagged
    return region[-_MAX_VERIFIED:]


def _parse(mv: ModuleType, text: str) -> list[Any]:
    return list(mv.parse(text, parsing_timeout=_timeout()))


@functools.lru_cache(maxsize=1024)
def _parse_reference(reference: str) -> tuple[Any, ...]:
    """The parsed reference; cached, since RL scores many responses per reference."""
    mv = _math_verify()
    # A bare reference such as `2\pi` or `{1, 2}` is LaTeX without delimiters: read as
    # plain text, only its `2` would be found.
    return tuple(_parse(mv, f"${reference}$") or _parse(mv, reference))


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


def _verify_symbolically(
    reference: str, text: str, tolerance: float | None, absolute_tolerance: float | None
) -> tuple[bool, str] | None:
    """math-verify's verdict on a reference with no number in it (`\\sqrt{2}`, sets)."""
    gold = list(_parse_reference(reference))
    if not gold:
        return None
    mv = _math_verify()
    answer = _parse(mv, _answer_region(text))
    if not answer:
        return False, "No final answer found in the response"
    correct = bool(
        mv.verify(gold, answer, timeout_seconds=_timeout())
        or _close(gold, answer, tolerance, absolute_tolerance)
    )
    shown = answer[-1] if isinstance(answer[-1], str) else answer[0]
    verdict = "equals" if correct else "does not equal"
    return correct, f"Answer {shown!s:.200} {verdict} the expected {reference!r:.200}"


@reward_function
def math_reward(
    messages: list[Message],
    ground_truth: Any = None,
    tolerance: float | None = None,
    absolute_tolerance: float | None = None,
    require_units: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's answers are the reference's, else 0.0.

    Answers are read with `extract_numbers` from both sides (`<answer>` tags, then
    `\\boxed{}`, then `####`, then every number). The response scores 1.0 when:

    - the reference has one answer and the response's only answer, or its final one
      when it states several numbers, equals it (reward-kit 0.4.1 scores 0 whenever
      other numbers appear; we let the final answer count);
    - the reference has several answers and the response states each of them and no
      other number.

    A response offering alternatives with an unboxed "or" scores 0. A reference with no
    number in it (`\\sqrt{2}`, `{1, 2}` as a set, `x + 1`) is compared symbolically with
    `math-verify` (the `math` extra). Missing ground truth scores 0 with a reason.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference answer, e.g. `"42"`, `"\\frac{1}{2}"`, `42`, the
            expected messages, or a list of acceptable answers; positional or keyword.
        tolerance: Accept numbers within this relative tolerance (default: equal).
        absolute_tolerance: Accept numbers within this absolute tolerance.
        require_units: The response must state a unit exactly when the reference does.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> math_reward(
        ...     [{"role": "assistant", "content": "Half of 1 is \\\\boxed{0.5}."}],
        ...     "\\\\frac{1}{2}",
        ... ).score
        1.0
    """
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("math_answer", problem)
    try:
        references = reference_texts(ground_truth, function="math_reward")
    except TypeError as exc:
        reason = (
            "Ground truth not provided: pass the expected answer as ground_truth."
            if ground_truth is None
            else str(exc)
        )
        return _verdict(False, reason, {})
    tolerances = (tolerance or 1e-9, absolute_tolerance or 1e-12)
    best: tuple[bool, str, dict[str, MetricResult]] | None = None
    for reference in references:
        verdict = _score_one(
            text, reference, tolerances, require_units, (tolerance, absolute_tolerance)
        )
        if best is None or (verdict[0] and not best[0]):
            best = verdict
    assert best is not None  # reference_texts never returns an empty list
    return _verdict(*best)


_HEDGE_BOXES = 3
"""This many different boxed answers is a list of candidates, not an answer (two are a
draft and its correction: the last box wins)."""


def _boxed_values(text: str) -> set[str]:
    """The distinct contents of the response's `\\boxed{}`s, spaces ignored, up to
    `_HEDGE_BOXES` of them (a box of over 500 characters is no answer: nested boxes would
    otherwise cost memory quadratic in their depth)."""
    values: set[str] = set()
    for start, end in box_spans(text) or []:
        begin = start + len("\\boxed{")
        if end - begin <= 500:
            values.add(re.sub(r"\s+", "", text[begin:end]))
            if len(values) >= _HEDGE_BOXES:
                break
    return values


_STRUCTURE = re.compile(
    r"\\(?:pi|sqrt|pm|mp|infty|cdot|times|div|le|ge|leq|geq|neq|ne|lt|gt|cup|cap|in"
    r"|begin|log|ln|sin|cos|tan|exp)(?![a-zA-Z])|[<>=^]|^\s*-\s*\\[dt]?frac"
    r"|[(\[][^()\[\]]*,[^()\[\]]*[)\]]|\\\{"
)
"""What the number reader would take a part of for the whole: a constant or a radical
(`2\\pi`, `4\\sqrt2`), `\\pm`, a power, a relation (`x>5`, `y=2x+1`), an interval or a
tuple with its brackets (`(0,9)`), a set, a matrix, a function, a signed `\\frac`."""


def _structured(reference: str, text: str) -> bool:
    """The reference, or the response's last box, has structure a number reader would lose,
    so math-verify compares them."""
    boxed = boxed_content(text)
    return any(_STRUCTURE.search(side) for side in (reference, boxed or ""))


@functools.cache
def _has_math_verify() -> bool:
    import importlib.util

    return importlib.util.find_spec("math_verify") is not None


def _verdict(correct: bool, reason: str, metrics: dict[str, MetricResult]) -> EvaluateResult:
    score = 1.0 if correct else 0.0
    metrics = {**metrics, "math_answer": MetricResult(score=score, reason=reason, success=correct)}
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _score_one(
    text: str,
    reference: str,
    tolerances: tuple[float, float],
    require_units: bool,
    raw_tolerances: tuple[float | None, float | None],
) -> tuple[bool, str, dict[str, MetricResult]]:
    """(correct, reason, metrics) of the response against one reference."""
    orig, gen = extract_numbers(reference), extract_numbers(text)
    metrics = {
        "extracted_original_answers": _listing("original message (ground truth)", orig),
        "extracted_generated_answers": _listing("generated message", gen),
    }
    single = len(orig) == 1
    boxed = _boxed_values(text) if single else set()
    if len(boxed) >= _HEDGE_BOXES:
        return False, f"Strictness fail (hedging): {len(boxed)} different boxed answers", metrics
    if not orig or (single and _structured(reference, text) and _has_math_verify()):
        symbolic = (
            _verify_symbolically(reference, text, *raw_tolerances)
            if orig or "\\" in reference or "{" in reference
            else None
        )
        if symbolic is not None:
            return (*symbolic, metrics)
        if not orig:
            return False, "Could not extract answers from original message (ground truth).", metrics
    if not gen:
        return False, "Could not extract answers from generated message.", metrics
    if len(gen) > 1 and _unboxed_or(text):
        metrics["strictness_penalty_unboxed_or"] = _penalty(_UNBOXED_OR)
        return False, f"Strictness fail (Issue #1 - Unboxed 'or'): {_UNBOXED_OR}", metrics
    if require_units and any(has_unit(a) != has_unit(b) for a, _ in orig for b, _ in gen):
        return False, "Unit presence mismatch between the generated and expected answers.", metrics
    if len(orig) == 1:
        return _single(orig[0][1], gen, tolerances, metrics)
    return _several([v for _, v in orig], [v for _, v in gen], tolerances, metrics)


def _single(
    expected: float | str,
    gen: list[Extracted],
    tolerances: tuple[float, float],
    metrics: dict[str, MetricResult],
) -> tuple[bool, str, dict[str, MetricResult]]:
    values = _distinct([v for _, v in gen], tolerances)
    final = gen[-1][1]
    if _same(expected, final, tolerances):
        more = (
            f" (the response also states {len(values) - 1} other value(s))"
            if len(values) > 1
            else ""
        )
        return True, f"Final answer {final!r} equals the expected {expected!r}{more}.", metrics
    if len(values) > 1:
        metrics["strictness_penalty_ambiguity"] = _penalty(_AMBIGUOUS)
        return (
            False,
            f"Strictness fail (Issue #2 - Ambiguity): {_AMBIGUOUS} The final answer {final!r} "
            f"is not the expected {expected!r}.",
            metrics,
        )
    return False, f"Answer {final!r} does not equal the expected {expected!r}.", metrics


def _several(
    expected: list[float | str],
    gen: list[float | str],
    tolerances: tuple[float, float],
    metrics: dict[str, MetricResult],
) -> tuple[bool, str, dict[str, MetricResult]]:
    others = _distinct(
        [g for g in gen if not any(_same(e, g, tolerances) for e in expected)], tolerances
    )
    if others:
        return (
            False,
            "Strictness fail (Conflicting Answers): Generated answer includes other distinct "
            f"numerical values not matching any original answer: {sorted(others, key=str)}",
            metrics,
        )
    missing = [e for e in expected if not any(_same(e, g, tolerances) for g in gen)]
    if missing:
        return False, f"Generated answer misses expected answer(s): {missing}", metrics
    return True, f"All {len(expected)} expected answers found, and no other.", metrics


_UNBOXED_OR = (
    "Generated answer offers multiple numeric alternatives with an unboxed 'or' in the raw "
    "response."
)
_AMBIGUOUS = (
    "Ground truth is specific (one answer), but generated answer is ambiguous (multiple "
    "answers extracted, even after potential leniency)."
)


def _penalty(reason: str) -> MetricResult:
    return MetricResult(score=0.0, reason=reason, success=False)


def _listing(where: str, answers: list[Extracted]) -> MetricResult:
    values = [value for _, value in answers]
    return MetricResult(
        score=1.0 if answers else 0.0,
        reason=f"Extracted from {where}: {values}" if answers else f"No answer in the {where}",
        success=bool(answers),
    )


def _unboxed_or(text: str) -> bool:
    """An "or" outside every `\\boxed{}` (alternatives offered, not one answer)."""
    return bool(re.search(r"\bor\b", re.sub(r"\\boxed\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", "", text)))


def _same(a: float | str, b: float | str, tolerances: tuple[float, float]) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return compare_numbers(a, b, *tolerances)[0]
    if isinstance(a, str) and isinstance(b, str):
        return _squash(a) == _squash(b)
    return False


def _squash(text: str) -> str:
    return re.sub(r"\\text\{\s*(\w+)\s*\}|\s+", r"\1", text).lower()


def _distinct(values: list[float | str], tolerances: tuple[float, float]) -> list[float | str]:
    kept: list[float | str] = []
    for value in values:
        if not any(_same(value, k, tolerances) for k in kept):
            kept.append(value)
    return kept
