"""What goes into and comes out of a program the code rewards run.

`compare_outputs` scores printed output against the expected output with partial credit
for near misses (bounded, never raising: the output is untrusted); `call_arguments` reads
a test case's input as the arguments of a function call.
"""

from __future__ import annotations

import ast
import json
import math
import re
import shlex
from typing import Any

from rewardkit.functions.builtin._answers import as_number

__all__ = ["call_arguments", "compare_outputs"]

_SPACES = re.compile(r"[ \t]+")
_PARTIAL_CREDIT_CHARS = 100_000
"""Past this much output (or expected output) only an exact match scores: partial credit
for a huge output is noise, and computing it would cost the grader quadratic time."""
_DIFF_COST = 20_000_000
"""The most character pairs difflib may compare for one output (its worst case is n·m)."""


def _normalized_lines(text: str) -> list[str]:
    return [_SPACES.sub(" ", line).strip() for line in text.strip().splitlines()]


def _literal(text: str) -> Any:
    """`text` as a JSON or Python literal, or `text` itself when it is neither."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _text_similarity(a: str, b: str) -> float:
    """difflib's ratio: punctuation and case count in program output."""
    import difflib

    if len(a) * len(b) > _DIFF_COST:
        return float(a == b)
    return difflib.SequenceMatcher(None, a, b).ratio() if a or b else 1.0


def _number_closeness(a: float, b: float) -> float:
    if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9):
        return 1.0
    return max(0.0, 1.0 - abs(a - b) / max(abs(a), abs(b)))


def _list_overlap(got: list[Any], want: list[Any]) -> float:
    same = sum(g == w for g, w in zip(got, want, strict=False))
    return same / max(len(got), len(want)) if got or want else 1.0


def compare_outputs(actual: str, expected: str) -> float:
    """How well program output matches the expected output, in [0, 1].

    1.0 when equal up to whitespace (trailing, leading and repeated spaces). Otherwise
    two numbers score `1 - |a - b| / max(|a|, |b|)` (1.0 within a relative 1e-6); two
    lists the share of equal items at the same position; multi-line output the mean
    similarity of the lines at each position (a missing line scores 0); one line its
    text similarity (difflib's ratio; case and punctuation count). An output (or expected
    output) over 100,000 characters scores 0.0 unless equal; the comparison never raises.

    Example:
        >>> compare_outputs("  42 ", "42"), compare_outputs("[1, 2, 3, 4]", "[1, 2, 3]")
        (1.0, 0.75)
    """
    got, want = _normalized_lines(actual), _normalized_lines(expected)
    if got == want:
        return 1.0
    if max(len(actual), len(expected)) > _PARTIAL_CREDIT_CHARS:
        return 0.0
    try:
        return _partial_credit(actual, expected, got, want)
    except (RecursionError, MemoryError, ValueError, OverflowError):
        return 0.0  # a pathological output (e.g. '[' * 100000) is a wrong one


def _partial_credit(actual: str, expected: str, got: list[str], want: list[str]) -> float:
    a, b = as_number(actual), as_number(expected)
    if a is not None and b is not None:
        return _number_closeness(a, b)
    got_value, want_value = _literal(actual.strip()), _literal(expected.strip())
    if isinstance(got_value, list) and isinstance(want_value, list):
        return _list_overlap(got_value, want_value)
    if len(got) > 1 or len(want) > 1:
        pairs = list(zip(got, want, strict=False))
        if sum(len(g) * len(w) for g, w in pairs) > _DIFF_COST:
            return sum(g == w for g, w in pairs) / max(len(got), len(want))
        return sum(_text_similarity(g, w) for g, w in pairs) / max(len(got), len(want))
    return _text_similarity(" ".join(got), " ".join(want))


def call_arguments(text: str) -> list[Any]:
    """The positional arguments a test case's input stands for.

    The whole input is one JSON or Python literal if it parses as one (a string whose
    content is itself a literal counts as that literal: `'"[1, 2]"'` is `[1, 2]`);
    otherwise it is split like a shell command line and each part read the same way,
    parts that are no literal staying strings. An empty input is no arguments.

    Example:
        >>> call_arguments("5"), call_arguments("1 'foo'"), call_arguments("True None")
        ([5], [1, 'foo'], [True, None])
    """
    stripped = text.strip()
    if not stripped:
        return []
    whole = _literal(stripped)
    if whole is not stripped:
        return [_unwrap(whole)]
    try:
        parts = shlex.split(text)
    except ValueError:
        parts = text.split()
    return [_unwrap(_literal(part)) for part in parts]


def _unwrap(value: Any) -> Any:
    """A string holding a literal stands for that literal (`"5"` is 5)."""
    if isinstance(value, str):
        inner = _literal(value)
        if inner is not value:
            return inner
    return value
