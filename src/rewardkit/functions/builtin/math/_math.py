"""`math_reward`: is the response's final answer the reference's?

The final answer is read from the end of the response (`_final`: answer tags, the last
boxes, GSM8K `####`, "the answer is", a closing `$...$`) and the reference is read whole (or,
when it is a sentence, by the same rules); both are parsed (`_parse`) and compared
(`_equal`): numbers exactly, expressions symbolically, intervals, sets, tuples,
matrices, equations and inequalities by what they mean. What our parser cannot read is
judged by HuggingFace `math-verify` (the `math` extra) on the two extracted answers, under
a hard deadline (`_symbolic`). A response with no marked final answer, or a reference that
is prose, is read as reward-kit 0.4.1 reads it: every number (`extract_numbers`).

Over 350 lines: `math_reward`'s reading of both answers and its documented verdicts (units,
several answers, unfinished work), one rule each.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._extras import missing
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    reference_texts,
    response_text,
)
from rewardkit.functions.builtin.math._equal import Tolerance, same_answer, unwrap
from rewardkit.functions.builtin.math._final import Final, cut_off, final_answer, prose
from rewardkit.functions.builtin.math._numbers import (
    Extracted,
    compare_numbers,
    extract_numbers,
    has_unit,
)
from rewardkit.functions.builtin.math._parse import Node, parse_answer
from rewardkit.functions.builtin.math._value import symbols
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["math_reward"]


@reward_function
def math_reward(
    messages: list[Message],
    ground_truth: Any = None,
    tolerance: float | None = None,
    absolute_tolerance: float | None = None,
    require_units: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's final answer is the reference's, else 0.0.

    The final answer is the one the response commits to, read from its end (answer tags,
    the last boxes, `####`, "the answer is", closing math); the reference is read whole, or
    by the same rules when it is a sentence. They are equal when they mean the same:
    numbers exactly (`\\frac{1}{2}` is `0.5`, `0.333` is not `\\frac13`), expressions,
    equations, intervals, sets, tuples and matrices by what they state, percent, degrees
    and units by their value (docs/reward-functions.md, "Math answers"). A hedge ("12 or
    14", three different boxes) or a cut-off answer scores 0. What our parser cannot read
    goes to `math-verify` (the `math` extra) under a deadline. A prose reference with an
    unmarked response is read as reward-kit 0.4.1 reads it: every number, the final one
    counting. Missing ground truth scores 0 with a reason.

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
    final = final_answer(text)
    tolerances = (tolerance, absolute_tolerance)
    best: tuple[bool, str, dict[str, MetricResult]] | None = None
    for reference in references:
        verdict = _score_one(text, final, reference, tolerances, require_units)
        if best is None or (verdict[0] and not best[0]):
            best = verdict
    assert best is not None  # reference_texts never returns an empty list
    return _verdict(*best)


def _verdict(correct: bool, reason: str, metrics: dict[str, MetricResult]) -> EvaluateResult:
    score = 1.0 if correct else 0.0
    metrics = {**metrics, "math_answer": MetricResult(score=score, reason=reason, success=correct)}
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _score_one(
    text: str,
    final: Final | None,
    reference: str,
    tolerances: tuple[float | None, float | None],
    require_units: bool,
) -> tuple[bool, str, dict[str, MetricResult]]:
    """(correct, reason, metrics) of the response, whose final answer is `final`, against one
    reference; `tolerances` are the user's (relative, absolute), None when not given."""
    relative, absolute = tolerances
    gold = _gold(reference)
    if gold is not None:
        if final is not None:
            return _judged(gold, final, (relative or 0.0, absolute or 0.0), require_units)
        if gold[1] is None:
            reason = "Could not extract answers from original message (ground truth)"
            return False, f"{reason}, nor a final answer from the response.", {}
        unfinished = cut_off(text) or _unfinished(text)
        if unfinished is None and _structured(gold[1]):
            unfinished = "no marked final answer, and the reference is not a plain number"
        if unfinished is not None:
            return False, f"Could not extract answers from generated message: {unfinished}", {}
    numbers = (relative or 1e-9, absolute or 1e-12)
    return _by_numbers(text, reference, numbers, require_units)


def _gold(reference: str) -> tuple[str, Node | None] | None:
    """`_read_gold`, cached for references of up to 4,096 characters (RL scores many
    responses per reference)."""
    return _read_gold(reference) if len(reference) <= 4096 else _read_gold.__wrapped__(reference)


@functools.lru_cache(maxsize=1024)
def _read_gold(reference: str) -> tuple[str, Node | None] | None:
    """The reference's answer (its text and parse): the reference itself when it is one
    (`"\\frac{1}{2}"`, `"$x > 5$"`), else its marked final answer ("Answer: \\boxed{4}"),
    else None (prose: read by numbers)."""
    whole = reference.strip().strip("$").strip()
    if not whole:
        return None
    final = final_answer(reference)
    marked = final is not None and final.where not in ("math", "closing")
    if final is not None and marked and "\\boxed" in reference:
        return final.text, parse_answer(final.text)  # \\boxed{1}\\boxed{2}: the list 1, 2
    parsed = parse_answer(whole)
    if parsed is not None and (parsed[0] != "text" or not re.search(r"\d", whole)):
        return whole, parsed  # math, or words only (`\\text{a regular hexagon}`)
    if final is not None and marked:
        return final.text, parse_answer(final.text)
    if not prose(whole):
        return whole, None  # math beyond our parser (`\\sum_{k=1}^n k`): for math-verify
    return None


