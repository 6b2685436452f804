"""The final answer a math response commits to, read from the end (linear time).

Tried in order, on the text after the last `</think>` and before a chat template's next
turn (`<|im_start|>`):

1. the last `<answer>...</answer>` (its box or "answer is" phrase if it has one), or what
   follows an `<answer>` that never closes;
2. the last `\\boxed{}` and the boxes joined to it by commas, `\\quad`, "and" or "or"
   (`\\boxed{1}, \\boxed{2}` is the list 1, 2), unless a "final answer is" phrase follows;
3. the line after the last GSM8K `####`;
4. the last "final answer is X" / "answer: X" (to the end of its sentence);
5. math that ends the response (`$...$`, `\\(...\\)`, `\\[...\\]`), a last sentence ending
   "is 2/3.", a closing "Therefore, ..." with one number, a short response that is an answer.

A response cut off mid-answer (an unclosed `<think>` or `\\boxed{` after the last closed
one) has no final answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardkit.functions.builtin._answers import tag_spans
from rewardkit.functions.builtin.math._numbers import box_spans
from rewardkit.functions.builtin.math._parse import parse_answer

__all__ = ["Final", "cut_off", "final_answer", "prose"]

_MAX_RUN = 200
"""At most this many adjacent boxes make one answer (more is a list of candidates)."""
_MAX_PHRASE = 300
"""An answer phrase's answer is read from at most this many characters."""
_SEPARATORS = re.compile(
    r"(?:\s|\$|,|;|\\quad|\\qquad|\\[,;! ]|\\\]|\\\[|\\\)|\\\(|\\\\|&"
    r"|\\text\s*\{[^{}\d]{0,40}\}|\b[a-zA-Z]{1,12}\b)*"
)
_PHRASE = re.compile(r"(?:final\s+answer|answer)\s*(?:is\b\s*:?|:|=)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"\.(?:\s|$)|\n|(?<=\$)\s+[A-Z]")
_WORDS = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{2,}\s+[a-zA-Z]{2,}\s+[a-zA-Z]{2,}")
_LONG_WORD = re.compile(r"(?<![\\a-zA-Z])[a-zA-Z]{4,}")
"""A word outside a LaTeX command: prose, not a bare answer."""
_NUMBERS = re.compile(r"-?\d[\d,]*(?:\.\d+)?%?")
_IS = re.compile(r"\bis\s+(\S[^.]*?)\s*$")
"""A sentence that states its answer last: "... is 34"."""
_CLOSING_IS = re.compile(r"\bis\s+\$?(-?\d[\d,./]*%?)\$?\s*[.!]?\s*$")
"""A response whose last sentence ends "... is 2/3." (a number, nothing after it)."""
_BOILERPLATE = re.compile(r"\s*I hope it is correct\.?\s*$", re.IGNORECASE)
_CONCLUSION = re.compile(r"(?:Therefore|Thus|Hence|So)\b", re.IGNORECASE)
_MATH_END = re.compile(
    r"(?<!\\)(\$\$|\$|\\\]|\\\))[\s.,;!]*(?:(?:is|as|are)\b[a-zA-Z ]{0,30}[.!]?\s*)?$"
)
"""Math that ends the response, perhaps with a few words: `$x \\ge 5$ is the solution.`"""
_OPENERS = {"$$": "$$", "$": "$", "\\]": "\\[", "\\)": "\\("}


@dataclass(frozen=True)
class Final:
    """A response's final answer: its text, where it was found, and whether it offers
    alternatives outside a box ("1/2 or 1") or is one of three or more different boxes."""

    text: str
    where: str
    hedged: bool = False
    position: int = -1


_CUT = Final("", "cut")
"""A box left open: the response was cut off mid-answer."""


def final_answer(text: str) -> Final | None:
    """The response's final answer, or None when it commits to none.

    Example:
        >>> final_answer("So $x = 4$.\\n\\nFinal answer: $\\\\boxed{4}$").text
        '4'
        >>> final_answer("The answer is \\\\boxed{4") is None
        True
    """
    closed = text.rfind("</think>")
    if text.rfind("<think>") > closed:
        return None  # still thinking: cut off (`cut_off` says so)
    if closed >= 0 and text[closed + len("</think>") :].strip():
        text = text[closed + len("</think>") :]
    chat = text.rfind("<|im_start|>")  # a chat template's next turn, generated on
    if chat >= 0:
        text = text[:chat]
    spans = tag_spans(text, "answer")
    if spans:
        start, stop, end = spans[-1]
        if text.find("<answer>", end) >= 0:
            return None  # a later answer tag never closed
        inner = text[start + len("<answer>") : stop].strip()
        found = _boxed(inner) or _phrase(inner)
        if found is _CUT:
            return None
        return Final(found.text if found else inner.strip("$ \n"), "tag")
    opened = text.rfind("<answer>")
    if opened >= 0:  # never closed: what follows it, if anything (`</answer>` a stop string)
        inner = text[opened + len("<answer>") :].strip()
        return Final(inner.strip("$ \n"), "tag") if inner else None
    boxed = _boxed(text)
    if boxed is _CUT:
        return None
    phrase = _phrase(text)
    if boxed and phrase and text.rfind("\\boxed{") < phrase.position:
        return phrase  # "... = \\boxed{255} ... Final Answer: The final answer is $10,455$."
    return (
        boxed or _gsm8k(text) or phrase or _closing_math(text) or _closing_is(text) or _bare(text)
    )


def _bare(text: str) -> Final | None:
    """A short response that is nothing but an answer: `-\\frac{10}{9}`, `1 000`."""
    stripped = text.strip().strip("$").strip()
    if len(stripped) > 200 or "\n" in stripped or _LONG_WORD.search(stripped):
        return None
    return Final(stripped, "bare") if parse_answer(stripped) is not None else None


def _boxed(text: str) -> Final | None:
    last = text.rfind("\\boxed{")
    if last < 0:
        return None
    spans = box_spans(text) or []
    if _open_box(spans, last):
        return _CUT
    outer: list[tuple[int, int]] = []
    for span in spans:  # by start: a box starting inside the previous outer one is nested
        if not outer or span[0] > outer[-1][1]:
            outer.append(span)
    run = [outer[-1]]  # the last box and those joined to it, from the end
    joiner = ", "
    for span in reversed(outer[-_MAX_RUN:-1]):
        gap = text[span[1] + 1 : run[-1][0]]
        if len(gap) > 80 or not _joins(gap):
            break
        if re.search(r"\bor\b", gap):
            joiner = " or "
        run.append(span)
    run.reverse()
    contents = [text[s + len("\\boxed{") : e].strip() for s, e in run]
    if not all(contents):
        return None
    distinct: set[str] = set()
    for start, end in outer:
        distinct.add(re.sub(r"\s+", "", text[start + len("\\boxed{") : end])[:500])
        if len(distinct) >= 3:
            break
    return Final(joiner.join(contents), "box", hedged=len(run) == 1 and len(distinct) >= 3)


_NAMED = re.compile(r"[a-zA-Z]\w*(?:_\{?\w+\}?)?\s*=\s*$")


def prose(text: str) -> bool:
    """Three words in a row outside LaTeX commands: a sentence, not a formula."""
    return bool(_WORDS.search(text))


def cut_off(text: str) -> str | None:
    """Why a response stops mid-answer, or None: a `<think>`, a last `\\boxed{` or an empty
    last `<answer>` that never closes (what makes `final_answer` find none)."""
    if text.rfind("<think>") > text.rfind("</think>"):
        return "the response ends inside <think>"
    last = text.rfind("\\boxed{")
    if last >= 0 and _open_box(box_spans(text) or [], last):
        return "its last \\boxed{ never closes"
    if text.rfind("<answer>") > text.rfind("</answer>"):
        return "its last <answer> never closes"
    return None


def _open_box(spans: list[tuple[int, int]], last: int) -> bool:
    """Whether the box starting at `last` (the last `\\boxed{`) is not among the closed ones."""
    return not spans or spans[-1][0] != last


def _joins(gap: str) -> bool:
    """Whether what stands between two answers joins them into one list: separators and at
    most four words with an "and" or "or" among them (`\\boxed{1} papers and \\boxed{2}`,
    not "then" or "no"), perhaps naming the next (`y_2 =`)."""
    gap = _NAMED.sub("", gap)  # `\\boxed{...} \\) and \\( y_2 = \\boxed{...}`: named values
    if not _SEPARATORS.fullmatch(gap):
        return False
    words = re.findall(r"(?<!\\)\b[a-zA-Z]+", re.sub(r"\\text\s*\{", " ", gap))
    return not words or (len(words) <= 4 and bool({"and", "or"} & set(words)))


def _gsm8k(text: str) -> Final | None:
    marker = text.rfind("####")
    if marker < 0:
        return None
    line = text[marker + 4 :].split("\n", 1)[0].strip()
    return Final(line.rstrip("."), "gsm8k") if line else None


def _phrase(text: str) -> Final | None:
    last = None
    for last in _PHRASE.finditer(text):  # noqa: B007 - the last match is kept
        pass
    if last is None:
        return None
    rest = text[last.end() : last.end() + _MAX_PHRASE]
    end = _SENTENCE_END.search(rest)
    answer = (rest[: end.start()] if end else rest).replace("**", "").strip()
    if (sentence := _IS.search(answer)) and not re.search(r"[=<>]", answer):
        answer = sentence.group(1)  # "Final Answer: The largest $n$ is 34."
    answer = answer.replace('\\"', '"').strip().strip('"').strip().strip("$").strip()
    if prose(answer) and len(numbers := _NUMBERS.findall(answer)) == 1:
        answer = numbers[0]  # "Final Answer: Jane started growing it 3 hours ago."
    hedged = bool(re.search(r"\bor\b", answer)) and "\\boxed" not in answer
    return Final(answer, "phrase", hedged=hedged, position=last.start()) if answer else None


def _closing_math(text: str) -> Final | None:
    """The `$...$` spans that end the response: `... the area is $9\\pi$.`, or `... are
    $v_R = 4$ and $v_B = 10$.` (spans separated only by "and", "or" or commas are one list)."""
    tail = text[-2000:]
    match = _MATH_END.search(tail)
    if match is None:
        return None
    closing = match.group(1)
    start = _unescaped(tail, _OPENERS[closing], match.start())
    if start < 0:
        return None
    parts = [tail[start + len(_OPENERS[closing]) : match.start()].strip()]
    joiner = ", "
    while closing == "$" and (end := _unescaped(tail, "$", start)) > 0:
        gap = tail[end + 1 : start]
        opening = _unescaped(tail, "$", end)
        if opening < 0 or len(gap) > 40 or not _joins(gap):
            break
        joiner = " or " if re.search(r"\bor\b", gap) else joiner
        parts.insert(0, tail[opening + 1 : end].strip())
        start = opening
    if not all(parts):
        return None
    return Final(joiner.join(parts), "math", hedged=joiner == " or ")


def _unescaped(text: str, delimiter: str, before: int) -> int:
    """The last `delimiter` before `before` that is not `\\$` (a dollar sign), or -1."""
    position = text.rfind(delimiter, 0, before)
    while position > 0 and delimiter == "$" and text[position - 1] == "\\":
        position = text.rfind(delimiter, 0, position - 1)
    return position


def _closing_is(text: str) -> Final | None:
    """A last sentence that ends on its number: "... the probability is 2/3."."""
    match = _CLOSING_IS.search(text[-300:])
    if match:
        return Final(match.group(1).rstrip(".,"), "closing")
    tail = _BOILERPLATE.sub("", text[-400:])
    last = re.split(r"(?<=[.!?])\s+", tail.strip())[-1]
    numbers = _NUMBERS.findall(last)
    if _CONCLUSION.match(last) and len(numbers) == 1 and "$" not in last:
        return Final(numbers[0].rstrip(".,"), "closing")  # "Therefore, there are 12 ..."
    return None
