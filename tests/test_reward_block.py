"""The eval.yaml `reward:` block, row by row of the seed's tables, plus its invariants."""

from __future__ import annotations

import math
import textwrap
import warnings
from collections.abc import Mapping
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardkit.compose import (
    DEFAULT_RANGE,
    JudgeInfo,
    JudgeValue,
    RewardBlock,
    compose_reward,
    normalize_value,
    parse_reward_block,
    parse_score_range,
)
from rewardkit.core._errors import ConfigError, DiscoveryError, FormulaError

V = JudgeValue


def judges_of(**ranges: tuple[float, float] | None) -> dict[str, JudgeInfo]:
    return {name: JudgeInfo(name=name, score_range=r) for name, r in ranges.items()}


JUDGES = judges_of(quality=(1, 5), efficiency=None, passed=None, speed=(0, 10))


def load(text: str) -> tuple[RewardBlock | None, dict[str, JudgeInfo]]:
    """Parse an eval.yaml snippet: `judges:` into JudgeInfo, `reward:` into a block."""
    data = yaml.safe_load(textwrap.dedent(text))
    judges = {
        j["name"]: JudgeInfo(
            name=j["name"],
            score_range=parse_score_range(j["score_range"], "score_range")
            if "score_range" in j
            else None,
        )
        for j in data.get("judges", [])
    }
    block = parse_reward_block(data["reward"], judges) if "reward" in data else None
    return block, judges


def reward(block: RewardBlock | None, judges: Mapping[str, JudgeInfo], **values: Any) -> float:
    return compose_reward(
        {k: v if isinstance(v, JudgeValue) else V(value=v) for k, v in values.items()},
        block,
        judges,
    )


def errors_of(data: object, judges: Mapping[str, JudgeInfo] = JUDGES) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_reward_block(data, judges)
    found = getattr(info.value, "errors", [info.value])
    return [str(e) for e in found]


# --- the seed's examples -----------------------------------------------------------------


def test_example_single_judge_reward_model() -> None:
    block, judges = load("""
        judges:
          - name: reward_model        # emits a float in [0, 1]
            module: eval.judges.rm
            function: score

        reward:
          judge: reward_model         # this judge's value is the reward
          normalize: false            # default: clamp to [0, 1] as-is
          # gate: false               # default in judge mode
    """)
    assert block is not None
    assert block.mode == "judge"
    assert block.gate is False
    assert reward(block, judges, reward_model=0.7) == 0.7
    assert reward(block, judges, reward_model=1.7) == 1.0  # clamped as-is
    assert reward(block, judges, reward_model=-0.2) == 0.0
    assert reward(block, judges, reward_model=None) == 0.0  # skipped scores 0.0
    assert reward(block, judges) == 0.0  # missing scores 0.0


def test_example_single_judge_normalized_from_its_own_range() -> None:
    block, judges = load("""
        judges:
          - name: output_quality
            score_range: [1, 5]     # the scale the value is mapped from

        reward:
          judge: output_quality
          normalize: true
    """)
    assert reward(block, judges, output_quality=4) == 0.75
    assert reward(block, judges, output_quality=1) == 0.0
    assert reward(block, judges, output_quality=9) == 1.0


def test_example_weighted() -> None:
    block, judges = load("""
        judges:  # the seed's snippet names these two; declared here so it loads
          - name: quality
            score_range: [1, 5]
          - name: efficiency
          - name: passed
        reward:
          formula: weighted
          weights:
            quality: 0.7
            efficiency: 0.3
          raw: [efficiency]       # already in [0, 1] — skip normalization
          gate: true              # default in formula mode
    """)
    assert block is not None
    assert block.mode == "weighted"
    assert block.raw == {"efficiency"}
    assert reward(block, judges, quality=5, efficiency=0.5) == pytest.approx(0.85)
    # a judge with a missing value leaves both sums, so the reward can go up
    assert reward(block, judges, quality=5) == 1.0
    assert reward(block, judges, quality=5, efficiency=V(value=None, errored=True)) == 1.0
    assert reward(block, judges, quality=5, efficiency=0.5, passed=False) == 0.0  # gate


