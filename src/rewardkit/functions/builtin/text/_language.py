"""`language_consistency_reward`: is the response written in the language it should be?

Detection is a small heuristic with no dependencies. Latin-script languages are told
apart by their function words ("the", "and" / "el", "y" / "le", "et" ...); a word that
is a function word of two of them ("la", "en", "de") tells nothing and is not counted.
Other scripts count their words (their characters for Chinese and Japanese, where words
are not spaced). Code blocks and inline code are left out. Counts compare well between
Latin-script languages; across scripts they are only a rough guide.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import (
    NoResponse,
    content_text,
    field,
    no_response,
    response_text,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["count_words_by_language", "detect_dominant_language", "language_consistency_reward"]

_FUNCTION_WORDS = {
    "en": "the and is are was were of to in that it this with for on as be by not or but "
    "have has had will would can could should from at which what who they we you he she "
    "there their an a its if when than then also into over about these those our your so",
    "es": "el los las y que es son del un una por para con no se lo su sus pero como esta "
    "está esto estos muy también cuando donde porque sobre entre ser hay fue era al le les "
    "ya más sin hasta desde mucho muchas muchos de la en a o",
    "fr": "le les et est sont des un une du pour avec pas ne ce cette qui que dans sur au "
    "aux il elle ils nous vous mais ou donc très aussi être avoir fait plus comme de la en a",
    "de": "der die das und ist sind nicht ein eine einen mit für auf von zu den dem im es "
    "sich auch wie aber oder wird werden bei nach aus noch wenn ich sie wir in an so",
    "it": "il lo gli e è sono della di che per con non un una del nel si come anche più "
    "questo questa ma sul alla dei delle degli la in a",
    "pt": "o os as e é são do da dos das um uma para com não que em no na se mas como "
    "também isto isso muito ao pelo pela mais de a está esta",
    "nl": "de het een en is zijn niet van met voor op dat die er ook maar of wordt worden "
    "naar bij uit ik wij in te",
}


def _unambiguous_markers() -> dict[str, str]:
    """Function word → language, for the words of one language only."""
    uses = Counter(word for words in _FUNCTION_WORDS.values() for word in set(words.split()))
    return {
        word: lang
        for lang, words in _FUNCTION_WORDS.items()
        for word in words.split()
        if uses[word] == 1
    }


_MARKERS = _unambiguous_markers()
_SCRIPTS = {  # counted per word, except zh/ja per character
    "ru": re.compile(r"[\u0400-\u04ff]+"),
    "el": re.compile(r"[\u0370-\u03ff]+"),
    "ar": re.compile(r"[\u0600-\u06ff]+"),
    "he": re.compile(r"[\u0590-\u05ff]+"),
    "hi": re.compile(r"[\u0900-\u097f]+"),
    "th": re.compile(r"[\u0e00-\u0e7f]+"),
    "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]+"),
}
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LATIN_WORD = re.compile(r"[^\W\d_]+")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
LANGUAGES = frozenset(_FUNCTION_WORDS) | frozenset(_SCRIPTS) | {"zh", "ja"}
"""The language codes this module can detect."""

_NAMES = {
    "en": "english",
    "es": "spanish|español|espanol|castellano",
    "fr": "french|français",
    "de": "german|deutsch",
    "it": "italian|italiano",
    "pt": "portuguese|português",
    "nl": "dutch|nederlands",
    "ru": "russian|русском",
    "el": "greek",
    "ar": "arabic",
    "he": "hebrew",
    "hi": "hindi",
    "th": "thai",
    "ko": "korean|한국어",
    "zh": "chinese|mandarin",
    "ja": "japanese|日本語",
}
_REQUEST = re.compile(
    r"\b(?:in|into|en|auf|em|на)\s+("
    + "|".join(_NAMES.values())
    + r")\b|(中文|汉语|日本語|한국어)",
    re.IGNORECASE,
)
_BY_NAME = {name: code for code, names in _NAMES.items() for name in names.split("|")}
_BY_NAME |= {"中文": "zh", "汉语": "zh"}


def count_words_by_language(text: str) -> dict[str, int]:
    """How many words of each language a text has (see the module docstring for how).

    Example:
        >>> count_words_by_language("The cat and el perro")
        {'en': 2, 'es': 1}
    """
    counts: Counter[str] = Counter()
    for word in _LATIN_WORD.findall(text.lower()):
        if word in _MARKERS:
            counts[_MARKERS[word]] += 1
    for lang, script in _SCRIPTS.items():
        counts[lang] += len(script.findall(text))
    han, kana = len(_HAN.findall(text)), len(_KANA.findall(text))
    # Japanese writes with kanji and kana; Chinese with hanzi alone.
    if kana * 10 >= han + kana:
        counts["ja"] += han + kana
    else:
        counts["zh"] += han + kana
    return {lang: n for lang, n in counts.items() if n > 0}


def detect_dominant_language(text: str) -> tuple[str | None, float]:
    """The language with the most words, and its share of all counted words.

    `(None, 0.0)` when no word of a known language is found.

    Example:
        >>> detect_dominant_language("Le chat est sur la table et il dort")
        ('fr', 1.0)
    """
    counts = count_words_by_language(text)
    if not counts:
        return None, 0.0
    lang = max(counts, key=lambda code: counts[code])
    return lang, counts[lang] / sum(counts.values())


def _requested(messages: list[Message]) -> str | None:
    """The language the prompt asks for ("in Spanish", "auf Deutsch"), the last one named."""
    prompt = " ".join(
        content_text(field(m, "content"))
        for m in messages[:-1]
        if field(m, "role") in ("system", "user")
    )
    named = [a or b for a, b in _REQUEST.findall(prompt)]
    if named:
        return _BY_NAME[named[-1].lower()]
    return detect_dominant_language(prompt)[0]


def _target(
    messages: list[Message], target_language: str | None, auto_detect: bool, text: str
) -> tuple[str | None, str]:
    if target_language is not None:
        return target_language, f"Target language given as '{target_language}'"
    if auto_detect and (lang := _requested(messages)) is not None:
        return lang, f"Target language identified as '{lang}'"
    lang = detect_dominant_language(text)[0]
    return lang, f"No target language given or found in the prompt; the response's '{lang}'"


@reward_function
def language_consistency_reward(
    messages: list[Message],
    ground_truth: Any = None,
    target_language: str | None = None,
    min_consistency: float = 0.6,
    auto_detect: bool = True,
    **kwargs: Any,
) -> EvaluateResult:
    """The share of the response's words that are in the target language.

    The target is `target_language`; else, with `auto_detect`, the language the prompt
    asks for ("answer in Spanish") or the prompt's own language; else the response's
    dominant language. The `language_consistency` metric passes at `min_consistency`;
    `<code>_percentage` metrics give each language's share.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        target_language: The expected language, as a code in `LANGUAGES` (e.g. `"en"`).
        min_consistency: The share needed to pass, in [0, 1].
        auto_detect: Without `target_language`, take the target from the prompt.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `target_language` is not in `LANGUAGES`, or `min_consistency` is
            not in [0, 1].

    Example:
        >>> language_consistency_reward(
        ...     [{"role": "user", "content": "Réponds en français."},
        ...      {"role": "assistant", "content": "Le chat est sur la table et il dort."}]
        ... ).score
        1.0
    """
    if target_language is not None and target_language not in LANGUAGES:
        raise ValueError(
            f"language_consistency_reward: target_language must be one of "
            f"{sorted(LANGUAGES)} (got {target_language!r})"
        )
    if not 0.0 <= min_consistency <= 1.0:
        raise ValueError(
            f"language_consistency_reward: min_consistency must be in [0, 1] "
            f"(got {min_consistency!r})"
        )
    try:
        text = _CODE.sub(" ", response_text(messages))
    except NoResponse as problem:
        return no_response("language_consistency", problem)
    target, how = _target(messages, target_language, auto_detect, text)
    counts = count_words_by_language(text)
    total = sum(counts.values())
    if target is None or not total:
        reason = "The response has no words of a known language"
        return EvaluateResult(
            score=0.0,
            reason=reason,
            metrics={
                "language_consistency": MetricResult(score=0.0, reason=reason, success=False),
                "target_language": MetricResult(score=0.0, reason=how, success=False),
            },
        )
    share = counts.get(target, 0) / total
    reason = f"{share:.0%} of the counted words are in '{target}' ({counts.get(target, 0)}/{total})"
    metrics = {
        "language_consistency": MetricResult(
            score=share, reason=reason, success=share >= min_consistency
        ),
        "target_language": MetricResult(score=1.0, reason=how, success=True),
    }
    for lang in sorted({*counts, target}):
        n = counts.get(lang, 0)
        metrics[f"{lang}_percentage"] = MetricResult(
            score=n / total, reason=f"{n}/{total} words in '{lang}'"
        )
    return EvaluateResult(score=share, reason=reason, metrics=metrics)
