"""Composition: how outcomes become one number. Pure (no I/O, no asyncio)."""

from typing import TYPE_CHECKING

from rewardkit.compose._aggregate import (
    MODES,
    Component,
    Mode,
    aggregate,
    check_weights,
    parse_mode,
)
from rewardkit.core._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.compose._expr import Expression, compile_expression
    from rewardkit.compose._expr_validate import Dialect
    from rewardkit.compose._reward import (
        DEFAULT_RANGE,
        CompositionError,
        CompositionWarning,
        JudgeInfo,
        JudgeValue,
        RewardBlock,
        ScoreRange,
        compose_reward,
        normalize_value,
    )
    from rewardkit.compose._reward_block import parse_reward_block, parse_score_range

# The reward block and its expression language load on first use: a tests-dir run needs
# only the aggregation modes, and its start-up time is a feature.
_LAZY = {
    "Dialect": "_expr_validate",
    "Expression": "_expr",
    "compile_expression": "_expr",
    "DEFAULT_RANGE": "_reward",
    "CompositionError": "_reward",
    "CompositionWarning": "_reward",
    "JudgeInfo": "_reward",
    "JudgeValue": "_reward",
    "RewardBlock": "_reward",
    "ScoreRange": "_reward",
    "compose_reward": "_reward",
    "normalize_value": "_reward",
    "parse_reward_block": "_reward_block",
    "parse_score_range": "_reward_block",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "DEFAULT_RANGE",
    "MODES",
    "Component",
    "CompositionError",
    "CompositionWarning",
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
