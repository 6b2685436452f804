"""Find the answers stated in a math response, and compare numbers with tolerances.

`extract_numbers` looks, in order of priority, for `<answer>` tags, `\\boxed{}`
expressions, GSM8K `#### n` lines and finally any number in the text (integers,
decimals, fractions, `\\frac{a}{b}`, scientific notation, numbers with units), skipping
coefficients of variables (`4x`, `4 y`) and numbers inside LaTeX commands (`\\sqrt{2}`).
"""

from __future__ import annotations

import bisect
import math
import re

from rewardkit.functions.builtin._answers import tag_spans

__all__ = ["Extracted", "box_spans", "compare_numbers", "extract_numbers", "has_unit"]

Extracted = tuple[str, float | str]
"""One answer: the text it was read from, and its value (a number, or a string for a
multiple-choice letter or an "x or y" expression)."""

_NUM = r"-?\d+(?:\.\d+)?"
_UNITS = (
    "km/h|m/s|km|cm|mm|m|kg|mg|g|lbs|lb|mph|ms|sec|seconds|s|minutes|min|hours|hr|h|days"
    "|kHz|MHz|GHz|Hz|kW|W|J|N|V|mL|ml|L|degrees|dollars|cents|%|°"
)
_UNIT = re.compile(rf"(?:{_UNITS})(?![A-Za-z])")
_BRACE = re.compile(r"\\boxed\{|[{}]")
_MAX_ANSWERS = 200
"""`extract_numbers` keeps the last this many answers (the final answer is the last)."""
_MAX_FREE_TEXT = 32_000
"""Without tags, boxes or `####`, numbers are read from the last this many characters."""
_SPACE = re.compile(r"\s")
_MAX_BOXED = 500
"""A `\\boxed{}` whose content is longer than this is no answer (bounds the work and the
answers a hostile nest of boxes could make; a box still counts as found)."""
_GSM8K = re.compile(r"####\s*(-?\d[\d,]*(?:\.\d+)?)")
_OR = re.compile(r"\bor\b|\\text\{\s*or\s*\}")
_LETTER = re.compile(r"\(?([A-E])\)?")
# A number starts at its first digit (the lookbehind): no re-scan from each digit of a run.
_SCI_LATEX = re.compile(r"(-?(?<!\d)\d+(?:\.\d+)?)\s*\\times\s*10\^\{?(-?\d+)\}?")
_FRAC_LATEX = re.compile(rf"\\[dt]?frac\{{({_NUM})\}}\{{({_NUM})\}}")
_SCI = re.compile(rf"(?<![\w.]){_NUM}[eE][-+]?\d+(?!\w|\.\d)")
_FRACTION = re.compile(r"(?<![\w./])(-?\d+)/(\d+)(?!\w|\.\d|/)")
_NUMBER = re.compile(
    r"(?<![\w.^_])(?<!\\[a-zA-Z]\{)(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)"
)
_AFTER = re.compile(r"(\s?)([A-Za-z%°/]+)?")


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


def box_spans(text: str) -> list[tuple[int, int]] | None:
    """Every closed `\\boxed{...}` (braces balanced) as (start, closing brace), by start.

    One sweep over the braces with a stack, so a long run of unclosed boxes costs linear
    time rather than a scan to the end of the text from each.
    """
    if "\\boxed{" not in text:
        return None
    slots: list[int | None] = []
    starts: list[int] = []
    opened: list[int] = []  # slot index of a box, or -1 for a plain brace
    for match in _BRACE.finditer(text):
        if match.end() - match.start() > 1:
            opened.append(len(slots))
            starts.append(match.start())
            slots.append(None)
        elif match.group() == "{":
            opened.append(-1)
        elif opened and (slot := opened.pop()) >= 0:
            slots[slot] = match.start()
    found = [(start, end) for start, end in zip(starts, slots, strict=True) if end is not None]
    return found or None