def test_example_expression() -> None:
    block = parse_reward_block(
        yaml.safe_load("""
            formula: "0.6 * quality + 0.4 * efficiency"
            raw: [efficiency]
            gate: false             # see the double-gating note below
        """),
        JUDGES,
    )
    assert block.mode == "expression"
    assert block.gate is False
    assert reward(block, JUDGES, quality=3, efficiency=0.25) == pytest.approx(0.4)
    assert reward(block, JUDGES, quality=3, efficiency=0.25, passed=False) == pytest.approx(0.4)


def test_example_multi_line_expression() -> None:
    judges = judges_of(clarity=(1, 5), accuracy=(0, 1), efficiency=(0, 1))
    block = parse_reward_block(
        yaml.safe_load("""
            formula: |
              base = mean([clarity, accuracy])
              min(base, efficiency)
            gate: false
        """),
        judges,
    )
    assert block.expression is not None
    assert block.expression.names == {"clarity", "accuracy", "efficiency"}
    assert reward(block, judges, clarity=5, accuracy=0.5, efficiency=0.9) == 0.75
    assert reward(block, judges, clarity=5, accuracy=0.5, efficiency=0.1) == 0.1


def test_example_from_a_full_eval_yaml() -> None:
    block, judges = load("""
        judges:
          - name: quality
            score_range: [1, 5]
          - name: efficiency
            score_range: [0, 1]
          - name: compiles
        reward:
          formula: "0.5 * quality + 0.5 * efficiency"
    """)
    assert reward(block, judges, quality=3, efficiency=1.0, compiles=True) == 0.75
    assert reward(block, judges, quality=3, efficiency=1.0, compiles=False) == 0.0


# --- Fields -----------------------------------------------------------------------------


def test_field_defaults() -> None:
    block = parse_reward_block({}, JUDGES)
    assert (block.judge, block.normalize, block.formula) == (None, False, "weighted")
    assert (dict(block.weights), block.raw, block.gate, block.score_range) == (
        {},
        set(),
        True,
        None,
    )
    assert parse_reward_block({"judge": "efficiency"}, JUDGES).gate is False


@pytest.mark.parametrize("other", ["formula", "weights", "raw"])
def test_judge_stands_alone(other: str) -> None:
    value = {"formula": "weighted", "weights": {"quality": 1}, "raw": ["quality"]}[other]
    (message,) = errors_of({"judge": "quality", other: value})
    assert f"reward.judge: cannot be combined with '{other}'" in message


def test_judge_must_be_declared() -> None:
    (message,) = errors_of({"judge": "qualty"})
    assert message.startswith("eval.yaml: reward.judge: 'qualty' is not a declared judge.")
    assert "Did you mean 'quality'?" in message


@pytest.mark.parametrize("key", ["normalize", "gate"])
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_flags_must_be_booleans(key: str, value: object) -> None:
    (message,) = errors_of({key: value})
    assert f"reward.{key}: must be true or false (got {value!r})" in message


@pytest.mark.parametrize(
    ("weights", "fragment"),
    [
        ({"quality": -1}, "reward.weights.quality: must be a finite number >= 0"),
        ({"quality": True}, "reward.weights.quality: must be a finite number >= 0"),
        ({"quality": "0.5"}, "reward.weights.quality: must be a finite number >= 0"),
        ({"quality": float("nan")}, "reward.weights.quality: must be a finite number"),
        ({"quality": float("inf")}, "reward.weights.quality: must be a finite number"),
        ([1, 2], "reward.weights: must map judge names to numbers"),
    ],
)
def test_weights_are_non_negative_numbers_of_declared_judges(
    weights: object, fragment: str
) -> None:
    (message,) = errors_of({"weights": weights})
    assert fragment in message


@pytest.mark.parametrize("key", ["weights", "raw"])
def test_undeclared_names_in_weights_and_raw_warn_like_the_harness_loads_them(key: str) -> None:
    # Only reward.judge is validated at load (the seed); the harness accepts the others.
    value = {"qualty": 1} if key == "weights" else ["qualty"]
    with pytest.warns(UserWarning, match=f"reward.{key}[.:].*'qualty' is not a declared judge"):
        block = parse_reward_block({key: value}, JUDGES)
    assert "qualty" in (block.weights if key == "weights" else block.raw)


