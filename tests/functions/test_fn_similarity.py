"""text_similarity_reward, bleu_reward and rouge_reward."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from rewardkit.functions.builtin import bleu_reward, rouge_reward, text_similarity_reward


def said(content: Any) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": content}]


def test_text_similarity() -> None:
    pytest.importorskip("rapidfuzz")
    assert text_similarity_reward(said("kitten"), "kitten").score == 1.0
    partial = text_similarity_reward(said("kitten"), "sitting")
    assert 0.0 < partial.score < 1.0
    assert partial.metrics["text_similarity"].success is False
    assert text_similarity_reward(said("KITTEN"), "kitten", case_sensitive=True).score < 1.0
    assert text_similarity_reward(said("b a"), "a b", method="token_sort_ratio").score == 1.0
    assert text_similarity_reward(said("kitten"), ["dog", "kitten"]).score == 1.0


def test_text_similarity_validates() -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        text_similarity_reward(said("a"), "a", method="jaro")
    with pytest.raises(TypeError, match="ground_truth must be"):
        text_similarity_reward(said("a"), None)
    assert text_similarity_reward([], "a").score == 0.0


def test_bleu() -> None:
    pytest.importorskip("sacrebleu")
    assert bleu_reward(said("the cat sat on the mat"), "the cat sat on the mat").score == 1.0
    partial = bleu_reward(said("the cat sat on a mat"), "the cat sat on the mat")
    assert 0.0 < partial.score < 1.0
    multi = bleu_reward(
        said("the cat sat on a mat"), ["the cat sat on the mat", "the cat sat on a mat"]
    )
    assert multi.score == 1.0
    assert bleu_reward([], "x").score == 0.0


def test_rouge() -> None:
    pytest.importorskip("rouge_score")
    assert rouge_reward(said("the cat sat"), "the cat sat").score == 1.0
    assert rouge_reward(said("a b c d"), "a b x d", rouge_type="rouge2").score == pytest.approx(
        1 / 3
    )
    assert rouge_reward(said("cats running"), "cat run", rouge_type="rouge1").score == 1.0
    assert (
        rouge_reward(said("cats running"), "cat run", rouge_type="rouge1", use_stemmer=False).score
        == 0.0
    )
    with pytest.raises(ValueError, match="rouge_type must be one of"):
        rouge_reward(said("a"), "a", rouge_type="rouge3")
    assert rouge_reward([], "x").score == 0.0


@pytest.mark.parametrize(
    ("function", "module", "extra"),
    [
        (text_similarity_reward, "rapidfuzz.fuzz", "similarity"),
        (bleu_reward, "sacrebleu", "nlg"),
        (rouge_reward, "rouge_score.rouge_scorer", "nlg"),
    ],
)
def test_missing_package_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, function: Any, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=rf"pip install 'rewardkit\[{extra}\]'"):
        function(said("a"), "a")