def _judged(
    gold: tuple[str, Node | None],
    final: Final,
    tolerance: Tolerance,
    require_units: bool,
) -> tuple[bool, str, dict[str, MetricResult]]:
    """The verdict of the answer-equivalence engine on the two final answers."""
    gold_text, expected = gold
    metrics = {
        "extracted_original_answers": _found("original message (ground truth)", gold_text),
        "extracted_generated_answers": _found(f"generated message ({final.where})", final.text),
    }
    answer = parse_answer(final.text)
    single = expected is not None and expected[0] not in ("list", "set", "pm")
    if final.hedged and single:
        if final.where == "box":
            return False, "Strictness fail (hedging): 3 or more different boxed answers", metrics
        metrics["strictness_penalty_unboxed_or"] = _penalty(_UNBOXED_OR)
        return False, f"Strictness fail (Issue #1 - Unboxed 'or'): {_UNBOXED_OR}", metrics
    if expected is None or answer is None:
        verdict = _symbolic(gold_text, final.text, gold_read=expected is not None)
        if verdict is None:
            side = "original message (ground truth)" if expected is None else "generated message"
            return False, f"Could not extract answers from {side}: not math we can read.", metrics
        correct = verdict
    else:
        if answer[0] in ("s", "text") and not symbols(expected) and expected[0] != "text":
            reason = f"its final answer {final.text!r:.100} is not a value"
            return False, f"Could not extract answers from generated message: {reason}.", metrics
        if require_units and _has_unit(expected) != _has_unit(answer):
            reason = "Unit presence mismatch between the generated and expected answers."
            return False, reason, metrics
        correct = same_answer(expected, answer, tolerance)
        if not correct and (conflict := _conflict(expected, answer, tolerance)):
            return False, conflict, metrics
    verdict_text = "equals" if correct else "does not equal"
    return (
        correct,
        f"Answer {final.text!r:.200} {verdict_text} the expected {gold_text!r:.200}.",
        metrics,
    )


def _symbolic(gold: str, answer: str, gold_read: bool) -> bool | None:
    """math-verify's verdict on what our parser cannot read. Without it installed, a
    reference only it could read is an error (the `math` extra is needed for this
    dataset); an unreadable answer is a wrong one."""
    from rewardkit.functions.builtin.math._symbolic import verify_latex

    try:
        return verify_latex(gold, answer)
    except ImportError:
        if gold_read:
            return None
        raise missing(package="math-verify", extra="math", function="math_reward") from None


def _structured(node: Node) -> bool:
    """More than a number (an interval, a set, an equation, an expression in x): reading
    every number of a response would not do."""
    kinds = ("rel", "tuple", "set", "list", "union", "matrix", "pm", "text")
    return node[0] in kinds or bool(symbols(node))


def _has_unit(node: Node) -> bool:
    return "unit" in unwrap(node)[1]


def _conflict(expected: Node, answer: Node, tolerance: Tolerance) -> str | None:
    """reward-kit's reasons for lists of numbers: values the reference lacks, or misses."""
    if expected[0] != "list":
        return None
    answers = answer[1] if answer[0] == "list" else [answer]
    extra = [a for a in answers if not any(same_answer(e, a, tolerance) for e in expected[1])]
    values = [_shown(node) for node in extra]
    if extra:
        return (
            "Strictness fail (Conflicting Answers): Generated answer includes other distinct "
            f"numerical values not matching any original answer: {values}"
        )
    missing = [e for e in expected[1] if not any(same_answer(e, a, tolerance) for a in answers)]
    return f"Generated answer misses expected answer(s): {[_shown(n) for n in missing]}"


def _shown(node: Node) -> object:
    """A number as reward-kit shows it (`10.0`), the value of `x = 10` and `10 km` too."""
    while node[0] in ("rel", "unit"):
        node = node[1][-1] if node[0] == "rel" else node[1]
    return float(node[1]) if node[0] == "n" else node


def _found(where: str, answer: str) -> MetricResult:
    return MetricResult(score=1.0, reason=f"Extracted from {where}: {answer!r:.200}", success=True)


_TRAILING_OPERATOR = re.compile(r"(?:[-+*/=^:(,\\]|\\[a-zA-Z]+)\s*$")


def _unfinished(text: str) -> str | None:
    """Why a response with no marked final answer (and not cut off mid-answer: `cut_off`)
    is unfinished, or None: it ends on an operator, or after its last number ("... is 2500.
    Then tax is added, giving")."""
    stripped = text.rstrip()
    if _TRAILING_OPERATOR.search(stripped[-200:]):
        return "the response ends mid-expression"
    sentences = re.split(r"(?<=[.!?])\s+", stripped[-2000:])
    if sentences and not re.search(r"\d", sentences[-1]):
        return "its last sentence states no number"
    return None


def _by_numbers(
    text: str,
    reference: str,
    tolerances: tuple[float, float],
    require_units: bool,
) -> tuple[bool, str, dict[str, MetricResult]]:
    """reward-kit 0.4.1's reading: every number of each side (`extract_numbers`)."""
    orig, gen = extract_numbers(reference), extract_numbers(text)
    metrics = {
        "extracted_original_answers": _listing("original message (ground truth)", orig),
        "extracted_generated_answers": _listing("generated message", gen),
    }
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
