"""`list_comparison_math_reward`: is the response's list of numbers the reference's?

A list is read from `\\boxed{...}` if the text has one that parses, else from `$...$`
math, else from the whole text when it is nothing but a list ("1, 3, 59"). The last
list found is the answer. Lists compare as sets by default, or in order.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import (
    NoResponse,
    reference_texts,
    response_text,
)
from rewardkit.functions.builtin.math._equal import same_answer
from rewardkit.functions.builtin.math._final import final_answer
from rewardkit.functions.builtin.math._parse import Node, parse_answer
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["extract_number_list", "list_comparison_math_reward", "parse_number_list_from_string"]

_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_DOLLARS = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)


def parse_number_list_from_string(text: str) -> list[float] | None:
    """The numbers of a comma-separated list, `$` signs and empty items ignored.

    Returns `None` unless every item is a number.

    Example:
        >>> parse_number_list_from_string("$1, 2.5,, 3$"), parse_number_list_from_string("1, two")
        ([1.0, 2.5, 3.0], None)
    """
    items = [item.strip() for item in text.replace("$", "").split(",")]
    items = [item for item in items if item]
    if not items or not all(_NUMBER.fullmatch(item) for item in items):
        return None
    numbers = [float(item) for item in items]
    return numbers if all(math.isfinite(n) for n in numbers) else None


def _boxed(text: str) -> list[str]:
    """The contents of every `\\boxed{...}`, braces balanced, in one pass over the text."""
    opened: list[tuple[bool, int]] = []
    contents: list[tuple[int, str]] = []
    for match in re.finditer(r"[{}]", text):
        i = match.start()
        if text[i] == "{":
            opened.append((text.endswith("\\boxed", 0, i), i + 1))
        elif opened:
            boxed, start = opened.pop()
            if boxed:
                contents.append((start, text[start:i]))
    return [content for _, content in sorted(contents)]


def extract_number_list(text: str) -> list[list[float]]:
    """Every number list in a text, from its boxed answers, its `$` math, or all of it.

    Example:
        >>> extract_number_list("Divisors: \\\\boxed{1, 2, 4}, not $1, 2$")
        [[1.0, 2.0, 4.0]]
    """
    for spans in (_boxed(text), [a or b for a, b in _DOLLARS.findall(text)]):
        lists = [parsed for span in spans if (parsed := parse_number_list_from_string(span))]
        if lists:
            return lists
    whole = parse_number_list_from_string(text)
    return [whole] if whole else []


def _by_engine(text: str, references: list[str], order_matters: bool) -> EvaluateResult | None:
    """Lists of math beyond plain numbers (`\\boxed{\\frac12, \\sqrt2}`), compared by
    `math_reward`'s engine as sets (or, with `order_matters`, as tuples); None when the
    engine cannot read them either."""
    final = final_answer(text)
    answer = parse_answer(final.text) if final is not None else None
    if final is None or answer is None or answer[0] not in ("list", "set", "tuple"):
        return None
    for reference in references:
        gold = parse_answer(reference.strip().strip("$"))
        if gold is None or gold[0] == "text":
            continue
        if order_matters:
            gold, answer = _in_order(gold), _in_order(answer)
        same = same_answer(gold, answer)
        verdict = "Match" if same else "Mismatch"
        return _result(1.0 if same else 0.0, f"{verdict} (as math): {final.text!r:.200}")
    return None


def _in_order(node: Node) -> Node:
    """A bare list read as the tuple it is when order matters."""
    return ("tuple", node[1], "(", ")") if node[0] == "list" else node


def _result(score: float, reason: str) -> EvaluateResult:
    metric = MetricResult(score=score, reason=reason, success=score == 1.0)
    return EvaluateResult(score=score, reason=reason, metrics={"list_comparison": metric})


def _compare(
    generated: list[float], original: list[float], order_matters: bool
) -> tuple[bool, str]:
    if order_matters:
        same = generated == original
        verdict = "Exact list match" if same else "List mismatch (order matters)"
        return same, f"{verdict}. Gen: {generated} vs Orig: {original}"
    gen, orig = set(generated), set(original)
    shown = f"Gen: {sorted(gen)} vs Orig: {sorted(orig)}"
    if gen == orig:
        return True, f"Set match. {shown}"
    details = [f"Missing in generated: {sorted(orig - gen)}"] if orig - gen else []
    details += [f"Extra in generated: {sorted(gen - orig)}"] if gen - orig else []
    return False, f"Set mismatch. {shown}. {'. '.join(details)}"


@reward_function
def list_comparison_math_reward(
    messages: list[Message],
    ground_truth: Any = None,
    order_matters: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's final number list equals the reference list, else 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The reference list as text (e.g. `"1, 3, 59"` or `"$\\\\boxed{1,3}$"`),
            an assistant message, or a list of acceptable strings.
        order_matters: Compare as ordered lists instead of as sets.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        TypeError: `ground_truth` is not text, a message or a list of strings.

    Example:
        >>> list_comparison_math_reward(
        ...     [{"role": "assistant", "content": "They are \\\\boxed{3, 1, 2}."}], "1, 2, 3"
        ... ).score
        1.0
    """
    if ground_truth is None:
        return _result(0.0, "No ground_truth: give the reference list, e.g. '1, 2, 3'.")
    references = reference_texts(ground_truth, function="list_comparison_math_reward")
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return _result(0.0, f"Invalid or missing assistant response: {problem}.")
    found = extract_number_list(text)
    if not found:
        return _by_engine(text, references, order_matters) or _result(
            0.0, "Could not extract any number list from generated message."
        )
    originals = [lists[-1] for ref in references if (lists := extract_number_list(ref))]
    if not originals:
        return _result(0.0, "Could not extract any number list from original message.")
    outcomes = [_compare(found[-1], original, order_matters) for original in originals]
    same, reason = next((o for o in outcomes if o[0]), outcomes[0])
    return _result(1.0 if same else 0.0, reason)
