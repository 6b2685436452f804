"""Composition: how outcomes become one number. Pure (no I/O, no asyncio)."""

from rewardkit.compose._aggregate import (
    MODES,
    Component,
    Mode,
    aggregate,
    check_weights,
    parse_mode,
)
from rewardkit.compose._expr import Dialect, Expression, compile_expression
from rewardkit.compose._reward import (
    DEFAULT_RANGE,
    JudgeInfo,
    JudgeValue,
    RewardBlock,
    ScoreRange,
    compose_reward,
    normalize_value,
)
from rewardkit.compose._reward_block import parse_reward_block, parse_score_range

__all__ = [
    "DEFAULT_RANGE",
    "MODES",
    "Component",
    "Dialect",
    "Expression",
    "JudgeInfo",
    "JudgeValue",
    "Mode",
    "RewardBlock",
    "ScoreRange",
    "aggregate",
    "check_weights",
    "compile_expression",
    "compose_reward",
    "normalize_value",
    "parse_mode",
    "parse_reward_block",
    "parse_score_range",
]
