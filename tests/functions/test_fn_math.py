"""math_reward (HuggingFace math-verify)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from rewardkit.functions.builtin import math_reward
from rewardkit.types import EvaluateResult

pytest.importorskip("math_verify")


def said(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Solve it."}, {"role": "assistant", "content": content}]


@pytest.mark.parametrize(
    ("response", "truth"),
    [
        ("The answer is \\boxed{42}.", "42"),
        ("Half: $\\frac{1}{2}$", "0.5"),
        ("It is 0.5", "\\frac{1}{2}"),
        ("<think>12 apples, then 30 more</think><answer>42</answer>", "42"),
        ("Natalia sold 48 clips, then 24.\n#### 72", "72"),
        ("so $x = \\sqrt{2}$", "\\sqrt{2}"),
        ("The roots form $\\{2, 1\\}$", "{1,2}"),
        ("1,000 people", "1000"),
    ],
)
def test_equivalent_answers(response: str, truth: str) -> None:
    result = math_reward(said(response), truth)
    assert result.score == 1.0, result.reason
    assert result.metrics["math_answer"].success is True


def test_final_answer_wins_over_earlier_numbers() -> None:
    # reward-kit 0.4.1 scores 0 when other numbers appear ("ambiguity"); the final answer counts.
    assert math_reward(said("I think 12 apples, total 42"), "42").score == 1.0


def test_wrong_or_missing_answer() -> None:
    wrong = math_reward(said("\\boxed{41}"), "42")
    assert wrong.score == 0.0
    assert "does not equal" in (wrong.reason or "")
    none = math_reward(said("I cannot solve this."), "42")
    assert none.score == 0.0
    assert "Could not extract answers from generated message" in (none.reason or "")
    assert math_reward([{"role": "user", "content": "42"}], "42").score == 0.0


def test_ground_truth_positional_keyword_or_number() -> None:
    # reward-kit 0.4.1 made ground_truth keyword-only: math_reward(msgs, "42") raised TypeError.
    assert math_reward(said("42"), "42").score == 1.0
    assert math_reward(said("42"), ground_truth="42").score == 1.0
    assert math_reward(said("42"), 42).score == 1.0
    assert math_reward(said("42"), [{"role": "assistant", "content": "42"}]).score == 1.0


def test_tolerances() -> None:
    assert math_reward(said("42.0004"), "42").score == 0.0
    assert math_reward(said("42.0004"), "42", tolerance=1e-3).score == 1.0
    assert math_reward(said("42.0004"), "42", absolute_tolerance=1e-3).score == 1.0
    assert math_reward(said("\\boxed{x + 1}"), "42", tolerance=1e-3).score == 0.0
    assert math_reward(said("\\boxed{\\{1, 2\\}}"), "3", tolerance=1e-3).score == 0.0


def test_incomplete_ground_truth_scores_zero_with_a_reason() -> None:
    missing = math_reward(said("42"))
    assert missing.score == 0.0
    assert "Ground truth not provided" in (missing.reason or "")
    blank = math_reward(said("42"), "  ")
    assert blank.score == 0.0
    assert "Could not extract answers from original message" in (blank.reason or "")


def test_require_units_and_strictness() -> None:
    assert math_reward(said("\\boxed{10 km}"), "\\boxed{10 km}", require_units=True).score == 1.0
    no_unit = math_reward(said("\\boxed{10}"), "\\boxed{10 km}", require_units=True)
    assert no_unit.score == 0.0
    assert "Unit presence mismatch" in (no_unit.reason or "")
    hedged = math_reward(said("It is $1/2$ or $1$."), "1/2")
    assert hedged.score == 0.0
    assert "strictness_penalty_unboxed_or" in hedged.metrics


def test_every_expected_value_must_be_right() -> None:
    both = "Then $v_R = 4 \\mathrm{km/h}$ and $v_B = 10 \\mathrm{km/h}$."
    truth = "$v_R=4$ km/h and $v_B=10$ km/h"
    assert math_reward(said(both), truth).score == 1.0
    one_wrong = math_reward(said(both.replace("10", "11")), truth)
    assert one_wrong.score == 0.0
    assert "Conflicting Answers" in (one_wrong.reason or "")
    one_missing = math_reward(said("Then $v_R = 4$."), truth)
    assert one_missing.score == 0.0
    assert "misses expected answer(s): [10.0]" in (one_missing.reason or "")


def test_works_outside_the_main_thread() -> None:
    # math-verify's timeout uses SIGALRM; in a worker thread it would fail every parse.
    results: list[EvaluateResult] = []
    worker = threading.Thread(target=lambda: results.append(math_reward(said("\\boxed{7}"), "7")))
    worker.start()
    worker.join()
    assert results[0].score == 1.0


def test_missing_math_verify_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from rewardkit.functions.builtin.math import _symbolic

    monkeypatch.setattr(_symbolic, "_installed", lambda: False)  # as without the extra
    with pytest.raises(
        ImportError, match=r"math_reward needs the math-verify package.*rewardkit\[math\]"
    ):
        math_reward(said("so $\\boxed{10}$"), "\\sum_{k=1}^{4} k")


def test_several_acceptable_answers() -> None:
    assert math_reward(said("\\boxed{-3}"), ["3", "-3"]).score == 1.0
    assert math_reward(said("\\boxed{4}"), ["3", "-3"]).score == 0.0
