"""`reward_kit.rewards.math`: the math answer reward, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import math_reward
from rewardkit.functions.helpers import compare_numbers, extract_numbers

__all__ = ["compare_numbers", "extract_numbers", "math_reward"]
