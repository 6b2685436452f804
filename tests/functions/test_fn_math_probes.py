"""`math_reward` against answers that are wrong but look right (the exploit probes of the
math corpus that a number reader alone accepted), and their right counterparts."""

from __future__ import annotations

import pytest

from rewardkit.functions.builtin import math_reward


def _score(gold: str, answer: str) -> float:
    messages = [{"role": "user", "content": "Solve."}, {"role": "assistant", "content": answer}]
    return math_reward(messages, ground_truth=gold).score


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("2\\pi", "So the circumference is $\\boxed{2}$."),
        ("2\\sqrt{3}", "The side is $\\boxed{2}$."),
        ("\\frac{\\sqrt{3}}{2}", "Hence $\\sin 60^\\circ = \\boxed{2}$."),
        ("-\\frac{1}{2}", "The slope is $\\boxed{\\frac{1}{2}}$."),
        ("\\pm 2021", "The roots are $\\boxed{2021}$."),
        ("4\\sqrt{2}", "The diagonal is $\\boxed{4}$."),
        ("4", "The diagonal is $\\boxed{4\\sqrt{2}}$."),
        ("x > 5", "The solution set is $\\boxed{x < 5}$."),
        ("7", "The answer is \\boxed{1}, \\boxed{3}, \\boxed{5}, \\boxed{7}."),
    ],
)
def test_a_part_of_the_answer_is_not_the_answer(gold: str, answer: str) -> None:
    assert _score(gold, answer) == 0.0


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("2\\pi", "So the circumference is $\\boxed{2\\pi}$."),
        ("-\\frac{1}{2}", "The slope is $\\boxed{-\\frac{1}{2}}$."),
        ("4\\sqrt{2}", "The diagonal is $\\boxed{4\\sqrt{2}}$."),
        ("x > 5", "The solution set is $\\boxed{x > 5}$."),
        ("6", "First $\\boxed{5}$; no, I dropped a term: $\\boxed{6}$."),
        ("42", "#### 42"),
    ],
)
def test_the_whole_answer_is(gold: str, answer: str) -> None:
    assert _score(gold, answer) == 1.0


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("1", "\\boxed{1 + 10^{-60}\\pi}"),
        ("1", "\\boxed{1 + 10^{-1000}\\pi}"),
        ("1", "\\boxed{\\sqrt{1+10^{-100}}}"),
        ("1", "\\boxed{(1+10^{-40000})^{10^{40000}}}"),
        ("1", "\\boxed{(1+10^{-30})^{40} + e^{-5000}}"),
        ("x^2", "\\boxed{x \\cdot x + 10^{-300}}"),
    ],
)
def test_a_difference_below_the_working_precision_is_still_seen(gold: str, answer: str) -> None:
    """Values are compared with as many more digits as the answer's own numbers could hide
    a difference in; past 2,000 digits the answer is undefined (wrong)."""
    assert _score(gold, answer) == 0.0


def test_an_answer_only_math_verify_could_read_costs_at_most_its_deadline() -> None:
    """A policy writing what our parser cannot read (`\\sum` to a power tower) sends it to
    math-verify, in a worker process killed at the deadline: a wrong answer, in bounded time,
    on a worker thread too."""
    import threading
    import time

    pytest.importorskip("math_verify")
    answer = "\\boxed{\\sum_{k=1}^{9^{9^9}} k}"
    scores: list[float] = []
    start = time.monotonic()
    worker = threading.Thread(target=lambda: scores.append(_score("42", answer)))
    worker.start()
    worker.join(timeout=60)
    assert scores == [0.0]
    assert time.monotonic() - start < 25  # ≈4.5 s (the deadline); generous for a loaded machine
