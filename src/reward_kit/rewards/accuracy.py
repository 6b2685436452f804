"""`reward_kit.rewards.accuracy`: answer accuracy, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import accuracy_reward

__all__ = ["accuracy_reward"]
