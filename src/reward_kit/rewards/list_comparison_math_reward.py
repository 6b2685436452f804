"""`reward_kit.rewards.list_comparison_math_reward`: number-list answers, from rewardkit."""

from rewardkit.functions.builtin import list_comparison_math_reward
from rewardkit.functions.builtin.math._number_list import (
    extract_number_list,
    parse_number_list_from_string,
)

__all__ = ["extract_number_list", "list_comparison_math_reward", "parse_number_list_from_string"]
