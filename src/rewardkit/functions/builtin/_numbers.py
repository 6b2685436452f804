"""Find the answers stated in a math response, and compare numbers with tolerances.

`extract_numbers` looks, in order of priority, for `<answer>` tags, `\\boxed{}`
expressions, GSM8K `#### n` lines and finally any number in the text (integers,
decimals, fractions, `\\frac{a}{b}`, scientific notation, numbers with units), skipping
coefficients of variables (`4x`, `4 y`) and numbers inside LaTeX commands (`\\sqrt{2}`).
"""

from __future__ import annotations

import math
import re

__all__ = ["Extracted", "compare_numbers", "extract_numbers", "has_unit"]

Extracted = tuple[str, float | str]
"""One answer: the text it was read from, and its value (a number, or a string for a
multiple-choice letter or an "x or y" expression)."""

_NUM = r"-?\d+(?:\.\d+)?"
_UNITS = (
    "km/h|m/s|km|cm|mm|m|kg|mg|g|lbs|lb|mph|ms|sec|seconds|s|minutes|min|hours|hr|h|days"
    "|kHz|MHz|GHz|Hz|kW|W|J|N|V|mL|ml|L|degrees|dollars|cents|%|°"
)
_UNIT = re.compile(rf"(?:{_UNITS})(?![A-Za-z])")
_TAGGED = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_GSM8K = re.compile(r"####\s*(-?\d[\d,]*(?:\.\d+)?)")
_OR = re.compile(r"\bor\b|\\text\{\s*or\s*\}")
_LETTER = re.compile(r"\(?([A-E])\)?")
_SCI_LATEX = re.compile(rf"({_NUM})\s*\\times\s*10\^\{{?(-?\d+)\}}?")
_FRAC_LATEX = re.compile(rf"\\[dt]?frac\{{({_NUM})\}}\{{({_NUM})\}}")
_SCI = re.compile(rf"(?<![\w.]){_NUM}[eE][-+]?\d+(?!\w|\.\d)")
_FRACTION = re.compile(r"(?<![\w./])(-?\d+)/(\d+)(?!\w|\.\d|/)")
_NUMBER = re.compile(
    r"(?<![\w.^_])(?<!\\[a-zA-Z]\{)(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)"
)
_AFTER = re.compile(r"(\s?)([A-Za-z%°/]+)?")
_COMMAND_OPEN = re.compile(r"\\[a-zA-Z]+\{$")


def _number(text: str) -> float | None:
    """A plain number, `a/b`, `\\frac{a}{b}` or `a \\times 10^{b}`, else None."""
    text = text.strip().strip("$").strip()
    for pattern in (_SCI_LATEX, _FRAC_LATEX, _FRACTION):
        match = pattern.fullmatch(text)
        if match:
            a, b = float(match.group(1)), float(match.group(2))
            if pattern is _SCI_LATEX:
                return a * 10**b
            return a / b if b else None
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _with_unit(text: str) -> float | None:
    """`10 km` → 10.0: a number followed by a known unit."""
    match = re.fullmatch(rf"({_NUM})\s*(?:\\(?:text|mathrm)\{{\s*)?(?:{_UNITS})\}}?", text.strip())
    return float(match.group(1)) if match else None


