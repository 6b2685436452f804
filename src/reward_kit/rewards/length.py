"""`reward_kit.rewards.length`: length rewards, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import cosine_length_reward, length_reward

__all__ = ["cosine_length_reward", "length_reward"]