def test_weights_accept_zero_and_ints() -> None:
    block = parse_reward_block({"weights": {"quality": 0, "speed": 2}}, JUDGES)
    assert block.weights == {"quality": 0.0, "speed": 2.0}


def test_raw_is_a_name_or_a_list_of_declared_names() -> None:
    assert parse_reward_block({"raw": "efficiency"}, JUDGES).raw == {"efficiency"}
    assert parse_reward_block({"raw": ["efficiency", "speed"]}, JUDGES).raw == {
        "efficiency",
        "speed",
    }
    assert "reward.raw: must be a judge name or a list" in errors_of({"raw": 3})[0]


@pytest.mark.parametrize(
    "value",
    [
        [5, 1],
        [1, 1],
        [1],
        [1, 2, 3],
        ["a", "b"],
        [0, float("inf")],
        [True, 2],
        "1-5",
        None,
        [-1e308, 1e308],
    ],
)
def test_score_range_is_two_increasing_finite_numbers(value: object) -> None:
    (message,) = errors_of({"score_range": value})
    assert "reward.score_range: must be two increasing finite numbers, e.g. [1, 5]" in message
    with pytest.raises(ConfigError, match=r"judges.q.score_range: must be two increasing"):
        parse_score_range(value, "judges.q.score_range")


def test_parse_score_range_accepts_tuples_and_returns_floats() -> None:
    assert parse_score_range((0, 0.5), "x") == (0.0, 0.5)


def test_unknown_keys_are_rejected_with_a_suggestion() -> None:
    (message,) = errors_of({"wieghts": {"quality": 1}})
    assert "reward.wieghts: unknown key. Did you mean 'weights'?" in message
    assert "Valid keys: judge, normalize, formula, weights, score_range, raw, gate" in message


def test_the_block_must_be_a_mapping() -> None:
    with pytest.raises(ConfigError, match=r"eval.yaml: reward: must be a mapping .*\(got list\)"):
        parse_reward_block(["weighted"], JUDGES)


def test_all_problems_are_reported_together() -> None:
    with pytest.raises(DiscoveryError) as info:
        parse_reward_block(
            {"judge": "nope", "gate": "yes", "score_range": [5, 1], "extra": 1},
            JUDGES,
            where="e.yaml",
        )
    keys = [e.key for e in info.value.errors]
    assert keys == ["reward.extra", "reward.judge", "reward.gate", "reward.score_range"]
    assert all(str(e.path) == "e.yaml" for e in info.value.errors)
    assert str(info.value).startswith("4 configuration errors:")


