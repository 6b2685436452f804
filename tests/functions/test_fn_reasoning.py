"""reasoning_steps_reward and sequence_reward: the shape of step-by-step reasoning."""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.functions.builtin import reasoning_steps_reward, sequence_reward


def said(text: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Explain."}, {"role": "assistant", "content": text}]


def test_each_marker_kind_counts_and_one_line_is_one_step() -> None:
    text = "Step 1: read\n2. add\n- check\nFinally, answer\n1. First, a line with two markers"
    result = reasoning_steps_reward(said(text), min_steps=5)
    assert result.score == 1.0
    assert result.metrics["reasoning_steps"].success is True
    counts = {k: m.reason for k, m in result.metrics.items() if k != "reasoning_steps"}
    assert counts == {
        "explicit_steps": "1 match(es)",
        "numbered_lists": "2 match(es)",
        "bullet_points": "1 match(es)",
        "transition_phrases": "1 match(es)",
    }


def test_partial_credit_and_max_steps() -> None:
    two = said("Step 1: read\nStep 2: add")
    assert reasoning_steps_reward(two).score == pytest.approx(2 / 3)
    assert reasoning_steps_reward(two).metrics["reasoning_steps"].success is False
    assert reasoning_steps_reward(two, min_steps=2).score == 1.0
    # max_steps: the steps for full credit; min_steps still decides passing.
    result = reasoning_steps_reward(two, min_steps=2, max_steps=4)
    assert result.score == 0.5
    assert result.metrics["reasoning_steps"].success is True


def test_numbers_and_prose_are_not_steps() -> None:
    text = "The value 1.5 is small.\n2x + 3 = 7\nTherefore x = 2."
    assert reasoning_steps_reward(said(text)).score == 0.0


def test_custom_pattern_alone_or_added() -> None:
    text = "STEP-A: x\nSTEP-B: y\n- z"
    assert reasoning_steps_reward(said(text), pattern=r"STEP-[A-Z]:", min_steps=3).score == 1.0
    exclusive = reasoning_steps_reward(
        said(text), pattern=r"STEP-[A-Z]:", exclusive_patterns=True, min_steps=3
    )
    assert exclusive.score == pytest.approx(2 / 3)
    assert set(exclusive.metrics) == {"reasoning_steps", "custom_pattern"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_steps": 0}, "min_steps must be a positive integer"),
        ({"max_steps": 2}, "max_steps \\(2\\) must be at least min_steps \\(3\\)"),
        ({"pattern": "("}, "not a valid regular expression"),
        ({"exclusive_patterns": True}, "needs a pattern"),
    ],
)
def test_bad_options_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        reasoning_steps_reward(said("x"), **kwargs)


@pytest.mark.parametrize("messages", [[], [{"role": "user", "content": "Step 1"}]])
def test_no_response_scores_zero(messages: Any) -> None:
    for function in (reasoning_steps_reward, sequence_reward):
        result = function(messages)
        assert result.score == 0.0
        assert "Nothing to score" in (result.reason or "")


def test_sequence_counts_terms_in_order_only() -> None:
    assert sequence_reward(said("First a. Second b. Finally c.")).score == 1.0
    # "Third" before "First" is out of order: the longest ordered chain is First → Finally.
    result = sequence_reward(said("Third a. First b. Finally c."))
    assert result.score == pytest.approx(2 / 3)
    assert "First → Finally" in (result.reason or "")


def test_sequence_finds_the_longest_chain_not_the_greedy_one() -> None:
    text = "Second, x. Third, y. Fourth, z. First, w."
    assert "Second → Third → Fourth" in (sequence_reward(said(text)).reason or "")


def test_sequence_whole_words_and_case() -> None:
    assert sequence_reward(said("firstly, thence, finalize"), min_matches=1).score == 0.0
    terms = ["Begin", "End"]
    assert sequence_reward(said("begin, end"), sequence_terms=terms, min_matches=2).score == 1.0
    strict = sequence_reward(said("begin, end"), sequence_terms=terms, case_sensitive=True)
    assert strict.score == 0.0


def test_empty_response_scores_zero() -> None:
    assert reasoning_steps_reward(said(None)).score == 0.0
    assert sequence_reward(said("")).score == 0.0


@pytest.mark.parametrize("terms", [[], "First", ["First", ""], [1]])
def test_sequence_rejects_bad_terms(terms: Any) -> None:
    with pytest.raises(ValueError, match="sequence_terms"):
        sequence_reward(said("First"), sequence_terms=terms)


def test_sequence_bounds_its_work_on_huge_input() -> None:
    result = sequence_reward(said("First Second " * 20_000))
    assert result.score == pytest.approx(2 / 3)


def test_many_steps_in_a_huge_response_take_linear_time() -> None:
    result = reasoning_steps_reward(said("- item\n" * 200_000 + "Step 1: x"))
    assert result.score == 1.0
    assert result.metrics["explicit_steps"].reason == "1 match(es)"
