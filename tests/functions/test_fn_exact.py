"""exact_match_reward and accuracy_reward."""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.functions.builtin import accuracy_reward, exact_match_reward
from rewardkit.functions.builtin._answers import as_number, extract_answer, normalize_answer
from rewardkit.functions.builtin._response import content_text
from rewardkit.types import Message


def said(content: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Q?"}, {"role": "assistant", "content": content}]


@pytest.mark.parametrize(
    ("response", "truth", "score"),
    [
        ("Paris", "Paris", 1.0),
        ("  paris. ", "Paris", 1.0),
        ("PARIS", "paris", 1.0),
        ("<think>hmm</think><answer>Paris</answer>", "Paris", 1.0),
        ("London", "Paris", 0.0),
        ("Paris, France", "Paris", 0.0),
        ("ﬁne", "fine", 1.0),  # NFKC folds the ligature
    ],
)
def test_exact_match_normalises(response: str, truth: str, score: float) -> None:
    result = exact_match_reward(said(response), truth)
    assert result.score == score
    assert result.metrics["exact_match"].success is (score == 1.0)


def test_exact_match_options() -> None:
    assert exact_match_reward(said("PARIS"), "paris", case_sensitive=True).score == 0.0
    assert (
        exact_match_reward(said("Hello, world!"), "hello world", ignore_punctuation=True).score
        == 1.0
    )
    assert exact_match_reward(said("<answer>x</answer>"), "x", answer_tag=None).score == 0.0


def test_exact_match_accepts_every_ground_truth_shape() -> None:
    assert exact_match_reward(said("42"), 42).score == 1.0
    assert exact_match_reward(said("b"), ["a", "b"]).score == 1.0
    assert exact_match_reward(said("b"), {"role": "assistant", "content": "b"}).score == 1.0
    expected = [{"role": "user", "content": "Q?"}, {"role": "assistant", "content": "b"}]
    assert exact_match_reward(said("b"), expected).score == 1.0


def test_exact_match_accepts_message_objects_and_content_parts() -> None:
    messages = [Message(role="assistant", content=[{"type": "text", "text": "Paris"}])]
    assert exact_match_reward(messages, "Paris").score == 1.0


def test_exact_match_rejects_a_bad_ground_truth() -> None:
    with pytest.raises(TypeError, match=r"exact_match_reward: ground_truth must be"):
        exact_match_reward(said("x"), None)
    with pytest.raises(TypeError, match="ground_truth must be"):
        exact_match_reward(said("x"), {"answer": "x"})


def test_no_assistant_response_scores_zero_with_a_reason() -> None:
    result = exact_match_reward([{"role": "user", "content": "hi"}], "x")
    assert result.score == 0.0
    assert "not from the assistant" in (result.reason or "")
    assert exact_match_reward([], "x").score == 0.0


def test_accuracy_has_no_special_cases() -> None:
    # reward-kit 0.4.1 counts any two numbers starting with "3.14" as equal.
    assert (
        accuracy_reward(
            said("The answer is 3.149999"), [{"role": "assistant", "content": "3.14"}]
        ).score
        == 0.0
    )
    assert accuracy_reward(said("The answer is 3.14"), "3.14").score == 1.0


@pytest.mark.parametrize(
    ("response", "truth", "score"),
    [
        ("So the answer is 1,000.", "1000", 1.0),
        ("#### 72", "72", 1.0),
        ("We get \\boxed{12}", "12", 1.0),
        ("Answer: blue", "Blue", 1.0),
        ("The answer is 12", "13", 0.0),
        ("42.0", "42", 1.0),
    ],
)
def test_accuracy_extracts_and_compares(response: str, truth: str, score: float) -> None:
    assert accuracy_reward(said(response), truth).score == score


def test_accuracy_custom_functions() -> None:
    result = accuracy_reward(
        said("cat"), "dog", extract_fn=str.upper, compare_fn=lambda a, b: 0.5 if a == "CAT" else 0.0
    )
    assert result.score == 0.5
    assert accuracy_reward(said("x"), "y", compare_fn=lambda a, b: 7.0).score == 1.0
    with pytest.raises(ValueError, match="compare_fn returned nan"):
        accuracy_reward(said("x"), "y", compare_fn=lambda a, b: float("nan"))


def test_accuracy_without_a_response() -> None:
    assert accuracy_reward([{"role": "user", "content": "42"}], "42").score == 0.0


def test_odd_contents_and_ground_truths() -> None:
    assert content_text(42) == "42"  # the decorator rejects it; the helper stays total
    assert content_text([{"type": "image_url", "image_url": {}}, {"text": "a"}]) == "a"
    with pytest.raises(TypeError, match="ground_truth must be"):
        exact_match_reward(said("1"), [1, 2])


@pytest.mark.parametrize("text", ["-", "e5", "1e999", "1,00", "", "abc"])
def test_as_number_rejects_non_numbers(text: str) -> None:
    assert as_number(text) is None


def test_answer_helpers() -> None:
    assert extract_answer("x \\boxed{\\frac{1}{2}} y") == "\\frac{1}{2}"
    assert extract_answer("\\boxed{unclosed") == ""  # no answer stated
    assert extract_answer("plain") == ""
    assert extract_answer("So x = 4.") == "4"
    assert extract_answer("The capital of France is Paris.") == "Paris"
    assert extract_answer("This is a complex question that needs more analysis.") == ""
    assert normalize_answer("A  B.", case_sensitive=True) == "A B"