@pytest.mark.parametrize(
    ("formula", "fragment"),
    [
        (
            "quality ** 2",
            "reward.formula: '**' is not allowed (line 1, col 1); write x * x instead",
        ),
        ("open('x')", "calling 'open' is not allowed"),
        ("x = quality", "the last line must be an expression"),
        (3, "reward.formula: must be 'weighted' or an expression over judge names (got 3)"),
        ("", "the expression is empty"),
    ],
)
def test_formulas_are_validated_at_load(formula: object, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_reward_block({"formula": formula}, JUDGES)
    assert fragment in str(info.value)
    if isinstance(formula, str) and formula:
        assert isinstance(info.value, FormulaError)


@pytest.mark.parametrize(
    ("formula", "hint"),
    [("qualty + speed", "Did you mean 'quality'?"), ("weigthed", "Did you mean 'weighted'?")],
)
def test_an_undeclared_name_warns_at_load_and_scores_zero(formula: str, hint: str) -> None:
    # The seed: "an undefined judge name in an expression" is a run-time failure that
    # warns and scores 0.0, not a load error; we also warn at load, with a suggestion.
    with pytest.warns(UserWarning, match="is not a declared judge") as caught:
        block = parse_reward_block({"formula": formula, "gate": False}, JUDGES)
    assert hint in str(caught[0].message)
    with pytest.warns(RuntimeWarning, match="is not defined"):
        assert reward(block, JUDGES, quality=5, speed=5) == 0.0


def test_a_bare_judge_name_is_an_expression() -> None:
    block = parse_reward_block({"formula": "speed"}, JUDGES)
    assert block.mode == "expression"
    assert reward(block, JUDGES, speed=5) == 0.5


def test_block_built_by_hand_compiles_its_formula() -> None:
    block = RewardBlock(formula="a * 2", gate=False)
    assert block.expression is not None
    assert block.mode == "expression"
    assert compose_reward({"a": V(value=0.25)}, block, judges_of(a=(0, 1))) == 0.5
    with pytest.raises(FormulaError):
        RewardBlock(formula="a ** 2", gate=False)


# --- Safety-rule table (through the block) -----------------------------------------------


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("min(quality, speed)", 0.5),
        ("max(quality, speed)", 0.75),
        ("abs(speed - quality)", 0.25),
        ("round(quality, 1)", 0.8),
        ("sum([quality, speed]) / 2", 0.625),
        ("len([quality, speed]) / 4", 0.5),
        ("mean([quality, speed])", 0.625),
        ("quality - speed + quality * speed / speed // 1 % 2", 0.25),
        ("1 if quality > speed and speed >= 0.5 or quality == 0 else 0", 1.0),
        ("1e6 / 1e6", 1.0),
    ],
)
def test_allowed_calls_and_operators(formula: str, expected: float) -> None:
    block = parse_reward_block({"formula": formula}, JUDGES)
    assert reward(block, JUDGES, quality=4, speed=5) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("formula", "fragment"),
    [
        ("quality ** 2", "'**'"),
        ("quality if 'a' else 0", "a string constant"),
        ("quality if b'a' else 0", "constant b'a'"),
        ("_quality", "names starting with '_'"),
        ("_q = quality\n_q", "names starting with '_'"),
        ("quality * 1000001", "exceeds the limit of ±1e6"),
        (" + ".join(["quality"] * 60), "syntax nodes; at most 200"),
        ("q = quality", "the last line must be an expression"),
        ("not quality", "'not'"),
    ],
)
def test_banned_constructs(formula: str, fragment: str) -> None:
    with pytest.raises(FormulaError) as info:
        parse_reward_block({"formula": formula}, JUDGES)
    assert fragment in str(info.value)


# --- Precedence -------------------------------------------------------------------------

PRECEDENCE = judges_of(own=(0, 10), bare=None, flag=(0, 10))


@pytest.mark.parametrize(
    ("name", "value", "block", "expected"),
    [
        # 1. boolean -> 1.0 / 0.0, no range consulted (not even a declared one)
        ("flag", True, None, 1.0),
        ("flag", False, RewardBlock(raw=frozenset({"flag"}), gate=True), 0.0),
        # 2. clamped as-is: listed in raw, or the single judge without normalize
        ("own", 7, RewardBlock(raw=frozenset({"own"}), gate=True), 1.0),
        ("own", 0.4, RewardBlock(raw=frozenset({"own"}), gate=True), 0.4),
        ("own", 0.4, RewardBlock(judge="own", gate=False), 0.4),
        ("own", -3, RewardBlock(judge="own", gate=False), 0.0),
        # 3. the judge's own range wins over reward.score_range
        ("own", 4, RewardBlock(judge="own", normalize=True, gate=False), 0.4),
        ("own", 4, RewardBlock(score_range=(2, 6), gate=True), 0.4),
        # 4. reward.score_range for a judge with no range of its own
        ("bare", 4, RewardBlock(score_range=(2, 6), gate=True), 0.5),
        # 5. [1, 5]
        ("bare", 4, RewardBlock(gate=True), 0.75),
        ("bare", 4, None, 0.75),
        ("undeclared", 2, None, 0.25),
        # clamped to [0, 1] after mapping
        ("own", 11, None, 1.0),
        ("own", -1, None, 0.0),
        ("own", math.inf, None, 1.0),
        ("own", -math.inf, None, 0.0),
        ("own", 10**400, None, 1.0),
        # no value, or not a number, stays None
        ("own", None, None, None),
        ("own", math.nan, None, None),
        ("own", "7", None, None),
    ],
)
def test_precedence(
    name: str, value: Any, block: RewardBlock | None, expected: float | None
) -> None:
    assert normalize_value(name, value, block=block, judges=PRECEDENCE) == expected


