"""`reward_kit.rewards.format`: the format reward, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import format_reward

__all__ = ["format_reward"]
