"""`reward_kit.rewards.repetition`: repetition rewards, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import diversity_reward, repetition_penalty_reward

__all__ = ["diversity_reward", "repetition_penalty_reward"]