def test_single_judge_with_normalize_falls_back_to_reward_score_range() -> None:
    judges = judges_of(q=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        block = parse_reward_block({"judge": "q", "normalize": True, "score_range": [0, 4]}, judges)
    assert reward(block, judges, q=3) == 0.75


@given(
    value=st.floats(-100, 100),
    own=st.none() | st.tuples(st.integers(-10, 0), st.integers(1, 10)),
    fallback=st.none() | st.tuples(st.integers(-10, 0), st.integers(1, 10)),
    raw=st.booleans(),
)
def test_precedence_order(value: float, own: Any, fallback: Any, raw: bool) -> None:
    judges = judges_of(j=own)
    block = RewardBlock(raw=frozenset({"j"} if raw else ()), score_range=fallback, gate=True)
    low, high = (0, 1) if raw else own or fallback or DEFAULT_RANGE
    expected = min(max((value - low) / (high - low), 0.0), 1.0)
    assert normalize_value("j", value, block=block, judges=judges) == pytest.approx(expected)


# --- Gating -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "values", "expected"),
    [
        # gate on (formula default): a false boolean zeroes the reward, named or not
        ({"formula": "quality"}, {"quality": 5, "passed": False}, 0.0),
        ({"weights": {"quality": 1}}, {"quality": 5, "passed": False}, 0.0),
        ({"formula": "quality"}, {"quality": 5, "passed": True}, 1.0),
        # numeric 0 does not gate
        ({"formula": "quality"}, {"quality": 5, "passed": 0}, 1.0),
        ({"formula": "quality"}, {"quality": 5, "passed": 0.0}, 1.0),
        # an errored judge does not gate
        ({"formula": "quality"}, {"quality": 5, "passed": V(value=False, errored=True)}, 1.0),
        # gate off: the boolean is just 0.0 / 1.0
        ({"formula": "passed * quality", "gate": False}, {"quality": 5, "passed": False}, 0.0),
        ({"formula": "passed * quality", "gate": False}, {"quality": 5, "passed": True}, 1.0),
        ({"formula": "quality", "gate": False}, {"quality": 5, "passed": False}, 1.0),
        (
            {"weights": {"quality": 1, "passed": 1}, "gate": False},
            {"quality": 5, "passed": False},
            0.5,
        ),
        # judge mode: gate off by default, can be turned on
        ({"judge": "quality", "normalize": True}, {"quality": 5, "passed": False}, 1.0),
        (
            {"judge": "quality", "normalize": True, "gate": True},
            {"quality": 5, "passed": False},
            0.0,
        ),
        ({"judge": "passed"}, {"passed": False}, 0.0),
        ({"judge": "passed"}, {"passed": True}, 1.0),
    ],
)
def test_gating(data: dict[str, Any], values: dict[str, Any], expected: float) -> None:
    block = parse_reward_block(data, JUDGES)
    assert reward(block, JUDGES, **values) == expected


# --- Modes ------------------------------------------------------------------------------


def test_weighted_mean_divides_by_the_weights_present() -> None:
    block = parse_reward_block({"weights": {"quality": 3, "speed": 1}}, JUDGES)
    assert reward(block, JUDGES, quality=5, speed=0) == 0.75
    assert reward(block, JUDGES, speed=10) == 1.0
    assert reward(block, JUDGES, speed=V(value=None)) == 0.0  # nothing present
    assert reward(block, JUDGES, efficiency=1.0) == 0.0  # not weighted


def test_weighted_without_weights_or_with_zero_weight_sum_is_zero() -> None:
    assert reward(parse_reward_block({}, JUDGES), JUDGES, quality=5) == 0.0
    zero = parse_reward_block({"weights": {"quality": 0}}, JUDGES)
    assert reward(zero, JUDGES, quality=5) == 0.0


def test_expression_result_is_clamped() -> None:
    block = parse_reward_block({"formula": "quality * 3 - 1"}, JUDGES)
    assert reward(block, JUDGES, quality=5) == 1.0
    assert reward(block, JUDGES, quality=1) == 0.0
    assert (
        reward(parse_reward_block({"formula": "quality > 0.5"}, JUDGES), JUDGES, quality=5) == 1.0
    )


