"""extract_answer's `x = <number>` rule: linear time, the values of the backtracking pattern."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardkit.functions.builtin._answers import _assigned_values, extract_answer

# The pattern the sweep replaces (quadratic on `x = 999...9y`): the oracle, on short texts.
_BACKTRACKING = re.compile(r"\b[a-zA-Z]\s*=\s*(-?\d[\d,]*(?:\.\d+)?)(?![\d.]*\s*[a-zA-Z(])")

_PIECES = [*"xyZé_=-(.,159٣ \n\u00a0", "x = ", "1,234", ".5", " apples", "y="]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3x = 12, so x = 4.", "4"),
        ("so x = 1,234.", "1,234"),
        ("x = 2.5", "2.5"),
        ("x = -7, y = 3y", "-7"),
        ("x = 1,234 apples", "1"),  # the backtracking pattern settles before the comma
        ("x = 4y", ""),
        ("x = 4 (y + 1)", ""),
        ("x = 12.5.3 z", ""),
    ],
)
def test_assignment(text: str, expected: str) -> None:
    assert extract_answer(text) == expected


@settings(max_examples=1_000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_same_values_as_the_backtracking_pattern(text: str) -> None:
    assert _assigned_values(text) == _BACKTRACKING.findall(text)
