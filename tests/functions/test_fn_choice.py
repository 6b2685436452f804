"""multiple_choice_math_reward and list_comparison_math_reward: answers that are a letter or a list."""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.functions.builtin import list_comparison_math_reward, multiple_choice_math_reward
from rewardkit.functions.builtin.math._choice import extract_mcq_option
from rewardkit.functions.builtin.math._number_list import (
    extract_number_list,
    parse_number_list_from_string,
)
from rewardkit.types import Message


def said(text: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Which one?"}, {"role": "assistant", "content": text}]


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("The answer is (b).", [("(b)", "B")]),
        ("A good guess is [C], surely not {D}", [("[C]", "C"), ("{D}", "D")]),
        ("A good guess: B. Not C.", [("B.", "B"), ("C.", "C")]),
        ("So it is E", [("E", "E")]),
        ("f(a) = 3 and v_A is a variable", []),
        ("The answer is 42.", []),
        ("(A) and again (A)", [("(A)", "A")]),
        ("Options F, G and (J) are not options here", []),
    ],
)
def test_extract_mcq_option(text: str, options: list[tuple[str, str]]) -> None:
    assert extract_mcq_option(text) == options


def test_match_mismatch_and_reference_shapes() -> None:
    assert multiple_choice_math_reward(said("It is (C)."), "C").score == 1.0
    gt_message = Message(role="assistant", content="(C)")
    assert multiple_choice_math_reward(said("It is (C)."), gt_message).score == 1.0
    result = multiple_choice_math_reward(
        said("It is (C)."), [{"role": "assistant", "content": "B."}]
    )
    assert result.score == 0.0
    assert result.reason == "Mismatch: Gen: '(C)' (C) vs Orig: 'B.' (B)"
    assert result.metrics["mcq_comparison"].success is False


def test_ambiguity() -> None:
    result = multiple_choice_math_reward(said("(A) or (B)"), "(A)")
    assert result.score == 0.0
    assert result.metrics["ambiguous_generated_mcq"].success is False
    # A reference naming several options is read by its first, and so is the response.
    result = multiple_choice_math_reward(said("(B), or (A)"), "(B) rather than (C)")
    assert result.score == 1.0
    assert result.metrics["ambiguous_original_mcq"].success is False


@pytest.mark.parametrize(
    ("messages", "ground_truth", "reason"),
    [
        ([], "(A)", "Missing generated messages"),
        (said("(A)"), None, "Missing ground truth message"),
        (said("(A)"), [], "Missing ground truth message"),
        ([{"role": "user", "content": "(A)"}], "(A)", "not from assistant"),
        (said(None), "(A)", "not from assistant or has no content"),
        (said("(A)"), [{"role": "user", "content": "(A)"}], "Invalid ground truth message"),
        (said("(A)"), 7, "Invalid ground truth message"),
        (said("no idea"), "(A)", "from generated message"),
        (said("(A)"), "two", "from original message"),
    ],
)
def test_bad_input_scores_zero_with_a_reason(messages: Any, ground_truth: Any, reason: str) -> None:
    result = multiple_choice_math_reward(messages, ground_truth)
    assert result.score == 0.0
    assert reason in (result.reason or "")


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("1, 2.5, -3", [1.0, 2.5, -3.0]),
        ("$4$, ,5", [4.0, 5.0]),
        ("1e3", [1000.0]),
        ("1, two", None),
        ("nan, 1", None),
        (" , ", None),
    ],
)
def test_parse_number_list(text: str, parsed: list[float] | None) -> None:
    assert parse_number_list_from_string(text) == parsed


def test_extract_number_list_prefers_boxed_then_math() -> None:
    assert extract_number_list("$1,2$ but \\boxed{3, 4} and \\boxed{x}") == [[3.0, 4.0]]
    assert extract_number_list("$\\boxed{\\boxed{1}, 2}$") == [[1.0]]
    assert extract_number_list("between $1, 2$ and $$3$$") == [[1.0, 2.0], [3.0]]
    assert extract_number_list("1, 2 and 3") == []
    assert extract_number_list("\\boxed{" * 2000) == []  # unbalanced: linear time, nothing


def test_list_comparison_sets_and_order() -> None:
    result = list_comparison_math_reward(said("So \\boxed{3, 1, 2, 2}"), "1, 2, 3")
    assert result.score == 1.0
    assert result.reason == "Set match. Gen: [1.0, 2.0, 3.0] vs Orig: [1.0, 2.0, 3.0]"
    result = list_comparison_math_reward(said("\\boxed{1, 4}"), "$1, 2$")
    assert result.score == 0.0
    assert "Missing in generated: [2.0]. Extra in generated: [4.0]" in (result.reason or "")
    ordered = list_comparison_math_reward(said("\\boxed{2, 1}"), "1, 2", order_matters=True)
    assert ordered.score == 0.0
    assert "List mismatch (order matters)" in (ordered.reason or "")


def test_list_comparison_reads_the_last_list_and_accepts_several_references() -> None:
    text = "First try \\boxed{1, 2}; on reflection \\boxed{1, 3}"
    assert list_comparison_math_reward(said(text), "1, 3").score == 1.0
    assert list_comparison_math_reward(said("$5, 6$"), ["1", "5, 6"]).score == 1.0


@pytest.mark.parametrize(
    ("messages", "ground_truth", "reason"),
    [
        ([], "1", "Invalid or missing assistant response"),
        (said("\\boxed{1}"), None, "No ground_truth"),
        (said("none"), "1", "from generated message"),
        (said("\\boxed{1}"), "one", "from original message"),
    ],
)
def test_list_comparison_bad_input(messages: Any, ground_truth: Any, reason: str) -> None:
    result = list_comparison_math_reward(messages, ground_truth)
    assert result.score == 0.0
    assert reason in (result.reason or "")


def test_list_comparison_rejects_a_ground_truth_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match="ground_truth"):
        list_comparison_math_reward(said("\\boxed{1}"), {"answer": 1})


def test_the_final_answer_names_the_option() -> None:
    working = "Option (A) fails at x = 0 and (B) at x = 1, so the answer is (C)."
    assert multiple_choice_math_reward(said(working), "(C)").score == 1.0
    assert multiple_choice_math_reward(said("Not (A) nor (B): \\boxed{D}"), "(D)").score == 1.0


def test_lists_of_math_beyond_numbers() -> None:
    roots = said("The roots are \\boxed{\\frac12, \\sqrt2}.")
    assert list_comparison_math_reward(roots, "\\sqrt{2}, 0.5").score == 1.0
    assert list_comparison_math_reward(roots, "\\sqrt{3}, 0.5").score == 0.0
    in_order = list_comparison_math_reward(roots, "0.5, \\sqrt{2}", order_matters=True)
    assert in_order.score == 1.0
    assert list_comparison_math_reward(roots, "\\sqrt{2}, 0.5", order_matters=True).score == 0.0