@pytest.mark.parametrize(
    ("formula", "values", "message"),
    [
        (
            "quality + efficiency",
            {"quality": 5},
            "reward.formula failed on this case (NameError: name 'efficiency' is not defined); scoring 0.0",
        ),
        (
            "quality / speed",
            {"quality": 5, "speed": 0},
            "reward.formula failed on this case (ZeroDivisionError: float division by zero); scoring 0.0",
        ),
        ("min([])", {}, "reward.formula failed on this case (ValueError"),
        ("None", {}, "reward.formula returned None, not a number; scoring 0.0"),
        ("[quality]", {"quality": 5}, "reward.formula returned [1.0], not a number"),
        (
            "1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6 * 1e6",
            {},
            "the reward is inf, not a finite number; scoring 0.0",
        ),
    ],
)
def test_run_time_failures_warn_and_score_zero(
    formula: str, values: dict[str, Any], message: str
) -> None:
    block = parse_reward_block({"formula": formula}, JUDGES)
    with pytest.warns(RuntimeWarning) as record:
        assert reward(block, JUDGES, **values) == 0.0
    assert message in str(record[0].message)


def test_int_results_clamp_without_overflow() -> None:
    block = parse_reward_block({"formula": "x = 1000000 * 1000000\nx * x * x"}, JUDGES)
    assert reward(block, JUDGES) == 1.0
    assert reward(parse_reward_block({"formula": "-5"}, JUDGES), JUDGES) == 0.0


def test_a_broken_input_never_raises() -> None:
    block = parse_reward_block({"weights": {"quality": 1}}, JUDGES)
    with pytest.warns(RuntimeWarning, match="reward could not be composed"):
        assert compose_reward({"quality": 5}, block, JUDGES) == 0.0  # type: ignore[dict-item]


# --- Default composition (no reward: block) ---------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"passed": False, "quality": 5}, 0.0),  # a false boolean gates
        ({"passed": True, "quality": 4}, 0.75),  # a true boolean only passes the gate
        ({"quality": 4, "speed": 5}, 0.625),  # own ranges, averaged
        ({"efficiency": 3}, 0.5),  # no range of its own: [1, 5]
        ({"quality": 4, "efficiency": V(value=None, errored=True)}, 0.75),
        ({"quality": V(value=None, errored=True)}, 0.0),  # nothing averaged, something errored
        ({"quality": V(value=None, errored=True), "passed": True}, 0.0),
        ({"passed": True}, 1.0),  # gates only
        ({"quality": V(value=None)}, 1.0),  # every numeric judge skipped by `if:`
        ({}, 1.0),
        ({"quality": 7, "speed": -3}, 0.5),  # each clamped before averaging
        ({"quality": math.nan}, 0.0),  # not a score: counted like an error
        ({"quality": math.nan, "speed": 5}, 0.5),
    ],
)
def test_default_composition(values: dict[str, Any], expected: float) -> None:
    assert reward(None, JUDGES, **values) == pytest.approx(expected)


# --- Load-time warnings -----------------------------------------------------------------

SHADOWED = (
    "reward.score_range [1.0, 5.0] is deprecated and no longer normalizes "
    "'testability' [0.0, 2.0]: a judge's own 'score_range' wins. It still applies to "
    "'clarity'; drop it once every composed judge declares a 'score_range'."
)
CLAMPED = (
    "reward.judge 'quality' declares score_range [0.0, 2.0] but 'normalize' "
    "is not set, so its value is clamped to [0, 1] — every score at or above 1 becomes "
    "the maximum reward. Set 'normalize: true' to map it from [0.0, 2.0]."
)
SHADOW_JUDGES = judges_of(testability=(0, 2), clarity=None, same=(1, 5), other=(0, 3))


@pytest.mark.parametrize(
    "data",
    [
        {"weights": {"testability": 1, "clarity": 1}, "score_range": [1, 5]},
        {"formula": "testability + clarity", "score_range": [1, 5]},
        {"formula": "t = testability\nmean([t, clarity, same])", "score_range": [1, 5]},
    ],
)
def test_shadowed_score_range_warns_with_the_seeds_words(data: dict[str, Any]) -> None:
    with pytest.warns(UserWarning, match="deprecated") as record:
        parse_reward_block(data, SHADOW_JUDGES)
    assert [str(w.message) for w in record] == [SHADOWED]


