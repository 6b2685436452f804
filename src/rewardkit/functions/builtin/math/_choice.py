"""`multiple_choice_math_reward`: does the response pick the same option letter (A to E)?

An option is read in three tiers, the first tier that finds any winning: a bracketed
letter in any case, `(b)`, `[B]`, `{B}`; a capital letter with a full stop, `B.`; a bare
capital letter, `B`. A letter inside a word or name (`v_A`, `f(a)`) never counts. The
tiers keep a stray article ("A good idea: the answer is (C)") from reading as an option.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import content_text, field
from rewardkit.functions.builtin.math._final import final_answer
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["extract_mcq_option", "multiple_choice_math_reward"]

_TIERS = (
    re.compile(r"(?<!\w)(?:\(([A-Ea-e])\)|\[([A-Ea-e])\]|\{([A-Ea-e])\})"),
    re.compile(r"(?<![\w.])([A-E])\.(?!\w)"),
    re.compile(r"(?<![\w.(\[{])([A-E])(?![\w.)\]}])"),
)


def extract_mcq_option(text: str) -> list[tuple[str, str]]:
    """The option letters a text names, as `(as written, letter)`, first mention of each.

    Example:
        >>> extract_mcq_option("A good guess: (c), or maybe [D]")
        [('(c)', 'C'), ('[D]', 'D')]
    """
    for tier in _TIERS:
        found: dict[str, str] = {}
        for match in tier.finditer(text):
            letter = next(group for group in match.groups() if group).upper()
            found.setdefault(letter, match.group(0))
        if found:
            return [(written, letter) for letter, written in found.items()]
    return []


def _final_region(text: str) -> str:
    """The response's final answer (`\\boxed{B}`, "the answer is (C)") when it names an
    option, else the whole response: a letter in the working does not count against it."""
    final = final_answer(text)
    return final.text if final is not None and extract_mcq_option(final.text) else text


def _metric(success: bool, reason: str) -> MetricResult:
    return MetricResult(score=1.0 if success else 0.0, reason=reason, success=success)


def _zero(reason: str, metrics: dict[str, MetricResult] | None = None) -> EvaluateResult:
    metrics = metrics or {"mcq_comparison": _metric(False, reason)}
    return EvaluateResult(score=0.0, reason=reason, metrics=metrics)


def _reference_text(ground_truth: object) -> str | None:
    """The reference answer: a string, a message, or the last assistant message of a list."""
    if isinstance(ground_truth, str):
        return ground_truth
    candidates = ground_truth if isinstance(ground_truth, Sequence) else [ground_truth]
    answers = [m for m in candidates if field(m, "role") == "assistant"]
    text = content_text(field(answers[-1], "content")) if answers else ""
    return text or None


def _extracted(side: str, options: list[tuple[str, str]]) -> MetricResult:
    shown = ", ".join(written for written, _ in options) or "none"
    return _metric(bool(options), f"Options found in the {side} message: {shown}")


@reward_function
def multiple_choice_math_reward(
    messages: list[Message], ground_truth: Any = None, **kwargs: Any
) -> EvaluateResult:
    """1.0 if the response picks the reference's option letter, else 0.0.

    A response naming two or more different options is ambiguous and scores 0.0. A
    reference naming several (prose such as "(D), not (A)") is read by its first, and
    then so is the response, since it cannot be held to more precision than its key;
    the `ambiguous_*` metrics say when this happened.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference: a string such as `"(B)"`, an assistant message, or
            the expected messages (their last assistant message counts).
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> multiple_choice_math_reward(
        ...     [{"role": "assistant", "content": "So the answer is (B)."}], "(B)"
        ... ).score
        1.0
    """
    if not messages:
        return _zero("Missing generated messages: there is no response to score.")
    if not ground_truth:
        return _zero("Missing ground truth message: give the reference answer, e.g. '(B)'.")
    last = messages[-1]
    text = content_text(field(last, "content"))
    if field(last, "role") != "assistant" or not text:
        return _zero("Last generated message not from assistant or has no content.")
    reference = _reference_text(ground_truth)
    if reference is None:
        return _zero("Invalid ground truth message: Not an assistant message or has no content.")
    generated, original = extract_mcq_option(_final_region(text)), extract_mcq_option(reference)
    metrics = {
        "extracted_generated_mcq": _extracted("generated", generated),
        "extracted_original_mcq": _extracted("original", original),
    }
    if not generated:
        return _zero("Could not extract MCQ option from generated message.", metrics)
    if not original:
        return _zero("Could not extract MCQ option from original message.", metrics)
    if len(original) > 1:
        metrics["ambiguous_original_mcq"] = _metric(
            False, f"The reference names {len(original)} options; the first one counts"
        )
        if len(generated) > 1:
            metrics["ambiguous_generated_mcq"] = _metric(
                False, f"The response names {len(generated)} options; the first one counts"
            )
    if len(generated) > 1 and len(original) == 1:
        shown = ", ".join(written for written, _ in generated)
        reason = f"Generated answer is ambiguous: it names {len(generated)} options ({shown})."
        metrics["ambiguous_generated_mcq"] = _metric(False, reason)
        metrics["mcq_comparison"] = _metric(False, reason)
        return _zero(reason, metrics)
    (gen_written, gen_letter), (orig_written, orig_letter) = generated[0], original[0]
    match = gen_letter == orig_letter
    comparison = f"Gen: '{gen_written}' ({gen_letter}) vs Orig: '{orig_written}' ({orig_letter})"
    reason = f"{'Match' if match else 'Mismatch'}: {comparison}"
    metrics["mcq_comparison"] = _metric(match, reason)
    return EvaluateResult(score=1.0 if match else 0.0, reason=reason, metrics=metrics)