def _boxed_answers(text: str, boxes: list[tuple[int, int]]) -> list[Extracted]:
    answers: list[Extracted] = []
    alternatives: list[int] | None = None  # starts of the "or" matches, found once
    ends: list[int] = []
    for i, (start, end) in enumerate(boxes):
        begin = start + len("\\boxed{")
        if end - begin > _MAX_BOXED:
            continue
        whole, content = text[start : end + 1], text[begin:end]
        nested = i + 1 < len(boxes) and boxes[i + 1][0] < end
        if nested:  # holds a box, so no number or letter: only an "or" can make it an answer
            if alternatives is None:
                found = [(m.start(), m.end()) for m in _OR.finditer(text)]
                alternatives, ends = [s for s, _ in found], [e for _, e in found]
            k = bisect.bisect_left(alternatives, begin)
            if k < len(alternatives) and ends[k] <= end:
                answers.append((whole, content.strip()))
            continue
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


def _after_command(text: str, start: int) -> bool:
    """Whether `text[:start]` ends with a LaTeX command's `\\name{` (as `$` reads it)."""
    for end in (start, start - 1) if text.endswith("\n", 0, start) else (start,):
        if end < 2 or text[end - 1] != "{":
            continue
        letters = end - 1
        while letters > 0 and text[letters - 1].isascii() and text[letters - 1].isalpha():
            letters -= 1
        if letters < end - 1 and text.endswith("\\", 0, letters):
            return True
    return False


class _Claims:
    """The spans already read as numbers; each reading pattern claims in text order.

    Earlier patterns' spans are kept sorted and disjoint, so one forward pointer answers
    "does this overlap?" in amortised constant time (no scan of every span per number).
    """

    def __init__(self) -> None:
        self.taken: list[tuple[int, int]] = []
        self.new: list[tuple[int, int]] = []
        self.next = 0

    def claim(self, start: int, end: int) -> bool:
        taken = self.taken
        while self.next < len(taken) and taken[self.next][1] <= start:
            self.next += 1
        if self.next < len(taken) and taken[self.next][0] < end:
            return False
        if self.new and self.new[-1][1] > start:
            return False
        self.new.append((start, end))
        return True

    def next_pattern(self) -> None:
        self.taken = sorted(self.taken + self.new)
        self.new, self.next = [], 0


def _general(text: str) -> list[Extracted]:
    """Every number in free text, by position, the most specific reading first."""
    claims = _Claims()
    found: list[tuple[int, Extracted]] = []
    for pattern in (_SCI_LATEX, _FRAC_LATEX, _SCI, _FRACTION):
        for match in pattern.finditer(text):
            value = _number(match.group(0))
            if value is not None and claims.claim(match.start(), match.end()):
                found.append((match.start(), (match.group(0), value)))
        claims.next_pattern()
    for match in _NUMBER.finditer(text):
        if _after_command(text, match.start()):
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
        if value is not None and claims.claim(match.start(), end):
            found.append((match.start(), (shown, value)))
    return [answer for _, answer in sorted(found, key=lambda item: item[0])]


def extract_numbers(text: str) -> list[Extracted]:
    """The answers stated in `text`, from its most explicit form of answer.

    Priority: `<answer>` tags holding a number; else every `\\boxed{}` (a number, a
    multiple-choice letter or an "or" expression; once any box is found, only boxes
    count); else GSM8K `#### n`; else every number in the text. Bounded for untrusted
    text: only the last 200 answers are kept, free-text numbers are read from the last
    32,000 characters (from a word boundary), and a box holding over 500 characters is
    no answer.

    Example:
        >>> extract_numbers("Half is \\\\frac{1}{2}, so \\\\boxed{0.5}.")
        [('\\\\boxed{0.5}', 0.5)]
        >>> extract_numbers("It is 42 km, not 4x.")
        [('42 km', 42.0)]
    """
    return _extracted(text)[-_MAX_ANSWERS:]


def _extracted(text: str) -> list[Extracted]:
    tagged: list[Extracted] = []
    for start, stop, end in tag_spans(text, "answer"):
        value = _number(text[start + len("<answer>") : stop])
        if value is not None:
            tagged.append((text[start:end], value))
    if tagged:
        return tagged
    boxes = box_spans(text)
    if boxes is not None:
        return _boxed_answers(text, boxes)
    gsm8k = [(m.group(0), float(m.group(1).replace(",", ""))) for m in _GSM8K.finditer(text)]
    if gsm8k:
        return list(gsm8k)
    if len(text) > _MAX_FREE_TEXT:  # the tail, from a nearby space so no number is cut
        cut = len(text) - _MAX_FREE_TEXT
        space = _SPACE.search(text, cut, cut + 100)
        text = text[space.end() if space else cut :]
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
