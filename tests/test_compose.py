"""The aggregation modes: exact formulas, validation, error policies and algebraic laws."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewardkit.compose import MODES, Component, aggregate, check_weights, parse_mode

C = Component


@pytest.mark.parametrize(
    ("mode", "components", "expected"),
    [
        ("weighted-mean", [C(1.0, 1), C(1.0, 2), C(0.0, 1)], 0.75),
        ("weighted-mean", [C(1.0, 0.0)], 0.0),  # zero total weight scores 0
        ("weighted-sum", [C(1.0, -1), C(1.0, 3)], 2.0),
        ("all-pass", [C(1.0), C(0.9)], 0.0),  # partial credit fails all-pass
        ("all-pass", [C(1.0), C(2.0)], 1.0),
        ("any-pass", [C(0.0), C(1.0)], 1.0),
        ("any-pass", [C(0.99), C(0.0)], 0.0),
        ("threshold", [C(1.0), C(0.0)], 1.0),  # 0.5 >= default 0.5
        ("required-pass", [C(1.0), C(0.0, optional=True)], 1.0),
        ("required-pass", [C(0.0), C(1.0, optional=True)], 0.0),
    ],
)
def test_modes(mode: str, components: list[Component], expected: float) -> None:
    assert aggregate(components, parse_mode(mode)) == expected


def test_threshold_uses_its_threshold() -> None:
    parts = [C(1.0), C(1.0), C(0.0)]
    assert aggregate(parts, "threshold", threshold=0.7) == 0.0
    assert aggregate(parts, "threshold", threshold=0.6) == 1.0


def test_empty_input_scores_zero() -> None:
    assert aggregate([], "all-pass") == 0.0


def test_required_pass_with_only_optional_inputs_warns() -> None:
    with pytest.warns(UserWarning, match="every input is optional"):
        assert aggregate([C(1.0, optional=True)], "required-pass") == 0.0


@pytest.mark.parametrize(
    ("text", "mode"),
    [("weighted_mean", "weighted-mean"), ("all_pass", "all-pass"), ("threshold", "threshold")],
)
def test_aliases(text: str, mode: str) -> None:
    assert parse_mode(text) == mode


@pytest.mark.parametrize("text", ["weighted_sum", "mean", 3, None])
def test_unknown_mode_lists_the_valid_ones(text: object) -> None:
    with pytest.raises(ValueError, match=r"'weighted-mean', 'weighted-sum'.*got"):
        parse_mode(text)


def test_weights_must_be_finite_and_non_negative_outside_weighted_sum() -> None:
    with pytest.raises(ValueError, match="finite"):
        check_weights([math.inf], "weighted-sum")
    with pytest.raises(ValueError, match="needs aggregation = 'weighted-sum'"):
        check_weights([-1.0], "weighted-mean")
    with pytest.raises(ValueError, match="numbers"):
        check_weights(["2"], "weighted-mean")  # type: ignore[list-item]
    check_weights([-1.0], "weighted-sum")


def test_errors_count_as_zero_or_are_omitted_and_skips_are_left_out() -> None:
    parts = [C(1.0), C(None, failed=True), C(None)]
    assert aggregate(parts, on_error="zero") == 0.5
    assert aggregate(parts, on_error="omit") == 1.0
    assert aggregate([C(None)], on_error="zero") == 0.0


def test_non_finite_result_is_rejected() -> None:
    with pytest.raises(ValueError, match="must be finite"):
        aggregate([C(1e308, 10.0), C(1e308, 10.0)], "weighted-sum")


values = st.floats(0.0, 1.0)
weights = st.floats(0.01, 100.0)
parts = st.lists(st.builds(C, values, weights), min_size=1, max_size=8)
bool_parts = st.lists(st.builds(C, st.sampled_from([0.0, 1.0]), weights), min_size=1, max_size=8)


@given(parts)
def test_weighted_mean_stays_between_min_and_max(components: list[Component]) -> None:
    result = aggregate(components)
    lo = min(c.value for c in components if c.value is not None)
    hi = max(c.value for c in components if c.value is not None)
    assert lo - 1e-9 <= result <= hi + 1e-9


@given(parts, st.randoms())
def test_order_does_not_matter(components: list[Component], rnd: object) -> None:
    shuffled = list(components)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    for mode in MODES:
        if mode != "required-pass":
            assert math.isclose(aggregate(components, mode), aggregate(shuffled, mode))


@given(bool_parts, st.floats(0.01, 1.0))
def test_all_pass_le_threshold_le_any_pass(components: list[Component], t: float) -> None:
    all_pass = aggregate(components, "all-pass")
    threshold = aggregate(components, "threshold", threshold=t)
    any_pass = aggregate(components, "any-pass")
    assert all_pass <= threshold <= any_pass
