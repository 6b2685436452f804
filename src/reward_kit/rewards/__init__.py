"""`reward_kit.rewards`: reward-kit's built-in reward functions, served by rewardkit.

Import paths such as `from reward_kit.rewards.math import math_reward` keep working; the
functions are those of `rewardkit.functions.builtin`.
"""

from reward_kit.rewards import (
    accuracy,
    code_execution,
    format,
    function_calling,
    json_schema,
    length,
    math,
    repetition,
    tag_count,
)
from reward_kit.rewards.accuracy import accuracy_reward
from reward_kit.rewards.code_execution import fractional_code_reward, local_code_execution_reward
from reward_kit.rewards.format import format_reward
from reward_kit.rewards.function_calling import exact_tool_match_reward
from reward_kit.rewards.json_schema import json_schema_reward
from reward_kit.rewards.length import cosine_length_reward, length_reward
from reward_kit.rewards.math import math_reward
from reward_kit.rewards.repetition import diversity_reward, repetition_penalty_reward
from reward_kit.rewards.tag_count import tag_count_reward

__all__ = [
    "accuracy",
    "accuracy_reward",
    "code_execution",
    "cosine_length_reward",
    "diversity_reward",
    "exact_tool_match_reward",
    "format",
    "format_reward",
    "fractional_code_reward",
    "function_calling",
    "json_schema",
    "json_schema_reward",
    "length",
    "length_reward",
    "local_code_execution_reward",
    "math",
    "math_reward",
    "repetition",
    "repetition_penalty_reward",
    "tag_count",
    "tag_count_reward",
]
