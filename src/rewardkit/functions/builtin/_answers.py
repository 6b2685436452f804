"""Answer handling shared by the built-ins: normalising and extracting final answers."""

from __future__ import annotations

import math
import re
import unicodedata

__all__ = ["as_number", "boxed_content", "extract_answer", "normalize_answer", "tag_content"]

_WHITESPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")
_ANSWER_PHRASE = re.compile(
    r"(?:final answer|answer)\s*(?:is|:|=)\s*(.+?)\s*(?:\n|$)", re.IGNORECASE
)


def normalize_answer(
    text: str, *, case_sensitive: bool = False, ignore_punctuation: bool = False
) -> str:
    """Normalise an answer for comparison.

    Applies Unicode NFKC, collapses whitespace, drops one trailing period and, unless
    `case_sensitive`, case-folds. `ignore_punctuation` removes every punctuation mark.

    Example:
        >>> normalize_answer("  The  Eiffel\\nTower. ")
        'the eiffel tower'
    """
    text = unicodedata.normalize("NFKC", text)
    if ignore_punctuation:
        text = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)
    text = _WHITESPACE.sub(" ", text).strip()
    text = text.removesuffix(".").rstrip()
    return text if case_sensitive else text.casefold()


def tag_content(text: str, tag: str) -> str | None:
    found = re.findall(rf"<{re.escape(tag)}>(.*?)</{re.escape(tag)}>", text, re.DOTALL)
    return found[-1].strip() if found else None


def boxed_content(text: str) -> str | None:
    """The content of the last `\\boxed{...}`, braces balanced."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth, begin = 0, start + len("\\boxed{")
    for i in range(begin - 1, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[begin:i].strip()
    return None


def extract_answer(text: str) -> str:
    """The final answer in a response.

    Tried in order: the last `<answer>...</answer>`, the last `\\boxed{...}`, the text
    after a GSM8K `####`, a closing "answer is X" / "Answer: X", else the whole text.

    Example:
        >>> extract_answer("<think>2+2</think><answer>4</answer>")
        '4'
    """
    for candidate in (tag_content(text, "answer"), boxed_content(text)):
        if candidate is not None:
            return candidate
    if "####" in text:
        return text.rsplit("####", 1)[1].strip()
    phrases = _ANSWER_PHRASE.findall(text)
    return phrases[-1].strip() if phrases else text.strip()


def as_number(text: str) -> float | None:
    text = text.strip().rstrip(".").replace("$", "").strip()
    if not text or _NUMBER.fullmatch(text) is None:
        return None
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None
