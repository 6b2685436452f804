"""Answer handling shared by the built-ins: normalising and extracting final answers."""

from __future__ import annotations

import math
import re
import unicodedata

__all__ = [
    "as_number",
    "boxed_content",
    "compare_math_expressions",
    "extract_answer",
    "normalize_answer",
    "normalize_text",
    "numbers_match",
    "string_similarity",
    "tag_content",
    "tag_spans",
    "without_filler",
]

_WHITESPACE = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][-+]?\d+)?")
_ANSWER_PHRASE = re.compile(
    r"(?:final answer|answer)\s*(?:is|:|=)\s*(.*\S|.)\s*(?:\n|$)", re.IGNORECASE
)
""""answer is X": X runs to the line's last non-space (what a lazy `(.+?)\\s*$` keeps,
without re-trying `\\s*` at every character of a long run of spaces)."""
_ASSIGNMENT = re.compile(r"\b[a-zA-Z]\s*=\s*(-?\d[\d,]*(?:\.\d+)?)")
"""`x = 4` (the value of a one-letter variable), not `x = 4y`: see `_assigned_values`."""
_TERM_FOLLOWS = re.compile(r"[\d.]*\s*[a-zA-Z(]")
"""After a value: more of it, then a letter or a bracket (`4y`, `4 (x + 1)`)."""
_CLOSING_IS = re.compile(r"\bis\s+((?:\S+\s+){0,3}?\S+?)[.!]?\s*$", re.IGNORECASE)
"""A closing statement "... is Paris." (at most four words after "is")."""
_LEADING_FILLER = re.compile(r"^(?:approximately|about|around|roughly|exactly)\s+", re.I)


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


def tag_spans(text: str, tag: str) -> list[tuple[int, int, int]]:
    """Every `<tag>...</tag>`, left to right: (start, content end, end) offsets.

    The content starts at `start + len("<tag>")`. One sweep of `str.find` (what the
    non-overlapping lazy `<tag>(.*?)</tag>` finds): an unclosed tag ends the search, since
    no later one can close either.
    """
    opening, closing = f"<{tag}>", f"</{tag}>"
    spans: list[tuple[int, int, int]] = []
    position = 0
    while (start := text.find(opening, position)) >= 0:
        stop = text.find(closing, start + len(opening))
        if stop < 0:
            break
        position = stop + len(closing)
        spans.append((start, stop, position))
    return spans


def tag_content(text: str, tag: str) -> str | None:
    """The stripped content of the last `<tag>...</tag>`, or None (linear time)."""
    spans = tag_spans(text, tag)
    if not spans:
        return None
    start, stop, _ = spans[-1]
    return text[start + len(tag) + 2 : stop].strip()


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
    """The final answer in a response, or `""` when it states none.

    Tried in order: the last `<answer>...</answer>`, the last `\\boxed{...}`, the text
    after a GSM8K `####`, the last "answer is X" / "Answer: X", the last `x = <number>`,
    and a closing "... is X." of at most four words.

    Example:
        >>> extract_answer("<think>2+2</think><answer>4</answer>")
        '4'
        >>> extract_answer("3x = 12, so x = 4.")
        '4'
        >>> extract_answer("This needs more analysis.")
        ''
    """
    for candidate in (tag_content(text, "answer"), boxed_content(text)):
        if candidate is not None:
            return candidate
    if "####" in text:
        return text.rsplit("####", 1)[1].strip()
    phrases = _ANSWER_PHRASE.findall(text)
    if phrases:
        return without_filler(phrases[-1].strip()).rstrip(".").strip()
    assignments = _assigned_values(text)
    if assignments:
        return assignments[-1]
    closing = _CLOSING_IS.search(text.strip())
    return without_filler(closing.group(1)) if closing else ""


def _assigned_values(text: str) -> list[str]:
    """Every `x = <number>` value not followed by a term, in one sweep (linear time).

    The same values as `findall` with the lookahead `(?![\\d.]*\\s*[a-zA-Z(])` after the
    number, which backtracks digit by digit and re-reads the rest of the digits each time
    (quadratic on `x = 999...9y`). Every shorter reading of the number that ends in its
    digits is followed by the same run as the whole one, so it fails alike; the first
    that passes ends before the number's last comma (`x = 1,234 apples` gives `1`).
    """
    values: list[str] = []
    for match in _ASSIGNMENT.finditer(text):
        value = match.group(1)
        if _TERM_FOLLOWS.match(text, match.end()) is None:
            values.append(value)
        elif (comma := value.rfind(",")) > 0:
            values.append(value[:comma])
    return values


def without_filler(answer: str) -> str:
    """The answer without a leading "approximately", "about", "around", "roughly" or
    "exactly" (a rounded answer still counts where numbers are matched by rounding).

    Example:
        >>> without_filler("approximately 3.14")
        '3.14'
    """
    return _LEADING_FILLER.sub("", answer)


def normalize_text(text: str) -> str:
    """Lower-case, drop punctuation, collapse whitespace (reward-kit 0.4.1's normaliser).

    Example:
        >>> normalize_text("The answer is 3.14 (approximately).")
        'the answer is 314 approximately'
    """
    kept = "".join(c for c in text.lower() if not unicodedata.category(c).startswith("P"))
    return _WHITESPACE.sub(" ", kept).strip()


def numbers_match(answer: float, reference: float) -> bool:
    """Equal, or `reference` rounded to the decimals `answer` was given with equals it.

    The rounding rule accepts a correctly rounded answer ("3.14" for 3.14159); the
    decimals come from `repr`, so `3.0` counts as one.

    Example:
        >>> numbers_match(3.14, 3.14159), numbers_match(3.1, 3.14159), numbers_match(3.0, 3.5)
        (True, True, False)
    """
    if math.isclose(answer, reference, rel_tol=1e-9, abs_tol=1e-12):
        return True
    decimals = len(repr(answer).partition(".")[2]) if "e" not in repr(answer) else 0
    return 0 < decimals < 15 and math.isclose(round(reference, decimals), answer, rel_tol=1e-12)


def string_similarity(a: str, b: str) -> float:
    """How alike two texts are, in [0, 1] (difflib's ratio of the normalised texts).

    Example:
        >>> string_similarity("Paris", "paris"), string_similarity("abc", "xyz")
        (1.0, 0.0)
    """
    import difflib

    left, right = normalize_text(a), normalize_text(b)
    if left == right:
        return 1.0
    return difflib.SequenceMatcher(None, left, right).ratio()


def compare_math_expressions(answer: str, reference: str) -> float:
    """1.0 for equal numbers (see `numbers_match`) or equal normalised text; else, for
    text, its `string_similarity`, and 0.0 for different numbers.

    Example:
        >>> compare_math_expressions("3.14", "3.14159"), compare_math_expressions("4", "5")
        (1.0, 0.0)
    """
    a, b = as_number(answer), as_number(reference)
    if a is not None and b is not None:
        return 1.0 if numbers_match(a, b) else 0.0
    return string_similarity(answer, reference)


def as_number(text: str) -> float | None:
    text = text.strip().rstrip(".").replace("$", "").strip()
    if not text or _NUMBER.fullmatch(text) is None:
        return None
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None
