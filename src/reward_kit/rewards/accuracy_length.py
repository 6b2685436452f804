"""`reward_kit.rewards.accuracy_length`: accuracy with a length bonus, from rewardkit."""

from rewardkit.functions.builtin import cosine_scaled_accuracy_length_reward

__all__ = ["cosine_scaled_accuracy_length_reward"]