def test_shadowed_warning_lists_every_shadowed_judge_and_when_nothing_still_uses_it() -> None:
    with pytest.warns(UserWarning, match="deprecated") as record:
        parse_reward_block({"formula": "testability + other", "score_range": [1, 5]}, SHADOW_JUDGES)
    assert str(record[0].message) == (
        "reward.score_range [1.0, 5.0] is deprecated and no longer normalizes 'testability' "
        "[0.0, 2.0], 'other' [0.0, 3.0]: a judge's own 'score_range' wins. No composed judge "
        "uses it any more; drop it."
    )


def test_shadowed_warning_in_single_judge_mode_with_normalize() -> None:
    with pytest.warns(UserWarning, match="no longer normalizes 'testability' \\[0.0, 2.0\\]"):
        parse_reward_block(
            {"judge": "testability", "normalize": True, "score_range": [1, 5]}, SHADOW_JUDGES
        )


@pytest.mark.parametrize(
    "data",
    [
        {"weights": {"testability": 1, "clarity": 1}},  # the key is absent
        {"weights": {"same": 1, "clarity": 1}, "score_range": [1, 5]},  # the ranges agree
        {
            "weights": {"testability": 1, "clarity": 1},
            "raw": ["testability"],
            "score_range": [1, 5],
        },
        {"formula": "clarity + 0", "score_range": [1, 5]},  # never names testability
        {"weights": {"clarity": 1}, "score_range": [1, 5]},
        {"judge": "testability", "score_range": [1, 5]},  # single judge without normalize...
    ],
)
def test_shadowed_score_range_silence_conditions(data: dict[str, Any]) -> None:
    judges = SHADOW_JUDGES if "judge" not in data else judges_of(testability=(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_reward_block(data, judges)


def test_single_judge_mode_without_normalize_never_warns_about_score_range() -> None:
    with pytest.warns(UserWarning, match="clamped") as record:  # only this, not the shadow one
        parse_reward_block({"judge": "testability", "score_range": [1, 5]}, SHADOW_JUDGES)
    assert len(record) == 1
    assert str(record[0].message).startswith("reward.judge 'testability' declares")


def test_clamped_single_judge_warns_with_the_seeds_words() -> None:
    with pytest.warns(UserWarning, match="clamped") as record:
        parse_reward_block({"judge": "quality"}, judges_of(quality=(0, 2)))
    assert [str(w.message) for w in record] == [CLAMPED]


@pytest.mark.parametrize(
    ("scale", "misread"),
    [
        ((0, 0.5), "the reward can never exceed 0.5"),
        ((-1, 1), "every score at or below 0 becomes the minimum reward"),
        ((0.5, 1), "the reward can never fall below 0.5"),
        ((1, 5), "every score at or above 1 becomes the maximum reward"),
    ],
)
def test_clamped_single_judge_names_the_direction_of_the_misreading(
    scale: tuple[float, float], misread: str
) -> None:
    with pytest.warns(UserWarning, match=misread):
        parse_reward_block({"judge": "quality"}, judges_of(quality=scale))


@pytest.mark.parametrize(
    ("data", "scale"),
    [
        ({"judge": "quality", "normalize": True}, (0, 2)),  # normalize set
        ({"judge": "quality"}, None),  # no range declared
        ({"judge": "quality"}, (0, 1)),  # already [0, 1]
    ],
)
def test_clamped_single_judge_silence_conditions(data: dict[str, Any], scale: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_reward_block(data, judges_of(quality=scale))


# --- Invariants -------------------------------------------------------------------------

NAMES = ("a", "b", "c", "d")
anything = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**400), max_value=10**400),
)
judge_values = st.builds(JudgeValue, value=anything, errored=st.booleans())
cases = st.dictionaries(st.sampled_from(NAMES), judge_values)
ranges = st.none() | st.tuples(st.integers(-5, 5), st.integers(6, 20))
formulas = st.sampled_from([
    "a", "a + b - c", "a / b", "a // (b - c)", "min(a, b) * max([c, d])", "mean([a, b, c, d])",
    "t = a * b\nt if t > 0.5 else c", "a % b", "round(a * 1e6) * 1e6", "-a", "a and b or c",
    "sum([a, b, c, d]) / len([a, b])", "abs(a - 1e6)", "d > c",
])  # fmt: skip


