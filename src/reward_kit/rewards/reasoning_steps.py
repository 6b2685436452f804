"""`reward_kit.rewards.reasoning_steps`: step-structure rewards, from rewardkit."""

from rewardkit.functions.builtin import reasoning_steps_reward, sequence_reward

__all__ = ["reasoning_steps_reward", "sequence_reward"]
