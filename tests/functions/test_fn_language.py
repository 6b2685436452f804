"""language_consistency_reward and its detection heuristic."""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.functions.builtin import language_consistency_reward
from rewardkit.functions.builtin.text._language import (
    LANGUAGES,
    count_words_by_language,
    detect_dominant_language,
)

EN = "The cat is on the table and it sleeps there with its toy."
ES = "El gato duerme y no quiere jugar porque hace mucho calor."
FR = "Le chat dort et il ne veut pas jouer avec nous."


def chat(prompt: str, answer: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]


def test_shared_function_words_do_not_count() -> None:
    # "la", "en", "de" belong to several languages, so they say nothing.
    assert count_words_by_language("la en de") == {}
    assert count_words_by_language("the el et") == {"en": 1, "es": 1, "fr": 1}


def test_scripts_are_counted() -> None:
    assert count_words_by_language("Привет мир") == {"ru": 2}
    assert count_words_by_language("这是中文") == {"zh": 4}
    assert count_words_by_language("これは日本語です") == {"ja": 8}
    assert detect_dominant_language("12345 !!") == (None, 0.0)


@pytest.mark.parametrize(("text", "lang"), [(EN, "en"), (ES, "es"), (FR, "fr")])
def test_detect_dominant_language(text: str, lang: str) -> None:
    detected, confidence = detect_dominant_language(text)
    assert detected == lang
    assert confidence == 1.0


def test_consistent_and_mixed_responses() -> None:
    assert language_consistency_reward(chat("Hi", EN), target_language="en").score == 1.0
    mixed = language_consistency_reward(
        chat("Hi", f"{EN} {ES}"), target_language="en", min_consistency=0.8
    )
    assert mixed.score == pytest.approx(8 / 12)
    assert mixed.metrics["language_consistency"].success is False
    assert {"en_percentage", "es_percentage"} <= set(mixed.metrics)
    assert mixed.metrics["en_percentage"].score + mixed.metrics["es_percentage"].score == 1.0


def test_min_consistency_decides_passing_not_the_score() -> None:
    result = language_consistency_reward(
        chat("Hi", f"{EN} {EN} {ES}"), target_language="en", min_consistency=0.5
    )
    assert result.metrics["language_consistency"].success is True
    assert result.score < 1.0


def test_code_is_left_out() -> None:
    answer = f"{FR}\n```python\nfor the_item in the_list: print(the_item and it)\n```\n`the`"
    assert language_consistency_reward(chat("Hi", answer), target_language="fr").score == 1.0


@pytest.mark.parametrize(
    ("prompt", "target"),
    [
        ("Answer in Spanish, please.", "es"),
        ("Translate from English into French.", "fr"),
        ("Réponds en français.", "fr"),
        ("Antworte bitte auf Deutsch.", "de"),
        ("请用中文回答", "zh"),
        ("Dime qué hora es y por qué.", "es"),  # no request: the prompt's own language
    ],
)
def test_target_from_the_prompt(prompt: str, target: str) -> None:
    result = language_consistency_reward(chat(prompt, ES))
    assert result.metrics["target_language"].reason == f"Target language identified as '{target}'"


def test_target_falls_back_to_the_response() -> None:
    result = language_consistency_reward(chat("42?", FR))
    assert result.score == 1.0
    assert "the response's 'fr'" in (result.metrics["target_language"].reason or "")
    given = language_consistency_reward(chat("Answer in Spanish", FR), auto_detect=False)
    assert given.score == 1.0


@pytest.mark.parametrize("answer", ["", None, "12345", "!!!"])
def test_no_words_scores_zero(answer: Any) -> None:
    result = language_consistency_reward(chat("Hi", answer), target_language="en")
    assert result.score == 0.0
    assert result.metrics["language_consistency"].success is False


def test_no_response_scores_zero() -> None:
    assert language_consistency_reward([], target_language="en").score == 0.0


def test_bad_options_raise() -> None:
    assert "en" in LANGUAGES
    with pytest.raises(ValueError, match="target_language must be one of"):
        language_consistency_reward(chat("Hi", EN), target_language="english")
    with pytest.raises(ValueError, match="min_consistency"):
        language_consistency_reward(chat("Hi", EN), min_consistency=2)