@st.composite
def blocks(draw: st.DrawFn) -> RewardBlock:
    judges = {n: JudgeInfo(name=n, score_range=draw(ranges)) for n in NAMES}
    mode = draw(st.sampled_from(["judge", "weighted", "expression"]))
    data: dict[str, Any] = {"gate": draw(st.booleans())}
    if draw(st.booleans()):
        data["score_range"] = list(draw(st.tuples(st.integers(-5, 5), st.integers(6, 9))))
    if mode == "judge":
        data |= {"judge": draw(st.sampled_from(NAMES)), "normalize": draw(st.booleans())}
    else:
        data["raw"] = draw(st.lists(st.sampled_from(NAMES), unique=True))
        if mode == "weighted":
            weights = st.floats(0, 1e6) | st.integers(0, 10)
            data["weights"] = draw(st.dictionaries(st.sampled_from(NAMES), weights))
        else:
            data["formula"] = draw(formulas)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        block = parse_reward_block(data, judges)
    object.__setattr__(block, "_judges", judges)
    return block


def judges_for(block: RewardBlock) -> dict[str, JudgeInfo]:
    return block._judges  # type: ignore[attr-defined, no-any-return]


@settings(max_examples=500)
@given(blocks() | st.none(), cases, st.dictionaries(st.sampled_from(NAMES), ranges))
def test_reward_is_always_finite_in_unit_interval(
    block: RewardBlock | None, values: dict[str, JudgeValue], own: dict[str, Any]
) -> None:
    judges = judges_for(block) if block else judges_of(**own)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compose_reward(values, block, judges)
    assert type(result) is float
    assert math.isfinite(result)
    assert 0.0 <= result <= 1.0


@given(blocks(), cases, st.sampled_from(NAMES))
def test_a_false_boolean_gates_when_the_gate_is_on(
    block: RewardBlock, values: dict[str, JudgeValue], name: str
) -> None:
    values = {**values, name: JudgeValue(value=False)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compose_reward(values, block, judges_for(block))
    if block.gate:
        assert result == 0.0


@given(blocks(), cases)
def test_a_missing_judge_never_raises(block: RewardBlock, values: dict[str, JudgeValue]) -> None:
    for name in NAMES:
        partial = {k: v for k, v in values.items() if k != name}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert 0.0 <= compose_reward(partial, block, judges_for(block)) <= 1.0


@given(
    st.dictionaries(st.sampled_from(NAMES), st.integers(1, 10), min_size=1),
    st.dictionaries(st.sampled_from(NAMES), st.floats(0, 1)),
)
def test_weighted_mode_leaves_missing_judges_out_of_both_sums(
    weights: dict[str, int], present: dict[str, float]
) -> None:
    judges = judges_of(**dict.fromkeys(NAMES, (0, 1)))
    block = parse_reward_block({"weights": weights}, judges)
    values = {k: JudgeValue(value=v) for k, v in present.items()}
    used = [k for k in weights if k in present]
    total = sum(weights[k] for k in used)
    expected = sum(weights[k] * present[k] for k in used) / total if total else 0.0
    assert compose_reward(values, block, judges) == pytest.approx(expected)


@given(st.lists(st.sampled_from(NAMES), unique=True), cases)
def test_weighted_mode_ignores_the_order_of_judges(
    order: list[str], values: dict[str, JudgeValue]
) -> None:
    judges = judges_of(**dict.fromkeys(NAMES, (0, 10)))
    forward = parse_reward_block({"weights": {n: 1 + i for i, n in enumerate(order)}}, judges)
    backward = parse_reward_block(
        {"weights": dict(reversed(list(forward.weights.items())))}, judges
    )
    finite = {
        k: v for k, v in values.items() if not (isinstance(v.value, float) and math.isnan(v.value))
    }
    assert compose_reward(finite, forward, judges) == pytest.approx(
        compose_reward(finite, backward, judges)
    )
