"""repetition_penalty_reward and diversity_reward."""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.functions.builtin import diversity_reward, repetition_penalty_reward
from rewardkit.functions.builtin.text._repetition import ngrams


def said(content: Any) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": content}]


def test_ngrams_ignore_case_and_punctuation() -> None:
    assert ngrams("Go, go!", 1) == [("go",), ("go",)]
    assert ngrams("你好你好", 2, language="zh") == [("你", "好"), ("好", "你"), ("你", "好")]


def test_repetition_penalty() -> None:
    assert repetition_penalty_reward(said("the quick brown fox jumps")).score == 1.0
    repeated = repetition_penalty_reward(said("go go go go go"), ngram_size=1)
    assert repeated.score == pytest.approx(0.6)  # 1/5 unique: repetition 0.8 x 0.5
    assert repeated.metrics["repetition"].success is False
    full = repetition_penalty_reward(said("go go go go go"), ngram_size=1, max_penalty=1.0)
    assert full.score == pytest.approx(0.2)


def test_repetition_short_or_empty_text_is_not_penalised() -> None:
    assert repetition_penalty_reward(said("")).score == 1.0
    assert repetition_penalty_reward(said("two words")).score == 1.0


def test_repetition_validates_and_needs_a_response() -> None:
    with pytest.raises(ValueError, match="max_penalty must be in"):
        repetition_penalty_reward(said("x"), max_penalty=2)
    with pytest.raises(ValueError, match="ngram_size must be a positive integer"):
        repetition_penalty_reward(said("x"), ngram_size=0)
    assert repetition_penalty_reward([]).score == 0.0


def test_diversity_two_word_answer_stays_in_range() -> None:
    # reward-kit 0.4.1 scored this 1.5 and crashed building its [0, 1] metric.
    result = diversity_reward(said("Yes, absolutely."))
    assert result.score == 1.0
    assert set(result.metrics) == {"ngram_1", "ngram_2", "diversity"}
    one_word = diversity_reward(said("Yes"))
    assert one_word.score == 1.0


def test_diversity_weights() -> None:
    text = "a a a b"
    # ratios: 1-gram 2/4, 2-gram 2/3 (aa, aa, ab), 3-gram 2/2
    expected = 0.2 * 0.5 + 0.3 * (2 / 3) + 0.5 * 1.0
    assert diversity_reward(said(text)).score == pytest.approx(expected)
    assert diversity_reward(said(text), ngram_sizes=[1], weights=[3]).score == pytest.approx(0.5)
    assert diversity_reward(said(text), ngram_sizes=[1, 2]).score == pytest.approx(
        (0.5 + 2 / 3) / 2
    )


def test_diversity_does_not_touch_the_callers_weights() -> None:
    weights = [0.5, 0.5]
    diversity_reward(said("a b c d"), ngram_sizes=[1, 2], weights=weights)
    assert weights == [0.5, 0.5]


def test_diversity_zero_weight_sizes_only() -> None:
    result = diversity_reward(said("a a"), ngram_sizes=[1, 3], weights=[0, 1])
    assert result.score == pytest.approx(0.5)


def test_diversity_validates_and_handles_empty() -> None:
    with pytest.raises(ValueError, match="one non-negative number per n-gram size"):
        diversity_reward(said("x"), weights=[1.0])
    with pytest.raises(ValueError, match="at least one size"):
        diversity_reward(said("x"), ngram_sizes=[])
    empty = diversity_reward(said(""))
    assert empty.score == 0.0
    assert "Empty" in (empty.reason or "")
    assert diversity_reward([{"role": "tool", "content": "x"}]).score == 0.0
