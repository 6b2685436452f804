"""`reward_kit.rewards.math`: the math answer reward, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import math_reward

__all__ = ["math_reward"]