def _boxed(text: str) -> list[tuple[int, str, str]] | None:
    """Every `\\boxed{...}` (braces balanced): (start, whole text, content)."""
    found = []
    for match in re.finditer(r"\\boxed\{", text):
        depth, begin = 1, match.end()
        for i in range(begin, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                found.append((match.start(), text[match.start() : i + 1], text[begin:i]))
                break
    return found or None


def _boxed_answers(boxes: list[tuple[int, str, str]]) -> list[Extracted]:
    answers: list[Extracted] = []
    for _, whole, content in boxes:
        value = _number(content)
        if value is None:
            value = _with_unit(content)
        if value is not None:
            answers.append((whole, value))
        elif _OR.search(content):
            answers.append((whole, content.strip()))
        elif letter := _LETTER.fullmatch(content.strip()):
            answers.append((whole, letter.group(1)))
    return answers


def _general(text: str) -> list[Extracted]:
    """Every number in free text, by position, the most specific reading first."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Extracted]] = []

    def claim(start: int, end: int) -> bool:
        if any(start < e and s < end for s, e in taken):
            return False
        taken.append((start, end))
        return True

    for pattern in (_SCI_LATEX, _FRAC_LATEX, _SCI, _FRACTION):
        for match in pattern.finditer(text):
            value = _number(match.group(0))
            if value is not None and claim(match.start(), match.end()):
                found.append((match.start(), (match.group(0), value)))
    for match in _NUMBER.finditer(text):
        if _COMMAND_OPEN.search(text, 0, match.start()):
            continue  # the argument of a LaTeX command, e.g. \sqrt{2} or \frac{24}{v}
        end, shown = match.end(), match.group(0)
        after = _AFTER.match(text, end)
        word = after.group(2) if after else None
        if word:
            unit = _UNIT.match(word)
            if unit and unit.end() == len(word):
                shown, end = text[match.start() : after.end()], after.end()  # type: ignore[union-attr]
            elif not after.group(1) or len(word) == 1:  # type: ignore[union-attr]
                continue  # a coefficient: 4x, 4 y
        value = _number(match.group(0))
        if value is not None and claim(match.start(), end):
            found.append((match.start(), (shown, value)))
    return [answer for _, answer in sorted(found, key=lambda item: item[0])]


def extract_numbers(text: str) -> list[Extracted]:
    """The answers stated in `text`, from its most explicit form of answer.

    Priority: `<answer>` tags holding a number; else every `\\boxed{}` (a number, a
    multiple-choice letter or an "or" expression; once any box is found, only boxes
    count); else GSM8K `#### n`; else every number in the text.

    Example:
        >>> extract_numbers("Half is \\\\frac{1}{2}, so \\\\boxed{0.5}.")
        [('\\\\boxed{0.5}', 0.5)]
        >>> extract_numbers("It is 42 km, not 4x.")
        [('42 km', 42.0)]
    """
    tagged: list[Extracted] = []
    for match in _TAGGED.finditer(text):
        value = _number(match.group(1))
        if value is not None:
            tagged.append((match.group(0), value))
    if tagged:
        return tagged
    boxes = _boxed(text)
    if boxes is not None:
        return _boxed_answers(boxes)
    gsm8k = [(m.group(0), float(m.group(1).replace(",", ""))) for m in _GSM8K.finditer(text)]
    if gsm8k:
        return list(gsm8k)
    return _general(text)


def has_unit(text: str) -> bool:
    """Whether an extracted answer's text carries a unit (`10 km`, `\\boxed{5 kg}`)."""
    inner = text.removeprefix("\\boxed{").removesuffix("}")
    return _with_unit(inner) is not None or bool(re.search(rf"\d\s*(?:{_UNITS})\b", inner))


def compare_numbers(
    expected: float,
    actual: float,
    relative_tolerance: float = 1e-5,
    absolute_tolerance: float = 1e-8,
) -> tuple[bool, float]:
    """Whether `actual` equals `expected` within the tolerances, and how close it is.

    The closeness is 1.0 for a match, else `1 - |actual - expected| / |expected|` (over
    the larger of the two when `expected` is 0), floored at 0.

    Example:
        >>> compare_numbers(3.14159, 3.14, relative_tolerance=0.01)
        (True, 1.0)
        >>> compare_numbers(100.0, 200.0)
        (False, 0.0)
    """
    if math.isclose(expected, actual, rel_tol=relative_tolerance, abs_tol=absolute_tolerance):
        return True, 1.0
    scale = abs(expected) or abs(actual)
    return False, max(0.0, 1.0 - abs(actual - expected) / scale)
