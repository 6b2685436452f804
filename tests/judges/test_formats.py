"""Criterion formats: prompt fragments, answer schemas, normalization and validation."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from rewardkit.judges.formats import FORMAT_TYPES, Binary, Format, Likert, Numeric, Rubric

LEVELS = ("Wrong", "Partly right", "Right")


@pytest.mark.parametrize(
    ("fmt", "raw", "expected"),
    [
        (Binary(), True, 1.0),
        (Binary(), False, 0.0),
        (Binary(), "yes", 1.0),
        (Binary(), " YES ", 1.0),
        (Binary(), "true", 1.0),
        (Binary(), "1", 1.0),
        (Binary(), "no", 0.0),
        (Binary(), "y", 0.0),  # only yes / true / 1 count as yes
        (Binary(), "maybe", 0.0),
        (Binary(), 0.4, 1.0),  # any non-zero number is yes
        (Binary(), -1, 1.0),
        (Binary(), 0, 0.0),
        (Likert(points=5), 1, 0.0),
        (Likert(points=5), 3, 0.5),
        (Likert(points=5), 5, 1.0),
        (Likert(points=5), 9, 1.0),  # clamped
        (Likert(points=5), 0, 0.0),
        (Likert(points=5), "4", 0.75),
        (Likert(points=5), " 3 ", 0.5),
        (Likert(points=5), 3.5, 0.625),
        (Likert(points=2), 2, 1.0),
        (Numeric(min=0, max=100), 50, 0.5),
        (Numeric(min=0, max=100), "40", 0.4),
        (Numeric(min=0, max=100), 150, 1.0),
        (Numeric(min=0, max=100), -3, 0.0),
        (Numeric(), "0.4", 0.4),
        (Numeric(min=-1, max=1), 0, 0.5),
        (Rubric(levels=LEVELS), 0, 0.0),
        (Rubric(levels=LEVELS), 1, 0.5),
        (Rubric(levels=LEVELS), 2, 1.0),
        (Rubric(levels=LEVELS), 5, 1.0),
        (Rubric(levels=LEVELS), "1", 0.5),
    ],
)
def test_normalize(fmt: Format, raw: Any, expected: float) -> None:
    assert fmt.normalize(raw) == expected


@pytest.mark.parametrize("fmt", [Binary(), Likert(), Numeric(), Rubric(levels=LEVELS)])
@pytest.mark.parametrize("raw", [None, [1], {"score": 1}, math.nan, math.inf, -math.inf])
def test_unusable_answers_raise(fmt: Format, raw: Any) -> None:
    with pytest.raises(ValueError, match="expected a"):
        fmt.normalize(raw)


@pytest.mark.parametrize("fmt", [Likert(), Numeric(), Rubric(levels=LEVELS)])
@pytest.mark.parametrize("raw", ["yes", True, "", "1/2"])
def test_scales_reject_words_and_bools(fmt: Format, raw: Any) -> None:
    with pytest.raises(ValueError, match="expected a number"):
        fmt.normalize(raw)


def test_prompt_fragments_and_schemas() -> None:
    assert Binary().prompt_fragment() == '"yes" or "no"'
    assert Binary().json_schema() == {"type": "string", "enum": ["yes", "no"]}
    assert Likert(points=7).prompt_fragment() == "an integer from 1 to 7"
    assert Likert().json_schema() == {"type": "integer"}
    assert Numeric(min=0, max=100).prompt_fragment() == "a number from 0.0 to 100.0"
    assert Numeric().json_schema() == {"type": "number"}
    assert Rubric(levels=LEVELS).prompt_fragment() == (
        "an integer from 0 to 2, where 0 = Wrong; 1 = Partly right; 2 = Right"
    )
    assert Rubric(levels=LEVELS).json_schema() == {"type": "integer"}


@pytest.mark.parametrize(
    "fmt", [Binary(), Likert(points=4), Numeric(min=2, max=9), Rubric(levels=LEVELS)]
)
def test_examples_are_valid_mid_scale_answers(fmt: Format) -> None:
    assert 0.0 <= fmt.normalize(fmt.example()) <= 1.0
    if not isinstance(fmt, Binary):
        assert fmt.normalize(fmt.example()) < 1.0


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Likert(points=1), "likert points must be an integer of at least 2 (got 1)"),
        (lambda: Likert(points=True), "at least 2 (got True)"),
        (lambda: Likert(points=2.5), "at least 2 (got 2.5)"),
        (lambda: Numeric(min=1, max=1), "numeric max must be greater than min"),
        (lambda: Numeric(min=2, max=1), "numeric max must be greater than min"),
        (lambda: Numeric(min=0, max=math.inf), "numeric max must be finite"),
        (lambda: Numeric(min=math.nan, max=1), "numeric min must be finite"),
        (lambda: Numeric(min="0", max=1), "numeric min must be a number"),
        (lambda: Rubric(levels=("only",)), "a rubric needs 2 to 10 levels (got 1)"),
        (lambda: Rubric(levels=tuple("abcdefghijk")), "a rubric needs 2 to 10 levels (got 11)"),
        (lambda: Rubric(levels=("a", " ")), "rubric level 1 must be a non-empty description"),
        (lambda: Rubric(levels=("a", 2)), "rubric level 1 must be a non-empty description"),
        (lambda: Rubric(levels="abc"), "rubric levels must be a list"),
    ],
)
def test_invalid_formats(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make()


def test_rubric_levels_become_a_tuple_and_formats_are_frozen_values() -> None:
    rubric = Rubric(levels=list(LEVELS))  # type: ignore[arg-type]
    assert rubric.levels == LEVELS
    assert rubric == Rubric(levels=LEVELS)
    assert hash(rubric) == hash(Rubric(levels=LEVELS))
    with pytest.raises(AttributeError):
        rubric.levels = ()  # type: ignore[misc]
    assert set(FORMAT_TYPES) == {"binary", "likert", "numeric", "rubric"}
